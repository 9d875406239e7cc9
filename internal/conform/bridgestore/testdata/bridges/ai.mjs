// An Embedder and an AiTaskRunner behind the bridge protocol, in plain
// Node.js with no dependencies, with the harness the embedder and
// ai-task-runner suites drive them through: AbortControllers by id (the
// signal methods), a stand-in model and a stand-in assistant that can be
// held until the signal they were handed aborts, and a record of the
// prompts the runner sends. The embedder hashes words into 32 signed
// buckets; the runner sends the task's prompt to the assistant as the
// task's user. Correct by default; each --bug flag breaks one rule:
//   embedder:
//   --bug=no-api-version        the embedder has no apiVersion
//   --bug=model-per-call        the model's name counts the calls made
//   --bug=empty-input-fails     an empty list goes to the model, which refuses it
//   --bug=drops-duplicates      a value given twice is embedded once
//   --bug=words-only            a text without words becomes a zero vector, scaled to NaN
//   --bug=length-per-batch      a call of several values pads its vectors to twice the length
//   --bug=sorts-values          the values are embedded, and answered, in sorted order
//   --bug=rejects-any-signal    a call with a signal rejects
//   --bug=ignores-signal        the signal is neither checked nor handed to the model
//   --bug=abort-as-plain-error  every failure is rethrown as a plain Error
//   --bug=checks-signal-once    the signal is checked before the call, not handed to the model
//   runner:
//   --bug=runner-no-api-version   the runner has no apiVersion
//   --bug=resolves-null           a run resolves with null
//   --bug=sends-as-service        the prompt goes out with no user
//   --bug=new-chat-each-run       a task's chat is ignored
//   --bug=returns-run-id          a run of a task without a chat returns the run's id as the chat
//   --bug=mutates-input           the run passed in is marked completed
//   --bug=swallows-failure        an assistant failure resolves
//   --bug=sends-then-checks       the prompt goes out before the signal is checked
//   --bug=runner-ignores-signal   the runner neither checks nor hands on its signal
//   --bug=runner-checks-once      the runner checks its signal but does not hand it on
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import { serve, bug } from "./serve.mjs";

// --- the harness's signals ---------------------------------------------------

const signals = new Map();

// signalOf returns the harness's AbortController id, with the promises a
// held call and a release settle.
function signalOf(id) {
  let s = signals.get(id);
  if (!s) {
    s = { controller: new AbortController() };
    s.held = new Promise((resolve) => (s.markHeld = resolve));
    s.released = new Promise((resolve) => (s.release = resolve));
    signals.set(id, s);
  }
  return s;
}

// hold is the held part of a call made with hold: it says it is held,
// then waits until the signal handed to it aborts (rejecting with the
// signal's reason, as a request cut short does) or the call's signal is
// released.
function hold(id, handed) {
  const s = signalOf(id);
  s.markHeld();
  return new Promise((resolve, reject) => {
    if (handed?.aborted) return reject(handed.reason);
    handed?.addEventListener("abort", () => reject(handed.reason), { once: true });
    s.released.then(resolve);
  });
}

// call is what the harness knows of the call in progress: whether to hold
// and on which signal id, whether the assistant fails, what it was sent.
const call = new AsyncLocalStorage();

// rejection turns what a call threw into an error answer naming it.
function rejection(e, extra = {}) {
  return Object.assign(new Error(e?.message ?? String(e)), { data: { name: e?.name ?? "Error", ...extra } });
}

// --- the embedder --------------------------------------------------------------

const DIMS = 32;

