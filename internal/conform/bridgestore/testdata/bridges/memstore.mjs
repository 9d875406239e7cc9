// An in-memory StreamStore and run registry behind the bridge protocol
// (version 2, or 1 with --v1), in plain Node.js with no dependencies.
// Its streams expire as the streams block's do: an expired stream stays
// until a purge removes it. With --expiry=self they expire by themselves,
// as Redis keys with a TTL do: an expired stream is gone at once, its id
// opens as a new stream, and a purge removes only streams closed longer
// than its window (counting 0 when there are none); the bridge then
// declares streamStore.expiry "self". (--expiry=VALUE declares any other
// value as it is, to show how bsadapter takes it.)
// Correct by default; each --bug flag breaks one rule, so that the
// conformance suites can be shown to catch it:
//   --bug=overwrite         a retried append overwrites stored chunks
//   --bug=gaps              an append past next is accepted, leaving a gap
//   --bug=ignore-close      appends to a closed stream are accepted
//   --bug=leak-owners       every caller sees every stream
//   --bug=cancel-status     a cancel request sets the run's status to cancelled
//   --bug=hang-read         a read never answers (to watch cases time out)
//   --bug=racy-append       append counts, then pushes what was missing at that
//                           count in a later turn, like a store that makes two
//                           round trips; between them it waits until another
//                           append to the stream has counted too (or a quarter
//                           second), so racing appends meet however the
//                           machine schedules them
//   --bug=status-no-cancel  status always says cancelled: false
//   --bug=gap-before-closed append checks the gap before closed
//   --bug=vanish-expired    an expired stream vanishes at once, and purge
//                           never counts it, though the bridge does not
//                           declare streamStore.expiry "self"
//   --bug=never-expire      streams never expire: a purge removes only
//                           closed ones (with --expiry=self too)
//   --bug=purge-alive       purge also deletes streams created longer ago than
//                           the window, open or closed
//   --bug=no-page-clamp     a bounded read ignores the 10000 cap
//   --bug=live-batch        a live read delivers everything at close
//   --bug=abort-ignored     an aborted live read goes on delivering
//   --bug=kind-lost         status says kind "default" whatever the stream's
//   --bug=purge-young       the registry purges terminal runs of any age
//   --bug=runs-leak         every caller, anon too, reads every run
//   --bug=read-any-tenant   workflow.read in one tenant reads every tenant's runs
//   --bug=cancel-anyone     any caller's cancel request goes through
//   --v1                    speak protocol version 1 (no optional capabilities)
//   --no-callers            do not offer streamStore.callers nor runRegistry.callers
//   --no-grants             offer runRegistry.callers but not runRegistry.grant
//   --no-clock              do not offer the injected clock (cases wait)
//   --no-registry           declare only the StreamStore capability
import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";

const args = Object.fromEntries(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, "").split("=");
    return [k, v ?? true];
  }),
);
const bug = args.bug ?? "";
// selfExpiring: streams expire by themselves (--expiry=self).
const selfExpiring = args.expiry === "self";

const send = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");
const notify = (method, params) => send({ jsonrpc: "2.0", method, params });

// The injected clock: what this store calls now. clock.advance moves it.
let offsetMs = 0;
const now = () => Date.now() + offsetMs;
// meetRival is the racy append's wait between its count and its push:
// until another append to the same stream has counted as well, or a
// quarter second has passed (an append with no rival). Both then push what
// they counted as missing. A fixed pause would leave the race to the
// machine: on a loaded one the rival may come after it.
const rivals = new Map(); // stream id -> the release of the append waiting
const meetRival = (id) =>
  new Promise((resolve) => {
    const waiting = rivals.get(id);
    if (waiting) {
      rivals.delete(id);
      waiting();
      resolve();
      return;
    }
    const timer = setTimeout(() => {
      rivals.delete(id);
      resolve();
    }, 250);
    rivals.set(id, () => {
      clearTimeout(timer);
      resolve();
    });
  });

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
// expired says whether the stream's TTL has passed at t; in a store that
// never expires, never.
const expired = (st, t = now()) => bug !== "never-expire" && st.expiresAt < t;
// stored is the stream under id, or undefined. A store whose streams
// expire by themselves drops an expired one first, as Redis would have.
function stored(id) {
  const st = streams.get(id);
  if (st && (selfExpiring || bug === "vanish-expired") && expired(st)) {
    streams.delete(id);
    return undefined;
  }
  return st;
}
function find(id, caller) {
  const st = stored(id);
  return st && visible(st, caller) ? st : undefined;
}
const liveReads = new Map();

