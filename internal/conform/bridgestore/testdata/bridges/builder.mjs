// A workflow builder runtime behind the bridge protocol, in plain Node.js
// with no dependencies: a graph walk in the manner of better-supabase's
// executeGraph over a WorkflowGraph, and a GraphRuntime ({runKey,
// step(call), sleep(ms), approval(token, node)}) that records each step
// call, durable timer and hook wait in a trace. Correct by default; each
// --bug flag breaks one rule:
//   --bug=retries-step          every step is called twice
//   --bug=skips-sleep           a sleep starts no durable timer
//   --bug=signal-by-node        an approval waits on a hook named by the node id alone
//   --bug=strict-approval       only a payload with approved: true approves
//   --bug=denied-stops          an edge without a branch out of a condition or an
//                               approval is followed only when the outcome is true
//   --bug=runs-both-branches    both branches of a condition run
//   --bug=outputs-miss-trigger  the outputs leave out the trigger's
//   --bug=step-in-config        a step's name is read from config.step, not the node's step
import { approves, check, durationMs, test } from "./graph.mjs";
import { serve, bug } from "./serve.mjs";

// makeRuntime is the GraphRuntime for one request: the bridge plays the
// engine (each durable step runs once, timers and hooks are recorded, a
// hook is resumed with the request's payload for its node) and the step
// library (every step returns {node, step}).
function makeRuntime(request, trace) {
  return {
    runKey: request.runKey,
    async step(call) {
      for (let i = 0; i < (bug === "retries-step" ? 2 : 1); i++) trace.push({ type: "step", ...structuredClone(call) });
      return { node: call.node, step: call.step };
    },
    async sleep(ms) {
      if (bug !== "skips-sleep") trace.push({ type: "sleep", ms });
    },
    async approval(token, node) {
      trace.push({ type: "approval", token });
      return request.approvals?.[node] ?? null;
    },
  };
}

// executeGraph runs the nodes in topological order, each once an edge into
// it is active: its source ran and, out of a condition or an approval, the
// edge has no branch or the branch of the outcome.
async function executeGraph(graph, input, runtime) {
  const order = check(graph);
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const results = {};
  const outcome = new Map();
  const active = (e) => {
    if (!outcome.has(e.source)) return false;
    const took = outcome.get(e.source);
    const kind = byId.get(e.source).kind;
    if (kind === "condition" && bug === "runs-both-branches") return true;
    if (e.branch === undefined) return took || bug !== "denied-stops";
    return e.branch === String(took);
  };
  for (const id of order) {
    const node = byId.get(id);
    if (node.kind !== "trigger" && !graph.edges.some((e) => e.target === id && active(e))) continue;
    let output;
    let took = true;
    switch (node.kind) {
      case "trigger":
        output = input;
        break;
      case "step": {
        const step = bug === "step-in-config" ? node.config?.step : node.step;
        output = (await runtime.step({ node: id, step, config: node.config ?? {}, input, results: { ...results }, runKey: runtime.runKey })) ?? null;
        break;
      }
      case "sleep":
        await runtime.sleep(durationMs(node.config?.duration));
        output = null;
        break;
      case "approval":
        output = (await runtime.approval(`${runtime.runKey}:${id}`, id)) ?? null;
        took = bug === "strict-approval" ? output?.approved === true : approves(output);
        break;
      case "condition":
        output = took = test(node.config, { input, results });
        break;
    }
    if (node.kind !== "trigger" || bug !== "outputs-miss-trigger") results[id] = output;
    outcome.set(id, took);
  }
  return results;
}

const builderRuntime = {
  identity: () => ({ apiVersion: 1, name: "nodebuilder" }),
  async execute({ request }) {
    const trace = [];
    const runtime = makeRuntime(request, trace);
    if (bug === "signal-by-node") {
      const wait = runtime.approval;
      runtime.approval = (_token, node) => wait(node, node);
    }
    const outputs = await executeGraph(request.graph, request.input ?? {}, runtime);
    return { outputs, trace };
  },
};

serve({
  label: "builder",
  name: "nodebuilder",
  capabilities: { builderRuntime: true },
  groups: { builderRuntime },
});
