// A workflow builder runtime behind the bridge protocol, in plain Node.js
// with no dependencies: a graph walk in the manner of executeGraph, and a
// runtime that records each durable step, timer and signal in a trace.
// Correct by default; each --bug flag breaks one rule:
//   --bug=retries-step          every step runs twice (attempts 1 and 2)
//   --bug=skips-sleep           a sleep starts no durable timer
//   --bug=signal-by-node        an approval's signal is named by the node id alone
//   --bug=denied-continues      the edges out of a denied approval are followed
//   --bug=runs-both-branches    both branches of a condition run
//   --bug=outputs-miss-trigger  the returned outputs leave out the trigger's
import { serve, bug } from "./serve.mjs";


// The runtime: what the adapter maps each node kind onto.
function makeRuntime(request, trace) {
  return {
    async step(node, results) {
      const attempts = bug === "retries-step" ? 2 : 1;
      for (let attempt = 1; attempt <= attempts; attempt++) {
        trace.push({ type: "step", nodeId: node.id, step: node.config?.step, config: structuredClone(node.config ?? {}), input: structuredClone(request.input ?? {}), results: structuredClone(results), runKey: request.runKey, attempt });
      }
      return { node: node.id, step: node.config?.step };
    },
    async sleep(node) {
      const seconds = node.config?.seconds ?? 0;
      if (bug !== "skips-sleep") trace.push({ type: "sleep", nodeId: node.id, seconds });
      return { slept: seconds };
    },
    async approval(node) {
      const signal = bug === "signal-by-node" ? node.id : `${request.runKey}:${node.id}`;
      trace.push({ type: "signal", nodeId: node.id, signal });
      return { approved: request.approvals?.[node.id] === true };
    },
  };
}

// The walk: a node runs once every edge into it is decided and one of them
// is active; a condition activates its matching branch, a denied approval
// none of its edges.
async function executeGraph(graph, input, runtime) {
  const outputs = {};
  const decided = new Set();
  const active = new Set();
  const done = new Set();
  for (let progress = true; progress; ) {
    progress = false;
    for (const node of graph.nodes) {
      if (done.has(node.id)) continue;
      const into = graph.edges.map((e, i) => [e, i]).filter(([e]) => e.to === node.id);
      if (!into.every(([, i]) => decided.has(i))) continue;
      const on = node.kind === "trigger" || into.some(([, i]) => active.has(i));
      done.add(node.id);
      progress = true;
      let out;
      if (on) {
        if (node.kind === "trigger") out = input;
        else if (node.kind === "step") out = await runtime.step(node, outputs);
        else if (node.kind === "sleep") out = await runtime.sleep(node);
        else if (node.kind === "approval") out = await runtime.approval(node);
        else if (node.kind === "condition") out = input[node.config.field] === node.config.equals;
        if (node.kind !== "trigger" || bug !== "outputs-miss-trigger") outputs[node.id] = out;
      }
      graph.edges.forEach((e, i) => {
        if (e.from !== node.id) return;
        decided.add(i);
        if (!on) return;
        if (node.kind === "condition") {
          if (e.branch === String(out) || bug === "runs-both-branches") active.add(i);
        } else if (node.kind === "approval") {
          if (out.approved || bug === "denied-continues") active.add(i);
        } else active.add(i);
      });
    }
  }
  return outputs;
}

const builderRuntime = {
  identity: () => ({ apiVersion: 1, name: "nodebuilder" }),
  async execute({ request }) {
    const trace = [];
    const outputs = await executeGraph(request.graph, request.input ?? {}, makeRuntime(request, trace));
    return { outputs, trace };
  },
};

serve({
  label: "builder",
  name: "nodebuilder",
  capabilities: { builderRuntime: true },
  groups: { builderRuntime },
});
