// A workflow builder graph compiler behind the bridge protocol, in plain
// Node.js with no dependencies: it checks a better-supabase WorkflowGraph
// as upstream's validateGraph does and compiles it into a plan of nodes in
// topological order. Correct by default; each --bug flag breaks one rule:
//   --bug=lossy             the plan carries a Date, which JSON turns into a string
//   --bug=nondeterministic  the plan carries a build counter
//   --bug=mutates-input     compile reverses the caller's node list in place
//   --bug=accepts-cycles    a cyclic graph compiles
//   --bug=from-to           edges are read as {from, to}, not upstream's {source, target}
import { isDeepStrictEqual } from "node:util";
import { check } from "./graph.mjs";
import { serve, bug } from "./serve.mjs";

let builds = 0;

function compile(graph) {
  const ends = bug === "from-to" ? (e) => [e.from, e.to] : (e) => [e.source, e.target];
  const order = check(graph, { ends, acceptsCycles: bug === "accepts-cycles" });
  const nodes = {};
  for (const n of graph.nodes) {
    nodes[n.id] = {
      kind: n.kind,
      ...(n.step === undefined ? {} : { step: n.step }),
      config: structuredClone(n.config ?? {}),
      next: graph.edges.filter((e) => ends(e)[0] === n.id).map((e) => ({ edge: e.id, target: ends(e)[1], branch: e.branch ?? null })),
    };
  }
  const plan = { order, nodes };
  if (bug === "lossy") plan.compiledAt = new Date(0);
  if (bug === "nondeterministic") plan.build = ++builds;
  if (bug === "mutates-input") graph.nodes.reverse();
  return plan;
}

const graphCompiler = {
  identity: () => ({ apiVersion: 1, name: "nodegraph" }),
  compile({ graph }) {
    const compiled = compile(graph);
    return { compiled, lossless: isDeepStrictEqual(compiled, JSON.parse(JSON.stringify(compiled))), graphAfter: graph };
  },
};

serve({
  label: "graph",
  name: "nodegraph",
  capabilities: { graphCompiler: true },
  groups: { graphCompiler },
});
