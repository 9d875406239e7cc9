// Stand-ins for seven of better-supabase's conformance kits
// (better-supabase/testing), written by bsadapter from its record of each
// kit: the signature, the checks and what each one asserts (docs/new.md
// names the files and commits). Like upstream's, a kit runs every check,
// then resolves with the report, or throws a ConformanceError that lists
// every check that failed. A method that rejects, or answers anything but
// an AsyncResult where the interface says so, fails the check it is in.

import { isDeepStrictEqual } from "node:util";

export class ConformanceError extends Error {
  constructor(report) {
    const failed = report.checks.filter((c) => !c.ok);
    super(`${report.subject} failed ${failed.length} of ${report.checks.length} checks:\n${failed.map((c) => `  - ${c.name}: ${c.message}`).join("\n")}`);
    this.name = "ConformanceError";
    this.report = report;
  }
}

// A Violation is a check's own finding; anything else a check throws is
// reported as what was thrown.
class Violation extends Error {}

function must(condition, message) {
  if (!condition) throw new Violation(message);
}

async function runChecks(subject, checks) {
  const results = [];
  for (const check of checks) {
    if (!check) continue;
    const [name, run] = check;
    try {
      await run();
      results.push({ name, ok: true });
    } catch (cause) {
      const message = cause instanceof Violation ? cause.message : `threw ${cause?.name ?? "a value"}: ${cause?.message ?? String(cause)}`;
      results.push({ name, ok: false, message });
    }
  }
  const report = { subject, checks: results };
  if (results.some((r) => !r.ok)) throw new ConformanceError(report);
  return report;
}

const hintOf = (result) => (result.ok ? undefined : result.error?.hint);
const kindOf = (result) => (result.ok ? undefined : result.error?.kind);
const show = (v) => JSON.stringify(v);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// readAll reads a ReadableStream to its end, failing when it has not ended
// within timeoutMs (a bound: the reads here end at once or after a close).
async function readAll(stream, timeoutMs) {
  const reader = stream.getReader();
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Violation(`the read had not ended after ${timeoutMs} ms`)), timeoutMs);
  });
  const chunks = [];
  try {
    for (;;) {
      const r = await Promise.race([reader.read(), late]);
      if (r.done) return chunks;
      chunks.push(r.value);
    }
  } finally {
    clearTimeout(timer);
    await reader.cancel().catch(() => {});
  }
}

