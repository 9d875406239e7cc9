// A bridge that wraps any Workflow SDK World behind the bridge protocol's
// world methods, in plain Node.js. It imports the module that makes the
// World and calls its factory:
//   --module=SPEC     a package name (found in node_modules under --from)
//                     or a path to the module's file
//   --from=DIR        where a package name is looked up (default: the cwd)
//   --factory=NAME    the module's export that makes a World (default
//                     createWorld; "default" for the default export)
//   --options=JSON    the factory's argument; the strings "$PORT" (the
//                     port of this bridge's queue server, as a number) and
//                     "$DATA_DIR" (a fresh folder, removed at exit) are
//                     replaced wherever they appear as a whole value
// The queue handlers the World's createQueueHandler makes for the two
// default prefixes are served over HTTP on that port (POST .../flow and
// .../step, as the SDK routes them) and record what they are handed, which
// world.deliveries reads. Each --bug flag breaks one rule in the wrapper,
// so that the world suite can be shown to catch it on any World:
//   --bug=cursor-ignored        the list methods drop the cursor
//   --bug=desc-ignored          events.list reads oldest first whatever sortOrder says
//   --bug=resolve-none-ignored  reads drop resolveData: payloads always come back
//   --bug=live-read-snapshot    streams.get answers what is written now and ends
//   --bug=wrong-attempt         the handlers record attempt 0
import { createServer } from "node:http";
import { mkdtempSync, readFileSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createInterface } from "node:readline";

const args = Object.fromEntries(
  process.argv.slice(2).map((a) => {
    const i = a.indexOf("=");
    return i < 0 ? [a.replace(/^--/, ""), true] : [a.slice(2, i), a.slice(i + 1)];
  }),
);
const bug = args.bug ?? "";
const fail = (msg) => {
  process.stderr.write(`world.mjs: ${msg}\n`);
  process.exit(2);
};
if (!args.module) fail("--module=SPEC is required: the package or file that makes the World (e.g. --module=@workflow/world-local)");

// resolveModule finds the file a module specifier names: a path, or a
// package's ESM entry under --from's node_modules.
function resolveModule(spec, from) {
  if (spec.startsWith(".") || path.isAbsolute(spec)) return path.resolve(from, spec);
  for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
    const pkgDir = path.join(dir, "node_modules", spec);
    if (existsSync(path.join(pkgDir, "package.json"))) {
      const pkg = JSON.parse(readFileSync(path.join(pkgDir, "package.json"), "utf8"));
      let entry = pkg.exports?.["."] ?? pkg.exports ?? pkg.module ?? pkg.main ?? "index.js";
      while (entry && typeof entry === "object") entry = entry.import ?? entry.default ?? entry.node;
      if (typeof entry !== "string") fail(`--module=${spec}: the package's exports name no import entry`);
      return path.join(pkgDir, entry);
    }
    if (path.dirname(dir) === dir) fail(`--module=${spec}: no node_modules/${spec} under ${from} or above it (install it, or pass --from=DIR)`);
  }
}

const dataDirs = [];
const freshDir = () => {
  const d = mkdtempSync(path.join(tmpdir(), "bsadapter-world-"));
  dataDirs.push(d);
  return d;
};
let options;
try {
  options = args.options ? JSON.parse(args.options) : {};
} catch (e) {
  fail(`--options is not JSON: ${e.message}`);
}
// stdout carries the protocol only. A World that logs there (world-postgres
// writes its queue worker's warnings straight to process.stdout) has its
// lines sent to stderr; the protocol writes through the real stdout.
const protocolWrite = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => process.stderr.write(chunk, ...rest);
for (const name of ["log", "info", "debug", "trace", "dir", "table"]) console[name] = console.error;
const mod = await import(pathToFileURL(resolveModule(args.module, args.from ?? process.cwd())).href);
const factoryName = args.factory ?? "createWorld";
const factory = mod[factoryName];
if (typeof factory !== "function") fail(`--module=${args.module} exports no function ${factoryName} (pass --factory=NAME)`);

