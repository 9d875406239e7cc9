// Runs a generated adapter's chat flow (src/chat.ts) against a fake of the
// ai-chat block's client shaped like better-supabase's AiChat: its
// messages and runs calls with upstream's names, options and answers
// (AsyncResults of {messageId, parentId, created}, {claimed, streamId,
// runId}, ...), keeping each chat's message tree as the block does. The
// tests copy this file into the test folder of an adapter of the generic
// preset (its SDK messages carry their id) and run it with tsx.
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { runChatTurn } from "../src/chat.js";
import { FORMAT, fromSdkMessage, type SdkMessage } from "../src/converters.js";

type Outcome<T> = { ok: true; data: T; error: null } | { ok: false; data: null; error: { kind: string; message: string; status: number; hint?: string } };

// Answer is the fake's AsyncResult: awaiting it gives the Result, orThrow
// the data or a thrown error; it never rejects.
class Answer<T> implements PromiseLike<Outcome<T>> {
  constructor(private readonly outcome: Outcome<T>) {}
  then<R1 = Outcome<T>, R2 = never>(onfulfilled?: ((v: Outcome<T>) => R1 | PromiseLike<R1>) | null, onrejected?: ((r: unknown) => R2 | PromiseLike<R2>) | null): Promise<R1 | R2> {
    return Promise.resolve(this.outcome).then(onfulfilled, onrejected);
  }
  async orThrow(): Promise<T> {
    if (this.outcome.ok) return this.outcome.data;
    throw Object.assign(new Error(this.outcome.error.message), { name: "DbException", error: this.outcome.error });
  }
  async unwrapOr<F>(fallback: F): Promise<T | F> {
    return this.outcome.ok ? this.outcome.data : fallback;
  }
  map<U>(fn: (data: T) => U): Answer<U> {
    return new Answer<U>(this.outcome.ok ? { ok: true, data: fn(this.outcome.data), error: null } : this.outcome);
  }
  mapError(fn: (e: Outcome<T>["error"] & object) => Outcome<T>["error"] & object): Answer<T> {
    return this.outcome.ok ? this : new Answer<T>({ ok: false, data: null, error: fn(this.outcome.error) });
  }
  andThen<U>(fn: (data: T) => PromiseLike<Outcome<U>>): Answer<U> {
    if (!this.outcome.ok) return new Answer<U>(this.outcome);
    throw new Error(`the chat flow does not chain results (andThen(${fn.name}))`);
  }
}
const okAnswer = <T>(data: T) => new Answer<T>({ ok: true, data, error: null });
const errAnswer = <T>(kind: string, status: number, message: string, hint?: string) =>
  new Answer<T>({ ok: false, data: null, error: { kind, status, message, ...(hint ? { hint } : {}) } });

interface Stored {
  id: string;
  role: "system" | "user" | "assistant" | "tool";
  parts: readonly unknown[];
  metadata?: Readonly<Record<string, unknown>>;
  parentId: string | undefined;
  format: string;
  native: unknown;
  model: string | undefined;
  status: "complete" | "aborted" | "error";
  runId: string | undefined;
}

interface Chat {
  messages: Map<string, Stored>;
  leaf: string | undefined;
  activeStream: string | undefined;
  runs: Map<string, { streamId: string; status: string }>;
}