/** testStreamStore checks a StreamStore: the nine checks of upstream's kit. */
export function testStreamStore(store, options = {}) {
  const fresh = options.id ?? (() => `kit-${crypto.randomUUID()}`);
  const timeoutMs = options.timeoutMs ?? 5000;
  return runChecks(`StreamStore ${store.name}`, [
    ["apiVersion is 1 and the name is not empty", () => {
      must(store.apiVersion === 1, `apiVersion is ${store.apiVersion}`);
      must(typeof store.name === "string" && store.name.length > 0, "the name is empty");
    }],
    ["open creates a stream once", async () => {
      const id = fresh();
      must((await store.open(id).orThrow()) === true, "the first open was not new");
      must((await store.open(id).orThrow()) === false, "the second open was new");
    }],
    ["a retried append is a no-op and a gap is refused", async () => {
      const id = fresh();
      await store.open(id).orThrow();
      const first = await store.append(id, 0, ["a", "b"]).orThrow();
      must(first.next === 2, `next after two chunks is ${first.next}`);
      const again = await store.append(id, 0, ["a", "b", "c"]).orThrow();
      must(again.next === 3, `next after the retried batch is ${again.next}`);
      const gap = await store.append(id, 5, ["x"]);
      must(hintOf(gap) === "STREAM_GAP", `an append at 5 answered ${show(gap)}`);
      await store.close(id).orThrow();
      const chunks = await readAll(store.read(id), timeoutMs);
      must(chunks.join("") === "abc", `read ${show(chunks)}`);
    }],
    ["a read starts at an index and ends at the close", async () => {
      const id = fresh();
      await store.open(id).orThrow();
      await store.append(id, 0, ["0", "1", "2", "3"]).orThrow();
      must((await store.close(id).orThrow()) === true, "close answered false");
      must((await store.close(id).orThrow()) === false, "a second close answered true");
      const tail = await readAll(store.read(id, 2), timeoutMs);
      must(tail.join(",") === "2,3", `a read from 2 gave ${show(tail)}`);
      const status = await store.status(id).orThrow();
      must(status?.next === 4 && status.closed === true && status.cancelled === false, `status is ${show(status)}`);
    }],
    ["a live read gets later appends", async () => {
      const id = fresh();
      await store.open(id).orThrow();
      const reading = readAll(store.read(id), timeoutMs);
      await store.append(id, 0, ["x"]).orThrow();
      await store.append(id, 1, ["y"]).orThrow();
      await store.close(id).orThrow();
      const chunks = await reading;
      must(chunks.join("") === "xy", `the live read gave ${show(chunks)}`);
    }],
    ["the writer learns of a cancel", async () => {
      const id = fresh();
      await store.open(id).orThrow();
      must((await store.isCancelled(id).orThrow()) === false, "a new stream is cancelled");
      must((await store.cancel(id).orThrow()) === true, "cancel answered false");
      must((await store.isCancelled(id).orThrow()) === true, "isCancelled is false after a cancel");
      const late = await store.append(id, 0, ["late"]).orThrow();
      must(late.cancelled === true, "the append after the cancel did not say so");
      await store.close(id).orThrow();
      must((await store.cancel(id).orThrow()) === false, "a cancel after the close answered true");
    }],
    ["a closed stream refuses appends", async () => {
      const id = fresh();
      await store.open(id).orThrow();
      await store.close(id).orThrow();
      const closed = await store.append(id, 0, ["x"]);
      must(hintOf(closed) === "STREAM_CLOSED", `the append answered ${show(closed)}`);
    }],
    ["a missing stream has no status, reads empty and refuses appends", async () => {
      const id = fresh();
      must((await store.status(id).orThrow()) === undefined, "a missing stream has a status");
      const chunks = await readAll(store.read(id), timeoutMs);
      must(chunks.length === 0, `a missing stream read ${show(chunks)}`);
      const appended = await store.append(id, 0, ["x"]);
      must(hintOf(appended) === "STREAM_NOT_FOUND", `the append answered ${show(appended)}`);
    }],
    ["purge answers a count", async () => {
      const purged = await store.purge().orThrow();
      must(Number.isInteger(purged) && purged >= 0, `purge answered ${show(purged)}`);
    }],
  ]);
}

