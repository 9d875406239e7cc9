package conform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// The TTLs of the chat-state cases. Locks and values that must outlive a
// case get a long TTL, so that another case moving a shared clock (a
// bridge has one for the whole run) by shortTTL*2 cannot expire them. A
// short TTL is a second: on a store without a clock the cases wait for it
// in real time, and a store that takes longer than that to answer fails
// the case rather than passing it.
const (
	longTTL  = 10 * time.Minute
	shortTTL = time.Second
	// writers is how many callers race in the concurrency cases.
	writers = 16
)

// raw encodes v as JSON for the state adapter.
func raw(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// storeNow is the store's time: its clock's, or the wall clock's when the
// store has no clock of its own.
func storeNow(ctx context.Context, s *Subject) (time.Time, error) {
	if s.Clock == nil {
		return time.Now(), nil
	}
	t, err := s.Clock.Advance(ctx, 0)
	return t, op("read the clock", err)
}

// advance makes d pass for the store: it moves the store's clock, or, on
// a store without one, waits d in real time, holding no slot of the run's
// parallelism meanwhile.
func advance(ctx context.Context, s *Subject, d time.Duration) error {
	if s.Clock == nil {
		return s.sleepUntil(ctx, time.Now().Add(d))
	}
	_, err := s.Clock.Advance(ctx, d)
	return op("advance the clock", err)
}

// queueEntry is a queued Chat SDK message of thread with text, expiring
// at expires.
func queueEntry(thread, text string, now, expires time.Time) QueueEntry {
	return QueueEntry{
		EnqueuedAt: now.UnixMilli(),
		ExpiresAt:  expires.UnixMilli(),
		Message:    raw(map[string]any{"id": thread + "-" + text, "text": text, "threadId": thread}),
	}
}

// entryText returns the text of a dequeued entry's message ("" for nil).
func entryText(e *QueueEntry) string {
	if e == nil {
		return ""
	}
	var m struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(e.Message, &m)
	return m.Text
}

// showJSON renders stored values for a mismatch.
func showJSON(vs []json.RawMessage) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// jsonIs reports whether got is the JSON value want (nil got is a miss,
// which only JSON null equals).
func jsonIs(got json.RawMessage, want any) bool {
	if got == nil {
		got = json.RawMessage("null")
	}
	return sameJSON(got, raw(want))
}

// checkLock checks that l is a lock on thread that expires after now and
// no later than ttl after it (with a little slack for the calls).
func checkLock(c *checks, what string, l *ChatLock, thread string, before time.Time, ttl time.Duration) {
	if !c.that(l != nil, what, "a lock", l) {
		return
	}
	c.eq(what+": threadId", l.ThreadID, thread)
	c.that(l.Token != "", what+": token", "a non-empty token", l.Token)
	exp := time.UnixMilli(l.ExpiresAt)
	c.that(exp.After(before) && !exp.After(before.Add(ttl+time.Minute)), what+": expiresAt",
		fmt.Sprintf("in the future, within the TTL of %s (after %s)", ttl, before.UTC().Format(time.RFC3339)), exp.UTC().Format(time.RFC3339Nano))
}

func chatStateCases() []Case {
	cs := []Case{
		{ID: "chat-state/subscribe-unsubscribe", Rule: "subscribe (twice is fine) makes a thread subscribed, unsubscribe (twice is fine) undoes it, and other threads are not touched", Run: func(ctx context.Context, s *Subject) error {
			st := s.ChatState
			thread, other := s.ID("thread"), s.ID("thread")
			var c checks
			before, err := st.IsSubscribed(ctx, thread)
			if err != nil {
				return op("isSubscribed", err)
			}
			c.eq("a new thread is subscribed", before, false)
			for range 2 {
				if err := st.Subscribe(ctx, thread); err != nil {
					return op("subscribe", err)
				}
			}
			on, err := st.IsSubscribed(ctx, thread)
			if err != nil {
				return op("isSubscribed", err)
			}
			c.eq("subscribed after subscribing twice", on, true)
			o, err := st.IsSubscribed(ctx, other)
			if err != nil {
				return op("isSubscribed", err)
			}
			c.eq("another thread subscribed", o, false)
			for range 2 {
				if err := st.Unsubscribe(ctx, thread); err != nil {
					return op("unsubscribe", err)
				}
			}
			off, err := st.IsSubscribed(ctx, thread)
			if err != nil {
				return op("isSubscribed", err)
			}
			c.eq("subscribed after unsubscribing twice", off, false)
			return c.err()
		}},
		{ID: "chat-state/lock-one-winner", Rule: "of two concurrent acquisitions of a thread's lock exactly one wins; the lock names the thread and expires in the future, within its TTL", Run: func(ctx context.Context, s *Subject) error {
			thread := s.ID("thread")
			before, err := storeNow(ctx, s)
			if err != nil {
				return err
			}
			var locks [2]*ChatLock
			var errs [2]error
			var wg sync.WaitGroup
			for i := range 2 {
				wg.Go(func() { locks[i], errs[i] = s.ChatState.AcquireLock(ctx, thread, longTTL) })
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					return op("acquireLock", err)
				}
			}
			var c checks
			won := 0
			for _, l := range locks {
				if l != nil {
					won++
					checkLock(&c, "the winner's lock", l, thread, before.Add(-time.Second), longTTL)
				}
			}
			c.eq("acquisitions that won", won, 1)
			return c.err()
		}},
		{ID: "chat-state/lock-wrong-token", Rule: "releasing or extending a lock with a wrong token does nothing: the lock stays held", Run: func(ctx context.Context, s *Subject) error {
			st := s.ChatState
			thread := s.ID("thread")
			l, err := st.AcquireLock(ctx, thread, longTTL)
			if err != nil || l == nil {
				return firstErr(op("acquireLock", err), eq("acquireLock of a free thread", l != nil, true))
			}
			wrong := *l
			wrong.Token = "not-" + l.Token
			if err := st.ReleaseLock(ctx, wrong); err != nil {
				return op("releaseLock with a wrong token", err)
			}
			var c checks
			again, err := st.AcquireLock(ctx, thread, longTTL)
			if err != nil {
				return op("acquireLock", err)
			}
			c.that(again == nil, "acquireLock after a release with a wrong token", "nil (the lock is still held)", again)
			ext, err := st.ExtendLock(ctx, wrong, longTTL)
			if err != nil {
				return op("extendLock with a wrong token", err)
			}
			c.eq("extendLock with a wrong token", ext, false)
			return c.err()
		}},
		{ID: "chat-state/lock-extend", Rule: "the holder extends its lock (true) and the lock stays held", Run: func(ctx context.Context, s *Subject) error {
			st := s.ChatState
			thread := s.ID("thread")
			l, err := st.AcquireLock(ctx, thread, longTTL)
			if err != nil || l == nil {
				return firstErr(op("acquireLock", err), eq("acquireLock of a free thread", l != nil, true))
			}
			var c checks
			ext, err := st.ExtendLock(ctx, *l, 2*longTTL)
			if err != nil {
				return op("extendLock", err)
			}
			c.eq("extendLock by the holder", ext, true)
			again, err := st.AcquireLock(ctx, thread, longTTL)
			if err != nil {
				return op("acquireLock", err)
			}
			c.that(again == nil, "acquireLock after an extension", "nil (the lock is still held)", again)
			return c.err()
		}},
		{ID: "chat-state/lock-extend-moves-expiry", MovesClock: true, Rule: "an extended lock outlives its first TTL", Run: func(ctx context.Context, s *Subject) error {
			st := s.ChatState
			thread := s.ID("thread")
			l, err := st.AcquireLock(ctx, thread, shortTTL)
			if err != nil || l == nil {
				return firstErr(op("acquireLock", err), eq("acquireLock of a free thread", l != nil, true))
			}
			ext, err := st.ExtendLock(ctx, *l, longTTL)
			if err != nil {
				return op("extendLock", err)
			}
			if err := advance(ctx, s, 2*shortTTL); err != nil {
				return err
			}
			var c checks
			c.eq("extendLock by the holder", ext, true)
			again, err := st.AcquireLock(ctx, thread, longTTL)
			if err != nil {
				return op("acquireLock", err)
			}
			c.that(again == nil, "acquireLock past the first TTL of an extended lock", "nil (the lock is still held)", again)
			return c.err()
		}},
		{ID: "chat-state/lock-release", Rule: "the holder's release frees the lock: the next acquisition wins, with another token", Run: func(ctx context.Context, s *Subject) error {
			st := s.ChatState
			thread := s.ID("thread")
			l, err := st.AcquireLock(ctx, thread, longTTL)
			if err != nil || l == nil {
				return firstErr(op("acquireLock", err), eq("acquireLock of a free thread", l != nil, true))
			}
			if err := st.ReleaseLock(ctx, *l); err != nil {
				return op("releaseLock", err)
			}
			before, err := storeNow(ctx, s)
			if err != nil {
				return err
			}
			next, err := st.AcquireLock(ctx, thread, longTTL)
			if err != nil {
				return op("acquireLock after release", err)
			}
			var c checks
			checkLock(&c, "acquireLock after release", next, thread, before.Add(-time.Second), longTTL)
			if next != nil {
				c.that(next.Token != l.Token, "the new lock's token", "another token than the released lock's", next.Token)
			}
			return c.err()
		}},
		{ID: "chat-state/lock-force-release", Rule: "force-release frees a held lock whatever its token", Run: func(ctx context.Context, s *Subject) error {
			st := s.ChatState
			thread := s.ID("thread")
			l, err := st.AcquireLock(ctx, thread, longTTL)
			if err != nil || l == nil {
				return firstErr(op("acquireLock", err), eq("acquireLock of a free thread", l != nil, true))
			}
			if err := st.ForceReleaseLock(ctx, thread); err != nil {
				return op("forceReleaseLock", err)
			}
			next, err := st.AcquireLock(ctx, thread, longTTL)
			if err != nil {
				return op("acquireLock after forceReleaseLock", err)
			}
			return eq("acquireLock after forceReleaseLock wins", next != nil, true)
		}},
		{ID: "chat-state/lock-expired", MovesClock: true, Rule: "an expired lock cannot be extended and can be taken again", Run: func(ctx context.Context, s *Subject) error {
			st := s.ChatState
			thread := s.ID("thread")
			l, err := st.AcquireLock(ctx, thread, shortTTL)
			if err != nil || l == nil {
				return firstErr(op("acquireLock", err), eq("acquireLock of a free thread", l != nil, true))
			}
			if err := advance(ctx, s, 2*shortTTL); err != nil {
				return err
			}
			var c checks
			ext, err := st.ExtendLock(ctx, *l, longTTL)
			if err != nil {
				return op("extendLock of an expired lock", err)
			}
			c.eq("extendLock of an expired lock", ext, false)
			next, err := st.AcquireLock(ctx, thread, longTTL)
			if err != nil {
				return op("acquireLock after expiry", err)
			}
			c.eq("acquireLock of an expired lock's thread wins", next != nil, true)
			return c.err()
		}},
		{ID: "chat-state/lock-threads-apart", Rule: "a lock on one thread does not block another thread's lock", Run: func(ctx context.Context, s *Subject) error {
			st := s.ChatState
			a, b := s.ID("thread"), s.ID("thread")
			la, err := st.AcquireLock(ctx, a, longTTL)
			if err != nil {
				return op("acquireLock", err)
			}
			lb, err := st.AcquireLock(ctx, b, longTTL)
			if err != nil {
				return op("acquireLock", err)
			}
			var c checks
			c.eq("the first thread's lock", la != nil, true)
			c.eq("the second thread's lock", lb != nil, true)
			return c.err()
		}},
		{ID: "chat-state/value-round-trip", Rule: "get of a missing key is null; set stores objects and strings as given and replaces the old value; delete removes it", Run: func(ctx context.Context, s *Subject) error {
			st := s.ChatState
			key := s.ID("key")
			var c checks
			get := func(what string, want any) error {
				v, err := st.Get(ctx, key)
				if err != nil {
					return op("get", err)
				}
				c.that(jsonIs(v, want), what, string(raw(want)), string(v))
				return nil
			}
			if err := get("get of a missing key", nil); err != nil {
				return err
			}
			obj := map[string]any{"n": 1, "list": []any{"a", "é"}, "nested": map[string]any{"ok": true}}
			if err := st.Set(ctx, key, raw(obj), 0); err != nil {
				return op("set an object", err)
			}
			if err := get("get of an object", obj); err != nil {
				return err
			}
			if err := st.Set(ctx, key, raw("text"), 0); err != nil {
				return op("set a string", err)
			}
			if err := get("get of a string that replaced an object", "text"); err != nil {
				return err
			}
			if err := st.Delete(ctx, key); err != nil {
				return op("delete", err)
			}
			if err := get("get after delete", nil); err != nil {
				return err
			}
			if err := st.Delete(ctx, s.ID("missing")); err != nil {
				c.list = append(c.list, op("delete of a missing key", err))
			}
			return c.err()
		}},
		{ID: "chat-state/value-null-not-a-miss", Rule: "a stored JSON null is a value, not a miss: set-if-not-exists on it does not store", Run: func(ctx context.Context, s *Subject) error {
			st := s.ChatState
			key := s.ID("key")
			if err := st.Set(ctx, key, raw(nil), 0); err != nil {
				return op("set null", err)
			}
			var c checks
			v, err := st.Get(ctx, key)
			if err != nil {
				return op("get", err)
			}
			c.that(jsonIs(v, nil), "get of a stored null", "null", string(v))
			set, err := st.SetIfNotExists(ctx, key, raw("other"), 0)
			if err != nil {
				return op("setIfNotExists", err)
			}
			c.eq("setIfNotExists on a stored null", set, false)
			v, err = st.Get(ctx, key)
			if err != nil {
				return op("get", err)
			}
			c.that(jsonIs(v, nil), "get after setIfNotExists on a stored null", "null", string(v))
			return c.err()
		}},
		{ID: "chat-state/value-ttl", MovesClock: true, Rule: "a value set with a TTL reads as a miss once the TTL has passed; one set without a TTL stays", Run: func(ctx context.Context, s *Subject) error {
			st := s.ChatState
			short, kept := s.ID("key"), s.ID("key")
			if err := st.Set(ctx, short, raw(1), shortTTL); err != nil {
				return op("set with a TTL", err)
			}
			if err := st.Set(ctx, kept, raw(2), 0); err != nil {
				return op("set without a TTL", err)
			}
			var c checks
			v, err := st.Get(ctx, short)
			if err != nil {
				return op("get", err)
			}
			c.that(jsonIs(v, 1), "get within the TTL", "1", string(v))
			if err := advance(ctx, s, 2*shortTTL); err != nil {
				return err
			}
			if v, err = st.Get(ctx, short); err != nil {
				return op("get", err)
			}
			c.that(jsonIs(v, nil), "get past the TTL", "null", string(v))
			if v, err = st.Get(ctx, kept); err != nil {
				return op("get", err)
			}
			c.that(jsonIs(v, 2), "get of a value without a TTL", "2", string(v))
			return c.err()
		}},
		{ID: "chat-state/set-if-not-exists", Rule: "set-if-not-exists stores only the first value: true, then false, and the first value stays", Run: func(ctx context.Context, s *Subject) error {
			st := s.ChatState
			key := s.ID("key")
			first, err := st.SetIfNotExists(ctx, key, raw("first"), 0)
			if err != nil {
				return op("setIfNotExists", err)
			}
			second, err := st.SetIfNotExists(ctx, key, raw("second"), 0)
			if err != nil {
				return op("setIfNotExists", err)
			}
			v, err := st.Get(ctx, key)
			if err != nil {
				return op("get", err)
			}
			var c checks
			c.eq("the first setIfNotExists", first, true)
			c.eq("the second setIfNotExists", second, false)
			c.that(jsonIs(v, "first"), "the stored value", `"first"`, string(v))
			return c.err()
		}},
		{ID: "chat-state/set-if-not-exists-expired", MovesClock: true, Rule: "set-if-not-exists stores again once the key's TTL has passed", Run: func(ctx context.Context, s *Subject) error {
			st := s.ChatState
			key := s.ID("key")
			if _, err := st.SetIfNotExists(ctx, key, raw("old"), shortTTL); err != nil {
				return op("setIfNotExists", err)
			}
			if err := advance(ctx, s, 2*shortTTL); err != nil {
				return err
			}
			again, err := st.SetIfNotExists(ctx, key, raw("new"), 0)
			if err != nil {
				return op("setIfNotExists", err)
			}
			v, err := st.Get(ctx, key)
			if err != nil {
				return op("get", err)
			}
			var c checks
			c.eq("setIfNotExists on an expired key", again, true)
			c.that(jsonIs(v, "new"), "the stored value", `"new"`, string(v))
			return c.err()
		}},
		{ID: "chat-state/list-cap-keeps-newest", Rule: "appending past a list's maxLength keeps the newest values, oldest first; a missing list is empty", Run: func(ctx context.Context, s *Subject) error {
			st := s.ChatState
			key := s.ID("list")
			for _, v := range []string{"a", "b", "c", "d"} {
				if err := st.AppendToList(ctx, key, raw(v), 3); err != nil {
					return op("appendToList", err)
				}
			}
			var c checks
			got, err := st.GetList(ctx, key)
			if err != nil {
				return op("getList", err)
			}
			c.eq("the list after a, b, c, d with maxLength 3", showJSON(got), []string{`"b"`, `"c"`, `"d"`})
			missing, err := st.GetList(ctx, s.ID("list"))
			if err != nil {
				return op("getList", err)
			}
			c.eq("a missing list", len(missing), 0)
			return c.err()
		}},
		{ID: "chat-state/queue-cap-keeps-newest", Rule: "enqueueing past a queue's maxSize keeps the newest entries, reports the depth, and dequeue returns the oldest kept entry unchanged", Run: func(ctx context.Context, s *Subject) error {
			st := s.ChatState
			thread := s.ID("thread")
			now, err := storeNow(ctx, s)
			if err != nil {
				return err
			}
			var c checks
			var depth int
			var two QueueEntry
			for _, text := range []string{"one", "two", "three"} {
				e := queueEntry(thread, text, now, now.Add(longTTL))
				if text == "two" {
					two = e
				}
				if depth, err = st.Enqueue(ctx, thread, e, 2); err != nil {
					return op("enqueue", err)
				}
			}
			c.eq("depth after three entries with maxSize 2", depth, 2)
			qd, err := st.QueueDepth(ctx, thread)
			if err != nil {
				return op("queueDepth", err)
			}
			c.eq("queueDepth", qd, 2)
			first, err := st.Dequeue(ctx, thread)
			if err != nil {
				return op("dequeue", err)
			}
			c.eq("the first dequeued entry's text", entryText(first), "two")
			if first != nil {
				c.that(sameJSON(first.Message, two.Message), "the dequeued message", string(two.Message), string(first.Message))
				c.eq("the dequeued entry's times", [2]int64{first.EnqueuedAt, first.ExpiresAt}, [2]int64{two.EnqueuedAt, two.ExpiresAt})
			}
			if qd, err = st.QueueDepth(ctx, thread); err != nil {
				return op("queueDepth", err)
			}
			c.eq("queueDepth after a dequeue", qd, 1)
			return c.err()
		}},
		{ID: "chat-state/queue-oldest-first", Rule: "a queue dequeues oldest first and then returns nil; a new queue is empty", Run: func(ctx context.Context, s *Subject) error {
			st := s.ChatState
			thread := s.ID("thread")
			now, err := storeNow(ctx, s)
			if err != nil {
				return err
			}
			var c checks
			d0, err := st.QueueDepth(ctx, thread)
			if err != nil {
				return op("queueDepth", err)
			}
			c.eq("depth of a new queue", d0, 0)
			e0, err := st.Dequeue(ctx, thread)
			if err != nil {
				return op("dequeue", err)
			}
			c.that(e0 == nil, "dequeue of an empty queue", "nil", e0)
			for _, text := range []string{"one", "two", "three"} {
				if _, err := st.Enqueue(ctx, thread, queueEntry(thread, text, now, now.Add(longTTL)), 10); err != nil {
					return op("enqueue", err)
				}
			}
			var got []string
			for range 4 {
				e, err := st.Dequeue(ctx, thread)
				if err != nil {
					return op("dequeue", err)
				}
				got = append(got, entryText(e))
			}
			c.eq("four dequeues after three entries", got, []string{"one", "two", "three", ""})
			return c.err()
		}},
		{ID: "chat-state/queue-threads-apart", Rule: "each thread has its own queue: entries of one neither count nor dequeue in another", Run: func(ctx context.Context, s *Subject) error {
			st := s.ChatState
			a, b := s.ID("thread"), s.ID("thread")
			now, err := storeNow(ctx, s)
			if err != nil {
				return err
			}
			if _, err := st.Enqueue(ctx, a, queueEntry(a, "mine", now, now.Add(longTTL)), 10); err != nil {
				return op("enqueue", err)
			}
			var c checks
			d, err := st.QueueDepth(ctx, b)
			if err != nil {
				return op("queueDepth", err)
			}
			c.eq("another thread's depth", d, 0)
			e, err := st.Dequeue(ctx, b)
			if err != nil {
				return op("dequeue", err)
			}
			c.that(e == nil, "dequeue of another thread", "nil", entryText(e))
			if d, err = st.QueueDepth(ctx, a); err != nil {
				return op("queueDepth", err)
			}
			c.eq("the thread's own depth", d, 1)
			return c.err()
		}},
		{ID: "chat-state/queue-expired-skipped", Rule: "an entry whose expiresAt has passed neither counts in the depth nor dequeues", Run: func(ctx context.Context, s *Subject) error {
			st := s.ChatState
			thread := s.ID("thread")
			now, err := storeNow(ctx, s)
			if err != nil {
				return err
			}
			if _, err := st.Enqueue(ctx, thread, queueEntry(thread, "stale", now.Add(-2*time.Minute), now.Add(-time.Minute)), 10); err != nil {
				return op("enqueue an expired entry", err)
			}
			if _, err := st.Enqueue(ctx, thread, queueEntry(thread, "fresh", now, now.Add(longTTL)), 10); err != nil {
				return op("enqueue", err)
			}
			var c checks
			d, err := st.QueueDepth(ctx, thread)
			if err != nil {
				return op("queueDepth", err)
			}
			c.eq("depth with one expired and one live entry", d, 1)
			var got []string
			for range 2 {
				e, err := st.Dequeue(ctx, thread)
				if err != nil {
					return op("dequeue", err)
				}
				got = append(got, entryText(e))
			}
			c.eq("two dequeues", got, []string{"fresh", ""})
			return c.err()
		}},
		{ID: "chat-state/queue-expired-arrival-takes-no-place", Rule: "an entry that arrives already expired takes no place under maxSize: the live entries stay, the depth leaves it out and it never dequeues", Run: func(ctx context.Context, s *Subject) error {
			st := s.ChatState
			thread := s.ID("thread")
			now, err := storeNow(ctx, s)
			if err != nil {
				return err
			}
			for _, text := range []string{"one", "two"} {
				if _, err := st.Enqueue(ctx, thread, queueEntry(thread, text, now, now.Add(longTTL)), 2); err != nil {
					return op("enqueue", err)
				}
			}
			var c checks
			depth, err := st.Enqueue(ctx, thread, queueEntry(thread, "stale", now.Add(-2*time.Minute), now.Add(-time.Minute)), 2)
			if err != nil {
				return op("enqueue an expired entry", err)
			}
			c.eq("the depth enqueue returns for an expired entry on a full queue", depth, 2)
			var got []string
			for range 3 {
				e, err := st.Dequeue(ctx, thread)
				if err != nil {
					return op("dequeue", err)
				}
				got = append(got, entryText(e))
			}
			c.eq("three dequeues", got, []string{"one", "two", ""})
			return c.err()
		}},
		{ID: "chat-state/queue-entry-expires", MovesClock: true, Rule: "a queued entry stops counting and dequeuing once the store's time passes its expiresAt", Run: func(ctx context.Context, s *Subject) error {
			st := s.ChatState
			thread := s.ID("thread")
			now, err := storeNow(ctx, s)
			if err != nil {
				return err
			}
			if _, err := st.Enqueue(ctx, thread, queueEntry(thread, "soon", now, now.Add(shortTTL)), 10); err != nil {
				return op("enqueue", err)
			}
			var c checks
			d, err := st.QueueDepth(ctx, thread)
			if err != nil {
				return op("queueDepth", err)
			}
			c.eq("depth before expiry", d, 1)
			if err := advance(ctx, s, 2*shortTTL); err != nil {
				return err
			}
			if d, err = st.QueueDepth(ctx, thread); err != nil {
				return op("queueDepth", err)
			}
			c.eq("depth after expiry", d, 0)
			e, err := st.Dequeue(ctx, thread)
			if err != nil {
				return op("dequeue", err)
			}
			c.that(e == nil, "dequeue after expiry", "nil", entryText(e))
			return c.err()
		}},
		{ID: "chat-state/concurrent-lock", Rule: fmt.Sprintf("of %d callers racing for one thread's lock exactly one wins", writers), Run: func(ctx context.Context, s *Subject) error {
			thread := s.ID("thread")
			locks := make([]*ChatLock, writers)
			errs := make([]error, writers)
			var wg sync.WaitGroup
			for i := range writers {
				wg.Go(func() { locks[i], errs[i] = s.ChatState.AcquireLock(ctx, thread, longTTL) })
			}
			wg.Wait()
			won := 0
			for i := range writers {
				if errs[i] != nil {
					return op("acquireLock", errs[i])
				}
				if locks[i] != nil {
					won++
				}
			}
			return eq(fmt.Sprintf("winners among %d racing acquisitions", writers), won, 1)
		}},
		{ID: "chat-state/concurrent-list", Rule: fmt.Sprintf("%d writers appending to one list at once lose and duplicate nothing", writers), Run: func(ctx context.Context, s *Subject) error {
			key := s.ID("list")
			errs := make([]error, writers)
			var wg sync.WaitGroup
			for i := range writers {
				wg.Go(func() { errs[i] = s.ChatState.AppendToList(ctx, key, raw(fmt.Sprintf("w%02d", i)), 10*writers) })
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					return op("appendToList", err)
				}
			}
			got, err := s.ChatState.GetList(ctx, key)
			if err != nil {
				return op("getList", err)
			}
			vals := showJSON(got)
			slices.Sort(vals)
			want := make([]string, writers)
			for i := range writers {
				want[i] = fmt.Sprintf(`"w%02d"`, i)
			}
			return eq("the list's values, sorted", vals, want)
		}},
		{ID: "chat-state/concurrent-queue", Rule: fmt.Sprintf("%d writers enqueueing on one thread at once, then %d readers dequeueing, see every entry exactly once", writers, writers), Run: func(ctx context.Context, s *Subject) error {
			thread := s.ID("thread")
			now, err := storeNow(ctx, s)
			if err != nil {
				return err
			}
			errs := make([]error, writers)
			var wg sync.WaitGroup
			for i := range writers {
				wg.Go(func() {
					_, errs[i] = s.ChatState.Enqueue(ctx, thread, queueEntry(thread, fmt.Sprintf("m%02d", i), now, now.Add(longTTL)), 10*writers)
				})
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					return op("enqueue", err)
				}
			}
			var c checks
			d, err := s.ChatState.QueueDepth(ctx, thread)
			if err != nil {
				return op("queueDepth", err)
			}
			c.eq("depth after the racing enqueues", d, writers)
			got := make([]string, writers)
			for i := range writers {
				wg.Go(func() {
					var e *QueueEntry
					e, errs[i] = s.ChatState.Dequeue(ctx, thread)
					got[i] = entryText(e)
				})
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					return op("dequeue", err)
				}
			}
			slices.Sort(got)
			want := make([]string, writers)
			for i := range writers {
				want[i] = fmt.Sprintf("m%02d", i)
			}
			c.eq("the texts the racing dequeues returned, sorted", got, want)
			last, err := s.ChatState.Dequeue(ctx, thread)
			if err != nil {
				return op("dequeue", err)
			}
			c.that(last == nil, "dequeue after every entry was taken", "nil", entryText(last))
			return c.err()
		}},
	}
	for i := range cs {
		cs[i].Suite = SuiteChatState
		run := cs[i].Run
		moves := cs[i].MovesClock
		// A case that moves the clock of a shared store (a bridge has one
		// clock for the whole run) moves everyone's time: it runs as one
		// whole-store step, with no other case of the store in flight,
		// as the streams and registry cases that move it do.
		cs[i].Isolated = cs[i].Isolated || moves
		cs[i].Run = func(ctx context.Context, s *Subject) error {
			// The cases race goroutines on the adapter; a store that gave
			// none would crash them outside the runner's recover.
			if s.ChatState == nil {
				return errors.New("the store made a subject without a state adapter")
			}
			if moves && s.Shared && s.Clock != nil {
				return s.alone(ctx, ClockMove, func() error { return run(ctx, s) })
			}
			return run(ctx, s)
		}
	}
	return cs
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