// ---- the queue handlers' server ----
const deliveries = new Map(); // queueName -> [delivery]
let waiters = [];
const wake = () => {
  const ws = waiters;
  waiters = [];
  for (const w of ws) w();
};
const record = (message, meta) => {
  const list = deliveries.get(meta.queueName) ?? [];
  list.push({ message, queueName: meta.queueName, messageId: meta.messageId, attempt: bug === "wrong-attempt" ? 0 : meta.attempt });
  deliveries.set(meta.queueName, list);
  wake();
};
let routes = {};
const server = createServer(async (req, res) => {
  const parts = [];
  for await (const p of req) parts.push(p);
  const handler = req.url.endsWith("/flow") ? routes.flow : req.url.endsWith("/step") ? routes.step : undefined;
  if (!handler) {
    res.writeHead(404).end();
    return;
  }
  try {
    const request = new Request(`http://localhost${req.url}`, { method: req.method, headers: req.headers, body: Buffer.concat(parts) });
    const response = await handler(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  } catch (e) {
    res.writeHead(500).end(String(e));
  }
});
await new Promise((resolve) => server.listen(0, resolve));
const port = server.address().port;

// makeWorld calls the factory with the options, "$PORT" and "$DATA_DIR"
// replaced.
const substitute = (v, dir) =>
  v === "$PORT" ? port : v === "$DATA_DIR" ? dir : Array.isArray(v) ? v.map((x) => substitute(x, dir)) : v && typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substitute(x, dir)])) : v;
const makeWorld = async () => {
  const w = await factory(substitute(options, freshDir()));
  await w.start?.();
  return w;
};
const world = await makeWorld();
routes = {
  flow: world.createQueueHandler("__wkf_workflow_", async (m, meta) => record(m, meta)),
  step: world.createQueueHandler("__wkf_step_", async (m, meta) => record(m, meta)),
};

// ---- the world methods ----
const b64 = (u8) => Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength).toString("base64");
const page = (p) => {
  const out = { ...(p ?? {}) };
  if (bug === "cursor-ignored") delete out.cursor;
  return Object.keys(out).length ? out : undefined;
};
const resolve = (r) => (bug === "resolve-none-ignored" ? undefined : r);
const streamRead = async ({ runId, name, startIndex, timeoutMs }) => {
  const chunks = [];
  if (bug === "live-read-snapshot") {
    const p = await world.streams.getChunks(runId, name, { limit: 1000 });
    const all = p.data.map((c) => b64(c.data));
    const from = startIndex === undefined ? 0 : startIndex < 0 ? Math.max(0, all.length + startIndex) : startIndex;
    return { chunks: all.slice(from), ended: true };
  }
  const reader = (await world.streams.get(runId, name, startIndex)).getReader();
  let timer;
  const timeout = new Promise((r) => (timer = setTimeout(() => r("timeout"), timeoutMs ?? 8000)));
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), timeout]);
      if (next === "timeout") {
        await reader.cancel().catch(() => {});
        return { chunks, ended: false };
      }
      if (next.done) return { chunks, ended: true };
      chunks.push(b64(next.value));
    }
  } finally {
    clearTimeout(timer);
  }
};
const methods = {
  identity: async () => ({ specVersion: world.specVersion, deploymentId: await world.getDeploymentId() }),
  createEvent: ({ runId, event, resolveData }) => world.events.create(runId ?? null, withDates(event), resolveData ? { resolveData: resolve(resolveData) } : undefined),
  getEvent: async ({ runId, eventId, resolveData }) => ({ event: await world.events.get(runId, eventId, { resolveData: resolve(resolveData) }) }),
  listEvents: ({ runId, pagination, resolveData }) => {
    const p = page(pagination);
    if (bug === "desc-ignored" && p) p.sortOrder = "asc";
    return world.events.list({ runId, pagination: p, resolveData: resolve(resolveData) });
  },
  listEventsByCorrelationId: ({ correlationId, pagination, resolveData }) =>
    world.events.listByCorrelationId({ correlationId, pagination: page(pagination), resolveData: resolve(resolveData) }),
  getRun: async ({ runId, resolveData }) => ({ run: await world.runs.get(runId, { resolveData: resolve(resolveData) }) }),
  listRuns: ({ workflowName, status, pagination, resolveData }) => world.runs.list({ workflowName, status, pagination: page(pagination), resolveData: resolve(resolveData) }),
  getStep: async ({ runId, stepId, resolveData }) => ({ step: await world.steps.get(runId, stepId, { resolveData: resolve(resolveData) }) }),
  listSteps: ({ runId, pagination, resolveData }) => world.steps.list({ runId, pagination: page(pagination), resolveData: resolve(resolveData) }),
  getHook: async ({ hookId }) => ({ hook: await world.hooks.get(hookId) }),
  getHookByToken: async ({ token }) => ({ hook: await world.hooks.getByToken(token) }),
  listHooks: ({ runId, pagination }) => world.hooks.list({ runId, pagination: page(pagination) }),
  streamWrite: async ({ runId, name, chunks, multi }) => {
    const values = chunks.map((c) => (typeof c.text === "string" ? c.text : new Uint8Array(Buffer.from(c.bytes, "base64"))));
    if (multi && typeof world.streams.writeMulti === "function") {
      await world.streams.writeMulti(runId, name, values);
    } else {
      for (const v of values) await world.streams.write(runId, name, v);
    }
    return null;
  },
  streamClose: async ({ runId, name }) => {
    await world.streams.close(runId, name);
    return null;
  },
  streamRead,
  streamList: async ({ runId }) => ({ names: await world.streams.list(runId) }),
  streamChunks: async ({ runId, name, limit, cursor }) => {
    const p = await world.streams.getChunks(runId, name, { ...(limit ? { limit } : {}), ...(cursor ? { cursor } : {}) });
    return { ...p, data: p.data.map((c) => ({ index: c.index, data: b64(c.data) })) };
  },
  streamInfo: ({ runId, name }) => world.streams.getInfo(runId, name),
  queue: ({ queueName, message, options }) => world.queue(queueName, message, options),
  deliveries: async ({ queueName, min, timeoutMs }) => {
    const until = Date.now() + (timeoutMs ?? 8000);
    while ((deliveries.get(queueName)?.length ?? 0) < (min ?? 1) && Date.now() < until) {
      await new Promise((r) => {
        waiters.push(r);
        setTimeout(r, Math.max(0, until - Date.now()));
      });
    }
    return { deliveries: deliveries.get(queueName) ?? [] };
  },
  closeFresh: async () => {
    const w = await makeWorld();
    const r = await w.events.create(null, {
      eventType: "run_created",
      specVersion: w.specVersion,
      eventData: { deploymentId: "dpl-conform", workflowName: "close", input: [] },
    });
    await w.runs.get(r.run.runId);
    await w.close?.();
    return null;
  },
};