/** testChatState checks a Chat SDK StateAdapter: the eight checks of upstream's kit. */
export function testChatState(state, options) {
  const fresh = options.id ?? (() => `kit-${crypto.randomUUID()}`);
  const ttl = options.ttlMs ?? 300;
  const entry = (thread, text, expiresIn = 60_000) => ({
    enqueuedAt: Date.now(),
    expiresAt: Date.now() + expiresIn,
    message: options.message(`${thread}-${text}`, text),
  });
  return runChecks("StateAdapter", [
    ["subscribe and unsubscribe stick", async () => {
      const thread = fresh();
      must(!(await state.isSubscribed(thread)), "a new thread is subscribed");
      await state.subscribe(thread);
      await state.subscribe(thread);
      must(await state.isSubscribed(thread), "the subscription did not stick");
      await state.unsubscribe(thread);
      must(!(await state.isSubscribed(thread)), "the unsubscribe did not stick");
    }],
    ["one holder at a time, token-checked release and extend, force release", async () => {
      const thread = fresh();
      const [a, b] = await Promise.all([state.acquireLock(thread, 10_000), state.acquireLock(thread, 10_000)]);
      must((a === null) !== (b === null), "both or neither of two racing acquires got the lock");
      const held = a ?? b;
      must(held.threadId === thread, "the lock names another thread");
      must(held.expiresAt > Date.now(), "the lock has already expired");
      await state.releaseLock({ ...held, token: "someone-else" });
      must((await state.acquireLock(thread, 10_000)) === null, "a wrong token released the lock");
      must(await state.extendLock(held, 20_000), "extendLock failed");
      await state.releaseLock(held);
      must((await state.acquireLock(thread, 10_000)) !== null, "the released lock was not free");
      await state.forceReleaseLock(thread);
      must((await state.acquireLock(thread, 10_000)) !== null, "forceReleaseLock left the lock held");
    }],
    ["an expired lock is free and cannot be extended", async () => {
      const thread = fresh();
      const lock = await state.acquireLock(thread, ttl);
      must(lock !== null, "no lock");
      await sleep(ttl + 100);
      must(!(await state.extendLock(lock, 10_000)), "an expired lock was extended");
      must((await state.acquireLock(thread, 10_000)) !== null, "an expired lock is still held");
    }],
    ["values are kept, replaced, deleted and expire", async () => {
      const key = fresh();
      must((await state.get(key)) === null, "a missing key is not null");
      await state.set(key, { n: 1, list: ["a"] });
      const stored = await state.get(key);
      must(stored?.n === 1 && stored.list?.[0] === "a", `the value came back as ${show(stored)}`);
      await state.set(key, "text");
      must((await state.get(key)) === "text", "a string value changed");
      await state.delete(key);
      must((await state.get(key)) === null, "delete left the value");
      await state.set(key, 1, ttl);
      await sleep(ttl + 100);
      must((await state.get(key)) === null, "a value outlived its TTL");
    }],
    ["setIfNotExists sets a missing or expired key only", async () => {
      const key = fresh();
      must(await state.setIfNotExists(key, "first"), "the first set failed");
      must(!(await state.setIfNotExists(key, "second")), "the second set won");
      must((await state.get(key)) === "first", "the value was replaced");
      const short = fresh();
      await state.setIfNotExists(short, "old", ttl);
      await sleep(ttl + 100);
      must(await state.setIfNotExists(short, "new"), "an expired key blocked the set");
    }],
    ["a list keeps its newest maxLength values", async () => {
      const key = fresh();
      for (const value of ["a", "b", "c", "d"]) await state.appendToList(key, value, { maxLength: 3 });
      const list = await state.getList(key);
      must(list.join() === "b,c,d", `the list is ${show(list)}`);
      must((await state.getList(fresh())).length === 0, "a missing list is not empty");
    }],
    ["a thread's queue keeps its newest maxSize entries and reports its depth", async () => {
      const thread = fresh();
      must((await state.queueDepth(thread)) === 0, "a new queue is not empty");
      must((await state.dequeue(thread)) === null, "an empty queue dequeued something");
      let depth = 0;
      for (const text of ["one", "two", "three"]) depth = await state.enqueue(thread, entry(thread, text), 2);
      must(depth === 2, `the depth after three entries with maxSize 2 is ${depth}`);
      must((await state.queueDepth(thread)) === 2, "queueDepth disagrees with enqueue");
      const first = await state.dequeue(thread);
      must(first?.message?.text === "two", "dequeue did not answer the oldest entry kept");
      must(first.message.id === `${thread}-two`, "the message id changed");
      must((await state.queueDepth(thread)) === 1, "dequeue did not remove the entry");
      must((await state.queueDepth(fresh())) === 0, "another thread shares the queue");
    }],
    ["expired queue entries are dropped", async () => {
      const thread = fresh();
      await state.enqueue(thread, entry(thread, "stale", ttl), 10);
      await sleep(ttl + 100);
      must((await state.queueDepth(thread)) === 0, "an expired entry counts");
      must((await state.dequeue(thread)) === null, "an expired entry was dequeued");
    }],
  ]);
}

const APP = { type: "app" };