function fnv(text) {
  let h = 0xcbf29ce484222325n;
  for (const b of new TextEncoder().encode(text)) {
    h ^= BigInt(b);
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h;
}

function vector(text) {
  const v = new Array(DIMS).fill(0);
  const add = (feature, weight) => {
    const h = fnv(feature);
    v[Number(h % BigInt(DIMS))] += (h >> 63n ? -1 : 1) * weight;
  };
  for (const w of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) if (w) add("w:" + w, 1);
  if (bug !== "words-only") add("t:" + text, 0.5);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

// model stands in for the embedding model the embedder calls.
async function model(values, { signal } = {}) {
  const c = call.getStore();
  if (values.length === 0) throw new Error("input must not be empty");
  if (c?.hold) await hold(c.signal, signal);
  return values.map(vector);
}

let calls = 0;

// The embedder under test, written as an adapter writes one over a model.
const embedderUnderTest = {
  ...(bug === "no-api-version" ? {} : { apiVersion: 1 }),
  get model() {
    return bug === "model-per-call" ? `node/hash-32#${calls}` : "node/hash-32";
  },
  async embed(values, options = {}) {
    calls++;
    try {
      let signal = options.signal;
      if (bug === "rejects-any-signal" && signal) throw new DOMException("This operation was aborted", "AbortError");
      if (bug === "ignores-signal") signal = undefined;
      signal?.throwIfAborted();
      if (bug === "checks-signal-once") signal = undefined;
      if (values.length === 0 && bug !== "empty-input-fails") return [];
      let vs = [...values];
      if (bug === "drops-duplicates") vs = [...new Set(vs)];
      if (bug === "sorts-values") vs.sort();
      const out = await model(vs, { signal });
      return bug === "length-per-batch" && vs.length > 1 ? out.map((v) => [...v, ...new Array(v.length).fill(0)]) : out;
    } catch (e) {
      if (bug === "abort-as-plain-error") throw new Error("embedding failed: " + e.message);
      throw e;
    }
  },
};

const embedder = {
  identity: () => ({ apiVersion: embedderUnderTest.apiVersion ?? null, model: embedderUnderTest.model }),
  async embed({ values, signal, hold: held }) {
    const options = signal === undefined ? undefined : { signal: signalOf(signal).controller.signal };
    try {
      const vectors = await call.run({ hold: held === true, signal }, () => embedderUnderTest.embed(values, options));
      return { vectors };
    } catch (e) {
      throw rejection(e);
    }
  },
};

// --- the runner ----------------------------------------------------------------

// assistant stands in for the assistant the runner sends prompts to: it
// records each prompt, fails or is held as the call asks, and answers the
// chat it wrote to (a new one when it was given none).
async function assistant({ organizationId, userId, chatId, prompt, signal }) {
  const c = call.getStore();
  const chat = chatId ?? randomUUID();
  c.sent.push({ organizationId, userId: userId ?? null, chatId: chatId ?? null, prompt, chat });
  if (c.fail) throw new Error("the assistant failed");
  if (c.hold) await hold(c.signal, signal);
  return { chatId: chat };
}

// The runner under test, written as an adapter writes one.
const runnerUnderTest = async (task, run, signal) => {
  if (bug === "runner-ignores-signal") signal = undefined;
  if (bug !== "sends-then-checks") signal?.throwIfAborted();
  let handed = signal;
  if (bug === "runner-checks-once") handed = undefined;
  let written;
  try {
    written = await assistant({
      organizationId: task.organizationId,
      userId: bug === "sends-as-service" ? undefined : task.userId,
      chatId: bug === "new-chat-each-run" ? undefined : task.chatId,
      prompt: task.prompt,
      signal: handed,
    });
  } catch (e) {
    if (bug === "swallows-failure") return undefined;
    throw e;
  } finally {
    if (bug === "sends-then-checks") signal?.throwIfAborted();
  }
  if (bug === "mutates-input") run.status = "completed";
  if (bug === "resolves-null") return null;
  if (bug === "returns-run-id" && task.chatId === undefined) return { chatId: run.id };
  return { chatId: written.chatId };
};
if (bug !== "runner-no-api-version") runnerUnderTest.apiVersion = 1;

const aiTaskRunner = {
  identity: () => ({ apiVersion: runnerUnderTest.apiVersion ?? null }),
  async run({ task, run, signal, hold: held, fail }) {
    const id = signal ?? "live-" + randomUUID();
    const c = { hold: held === true, fail: fail === true, signal: id, sent: [] };
    try {
      const result = await call.run(c, () => runnerUnderTest(task, run, signalOf(id).controller.signal));
      return { result, sent: c.sent, taskAfter: task, runAfter: run };
    } catch (e) {
      throw rejection(e, { sent: c.sent });
    }
  },
};

serve({
  label: "ai",
  name: "nodeai",
  capabilities: { embedder: true, aiTaskRunner: true },
  groups: {
    embedder,
    aiTaskRunner,
    signal: {
      abort: ({ signal }) => {
        signalOf(signal).controller.abort();
        return null;
      },
      held: async ({ signal }) => {
        await signalOf(signal).held;
        return null;
      },
      release: ({ signal }) => {
        signalOf(signal).release();
        return null;
      },
    },
  },
});
