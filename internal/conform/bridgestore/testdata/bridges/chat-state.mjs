// An in-memory Chat SDK StateAdapter behind the bridge protocol, in plain
// Node.js with no dependencies, with an injected clock that clock.advance
// moves. Correct by default; each --bug flag breaks one rule, so that the
// chat-state suite can be shown to catch it:
//   --bug=release-ignores-token  releaseLock frees the lock whatever the token
//   --bug=lock-check-then-set    acquireLock awaits between its check and its write
//                                (until another acquisition of the thread has
//                                passed its check too, or a quarter second:
//                                racing calls meet however the machine
//                                schedules them)
//   --bug=null-is-a-miss         setIfNotExists overwrites a stored null
//   --bug=list-cap-keeps-oldest  appendToList past maxLength drops the new value
//   --bug=queue-counts-expired   expired queue entries count and dequeue
//   --bug=expired-takes-a-place  an entry that comes expired is queued, under the cap
//   --bug=lock-never-expires     a lock holds past its TTL
//   --bug=set-ignores-ttl        set and setIfNotExists store values that never expire
//   --bug=list-ignores-ttl       appendToList keeps lists that never expire
//   --bug=list-keeps-first-ttl   a later append leaves the list's first TTL in force
//   --bug=ignore-clock           declares the clock, but every TTL reads the real time
//   --no-clock                   do not offer the clock capability
//   --clock=JSON                 declare the clock capability as this JSON value
//   --queue-expiry=V             declare chatState.queueExpiry V (default "skip";
//                                "none" declares nothing)
import { randomUUID } from "node:crypto";
import { serve, args, bug } from "./serve.mjs";


// ---- the clock: every TTL is read from now() ----
let offsetMs = 0;
const now = () => (bug === "ignore-clock" ? Date.now() : Date.now() + offsetMs);
const clock = {
  advance({ seconds }) {
    if (typeof seconds !== "number" || seconds < 0) throw Object.assign(new Error("clock.advance takes seconds >= 0"), { code: -32602 });
    offsetMs += seconds * 1000;
    return { now: new Date(now()).toISOString() };
  },
};

// ---- the state adapter ----
const subs = new Set();
const locks = new Map(); // threadId -> {threadId, token, expiresAt}
const values = new Map(); // key -> {value, expiresAt|null}
const lists = new Map(); // key -> {values, expiresAt|null}
const queues = new Map(); // threadId -> [entry]

const liveLock = (thread) => {
  const l = locks.get(thread);
  if (l && l.expiresAt <= now() && bug !== "lock-never-expires") {
    locks.delete(thread);
    return undefined;
  }
  return l;
};
const liveValue = (key) => {
  const v = values.get(key);
  if (v && v.expiresAt !== null && v.expiresAt <= now()) {
    values.delete(key);
    return undefined;
  }
  return v;
};
const liveQueue = (thread) => {
  const q = (queues.get(thread) ?? []).filter((e) => bug === "queue-counts-expired" || e.expiresAt > now());
  queues.set(thread, q);
  return q;
};
const liveList = (key) => {
  const l = lists.get(key);
  if (l && l.expiresAt !== null && l.expiresAt <= now()) {
    lists.delete(key);
    return undefined;
  }
  return l;
};
// meetRival waits, after a lock check, for another acquisition of the same
// thread to pass its check as well (or a quarter second): both then write.
const rivals = new Map(); // threadId -> the release of the one waiting
const meetRival = (threadId) =>
  new Promise((resolve) => {
    const waiting = rivals.get(threadId);
    if (waiting) {
      rivals.delete(threadId);
      waiting();
      resolve();
      return;
    }
    const timer = setTimeout(() => {
      rivals.delete(threadId);
      resolve();
    }, 250);
    rivals.set(threadId, () => {
      clearTimeout(timer);
      resolve();
    });
  });
const expiry = (ttlMs) => (ttlMs > 0 && bug !== "set-ignores-ttl" ? now() + ttlMs : null);

const chatState = {
  subscribe({ threadId }) {
    subs.add(threadId);
  },
  unsubscribe({ threadId }) {
    subs.delete(threadId);
  },
  isSubscribed({ threadId }) {
    return { subscribed: subs.has(threadId) };
  },
  async acquireLock({ threadId, ttlMs }) {
    if (liveLock(threadId)) return { lock: null };
    if (bug === "lock-check-then-set") await meetRival(threadId);
    const lock = { threadId, token: randomUUID(), expiresAt: now() + ttlMs };
    locks.set(threadId, lock);
    return { lock };
  },
  releaseLock({ lock }) {
    const cur = locks.get(lock.threadId);
    if (cur && (cur.token === lock.token || bug === "release-ignores-token")) locks.delete(lock.threadId);
  },
  extendLock({ lock, ttlMs }) {
    const cur = liveLock(lock.threadId);
    if (!cur || cur.token !== lock.token) return { extended: false };
    cur.expiresAt = now() + ttlMs;
    return { extended: true };
  },
  forceReleaseLock({ threadId }) {
    locks.delete(threadId);
  },
  get({ key }) {
    const v = liveValue(key);
    return { value: v ? v.value : null };
  },
  set({ key, value, ttlMs }) {
    values.set(key, { value, expiresAt: expiry(ttlMs) });
  },
  setIfNotExists({ key, value, ttlMs }) {
    const v = liveValue(key);
    if (v && !(bug === "null-is-a-miss" && v.value === null)) return { set: false };
    values.set(key, { value, expiresAt: expiry(ttlMs) });
    return { set: true };
  },
  delete({ key }) {
    values.delete(key);
  },
  appendToList({ key, value, maxLength, ttlMs }) {
    const old = liveList(key);
    const l = old ?? { values: [], expiresAt: null };
    if (maxLength > 0 && l.values.length >= maxLength && bug === "list-cap-keeps-oldest") return;
    l.values.push(value);
    if (maxLength > 0 && l.values.length > maxLength) l.values.splice(0, l.values.length - maxLength);
    // The append's TTL is the whole list's from now on.
    if (bug === "list-ignores-ttl") l.expiresAt = null;
    else if (!(bug === "list-keeps-first-ttl" && old)) l.expiresAt = ttlMs > 0 ? now() + ttlMs : null;
    lists.set(key, l);
  },
  getList({ key }) {
    return { values: liveList(key)?.values ?? [] };
  },
  enqueue({ threadId, entry, maxSize }) {
    const q = liveQueue(threadId);
    // One that came expired is dropped at once: kept, it would push a live
    // entry out of a full queue and never dequeue.
    if (entry.expiresAt > now() || bug === "expired-takes-a-place" || bug === "queue-counts-expired") q.push(entry);
    if (maxSize > 0 && q.length > maxSize) q.splice(0, q.length - maxSize);
    return { depth: q.length };
  },
  dequeue({ threadId }) {
    return { entry: liveQueue(threadId).shift() ?? null };
  },
  queueDepth({ threadId }) {
    return { depth: liveQueue(threadId).length };
  },
};

// ---- protocol ----

serve({
  label: "chatstate",
  name: "chatstate",
  capabilities: {
    chatState: true,
    clock: args["no-clock"] ? false : args.clock !== undefined ? JSON.parse(args.clock) : true,
    ...(args["queue-expiry"] === "none" ? {} : { "chatState.queueExpiry": args["queue-expiry"] ?? "skip" }),
  },
  groups: { chatState, clock: args["no-clock"] ? {} : clock },
});
