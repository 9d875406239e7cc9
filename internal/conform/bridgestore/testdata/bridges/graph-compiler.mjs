// A workflow builder graph compiler behind the bridge protocol, in plain
// Node.js with no dependencies: it checks a graph against the contract and
// compiles it into a plan of nodes in topological order. Correct by
// default; each --bug flag breaks one rule:
//   --bug=lossy             the plan carries a Date, which JSON turns into a string
//   --bug=nondeterministic  the plan carries a build counter
//   --bug=mutates-input     compile reverses the caller's node list in place
//   --bug=accepts-cycles    a cyclic graph compiles
import { isDeepStrictEqual } from "node:util";
import { serve, bug, ResultError } from "./serve.mjs";

const KINDS = ["trigger", "step", "sleep", "approval", "condition"];

const invalid = (message) => new ResultError("invalid_input", message);

let builds = 0;

function compile(graph) {
  const byId = new Map();
  for (const n of graph.nodes ?? []) {
    if (!n.id || byId.has(n.id)) throw invalid(`node id ${JSON.stringify(n.id)} is empty or used twice`);
    if (!KINDS.includes(n.kind)) throw invalid(`node ${n.id} has unknown kind ${JSON.stringify(n.kind)}`);
    byId.set(n.id, n);
  }
  const triggers = [...byId.values()].filter((n) => n.kind === "trigger").length;
  if (triggers !== 1) throw invalid(`a graph has exactly one trigger, this one has ${triggers}`);
  const indegree = new Map([...byId.keys()].map((id) => [id, 0]));
  for (const e of graph.edges ?? []) {
    const from = byId.get(e.from);
    const to = byId.get(e.to);
    if (!from || !to) throw invalid(`edge ${e.from} -> ${e.to} names a missing node`);
    if (to.kind === "trigger") throw invalid(`edge ${e.from} -> ${e.to} leads into the trigger`);
    if (from.kind === "condition" && e.branch !== "true" && e.branch !== "false") throw invalid(`edge ${e.from} -> ${e.to} out of a condition names no branch`);
    indegree.set(e.to, indegree.get(e.to) + 1);
  }
  const order = [];
  const ready = [...byId.keys()].filter((id) => indegree.get(id) === 0);
  while (ready.length) {
    const id = ready.shift();
    order.push(id);
    for (const e of graph.edges ?? []) {
      if (e.from !== id) continue;
      indegree.set(e.to, indegree.get(e.to) - 1);
      if (indegree.get(e.to) === 0) ready.push(e.to);
    }
  }
  if (order.length !== byId.size && bug !== "accepts-cycles") throw invalid("the graph has a cycle");
  const nodes = {};
  for (const n of byId.values()) {
    nodes[n.id] = {
      kind: n.kind,
      config: { ...(n.config ?? {}) },
      next: (graph.edges ?? []).filter((e) => e.from === n.id).map((e) => ({ to: e.to, branch: e.branch ?? "" })),
    };
  }
  const plan = { definition: graph.id, order, nodes };
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
