// A bridge for the --watch tests and the watch benchmark, run with tsx: it
// speaks the bridge protocol on stdin and stdout and takes its converter
// from converter.ts, the file the tests edit. With --pids=PATH it appends
// its process id and its parent's (tsx's launcher) to PATH when it
// starts, so that a test can tell a kept bridge from a restarted one and
// check that none is left.
import { appendFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fromSdk, toSdk } from "./converter.ts";

const pids = process.argv.find((a) => a.startsWith("--pids="))?.slice("--pids=".length);
if (pids) appendFileSync(pids, `${process.pid} ${process.ppid}\n`);

type Request = { id: number; method: string; params?: any };

function send(obj: unknown): void {
  process.stdout.write(JSON.stringify(obj) + "\n");
}

function handle(req: Request): void {
  const { id, method, params } = req;
  try {
    switch (method) {
      case "initialize":
        return send({
          jsonrpc: "2.0", id,
          result: {
            protocolVersion: 1,
            adapter: { name: "tinychat", format: "tinychat-v1", sdk: "tinychat", version: "0.1.0" },
            capabilities: { converter: true, streamStore: false, runRegistry: false, parts: ["text"] },
          },
        });
      case "shutdown":
        return send({ jsonrpc: "2.0", id, result: null });
      case "converter.fromSdk":
        return send({ jsonrpc: "2.0", id, result: { message: fromSdk(params.native) } });
      case "converter.toSdk":
        return send({ jsonrpc: "2.0", id, result: { native: toSdk(params.message) } });
    }
    send({ jsonrpc: "2.0", id, error: { code: -32601, message: `method not found: ${method}` } });
  } catch (e) {
    send({ jsonrpc: "2.0", id, error: { code: -32000, message: (e as Error).message } });
  }
}

createInterface({ input: process.stdin }).on("line", (line) => {
  if (line.trim() !== "") handle(JSON.parse(line));
});
