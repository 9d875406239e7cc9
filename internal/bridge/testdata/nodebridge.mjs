// A bridge for tests, in plain Node.js with no dependencies. It speaks the
// bridge protocol on stdin/stdout and converts "chatlet", a small made-up
// SDK message format, to and from canonical messages (the same format as
// the Go test bridge). Flags:
//   --wrap          convert any native message by wrapping it whole in one
//                   `data` part (and unwrapping it): the benchmark bridge
//   --fault=NAME    exit-at-once | crash-after | badline | hang | unknown-id
//                   | version | flood | grandchild | lossy | drift
//                   | detached (the grandchild is spawned with detached:
//                   true: a session and process group of its own)
//                   | dropmeta (fromSdk drops the native "meta", which the
//                   canonical round trip cannot see) | hollow (every
//                   message becomes an assistant message without parts)
//                   | dropstep (toSdk leaves out step parts)
//   Canonical fields a block has no place for travel in its "x" object,
//   so that generated messages (--generate) come back whole.
//   --history       declare capabilities.converterHistory and convert whole
//                   conversations: a "ret" block without "fn" takes the
//                   name of the call with its ref earlier in the list
//                   (alone, such a block cannot be converted)
//   --after=N       with crash-after: crash on this converter request
//   --pidfile=PATH  with grandchild or detached: write "<pid> <grandchild
//                   pid>" there
//   --report=PATH   at exit, write this process's CPU time and lifetime
//                   (JSON, milliseconds) there: the benchmark's measure of
//                   the time spent inside the bridge
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";

const args = Object.fromEntries(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, "").split("=");
    return [k, v ?? true];
  }),
);
const fault = args.fault ?? "";
const after = Number(args.after ?? 3);
let convCalls = 0;
const seen = new Set();

function send(obj) {
  process.stdout.write(JSON.stringify(obj) + "\n");
}
const answer = (id, result) => send({ jsonrpc: "2.0", id, result });
const answerErr = (id, code, message, data) =>
  send({ jsonrpc: "2.0", id, error: data === undefined ? { code, message } : { code, message, data } });

if (fault === "exit-at-once") {
  process.stderr.write("nodebridge: loading the adapter\nError: Cannot find module './adapter.ts'\n");
  process.exit(3);
}
if (fault === "grandchild" || fault === "detached") {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore", detached: fault === "detached" });
  child.unref();
  if (args.pidfile) writeFileSync(args.pidfile, `${process.pid} ${child.pid}`);
}

const ROLES = { human: "user", bot: "assistant", sys: "system", tool: "tool" };
const SENDERS = Object.fromEntries(Object.entries(ROLES).map(([k, v]) => [v, k]));

function fromSdk(n, calls) {
  if (args.wrap) return { id: "wrapped", role: "user", parts: [{ type: "data", name: "native", data: n }] };
  const role = ROLES[n?.from];
  if (!role) throw new Error(`unknown chatlet sender ${JSON.stringify(n?.from)}`);
  const parts = (n.blocks ?? []).map((b, i) => withExtra(block(b, i), b.x));
  function block(b, i) {
    switch (b.t) {
      case "txt": return { type: "text", text: b.body };
      case "think": return { type: "reasoning", text: b.body };
      case "call": return { type: "tool-call", toolCallId: b.ref, toolName: b.fn, input: b.args };
      case "ret": {
        let fn = b.fn;
        if (fn === undefined) {
          fn = calls?.get(b.ref);
          if (fn === undefined) throw new Error(`tool result ${JSON.stringify(b.ref)} at blocks[${i}] names no fn, and its call is not in view`);
        }
        const p = { type: "tool-result", toolCallId: b.ref, toolName: fn, output: b.value };
        if (typeof b.failed === "boolean") p.isError = b.failed;
        return p;
      }
      case "img": return { type: "file", mediaType: b.mime, url: b.src };
      case "step": return { type: "step", boundary: b.edge };
      case "blob": return { type: "data", name: b.name, data: b.value };
      default: throw new Error(`unknown chatlet block type ${JSON.stringify(b.t)} at blocks[${i}]`);
    }
  }
  if (fault === "hollow") return { id: n.uid, role: "assistant", parts: [] };
  const msg = { id: n.uid, role, parts };
  if ("meta" in n && fault !== "dropmeta") msg.metadata = n.meta;
  if (fault === "drift") {
    if (seen.has(n.uid)) msg.id = `${n.uid}-copy`;
    seen.add(n.uid);
  }
  return msg;
}

// MAPPED lists the canonical fields each block holds in its own keys.
const MAPPED = {
  text: ["type", "text"], reasoning: ["type", "text"], "tool-call": ["type", "toolCallId", "toolName", "input"],
  "tool-result": ["type", "toolCallId", "toolName", "output", "isError"], file: ["type", "mediaType", "url"],
  step: ["type", "boundary"], data: ["type", "name", "data"],
};

function withExtra(part, x) {
  if (x === undefined) return part;
  for (const [k, v] of Object.entries(x)) part[k] = v;
  return part;
}