// fakeAiChat keeps chats in memory and records every call it gets.
function fakeAiChat(calls: string[]) {
  const chats = new Map<string, Chat>();
  const chatOf = (id: string): Chat => {
    let c = chats.get(id);
    if (!c) chats.set(id, (c = { messages: new Map(), leaf: undefined, activeStream: undefined, runs: new Map() }));
    return c;
  };
  let runs = 0;
  const client = {
    messages: {
      appendUser(chatId: string, message: { id: string; role: string; parts: readonly unknown[]; metadata?: Readonly<Record<string, unknown>> }, options?: { readonly trigger?: string; readonly messageId?: string }) {
        calls.push(`appendUser ${JSON.stringify(options ?? {})}`);
        if (message.role !== "user" || !message.id || !Array.isArray(message.parts)) {
          return errAnswer<never>("invalid_input", 400, "not a user message", "AI_MESSAGE_INVALID");
        }
        const c = chatOf(chatId);
        const known = c.messages.get(message.id);
        if (known && JSON.stringify(known.parts) === JSON.stringify(message.parts)) {
          return okAnswer({ messageId: known.id, parentId: known.parentId, created: false });
        }
        const id = known ? `${message.id}-edit-${c.messages.size}` : message.id;
        const parentId = c.leaf;
        c.messages.set(id, { ...message, id, role: "user", parentId, format: "canonical", native: null, model: undefined, status: "complete", runId: undefined });
        c.leaf = id;
        return okAnswer({ messageId: id, parentId, created: true });
      },
      saveAssistant(chatId: string, message: { id: string; role: string; parts: readonly unknown[]; metadata?: Readonly<Record<string, unknown>> }, options: { readonly parentId: string; readonly status?: "complete" | "aborted" | "error"; readonly model?: string; readonly format?: string; readonly native?: unknown; readonly runId?: string | undefined }) {
        calls.push(`saveAssistant parent=${options.parentId} format=${options.format} run=${options.runId}`);
        const c = chatOf(chatId);
        if (!c.messages.has(options.parentId)) return errAnswer<never>("foreign_key", 409, `no message ${options.parentId} in chat ${chatId}`);
        const created = !c.messages.has(message.id);
        c.messages.set(message.id, {
          ...message, role: "assistant", parentId: options.parentId, format: options.format ?? "canonical", native: options.native ?? null,
          model: options.model, status: options.status ?? "complete", runId: options.runId,
        });
        c.leaf = message.id;
        return okAnswer({ messageId: message.id, parentId: options.parentId, created });
      },
      path(chatId: string, options?: { readonly leafId?: string; readonly native?: boolean }) {
        calls.push(`path ${JSON.stringify(options ?? {})}`);
        const c = chatOf(chatId);
        const out = [];
        for (let id = options?.leafId ?? c.leaf; id !== undefined; ) {
          const m = c.messages.get(id);
          if (!m) return errAnswer<never>("not_found", 404, `no message ${id} in chat ${chatId}`);
          const { runId: _runId, native, ...rest } = m;
          out.unshift({ ...rest, native: options?.native === true && native !== null ? native : undefined, siblingCount: 1, siblingIndex: 0 });
          id = m.parentId;
        }
        return okAnswer(out);
      },
    },
    runs: {
      claim(chatId: string, streamId: string, options?: { readonly model?: string; readonly messageId?: string; readonly engine?: string; readonly externalRunId?: string }) {
        calls.push(`claim ${streamId} ${JSON.stringify(options ?? {})}`);
        const c = chatOf(chatId);
        if (c.activeStream !== undefined && c.activeStream !== streamId) {
          const active = [...c.runs].find(([, r]) => r.streamId === c.activeStream && r.status === "running");
          return okAnswer({ claimed: false, streamId: c.activeStream, runId: active?.[0] });
        }
        const runId = `run-${++runs}`;
        c.runs.set(runId, { streamId, status: "running" });
        c.activeStream = streamId;
        return okAnswer({ claimed: true, streamId, runId });
      },
      release(chatId: string, streamId: string, options?: { readonly status?: string; readonly error?: string }) {
        calls.push(`release ${streamId} ${options?.status}`);
        const status = options?.status ?? "completed";
        if (!["completed", "failed", "cancelled"].includes(status)) return errAnswer<never>("invalid_input", 400, `run status ${status}`, "AI_RUN_INVALID");
        const c = chatOf(chatId);
        for (const r of c.runs.values()) if (r.streamId === streamId && r.status === "running") r.status = status;
        if (c.activeStream !== streamId) return okAnswer(false);
        c.activeStream = undefined;
        return okAnswer(true);
      },
    },
  };
  return { client, chats };
}

const fixtures = join(import.meta.dirname, "..", "fixtures");
const samples: SdkMessage[] = readdirSync(fixtures)
  .filter((f) => f.endsWith(".json"))
  .sort()
  .flatMap((f) => {
    const v = JSON.parse(readFileSync(join(fixtures, f), "utf8"));
    return Array.isArray(v) ? v : Array.isArray(v?.conversation) ? v.conversation : [v];
  });