/** testCredentialProvider checks a CredentialProvider: the nine checks of upstream's kit, three of them only with userRef or inbound. */
export function testCredentialProvider(provider, options) {
  const value = () => `token-${crypto.randomUUID()}`;
  const { ref, seed, userRef, inbound } = options;
  const user = () => ({ type: "user", id: crypto.randomUUID() });
  return runChecks(`CredentialProvider ${provider.name}`, [
    ["apiVersion is 1 and the name is not empty", () => {
      must(provider.apiVersion === 1, `apiVersion is ${provider.apiVersion}`);
      must(typeof provider.name === "string" && provider.name.length > 0, "the name is empty");
    }],
    ["a ref of another provider is invalid_input", async () => {
      const result = await provider.getToken({ provider: "kit-unknown" }, { subject: APP });
      must(kindOf(result) === "invalid_input", `it answered ${kindOf(result) ?? "a token"}`);
    }],
    ["a stored token comes back with headers that carry it", async () => {
      const token = value();
      await seed(ref, APP, token);
      const got = await provider.getToken(ref, { subject: APP }).orThrow();
      must(got.token === token, "another token came back");
      must(Object.values(got.headers).some((h) => h.includes(token)), "no header carries the token");
    }],
    ["a new value is seen once stored", async () => {
      await seed(ref, APP, value());
      await provider.getToken(ref, { subject: APP }).orThrow();
      const next = value();
      await seed(ref, APP, next);
      must((await provider.getToken(ref, { subject: APP }).orThrow()).token === next, "the previous value came back");
    }],
    userRef !== undefined && ["a per-user ref keeps one credential per user", async () => {
      const [alice, bob] = [user(), user()];
      const [forAlice, forBob] = [value(), value()];
      await seed(userRef, alice, forAlice);
      await seed(userRef, bob, forBob);
      const a = await provider.getToken(userRef, { subject: alice }).orThrow();
      const b = await provider.getToken(userRef, { subject: bob }).orThrow();
      must(a.token === forAlice && b.token === forBob, "users share a credential");
      must(provider.capabilities(userRef).userSubjects === true, "capabilities do not report user subjects");
      must(!(await provider.getToken(userRef, { subject: APP })).ok, "the app read a per-user credential");
    }],
    userRef !== undefined && ["revoking one user's credential keeps the others", async () => {
      const [alice, bob] = [user(), user()];
      const forBob = value();
      await seed(userRef, alice, value());
      await seed(userRef, bob, forBob);
      must((await provider.revoke(userRef, { subject: alice }).orThrow()) === true, "revoke found nothing for the user");
      const after = await provider.getToken(userRef, { subject: alice });
      must(kindOf(after) === "not_found", `after the revoke it answered ${kindOf(after) ?? "a token"}`);
      must((await provider.getToken(userRef, { subject: bob }).orThrow()).token === forBob, "another user's credential went too");
      await provider.revoke(userRef, { subject: bob }).orThrow();
    }],
    ["a tenant's ref stays in its namespace", async () => {
      const forA = { ...ref, tenant: crypto.randomUUID() };
      const forB = { ...ref, tenant: crypto.randomUUID() };
      const [app, a, b] = [value(), value(), value()];
      await seed(ref, APP, app);
      await seed(forA, APP, a);
      await seed(forB, APP, b);
      const tokenOf = async (r) => (await provider.getToken(r, { subject: APP }).orThrow()).token;
      must((await tokenOf(ref)) === app && (await tokenOf(forA)) === a && (await tokenOf(forB)) === b, "a tenant's ref resolved another namespace's credential");
      must((await provider.revoke(forA, { subject: APP }).orThrow()) === true, "revoke found nothing in the tenant's namespace");
      const after = await provider.getToken(forA, { subject: APP });
      must(kindOf(after) === "not_found", `after the revoke it answered ${kindOf(after) ?? "a token"}`);
      must((await tokenOf(forB)) === b && (await tokenOf(ref)) === app, "revoking a tenant's ref removed another namespace's credential");
      await provider.revoke(forB, { subject: APP }).orThrow();
    }],
    ["revoke removes a credential once", async () => {
      await seed(ref, APP, value());
      must((await provider.revoke(ref, { subject: APP }).orThrow()) === true, "revoke found nothing");
      const after = await provider.getToken(ref, { subject: APP });
      must(kindOf(after) === "not_found", `after the revoke it answered ${kindOf(after) ?? "a token"}`);
      must((await provider.revoke(ref, { subject: APP }).orThrow()) === false, "a second revoke found a credential");
    }],
    inbound !== undefined && ["a signed request passes, a tampered one does not", async () => {
      must(typeof provider.verifyInbound === "function", "there is no verifyInbound");
      const secret = `whsec_${btoa(crypto.randomUUID())}`;
      await seed(inbound.ref, APP, secret);
      const body = JSON.stringify({ hello: "world" });
      const signed = await inbound.sign(body, secret);
      must((await provider.verifyInbound(signed, inbound.ref).orThrow()) === true, "a signed request was refused");
      const tampered = new Request(signed.url, { method: "POST", headers: signed.headers, body: `${body} ` });
      must((await provider.verifyInbound(tampered, inbound.ref).orThrow()) === false, "a tampered request passed");
    }],
  ]);
}

