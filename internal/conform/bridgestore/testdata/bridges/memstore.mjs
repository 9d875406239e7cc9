// An in-memory StreamStore and run registry behind the bridge protocol, in
// plain Node.js with no dependencies. Correct by default; each --bug flag
// breaks one rule, so that the conformance suites can be shown to catch it:
//   --bug=overwrite       a retried append overwrites stored chunks
//   --bug=gaps            an append past next is accepted, leaving a gap
//   --bug=ignore-close    appends to a closed stream are accepted
//   --bug=leak-owners     every caller sees every stream
//   --bug=cancel-status   a cancel request sets the run's status to cancelled
//   --bug=hang-read       a read never answers (to watch cases time out)
//   --no-callers          do not offer streamStore.callers
//   --no-registry         declare only the StreamStore capability
import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";

const args = Object.fromEntries(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, "").split("=");
    return [k, v ?? true];
  }),
);
const bug = args.bug ?? "";

const send = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");

class StoreError extends Error {
  constructor(hint, message) {
    super(message);
    this.hint = hint;
  }
}

// ---- streams ----
const streams = new Map();
const waiters = new Set();
const wake = () => {
  for (const w of [...waiters]) w();
};

function visible(st, caller) {
  if (bug === "leak-owners" || !caller || caller.role === "service_role") return true;
  return caller.role === "authenticated" && st.owner && st.owner === caller.sub;
}
function find(id, caller) {
  const st = streams.get(id);
  return st && visible(st, caller) ? st : undefined;
}

const streamStore = {
  callers: () => ({ supported: true }),
  open({ id, options = {} }) {
    if (streams.has(id)) return { created: false };
    const now = Date.now();
    const ttl = options.ttlSeconds ?? 86400;
    streams.set(id, { owner: options.owner, kind: options.kind ?? "default", chunks: [], closedAt: null, cancelled: false, createdAt: now, expiresAt: now + ttl * 1000 });
    return { created: true };
  },
  append({ id, fromIdx, chunks, caller }) {
    if (caller && caller.role !== "service_role") throw new StoreError("PERMISSION_DENIED", "only the service role may append");
    const st = streams.get(id);
    if (!st) throw new StoreError("STREAM_NOT_FOUND", `stream ${id} not found`);
    if (st.closedAt !== null && bug !== "ignore-close") throw new StoreError("STREAM_CLOSED", `stream ${id} is closed`);
    if (fromIdx < 0 || (fromIdx > st.chunks.length && bug !== "gaps")) throw new StoreError("STREAM_GAP", `append at ${fromIdx} but next is ${st.chunks.length}`);
    chunks.forEach((c, i) => {
      const at = fromIdx + i;
      if (at >= st.chunks.length || st.chunks[at] === undefined || bug === "overwrite") st.chunks[at] = c;
    });
    wake();
    return { next: st.chunks.length, cancelled: st.cancelled };
  },
  read({ id, fromIdx = 0, timeoutMs = 10000, caller }) {
    if (bug === "hang-read") return new Promise(() => {});
    return new Promise((resolve, reject) => {
      const check = () => {
        const st = find(id, caller);
        if (!st || st.closedAt !== null) {
          waiters.delete(check);
          clearTimeout(timer);
          resolve({ chunks: st ? st.chunks.slice(Math.max(fromIdx, 0)).map((c) => c ?? "") : [] });
          return true;
        }
        return false;
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new StoreError("READ_TIMEOUT", `stream ${id} was not closed within ${timeoutMs} ms`));
      }, timeoutMs);
      if (!check()) waiters.add(check);
    });
  },
  status({ id, caller }) {
    const st = find(id, caller);
    return { status: st ? { next: st.chunks.length, closed: st.closedAt !== null, cancelled: st.cancelled } : null };
  },
  isCancelled({ id, caller }) {
    return { cancelled: !!find(id, caller)?.cancelled };
  },
  close({ id }) {
    const st = streams.get(id);
    if (!st || st.closedAt !== null) return { closed: false };
    st.closedAt = Date.now();
    wake();
    return { closed: true };
  },
  cancel({ id, caller }) {
    const st = streams.get(id);
    if (!st || st.closedAt !== null || st.cancelled) return { cancelled: false };
    if (caller && caller.role !== "service_role" && !(caller.role === "authenticated" && st.owner && st.owner === caller.sub)) return { cancelled: false };
    st.cancelled = true;
    wake();
    return { cancelled: true };
  },
  purge({ olderThanSeconds = 86400 } = {}) {
    const now = Date.now();
    let n = 0;
    for (const [id, st] of streams) {
      if (st.expiresAt < now || (st.closedAt !== null && st.closedAt < now - olderThanSeconds * 1000)) {
        streams.delete(id);
        n++;
      }
    }
    wake();
    return { purged: n };
  },
};