function extraOf(p) {
  const keep = MAPPED[p.type] ?? [];
  const x = Object.fromEntries(Object.entries(p).filter(([k]) => !keep.includes(k)));
  return Object.keys(x).length > 0 ? x : undefined;
}

function toSdk(m, calls) {
  if (args.wrap) return m.parts[0].data;
  const blocks = [];
  m.parts.forEach((p, i) => {
    const before = blocks.length;
    if (fault === "dropstep" && p.type === "step") return;
    addBlock(p, i);
    const x = extraOf(p);
    if (x !== undefined && blocks.length > before) blocks[blocks.length - 1].x = x;
  });
  function addBlock(p, i) {
    switch (p.type) {
      case "text": blocks.push({ t: "txt", body: p.text }); break;
      case "reasoning": if (fault !== "lossy") blocks.push({ t: "think", body: p.text }); break;
      case "tool-call": blocks.push({ t: "call", ref: p.toolCallId, fn: p.toolName, args: p.input }); break;
      case "tool-result": {
        const b = { t: "ret", ref: p.toolCallId, fn: p.toolName, value: p.output };
        // In a conversation, the name is left to the call in view.
        if (calls?.get(p.toolCallId) === p.toolName) delete b.fn;
        if ("isError" in p && fault !== "lossy") b.failed = p.isError;
        blocks.push(b);
        break;
      }
      case "file": blocks.push({ t: "img", mime: p.mediaType, src: p.url }); break;
      case "step": blocks.push({ t: "step", edge: p.boundary }); break;
      case "data": blocks.push({ t: "blob", name: p.name, value: p.data }); break;
      default: throw new Error(`chatlet has no block for canonical part type ${JSON.stringify(p.type)} (parts[${i}])`);
    }
  }
  const n = { uid: m.id, from: SENDERS[m.role], blocks };
  if ("metadata" in m) n.meta = m.metadata;
  return n;
}

async function handle(req) {
  const { id, method, params } = req;
  if (method === "initialize") {
    if (fault === "version") {
      return answerErr(id, -32600, "unsupported protocol version: this bridge speaks version 3", { protocolVersion: 3 });
    }
    return answer(id, {
      protocolVersion: 1,
      adapter: { name: args.wrap ? "wrap" : "chatlet", format: args.wrap ? "wrap-v1" : "chatlet-v1", sdk: "chatlet", version: "0.1.0" },
      capabilities: { converter: true, streamStore: false, runRegistry: false, ...(args.history ? { converterHistory: true } : {}),
        parts: ["text", "reasoning", "file", "tool-call", "tool-result", "data", "step"] },
    });
  }
  if (method === "shutdown") return answer(id, null);
  convCalls++;
  if (fault === "crash-after" && convCalls >= after) {
    process.stderr.write(`nodebridge: converting request ${convCalls}\nTypeError: Cannot read properties of undefined (reading 'blocks')\n    at fromSdk (adapter.ts:12:3)\n`);
    process.exit(2);
  }
  if (fault === "badline") console.log("converting message... done");
  if (fault === "hang") return;
  if (fault === "unknown-id") return send({ jsonrpc: "2.0", id: 4242, result: null });
  if (fault === "flood") for (let i = 0; i < 2000; i++) process.stderr.write(`nodebridge: debug line ${i} for request ${convCalls}\n`);
  try {
    if (method === "converter.fromSdk") return answer(id, { message: fromSdk(params.native) });
    if (method === "converter.toSdk") return answer(id, { native: toSdk(params.message) });
    if (args.history && method === "converter.fromSdkHistory") {
      const calls = new Map();
      const messages = params.natives.map((n) => {
        const m = fromSdk(n, calls);
        for (const p of m.parts) if (p.type === "tool-call") calls.set(p.toolCallId, p.toolName);
        return m;
      });
      return answer(id, { messages });
    }
    if (args.history && method === "converter.toSdkHistory") {
      const calls = new Map();
      const natives = params.messages.map((m) => {
        const n = toSdk(m, calls);
        for (const p of m.parts) if (p.type === "tool-call") calls.set(p.toolCallId, p.toolName);
        return n;
      });
      return answer(id, { natives });
    }
    return answerErr(id, -32601, `method not found: ${method}`);
  } catch (e) {
    return answerErr(id, -32000, e.message, { kind: "invalid_input" });
  }
}

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on("line", (line) => {
  if (!line.trim()) return;
  let req;
  try {
    req = JSON.parse(line);
  } catch (e) {
    process.stderr.write(`nodebridge: bad request line: ${e.message}\n`);
    return;
  }
  handle(req);
});
// No process.exit on end of input: pending stderr writes would be lost.
// With stdin closed and nothing left to do, node exits on its own.
rl.on("close", () => {
  if (typeof args.report === "string") {
    const cpu = process.cpuUsage();
    writeFileSync(args.report, JSON.stringify({ userMs: cpu.user / 1000, systemMs: cpu.system / 1000, lifetimeMs: performance.now() }));
  }
});