// ---- the protocol ----
let closing;
const shutdown = () =>
  (closing ??= (async () => {
    await world.close?.();
    server.close();
    for (const d of dataDirs) rmSync(d, { recursive: true, force: true });
  })());
const handle = async ({ method, params }) => {
  if (method === "initialize") {
    return {
      protocolVersion: params?.protocolVersion === 2 ? 2 : 1,
      adapter: { name: `world:${args.module}${bug ? "-" + bug : ""}`, format: "canonical" },
      capabilities: { converter: false, world: true },
    };
  }
  if (method === "shutdown") {
    await shutdown();
    return null;
  }
  const [group, fname] = method.split(".");
  if (group !== "world" || !Object.hasOwn(methods, fname)) throw Object.assign(new Error(`method not found: ${method}`), { code: -32601 });
  return methods[fname](params ?? {});
};
// withDates gives the event the Dates its type declares: JSON carries a
// wait's resumeAt and a retry's retryAfter as ISO strings, and a World may
// call Date methods on them (world-postgres does).
function withDates(event) {
  const data = event?.eventData;
  if (!data || typeof data !== "object") return event;
  const out = { ...data };
  for (const key of ["resumeAt", "retryAfter"]) {
    if (typeof out[key] === "string" || typeof out[key] === "number") out[key] = new Date(out[key]);
  }
  return { ...event, eventData: out };
}

// replacer renders bytes as base64; Dates render as ISO strings.
const replacer = (_k, v) => (v instanceof Uint8Array ? b64(v) : v);
const send = (obj) => protocolWrite(JSON.stringify(obj, replacer) + "\n");
const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on("line", (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    process.stderr.write(`world.mjs: not JSON: ${line.slice(0, 80)}\n`);
    return;
  }
  Promise.resolve()
    .then(() => handle(msg))
    .then(
      (result) => send({ jsonrpc: "2.0", id: msg.id, result: result ?? null }),
      (err) => send({ jsonrpc: "2.0", id: msg.id, error: { code: Number.isInteger(err?.code) ? err.code : -32000, message: String(err?.message ?? err), data: { hint: err?.name ?? "Error" } } }),
    );
});
rl.on("close", async () => {
  await shutdown().catch(() => {});
  process.exit(0);
});