// ---- run registry ----
const STATUSES = ["queued", "running", "waiting", "completed", "failed", "cancelled"];
const TERMINAL = new Set(["completed", "failed", "cancelled"]);
const runs = [];
// Times are strictly increasing, in microseconds, so that newest-first
// order and paging by createdAt are well defined.
let lastMicros = 0;
function nowISO() {
  let us = Date.now() * 1000;
  if (us <= lastMicros) us = lastMicros + 1;
  lastMicros = us;
  const base = new Date(Math.floor(us / 1000)).toISOString().slice(0, 19);
  return `${base}.${String(us % 1000000).padStart(6, "0")}Z`;
}
const micros = (iso) => {
  const [, frac = "0"] = iso.replace(/Z$/, "").split(".");
  return Date.parse(iso.slice(0, 19) + "Z") * 1000 + Number(frac.padEnd(6, "0").slice(0, 6));
};
const findRun = (ref) => runs.find((r) => r.id === ref) ?? runs.find((r) => r.externalId === ref) ?? null;

const runRegistry = {
  record({ run }) {
    if (!STATUSES.includes(run.status)) throw new StoreError("", `unknown status ${JSON.stringify(run.status)}`);
    const now = nowISO();
    const error = run.error == null ? null : [...run.error].slice(0, 4000).join("");
    let r = runs.find((x) => x.engine === run.engine && x.externalId === run.externalId);
    if (r) {
      r.definition = run.definition;
      r.status = run.status;
      r.tenant ??= run.tenant ?? null;
      r.actor ??= run.actor ?? null;
      r.startedAt ??= run.startedAt ?? null;
      Object.assign(r.attributes, run.attributes ?? {});
      if (error !== null) r.error = error;
      if (run.completedAt) r.completedAt = run.completedAt;
      r.updatedAt = now;
      return { id: r.id };
    }
    r = {
      id: randomUUID(), engine: run.engine, externalId: run.externalId, definition: run.definition, status: run.status,
      tenant: run.tenant ?? null, actor: run.actor ?? null, attributes: { ...(run.attributes ?? {}) }, error,
      createdAt: now, updatedAt: now, startedAt: run.startedAt ?? null, completedAt: run.completedAt ?? null, cancelRequestedAt: null,
    };
    runs.push(r);
    return { id: r.id };
  },
  get({ run }) {
    return { run: findRun(run) };
  },
  list({ tenant, definition, status, limit = 50, before } = {}) {
    const max = Math.min(Math.max(limit, 1), 500);
    const out = runs
      .filter((r) => (!tenant || r.tenant === tenant) && (!definition || r.definition === definition) && (!status || r.status === status) && (!before || micros(r.createdAt) < micros(before)))
      .sort((a, b) => micros(b.createdAt) - micros(a.createdAt));
    return { runs: out.slice(0, max) };
  },
  requestCancel({ run }) {
    const r = findRun(run);
    if (!r) return { run: null };
    if (!TERMINAL.has(r.status)) {
      if (!r.cancelRequestedAt) r.cancelRequestedAt = nowISO();
      if (bug === "cancel-status") r.status = "cancelled";
    }
    return { run: r };
  },
  purge({ olderThanSeconds = 30 * 86400, batch = 1000 } = {}) {
    const cut = Date.now() - olderThanSeconds * 1000;
    let n = 0;
    for (let i = runs.length - 1; i >= 0 && n < batch; i--) {
      if (TERMINAL.has(runs[i].status) && Date.parse(runs[i].updatedAt) < cut) {
        runs.splice(i, 1);
        n++;
      }
    }
    return { purged: n };
  },
};

// ---- protocol ----
const groups = { streamStore, runRegistry };
async function handle(msg) {
  const { id, method, params } = msg;
  if (method === "initialize") {
    return { protocolVersion: 1, adapter: { name: "memstore" + (bug ? "-" + bug : ""), format: "canonical" }, capabilities: { converter: false, streamStore: true, runRegistry: !args["no-registry"] } };
  }
  if (method === "shutdown") return null;
  const [group, name] = method.split(".");
  const fn = groups[group]?.[name];
  if (!fn || (method === "streamStore.callers" && args["no-callers"]) || (group === "runRegistry" && args["no-registry"])) {
    const e = new Error(`method not found: ${method}`);
    e.code = -32601;
    throw e;
  }
  return fn(params ?? {});
}

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on("line", (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    process.stderr.write(`memstore: not JSON: ${line.slice(0, 80)}\n`);
    return;
  }
  Promise.resolve()
    .then(() => handle(msg))
    .then(
      (result) => send({ jsonrpc: "2.0", id: msg.id, result: result ?? null }),
      (err) =>
        send({
          jsonrpc: "2.0",
          id: msg.id,
          error: { code: err.code ?? -32000, message: err.message, data: err instanceof StoreError && err.hint ? { hint: err.hint } : undefined },
        }),
    );
});
rl.on("close", () => process.exit(0));