/** testGraphCompiler checks a GraphCompiler on the one valid graph the caller gives: the three checks of upstream's kit. */
export function testGraphCompiler(compile, options) {
  const { graph } = options;
  return runChecks("GraphCompiler", [
    ["apiVersion is 1", () => {
      must(compile.apiVersion === 1, `apiVersion is ${compile.apiVersion}`);
    }],
    ["the compiled value is plain JSON", async () => {
      const value = await compile(graph);
      // Nothing compiled is fine: better-supabase stores it as null.
      if (value === undefined) return;
      const text = JSON.stringify(value);
      must(text !== undefined && isDeepStrictEqual(JSON.parse(text), value), `the compiled value changes in a JSON round trip: ${String(text)}`);
    }],
    ["one graph compiles to one value and is left as it was", async () => {
      const before = JSON.stringify(graph);
      const first = JSON.stringify(await compile(graph));
      const second = JSON.stringify(await compile(graph));
      must(first === second, `two compiles gave ${first} and ${second}`);
      must(JSON.stringify(graph) === before, "compiling changed the graph");
    }],
  ]);
}

/** testBuilderStarter checks a BuilderStarter with the one call the caller gives: the two checks of upstream's kit. */
export function testBuilderStarter(start, options) {
  const { call } = options;
  return runChecks("BuilderStarter", [
    ["apiVersion is 1", () => {
      must(start.apiVersion === 1, `apiVersion is ${start.apiVersion}`);
    }],
    ["one idempotency key starts one run", async () => {
      const first = await start(call);
      must(typeof first === "string" && first.length > 0, `the start answered ${show(first)}, not a run id`);
      const again = await start(call);
      must(again === first, `the same call started ${show(first)}, then ${show(again)}`);
    }],
  ]);
}

/** testEmbedder checks an Embedder with the values the caller gives (two short texts unless it gives some): the four checks of upstream's kit. */
export function testEmbedder(embedder, options = {}) {
  const values = options.values ?? ["The quick brown fox.", "A lazy dog sleeps."];
  return runChecks(`Embedder ${embedder.model}`, [
    ["has apiVersion 1", () => {
      must(embedder.apiVersion === 1, `apiVersion is ${embedder.apiVersion}`);
    }],
    ["names its model", () => {
      must(typeof embedder.model === "string" && embedder.model.length > 0, `the model is ${show(embedder.model)}`);
    }],
    ["embeds nothing to nothing", async () => {
      const vectors = await embedder.embed([]);
      must(Array.isArray(vectors) && vectors.length === 0, `embedding no values answered ${show(vectors)}`);
    }],
    ["returns one finite vector per value, of one length", async () => {
      must(values.length > 0, "the kit was given no values to embed");
      const vectors = await embedder.embed(values);
      must(Array.isArray(vectors) && vectors.length === values.length, `${values.length} values answered ${Array.isArray(vectors) ? vectors.length : show(vectors)} vectors`);
      const length = Array.isArray(vectors[0]) ? vectors[0].length : 0;
      must(length > 0, "the first vector is empty");
      vectors.forEach((v, i) => {
        must(Array.isArray(v) && v.length === length, `vector ${i} has ${Array.isArray(v) ? v.length : "no"} numbers, the first ${length}`);
        const bad = v.findIndex((x) => typeof x !== "number" || !Number.isFinite(x));
        must(bad === -1, `vector ${i} holds ${String(v[bad])} at ${bad}`);
      });
      const again = await embedder.embed([values[0]]);
      must(again.length === 1 && again[0]?.length === length, `the first value embedded alone gave ${again.length} vectors of ${again[0]?.length} numbers, not one of ${length}`);
    }],
  ]);
}

/** testAiTaskRunner runs the one task and run the caller gives: the three checks of upstream's kit. */
export function testAiTaskRunner(runner, options) {
  const { task, run } = options;
  return runChecks("AiTaskRunner", [
    ["has apiVersion 1", () => {
      must(runner.apiVersion === 1, `apiVersion is ${runner.apiVersion}`);
    }],
    ["resolves with nothing or a chat id", async () => {
      const result = await runner(task, run, new AbortController().signal);
      must(
        result === undefined || (typeof result === "object" && result !== null && (result.chatId === undefined || typeof result.chatId === "string")),
        `the run resolved with ${show(result)}`,
      );
    }],
    ["stops on an aborted signal", async () => {
      let rejected = false;
      try {
        await runner(task, run, AbortSignal.abort());
      } catch {
        rejected = true;
      }
      must(rejected, "a run given an aborted signal resolved");
    }],
  ]);
}