const user = samples.find((m) => fromSdkMessage(m).role === "user")!;
const reply = samples.find((m) => fromSdkMessage(m).role === "assistant")!;

test("a chat turn stores the user's message and the answer under it, with the native message and the run", async () => {
  const calls: string[] = [];
  const { client, chats } = fakeAiChat(calls);
  const userId = fromSdkMessage(user).id;
  let history: SdkMessage[] = [];
  const saved = await runChatTurn({ chats: client, chatId: "c1", streamId: "s1", user, respond: async (h) => ((history = h), reply) });

  const chat = chats.get("c1")!;
  const question = chat.messages.get(userId);
  const answer = chat.messages.get(saved);
  assert.ok(question, "the user's message was not stored");
  assert.equal(question.parentId, undefined);
  assert.equal(question.format, "canonical");
  assert.deepEqual(question.parts, fromSdkMessage(user).parts);
  assert.ok(answer, "the answer was not stored");
  assert.equal(answer.role, "assistant");
  assert.equal(answer.parentId, userId, "the answer is not under the user's message");
  assert.equal(answer.format, FORMAT);
  assert.deepEqual(answer.native, reply, "the answer's native message is not the SDK's");
  assert.deepEqual(answer.parts, fromSdkMessage(reply).parts);
  assert.equal(answer.runId, "run-1", "the answer is not linked to the claimed run");
  assert.equal(chat.leaf, saved);
  assert.deepEqual([...chat.runs], [["run-1", { streamId: "s1", status: "completed" }]]);
  assert.equal(chat.activeStream, undefined, "the stream was not released");
  assert.equal(history.length, 1);
  assert.equal(calls.length, 5, calls.join("\n"));
  assert.equal(calls[0], "appendUser {}");
  assert.equal(calls[1], `path {"leafId":${JSON.stringify(userId)},"native":true}`, "path did not ask for the message just stored, with the native messages");
  assert.match(calls[2]!, new RegExp(`^claim s1 \\{"messageId":${JSON.stringify(userId)},"engine":"[^"]+"\\}$`));
  assert.equal(calls[3], `saveAssistant parent=${userId} format=${FORMAT} run=run-1`);
  assert.equal(calls[4], "release s1 completed");
});

test("the next turn's history holds the stored answer as the SDK's own message", async () => {
  const calls: string[] = [];
  const { client, chats } = fakeAiChat(calls);
  await runChatTurn({ chats: client, chatId: "c1", streamId: "s1", user, respond: async () => reply });
  const next = { ...(user as object), id: "next-question" } as SdkMessage;
  const nextId = fromSdkMessage(next).id;
  let history: SdkMessage[] = [];
  await runChatTurn({ chats: client, chatId: "c1", streamId: "s2", user: next, respond: async (h) => ((history = h), reply) });
  assert.equal(history.length, 3);
  assert.deepEqual(history[1], reply, "the stored native answer was not used as it is");
  assert.equal(chats.get("c1")!.messages.get(nextId)?.parentId, fromSdkMessage(reply).id);
});

test("a model failure releases the run as failed and stores no answer", async () => {
  const calls: string[] = [];
  const { client, chats } = fakeAiChat(calls);
  await assert.rejects(runChatTurn({ chats: client, chatId: "c1", streamId: "s1", user, respond: async () => { throw new Error("model down"); } }), /model down/);
  const chat = chats.get("c1")!;
  assert.deepEqual([...chat.messages.keys()], [fromSdkMessage(user).id]);
  assert.deepEqual([...chat.runs.values()], [{ streamId: "s1", status: "failed" }]);
});

test("a failed call surfaces as a thrown error, not as data", async () => {
  const { client } = fakeAiChat([]);
  const system = samples.find((m) => fromSdkMessage(m).role !== "user");
  // appendUser refuses a message that is not the user's: orThrow throws.
  await assert.rejects(runChatTurn({ chats: client, chatId: "c1", streamId: "s1", user: system!, respond: async () => reply }), /not a user message/);
});
