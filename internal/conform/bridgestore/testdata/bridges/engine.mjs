// A workflow engine adapter over a fake engine behind the bridge protocol,
// in plain Node.js with no dependencies, with the in-memory run registry it
// records into. Workflow ids are the idempotency keys; statuses are named
// after Temporal's. Correct by default; each --bug flag breaks one rule:
//   --bug=terminated-is-running  TERMINATED maps onto running
//   --bug=guess-unknown          an unknown engine status maps onto running
//   --bug=start-ignores-key      every start makes a new workflow
//   --bug=ignores-cancel         sync does not pass cancel requests to the engine
//   --bug=drops-error            a failure is recorded without its error
import { randomUUID } from "node:crypto";
import { serve, bug, ResultError } from "./serve.mjs";

const ENGINE = "node-engine";

// ---- the run registry the adapter records into ----
const STATUSES = ["queued", "running", "waiting", "completed", "failed", "cancelled"];
const TERMINAL = new Set(["completed", "failed", "cancelled"]);
const runs = [];
const findRun = (ref) => runs.find((r) => r.id === ref) ?? runs.find((r) => r.externalId === ref) ?? null;
const runRegistry = {
  record({ run }) {
    if (!STATUSES.includes(run.status)) throw new Error(`unknown status ${JSON.stringify(run.status)}`);
    const now = new Date().toISOString();
    const error = run.error == null ? null : String(run.error).slice(0, 4000);
    let r = runs.find((x) => x.engine === run.engine && x.externalId === run.externalId);
    if (!r) {
      r = { id: randomUUID(), engine: run.engine, externalId: run.externalId, tenant: null, actor: null, attributes: {}, error: null, createdAt: now, startedAt: null, completedAt: null, cancelRequestedAt: null };
      runs.push(r);
    }
    Object.assign(r, { definition: run.definition, status: run.status, updatedAt: now });
    r.tenant ??= run.tenant ?? null;
    r.actor ??= run.actor ?? null;
    r.startedAt ??= run.startedAt ?? null;
    Object.assign(r.attributes, run.attributes ?? {});
    if (error !== null) r.error = error;
    if (run.completedAt) r.completedAt = run.completedAt;
    return { id: r.id };
  },
  get: ({ run }) => ({ run: findRun(run) }),
  list({ tenant, definition, status, limit = 50 } = {}) {
    const out = runs.filter((r) => (!tenant || r.tenant === tenant) && (!definition || r.definition === definition) && (!status || r.status === status));
    return { runs: out.reverse().slice(0, Math.min(Math.max(limit, 1), 500)) };
  },
  requestCancel({ run }) {
    const r = findRun(run);
    if (r && !TERMINAL.has(r.status)) r.cancelRequestedAt ??= new Date().toISOString();
    return { run: r };
  },
  purge: () => ({ purged: 0 }),
};

// ---- the engine adapter ----
const STATUS_MAP = {
  RUNNING: ["running", false],
  CONTINUED_AS_NEW: ["running", false],
  COMPLETED: ["completed", true],
  FAILED: ["failed", true],
  TIMED_OUT: ["failed", true],
  CANCELED: ["cancelled", true],
  TERMINATED: [bug === "terminated-is-running" ? "running" : "cancelled", true],
};
const mapStatus = (status) => {
  if (Object.hasOwn(STATUS_MAP, status)) return STATUS_MAP[status][0];
  if (bug === "guess-unknown") return "running";
  throw new ResultError("invalid_input", `unknown engine status ${JSON.stringify(status)}`);
};
const workflows = new Map(); // workflow id -> {runId, request, cancelAsked}
const byRun = new Map(); // registry id -> workflow

function record(wf, status, extra = {}) {
  const { request } = wf;
  return runRegistry.record({ run: { engine: ENGINE, externalId: wf.workflowId, definition: request.definition, status, tenant: request.tenant, actor: request.actor, ...extra } });
}

const workflowEngine = {
  identity: () => ({ apiVersion: 1, name: "nodeengine", engine: ENGINE }),
  statuses: () => ({ statuses: Object.entries(STATUS_MAP).map(([name, [, terminal]]) => ({ name, terminal })) }),
  mapStatus: ({ status }) => ({ status: mapStatus(status) }),
  start({ request }) {
    const workflowId = bug === "start-ignores-key" ? `${request.idempotencyKey}-${randomUUID()}` : request.idempotencyKey;
    const known = workflows.get(workflowId);
    if (known) return { runId: known.runId };
    const wf = { workflowId, request, cancelAsked: false };
    wf.runId = record(wf, "queued").id;
    workflows.set(workflowId, wf);
    byRun.set(wf.runId, wf);
    return { runId: wf.runId };
  },
  emit({ runId, event }) {
    const wf = byRun.get(runId);
    if (!wf) throw new ResultError("not_found", `no run ${runId}`);
    const status = mapStatus(event.status);
    const extra = { attributes: event.attributes };
    if (event.error && bug !== "drops-error") extra.error = event.error;
    if (status === "running" && event.at) extra.startedAt = event.at;
    if (TERMINAL.has(status) && event.at) extra.completedAt = event.at;
    record(wf, status, extra);
  },
  sync({ runId }) {
    const wf = byRun.get(runId);
    const run = findRun(runId);
    if (!wf || !run || !run.cancelRequestedAt || TERMINAL.has(run.status) || bug === "ignores-cancel") return;
    wf.cancelAsked = true; // the engine's cancel, then its CANCELED
    workflowEngine.emit({ runId, event: { status: "CANCELED" } });
  },
  engineCancelled: ({ runId }) => ({ cancelled: byRun.get(runId)?.cancelAsked === true }),
};

serve({
  label: "engine",
  name: "nodeengine",
  capabilities: { runRegistry: true, workflowEngine: true },
  groups: { workflowEngine, runRegistry },
});
