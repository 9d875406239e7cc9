// The bridge-protocol plumbing the Node reference bridges of the suites
// share: their flags, a result error with a kind, and the JSON-RPC loop
// over stdin and stdout. Each bridge keeps only what it implements.
import { createInterface } from "node:readline";

// args are the --key=value (or bare --key) flags the bridge was started with.
export const args = Object.fromEntries(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, "").split("=");
    return [k, v ?? true];
  }),
);

// bug names the rule a mutant breaks ("" for the correct bridge).
export const bug = args.bug ?? "";

// ResultError is a failure of the interface itself; its kind travels in
// the error's data.
export class ResultError extends Error {
  constructor(kind, message) {
    super(message);
    this.kind = kind;
  }
}

// An error with a data property (a rejection of the interface's own,
// which names what was thrown) sends that data with its answer.

// serve answers initialize with the given name and capabilities (in the
// protocol version offered: these bridges use nothing that differs between
// 1 and 2) and every "group.method" from groups, until stdin closes.
export function serve({ label, name, capabilities, groups }) {
  const handle = async ({ method, params }) => {
    if (method === "initialize") {
      return {
        protocolVersion: params?.protocolVersion === 2 ? 2 : 1,
        adapter: { name: name + (bug ? "-" + bug : ""), format: "canonical" },
        capabilities: { converter: false, ...capabilities },
      };
    }
    if (method === "shutdown") return null;
    const [group, fname] = method.split(".");
    const fn = Object.hasOwn(groups, group) && Object.hasOwn(groups[group], fname) ? groups[group][fname] : undefined;
    if (!fn) throw Object.assign(new Error(`method not found: ${method}`), { code: -32601 });
    return fn(params ?? {});
  };
  const send = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");
  const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
  rl.on("line", (line) => {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      process.stderr.write(`${label}: not JSON: ${line.slice(0, 80)}\n`);
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
            error: { code: err.code ?? -32000, message: err.message, ...(err instanceof ResultError ? { data: { kind: err.kind } } : err.data ? { data: err.data } : {}) },
          }),
      );
  });
  rl.on("close", () => process.exit(0));
}
