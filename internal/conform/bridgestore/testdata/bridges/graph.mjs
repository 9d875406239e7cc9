// The rules of better-supabase's WorkflowGraph that the graph compiler and
// the builder runtime bridges share: what makes a graph valid (the checks
// of upstream's validateGraph), the order its nodes run in, a sleep's
// duration, a condition's test and an approval's decision. A graph is
// {nodes: [{id, kind, step?, config?, label?, position?}], edges: [{id,
// source, target, branch?}]}.
import { isDeepStrictEqual } from "node:util";
import { ResultError } from "./serve.mjs";

export const KINDS = ["trigger", "step", "sleep", "approval", "condition"];

const OPS = ["equals", "notEquals", "exists", "truthy", "greaterThan", "lessThan", "contains"];
const UNITS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

const invalid = (message) => new ResultError("invalid_input", message);

// durationMs reads a sleep's config.duration: a positive number of
// milliseconds or a whole number with a unit ("30s", "5m", "2h", "1d");
// undefined when it is neither.
export function durationMs(value) {
  if (typeof value === "number") return Number.isFinite(value) && value > 0 ? Math.round(value) : undefined;
  const m = typeof value === "string" ? /^(\d+)(ms|s|m|h|d)$/.exec(value.trim()) : null;
  const ms = m ? Number(m[1]) * UNITS[m[2]] : 0;
  return ms > 0 ? ms : undefined;
}

// isCondition reports whether a condition's config is a test {path, op,
// value?} on the run's input or results.
export const isCondition = (config) =>
  typeof config?.path === "string" && /^(input|results)(\.[^.]+)*$/.test(config.path) && OPS.includes(config.op);

// test evaluates a condition's config on scope {input, results}.
export function test(config, scope) {
  const [root, ...keys] = config.path.split(".");
  let actual = scope[root];
  for (const key of keys) actual = actual !== null && typeof actual === "object" ? actual[Array.isArray(actual) ? Number(key) : key] : undefined;
  const want = config.value;
  switch (config.op) {
    case "equals": return isDeepStrictEqual(actual, want);
    case "notEquals": return !isDeepStrictEqual(actual, want);
    case "exists": return actual !== undefined && actual !== null;
    case "truthy": return Boolean(actual);
    case "greaterThan": return typeof actual === "number" && typeof want === "number" && actual > want;
    case "lessThan": return typeof actual === "number" && typeof want === "number" && actual < want;
    case "contains":
      if (typeof actual === "string") return typeof want === "string" && actual.includes(want);
      return Array.isArray(actual) && actual.some((item) => isDeepStrictEqual(item, want));
  }
  return false;
}

// approves is an approval's decision: every payload but one with
// approved: false.
export const approves = (payload) => !(payload !== null && typeof payload === "object" && payload.approved === false);

// check refuses (invalid_input) a graph upstream's validateGraph refuses
// and returns its node ids in topological order, the graph's own order
// among nodes ready together. ends reads an edge's source and target;
// acceptsCycles leaves the nodes on a cycle out of the order instead of
// refusing the graph (a mutant's fault).
export function check(graph, { ends = (e) => [e.source, e.target], acceptsCycles = false } = {}) {
  if (!Array.isArray(graph?.nodes) || !Array.isArray(graph?.edges)) throw invalid("a graph is {nodes: [...], edges: [...]}");
  const byId = new Map();
  let triggers = 0;
  for (const n of graph.nodes) {
    if (typeof n?.id !== "string" || !/^[A-Za-z0-9_-]{1,100}$/.test(n.id)) throw invalid(`node id ${JSON.stringify(n?.id)} is not 1 to 100 letters, digits, _ or -`);
    if (byId.has(n.id)) throw invalid(`node id ${JSON.stringify(n.id)} is used twice`);
    if (!KINDS.includes(n.kind)) throw invalid(`node ${n.id} has unknown kind ${JSON.stringify(n.kind)}`);
    if (n.kind === "trigger") triggers++;
    if (n.kind === "step" && (typeof n.step !== "string" || n.step === "")) throw invalid(`step node ${n.id} names no step`);
    if (n.kind === "sleep" && durationMs(n.config?.duration) === undefined) throw invalid(`sleep node ${n.id} has no valid duration`);
    if (n.kind === "condition" && !isCondition(n.config)) throw invalid(`condition node ${n.id} has no valid test`);
    byId.set(n.id, n);
  }
  if (triggers !== 1) throw invalid(`a graph has exactly one trigger, this one has ${triggers}`);
  const indegree = new Map([...byId.keys()].map((id) => [id, 0]));
  const edgeIds = new Set();
  for (const e of graph.edges) {
    const [s, t] = ends(e);
    const source = byId.get(s);
    const target = byId.get(t);
    if (!source || !target) throw invalid(`edge ${e.id} (${s} -> ${t}) names a missing node`);
    if (edgeIds.has(e.id)) throw invalid(`edge id ${JSON.stringify(e.id)} is used twice`);
    if (e.branch !== undefined && e.branch !== "true" && e.branch !== "false") throw invalid(`edge ${e.id} has the branch ${JSON.stringify(e.branch)}, not "true" or "false"`);
    if (e.branch !== undefined && source.kind !== "condition" && source.kind !== "approval") throw invalid(`edge ${e.id} branches out of a ${source.kind} node`);
    if (target.kind === "trigger") throw invalid(`edge ${e.id} leads into the trigger`);
    edgeIds.add(e.id);
    indegree.set(t, indegree.get(t) + 1);
  }
  const order = [];
  const ready = [...byId.keys()].filter((id) => indegree.get(id) === 0);
  while (ready.length) {
    const id = ready.shift();
    order.push(id);
    for (const e of graph.edges) {
      const [s, t] = ends(e);
      if (s !== id) continue;
      indegree.set(t, indegree.get(t) - 1);
      if (indegree.get(t) === 0) ready.push(t);
    }
  }
  if (order.length !== byId.size && !acceptsCycles) throw invalid("the graph has a cycle");
  return order;
}