const streamStore = {
  callers: () => ({ supported: true }),
  identity: () => ({ apiVersion: 1, name: "memstore" }),
  open({ id, options = {} }) {
    if (stored(id)) return { created: false };
    const t = now();
    const ttl = options.ttlSeconds ?? 86400;
    streams.set(id, { owner: options.owner, kind: options.kind ?? "default", chunks: [], closedAt: null, cancelled: false, createdAt: t, expiresAt: t + ttl * 1000 });
    return { created: true };
  },
  async append({ id, fromIdx, chunks, caller }) {
    if (caller && caller.role !== "service_role") throw new StoreError("PERMISSION_DENIED", "only the service role may append");
    const st = stored(id);
    if (!st) throw new StoreError("STREAM_NOT_FOUND", `stream ${id} not found`);
    const gap = () => {
      if (fromIdx < 0 || (fromIdx > st.chunks.length && bug !== "gaps")) throw new StoreError("STREAM_GAP", `append at ${fromIdx} but next is ${st.chunks.length}`);
    };
    if (bug === "gap-before-closed") gap();
    if (st.closedAt !== null && bug !== "ignore-close") throw new StoreError("STREAM_CLOSED", `stream ${id} is closed`);
    gap();
    if (bug === "racy-append") {
      // Count, then push what was missing at that count, once a rival
      // has counted too.
      const have = st.chunks.length;
      await meetRival(id);
      st.chunks.push(...chunks.slice(Math.max(have - fromIdx, 0)));
      wake();
      return { next: st.chunks.length, cancelled: st.cancelled };
    }
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
  readPage({ id, fromIdx = 0, max = 1000, caller }) {
    const st = find(id, caller);
    const from = Math.max(fromIdx, 0);
    if (!st) return { found: false, chunks: [], next: from, done: true, cancelled: false };
    const limit = bug === "no-page-clamp" ? Math.max(max, 0) : Math.min(Math.max(max, 0), 10000);
    const chunks = st.chunks.slice(from, from + limit);
    const next = from + chunks.length;
    return { found: true, chunks, next, done: st.closedAt !== null && next >= st.chunks.length, cancelled: st.cancelled };
  },
  // A live read: chunks go out as notifications for the handle as they are
  // stored, then one end.
  readLive({ id, fromIdx = 0, handle, caller }) {
    const read = { next: Math.max(fromIdx, 0), done: false };
    const end = (aborted) => {
      read.done = true;
      waiters.delete(read.check);
      notify("streamStore.readEnd", { handle, aborted });
    };
    read.check = () => {
      if (read.done && bug !== "abort-ignored") return;
      const st = find(id, caller);
      if (!st) return read.done || end(false);
      const closed = st.closedAt !== null;
      if (st.chunks.length > read.next && (bug !== "live-batch" || closed)) {
        notify("streamStore.readChunks", { handle, fromIdx: read.next, chunks: st.chunks.slice(read.next) });
        read.next = st.chunks.length;
      }
      if (closed && !read.done) end(false);
    };
    read.abort = () => {
      if (read.done) return false;
      end(true);
      if (bug === "abort-ignored") waiters.add(read.check);
      return true;
    };
    liveReads.set(handle, read);
    waiters.add(read.check);
    read.check();
    return {};
  },
  abortRead({ handle }) {
    const read = liveReads.get(handle);
    return { aborted: read ? read.abort() : false };
  },
  status({ id, caller }) {
    const st = find(id, caller);
    if (!st) return { status: null };
    return {
      status: {
        next: st.chunks.length, closed: st.closedAt !== null, cancelled: bug === "status-no-cancel" ? false : st.cancelled,
        kind: bug === "kind-lost" ? "default" : st.kind, expiresAt: new Date(st.expiresAt).toISOString(),
      },
    };
  },
  isCancelled({ id, caller }) {
    return { cancelled: !!find(id, caller)?.cancelled };
  },
  close({ id }) {
    const st = stored(id);
    if (!st || st.closedAt !== null) return { closed: false };
    st.closedAt = now();
    wake();
    return { closed: true };
  },
  cancel({ id, caller }) {
    const st = stored(id);
    if (!st || st.closedAt !== null || st.cancelled) return { cancelled: false };
    if (caller && caller.role !== "service_role" && !(caller.role === "authenticated" && st.owner && st.owner === caller.sub)) return { cancelled: false };
    st.cancelled = true;
    wake();
    return { cancelled: true };
  },
  purge({ olderThanSeconds = 86400 } = {}) {
    const t = now();
    const cut = t - olderThanSeconds * 1000;
    let n = 0;
    for (const [id, st] of streams) {
      if ((selfExpiring || bug === "vanish-expired") && expired(st, t)) {
        // Gone by itself already: not the purge's to count.
        streams.delete(id);
        continue;
      }
      if (expired(st, t) || (st.closedAt !== null && st.closedAt < cut) || (bug === "purge-alive" && st.createdAt < cut)) {
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
  let us = now() * 1000;
  if (us <= lastMicros) us = lastMicros + 1;
  lastMicros = us;
  const base = new Date(Math.floor(us / 1000)).toISOString().slice(0, 19);
  return `${base}.${String(us % 1000000).padStart(6, "0")}Z`;
}
const micros = (iso) => {
  const [, frac = "0"] = iso.replace(/Z$/, "").split(".");
  return Date.parse(iso.slice(0, 19) + "Z") * 1000 + Number(frac.padEnd(6, "0").slice(0, 6));
};
const findRun = (ref, seen = () => true) => runs.find((r) => r.id === ref && seen(r)) ?? runs.find((r) => r.externalId === ref && seen(r)) ?? null;

// Callers of the registry (runRegistry.callers): no caller is the service
// role. A user reads the runs it is the actor of and those of tenants
// where it holds workflow.read; it may ask to cancel its own runs and
// those of tenants where it holds workflow.admin. anon is refused.
const grants = new Set();
const isService = (caller) => !caller || caller.role === "service_role";
const holds = (caller, tenant, permission) =>
  tenant !== null && (grants.has(`${caller.sub} ${tenant} ${permission}`) || (bug === "read-any-tenant" && permission === "workflow.read" && [...grants].some((g) => g.startsWith(`${caller.sub} `) && g.endsWith(" workflow.read"))));
function readsRun(caller, r) {
  if (isService(caller) || bug === "runs-leak") return true;
  return caller.role === "authenticated" && (r.actor === caller.sub || holds(caller, r.tenant, "workflow.read"));
}
function refuseAnon(caller) {
  if (caller?.role === "anon" && bug !== "runs-leak") throw new StoreError("PERMISSION_DENIED", "anon may not call the registry");
}

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
  get({ run, caller }) {
    refuseAnon(caller);
    return { run: findRun(run, (r) => readsRun(caller, r)) };
  },
  list({ tenant, definition, status, limit = 50, before, caller } = {}) {
    refuseAnon(caller);
    const max = Math.min(Math.max(limit, 1), 500);
    const out = runs
      .filter((r) => readsRun(caller, r))
      .filter((r) => (!tenant || r.tenant === tenant) && (!definition || r.definition === definition) && (!status || r.status === status) && (!before || micros(r.createdAt) < micros(before)))
      .sort((a, b) => micros(b.createdAt) - micros(a.createdAt));
    return { runs: out.slice(0, max) };
  },
  requestCancel({ run, caller }) {
    refuseAnon(caller);
    const r = findRun(run);
    if (!r) return { run: null };
    // The right to cancel is checked before whether the run is finished.
    if (!isService(caller) && bug !== "cancel-anyone" && r.actor !== caller.sub && !holds(caller, r.tenant, "workflow.admin")) {
      throw new StoreError("WORKFLOW_FORBIDDEN", "you may not cancel this run");
    }
    if (!TERMINAL.has(r.status)) {
      if (!r.cancelRequestedAt) r.cancelRequestedAt = nowISO();
      if (bug === "cancel-status") r.status = "cancelled";
    }
    return { run: r };
  },
  purge({ olderThanSeconds = 30 * 86400, batch = 1000 } = {}) {
    const cut = now() - olderThanSeconds * 1000;
    let n = 0;
    for (let i = runs.length - 1; i >= 0 && n < batch; i--) {
      if (TERMINAL.has(runs[i].status) && (Date.parse(runs[i].updatedAt) < cut || bug === "purge-young")) {
        runs.splice(i, 1);
        n++;
      }
    }
    return { purged: n };
  },
  grant({ user, tenant, permission }) {
    grants.add(`${user} ${tenant} ${permission}`);
    return {};
  },
};

// ---- protocol ----
const clock = {
  advance({ seconds }) {
    offsetMs += seconds * 1000;
    return { now: new Date(now()).toISOString() };
  },
};
const groups = { streamStore, runRegistry, clock };
let version = 1;
// What a version 2 bridge may leave out, by flag.
const optional = {
  "streamStore.identity": true, "streamStore.readPage": true, "streamStore.liveRead": true, "streamStore.statusDetails": true,
  "streamStore.callers": !args["no-callers"], "runRegistry.callers": !args["no-callers"], clock: !args["no-clock"],
};
const v2Only = new Set(["streamStore.identity", "streamStore.readPage", "streamStore.readLive", "streamStore.abortRead", "clock.advance", "runRegistry.grant"]);
// The capability a version 2 method belongs to, where it is not its own.
const capOf = { "clock.advance": "clock", "runRegistry.grant": "runRegistry.callers" };
async function handle(msg) {
  const { id, method, params } = msg;
  if (method === "initialize") {
    version = !args.v1 && params.protocolVersion >= 2 ? 2 : 1;
    const capabilities = { converter: false, streamStore: true, runRegistry: !args["no-registry"] };
    if (version === 2) Object.assign(capabilities, optional);
    if (version === 2 && args.expiry !== undefined) capabilities["streamStore.expiry"] = args.expiry;
    return { protocolVersion: version, adapter: { name: "memstore" + (bug ? "-" + bug : ""), format: "canonical" }, capabilities };
  }
  if (method === "shutdown") return null;
  const [group, name] = method.split(".");
  const fn = groups[group]?.[name];
  const declared = version === 2 ? optional[capOf[method] ?? method] !== false : !v2Only.has(method);
  if (!fn || !declared || (method === "streamStore.callers" && args["no-callers"]) || (group === "runRegistry" && args["no-registry"]) || (method === "runRegistry.grant" && args["no-grants"])) {
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
