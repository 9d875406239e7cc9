package chatstate

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform"
)

// The TTLs of the cases. Locks and values that must outlive a case get a
// long TTL, so that another case moving a shared clock (a bridge has one
// for the whole run) by twice a short TTL cannot expire them. A short TTL
// (short) is a second where the cases wait for it in real time, and a
// minute where they move the store's clock: that clock runs on in real
// time between moves too (pg's is the server's plus an offset, a bridge's
// real time plus one), and the time a busy machine takes between two calls
// must never decide a case.
const (
	longTTL  = 10 * time.Minute
	shortTTL = time.Second
	// writers is how many callers race in the concurrency cases.
	writers = 16
)

// cases are the suite's cases in run order. The three of queue expiry
// marked QueueExpiry check the chat-sdk-state block's rule; the others
// check the Chat SDK's StateAdapter.
var cases = []conform.CaseOf[State]{
	{ID: "chat-state/subscribe-unsubscribe", Rule: "subscribe (twice is fine) makes a thread subscribed, unsubscribe (twice is fine) undoes it, and other threads are not touched", Run: subscribeUnsubscribe},
	{ID: "chat-state/lock-one-winner", Rule: "of two concurrent acquisitions of a thread's lock exactly one wins; the lock names the thread and expires in the future, within its TTL", Run: lockOneWinner},
	{ID: "chat-state/lock-wrong-token", Rule: "releasing or extending a lock with a wrong token does nothing: the lock stays held", Run: lockWrongToken},
	{ID: "chat-state/lock-extend", Rule: "the holder extends its lock (true) and the lock stays held", Run: lockExtend},
	{ID: "chat-state/lock-extend-moves-expiry", Isolated: true, MovesClock: true, Rule: "an extended lock outlives its first TTL", Run: movingClock(lockExtendMovesExpiry)},
	{ID: "chat-state/lock-release", Rule: "the holder's release frees the lock: the next acquisition wins, with another token", Run: lockRelease},
	{ID: "chat-state/lock-force-release", Rule: "force-release frees a held lock whatever its token", Run: lockForceRelease},
	{ID: "chat-state/lock-expired", Isolated: true, MovesClock: true, Rule: "an expired lock cannot be extended and can be taken again", Run: movingClock(lockExpired)},
	{ID: "chat-state/lock-threads-apart", Rule: "a lock on one thread does not block another thread's lock", Run: lockThreadsApart},
	{ID: "chat-state/value-round-trip", Rule: "get of a missing key is null; set stores objects and strings as given and replaces the old value; delete removes it", Run: valueRoundTrip},
	{ID: "chat-state/value-null-not-a-miss", Rule: "a stored JSON null is a value, not a miss: set-if-not-exists on it does not store", Run: valueNullNotAMiss},
	{ID: "chat-state/value-ttl", Isolated: true, MovesClock: true, Rule: "a value set with a TTL reads as a miss once the TTL has passed; one set without a TTL stays", Run: movingClock(valueTTL)},
	{ID: "chat-state/set-if-not-exists", Rule: "set-if-not-exists stores only the first value: true, then false, and the first value stays", Run: setIfNotExists},
	{ID: "chat-state/set-if-not-exists-expired", Isolated: true, MovesClock: true, Rule: "set-if-not-exists stores again once the key's TTL has passed", Run: movingClock(setIfNotExistsExpired)},
	{ID: "chat-state/list-cap-keeps-newest", Rule: "appending past a list's maxLength keeps the newest values, oldest first; a missing list is empty", Run: listCapKeepsNewest},
	{ID: "chat-state/list-ttl", Isolated: true, MovesClock: true, Rule: "a list appended to with a TTL reads as empty once the TTL has passed; one appended to without a TTL stays", Run: movingClock(listTTL)},
	{ID: "chat-state/list-append-refreshes-ttl", Isolated: true, MovesClock: true, Rule: "each append gives the whole list the TTL it carries, from then on: a later append with a short TTL ends the list's longer one, and one within the TTL keeps the list past the first append's TTL", Run: movingClock(listAppendRefreshesTTL)},
	{ID: "chat-state/queue-cap-keeps-newest", Rule: "enqueueing past a queue's maxSize keeps the newest entries, reports the depth, and dequeue returns the oldest kept entry unchanged", Run: queueCapKeepsNewest},
	{ID: "chat-state/queue-oldest-first", Rule: "a queue dequeues oldest first and then returns nil; a new queue is empty", Run: queueOldestFirst},
	{ID: "chat-state/queue-threads-apart", Rule: "each thread has its own queue: entries of one neither count nor dequeue in another", Run: queueThreadsApart},
	{ID: "chat-state/queue-expired-skipped", Block: QueueExpiry, Rule: "an entry whose expiresAt has passed neither counts in the depth nor dequeues", Run: queueExpiredSkipped},
	{ID: "chat-state/queue-expired-arrival-takes-no-place", Block: QueueExpiry, Rule: "an entry that arrives already expired takes no place under maxSize: the live entries stay, the depth leaves it out and it never dequeues", Run: queueExpiredArrivalTakesNoPlace},
	{ID: "chat-state/queue-expired-entry-intact", Rule: "an entry queued already expired, before a live one, either never comes back or comes back as it was queued (its expiresAt intact, for the caller to drop it), and the live entry still dequeues after it", Run: queueExpiredEntryIntact},
	{ID: "chat-state/queue-entry-expires", Block: QueueExpiry, Isolated: true, MovesClock: true, Rule: "a queued entry stops counting and dequeuing once the store's time passes its expiresAt", Run: movingClock(queueEntryExpires)},
	{ID: "chat-state/concurrent-lock", Rule: fmt.Sprintf("of %d callers racing for one thread's lock exactly one wins", writers), Run: concurrentLock},
	{ID: "chat-state/concurrent-list", Rule: fmt.Sprintf("%d writers appending to one list at once lose and duplicate nothing", writers), Run: concurrentList},
	{ID: "chat-state/concurrent-queue", Rule: fmt.Sprintf("%d writers enqueueing on one thread at once, then %d readers dequeueing, see every entry exactly once", writers, writers), Run: concurrentQueue},
}

// movingClock is the form of a case that moves the store's clock. On a
// shared store (a bridge has one clock for the whole run) a move changes
// every case's time, so the whole case runs as one whole-store step, with
// no other case of the store in flight, as the streams and registry cases
// that move it do; such a case is Isolated. Elsewhere each case has a
// clock of its own, or none (the case waits for real TTLs instead).
func movingClock(run func(*conform.T, State)) func(*conform.T, State) {
	return func(t *conform.T, st State) {
		if !t.Shared() || t.Clock() == nil {
			run(t, st)
			return
		}
		t.Error(t.Alone(conform.ClockMove, func() error {
			run(t, st)
			return nil
		}))
	}
}

// short is the short TTL of a case: shortTTL where the case waits for
// it, a minute where it moves the store's clock.
func short(t *conform.T) time.Duration {
	if t.Clock() != nil {
		return time.Minute
	}
	return shortTTL
}

// within runs check, a check of something stored at start with a short
// TTL that must still be there, and keeps what it found only when the
// check ended within that TTL of start: otherwise the TTL may have
// passed in the store's time (which runs in real time, moved or not) and
// what the check found says nothing. The expiry itself is checked after.
func within(t *conform.T, start time.Time, check func()) {
	probe := t.Probe()
	check()
	if time.Since(start) >= short(t) {
		probe.Discard()
	}
}

// storeNow is the store's time: its clock's, or the wall clock's when the
// store has no clock of its own.
func storeNow(t *conform.T) time.Time {
	if t.Clock() == nil {
		return time.Now()
	}
	now, err := t.Clock().Advance(t.Context(), 0)
	t.Must("read the clock", err)
	return now
}

// advance makes d pass for the store: it moves the store's clock, or, on
// a store without one, waits d in real time, holding no slot of the run's
// parallelism meanwhile.
func advance(t *conform.T, d time.Duration) {
	if t.Clock() == nil {
		if err := t.SleepUntil(time.Now().Add(d)); err != nil {
			t.Fatal(err)
		}
		return
	}
	_, err := t.Clock().Advance(t.Context(), d)
	t.Must("advance the clock", err)
}

// race runs fn(0) to fn(n-1) at once and waits for them all. fn only
// records what it got: the case checks it afterwards, from its own
// goroutine, the only one that may stop it.
func race(t *conform.T, st State, n int, fn func(i int)) {
	// A store that gave no adapter would panic in the racing goroutines,
	// outside the case's recover, and take the whole run down.
	if st == nil {
		t.Fatalf("the store made a subject without a state adapter")
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { fn(i) })
	}
	wg.Wait()
}

// acquire asks for thread's lock; a failed call (reported as op) stops
// the case.
func acquire(t *conform.T, st State, op, thread string, ttl time.Duration) *Lock {
	l, err := st.AcquireLock(t.Context(), thread, ttl)
	t.Must(op, err)
	return l
}

// acquireFree takes the lock of a thread nobody holds; when the store
// refuses it, nothing else of the case can be checked.
func acquireFree(t *conform.T, st State, thread string, ttl time.Duration) Lock {
	l := acquire(t, st, "acquireLock", thread, ttl)
	if !t.Eq("acquireLock of a free thread", l != nil, true) {
		t.FailNow()
	}
	return *l
}

// extend extends l; a failed call (reported as op) stops the case.
func extend(t *conform.T, st State, op string, l Lock, ttl time.Duration) bool {
	ok, err := st.ExtendLock(t.Context(), l, ttl)
	t.Must(op, err)
	return ok
}

// isSubscribed says whether thread is subscribed.
func isSubscribed(t *conform.T, st State, thread string) bool {
	on, err := st.IsSubscribed(t.Context(), thread)
	t.Must("isSubscribed", err)
	return on
}

// setIfNew is SetIfNotExists; a failed call stops the case.
func setIfNew(t *conform.T, st State, key string, v any, ttl time.Duration) bool {
	set, err := st.SetIfNotExists(t.Context(), key, conform.JSON(v), ttl)
	t.Must("setIfNotExists", err)
	return set
}

// valueIs checks that key holds the JSON value want (nil: a miss, or a
// stored null).
func valueIs(t *conform.T, st State, what, key string, want any) {
	v, err := st.Get(t.Context(), key)
	t.Must("get", err)
	t.That(jsonIs(v, want), what, string(conform.JSON(want)), string(v))
}

// list returns the stored list of key, rendered for a mismatch.
func list(t *conform.T, st State, key string) []string {
	vs, err := st.GetList(t.Context(), key)
	t.Must("getList", err)
	return showJSON(vs)
}

// enqueue adds e to thread's queue and returns the depth the store
// reports; a failed call (reported as op) stops the case.
func enqueue(t *conform.T, st State, op, thread string, e QueueEntry, maxSize int) int {
	depth, err := st.Enqueue(t.Context(), thread, e, maxSize)
	t.Must(op, err)
	return depth
}

// queueDepth is the depth of thread's queue.
func queueDepth(t *conform.T, st State, thread string) int {
	d, err := st.QueueDepth(t.Context(), thread)
	t.Must("queueDepth", err)
	return d
}

// dequeue takes the oldest live entry of thread's queue, or nil.
func dequeue(t *conform.T, st State, thread string) *QueueEntry {
	e, err := st.Dequeue(t.Context(), thread)
	t.Must("dequeue", err)
	return e
}

// dequeueTexts dequeues n times from thread's queue and returns the texts
// ("" for nothing).
func dequeueTexts(t *conform.T, st State, thread string, n int) []string {
	var got []string
	for range n {
		got = append(got, entryText(dequeue(t, st, thread)))
	}
	return got
}

// queueEntry is a queued Chat SDK message of thread with text, expiring
// at expires.
func queueEntry(thread, text string, now, expires time.Time) QueueEntry {
	return QueueEntry{
		EnqueuedAt: now.UnixMilli(),
		ExpiresAt:  expires.UnixMilli(),
		Message:    conform.JSON(map[string]any{"id": thread + "-" + text, "text": text, "threadId": thread}),
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

// numbered returns format filled with 0 to n-1: what n racing writers
// wrote, in order.
func numbered(format string, n int) []string {
	out := make([]string, n)
	for i := range n {
		out[i] = fmt.Sprintf(format, i)
	}
	return out
}

// jsonIs reports whether got is the JSON value want (nil got is a miss,
// which only JSON null equals).
func jsonIs(got json.RawMessage, want any) bool {
	if got == nil {
		got = json.RawMessage("null")
	}
	return conform.SameJSON(got, conform.JSON(want))
}

// checkLock checks that l is a lock on thread that expires after now and
// no later than ttl after it (with a little slack for the calls).
func checkLock(t *conform.T, what string, l *Lock, thread string, before time.Time, ttl time.Duration) {
	if !t.That(l != nil, what, "a lock", l) {
		return
	}
	t.Eq(what+": threadId", l.ThreadID, thread)
	t.That(l.Token != "", what+": token", "a non-empty token", l.Token)
	exp := time.UnixMilli(l.ExpiresAt)
	t.That(exp.After(before) && !exp.After(before.Add(ttl+time.Minute)), what+": expiresAt",
		fmt.Sprintf("in the future, within the TTL of %s (after %s)", ttl, before.UTC().Format(time.RFC3339)), exp.UTC().Format(time.RFC3339Nano))
}

func subscribeUnsubscribe(t *conform.T, st State) {
	ctx := t.Context()
	thread, other := t.ID("thread"), t.ID("thread")
	t.Eq("a new thread is subscribed", isSubscribed(t, st, thread), false)
	for range 2 {
		t.Must("subscribe", st.Subscribe(ctx, thread))
	}
	t.Eq("subscribed after subscribing twice", isSubscribed(t, st, thread), true)
	t.Eq("another thread subscribed", isSubscribed(t, st, other), false)
	for range 2 {
		t.Must("unsubscribe", st.Unsubscribe(ctx, thread))
	}
	t.Eq("subscribed after unsubscribing twice", isSubscribed(t, st, thread), false)
}

func lockOneWinner(t *conform.T, st State) {
	thread := t.ID("thread")
	before := storeNow(t)
	var locks [2]*Lock
	var errs [2]error
	race(t, st, 2, func(i int) { locks[i], errs[i] = st.AcquireLock(t.Context(), thread, longTTL) })
	for _, err := range errs {
		t.Must("acquireLock", err)
	}
	won := 0
	for _, l := range locks {
		if l != nil {
			won++
			checkLock(t, "the winner's lock", l, thread, before.Add(-time.Second), longTTL)
		}
	}
	t.Eq("acquisitions that won", won, 1)
}

func lockWrongToken(t *conform.T, st State) {
	thread := t.ID("thread")
	wrong := acquireFree(t, st, thread, longTTL)
	wrong.Token = "not-" + wrong.Token
	t.Must("releaseLock with a wrong token", st.ReleaseLock(t.Context(), wrong))
	again := acquire(t, st, "acquireLock", thread, longTTL)
	t.That(again == nil, "acquireLock after a release with a wrong token", "nil (the lock is still held)", again)
	t.Eq("extendLock with a wrong token", extend(t, st, "extendLock with a wrong token", wrong, longTTL), false)
}

func lockExtend(t *conform.T, st State) {
	thread := t.ID("thread")
	l := acquireFree(t, st, thread, longTTL)
	t.Eq("extendLock by the holder", extend(t, st, "extendLock", l, 2*longTTL), true)
	again := acquire(t, st, "acquireLock", thread, longTTL)
	t.That(again == nil, "acquireLock after an extension", "nil (the lock is still held)", again)
}

func lockExtendMovesExpiry(t *conform.T, st State) {
	thread := t.ID("thread")
	// The extension must reach the store within the first TTL; where the
	// store's time runs in real time, a busy machine may take longer than
	// a short TTL between the two calls, and then a longer first TTL is
	// tried (the store's answer is judged only when it was in time).
	ttl := short(t)
	var l Lock
	var ext bool
	for {
		start := time.Now()
		l = acquireFree(t, st, thread, ttl)
		ext = extend(t, st, "extendLock", l, longTTL)
		if time.Since(start) < ttl || ttl >= longTTL/4 {
			break
		}
		t.Must("forceReleaseLock", st.ForceReleaseLock(t.Context(), thread))
		ttl *= 4
	}
	advance(t, 2*ttl)
	t.Eq("extendLock by the holder", ext, true)
	again := acquire(t, st, "acquireLock", thread, longTTL)
	t.That(again == nil, "acquireLock past the first TTL of an extended lock", "nil (the lock is still held)", again)
	if t.Clock() == nil {
		// In real time the store's own clock made the TTL pass: what held
		// was held in the store's time.
		return
	}
	// A moved clock proves nothing unless the store sees it: the extended
	// lock must end once its own TTL has passed too, which no real time
	// within the case can make happen.
	advance(t, longTTL)
	if acquire(t, st, "acquireLock past the extended TTL", thread, longTTL) == nil {
		t.Errorf("acquireLock past the extended TTL: nil, so the lock outlived its extended TTL by the clock bsadapter moved: " +
			"the store either never expires locks or does not read that clock (a bridge must declare capability clock only for the stores that read it)")
	}
}

func lockRelease(t *conform.T, st State) {
	thread := t.ID("thread")
	l := acquireFree(t, st, thread, longTTL)
	t.Must("releaseLock", st.ReleaseLock(t.Context(), l))
	before := storeNow(t)
	next := acquire(t, st, "acquireLock after release", thread, longTTL)
	checkLock(t, "acquireLock after release", next, thread, before.Add(-time.Second), longTTL)
	if next != nil {
		t.That(next.Token != l.Token, "the new lock's token", "another token than the released lock's", next.Token)
	}
}

func lockForceRelease(t *conform.T, st State) {
	thread := t.ID("thread")
	acquireFree(t, st, thread, longTTL)
	t.Must("forceReleaseLock", st.ForceReleaseLock(t.Context(), thread))
	next := acquire(t, st, "acquireLock after forceReleaseLock", thread, longTTL)
	t.Eq("acquireLock after forceReleaseLock wins", next != nil, true)
}

func lockExpired(t *conform.T, st State) {
	thread := t.ID("thread")
	l := acquireFree(t, st, thread, short(t))
	advance(t, 2*short(t))
	t.Eq("extendLock of an expired lock", extend(t, st, "extendLock of an expired lock", l, longTTL), false)
	next := acquire(t, st, "acquireLock after expiry", thread, longTTL)
	t.Eq("acquireLock of an expired lock's thread wins", next != nil, true)
}

func lockThreadsApart(t *conform.T, st State) {
	a, b := t.ID("thread"), t.ID("thread")
	la := acquire(t, st, "acquireLock", a, longTTL)
	lb := acquire(t, st, "acquireLock", b, longTTL)
	t.Eq("the first thread's lock", la != nil, true)
	t.Eq("the second thread's lock", lb != nil, true)
}

func valueRoundTrip(t *conform.T, st State) {
	ctx := t.Context()
	key := t.ID("key")
	valueIs(t, st, "get of a missing key", key, nil)
	obj := map[string]any{"n": 1, "list": []any{"a", "é"}, "nested": map[string]any{"ok": true}}
	t.Must("set an object", st.Set(ctx, key, conform.JSON(obj), 0))
	valueIs(t, st, "get of an object", key, obj)
	t.Must("set a string", st.Set(ctx, key, conform.JSON("text"), 0))
	valueIs(t, st, "get of a string that replaced an object", key, "text")
	t.Must("delete", st.Delete(ctx, key))
	valueIs(t, st, "get after delete", key, nil)
	t.Error(conform.Op("delete of a missing key", st.Delete(ctx, t.ID("missing"))))
}

func valueNullNotAMiss(t *conform.T, st State) {
	key := t.ID("key")
	t.Must("set null", st.Set(t.Context(), key, conform.JSON(nil), 0))
	valueIs(t, st, "get of a stored null", key, nil)
	t.Eq("setIfNotExists on a stored null", setIfNew(t, st, key, "other", 0), false)
	valueIs(t, st, "get after setIfNotExists on a stored null", key, nil)
}

func valueTTL(t *conform.T, st State) {
	ctx := t.Context()
	brief, kept := t.ID("key"), t.ID("key")
	start := time.Now()
	t.Must("set with a TTL", st.Set(ctx, brief, conform.JSON(1), short(t)))
	t.Must("set without a TTL", st.Set(ctx, kept, conform.JSON(2), 0))
	within(t, start, func() { valueIs(t, st, "get within the TTL", brief, 1) })
	advance(t, 2*short(t))
	valueIs(t, st, "get past the TTL", brief, nil)
	valueIs(t, st, "get of a value without a TTL", kept, 2)
}

func setIfNotExists(t *conform.T, st State) {
	key := t.ID("key")
	first := setIfNew(t, st, key, "first", 0)
	second := setIfNew(t, st, key, "second", 0)
	t.Eq("the first setIfNotExists", first, true)
	t.Eq("the second setIfNotExists", second, false)
	valueIs(t, st, "the stored value", key, "first")
}

func setIfNotExistsExpired(t *conform.T, st State) {
	key := t.ID("key")
	setIfNew(t, st, key, "old", short(t))
	advance(t, 2*short(t))
	t.Eq("setIfNotExists on an expired key", setIfNew(t, st, key, "new", 0), true)
	valueIs(t, st, "the stored value", key, "new")
}

func listCapKeepsNewest(t *conform.T, st State) {
	key := t.ID("list")
	for _, v := range []string{"a", "b", "c", "d"} {
		t.Must("appendToList", st.AppendToList(t.Context(), key, conform.JSON(v), 3, 0))
	}
	t.Eq("the list after a, b, c, d with maxLength 3", list(t, st, key), []string{`"b"`, `"c"`, `"d"`})
	t.Eq("a missing list", len(list(t, st, t.ID("list"))), 0)
}

// appendTo appends the JSON of v to key's list; a failed call stops the
// case.
func appendTo(t *conform.T, st State, key string, v any, ttl time.Duration) {
	t.Must("appendToList", st.AppendToList(t.Context(), key, conform.JSON(v), 0, ttl))
}

func listTTL(t *conform.T, st State) {
	brief, kept := t.ID("list"), t.ID("list")
	start := time.Now()
	appendTo(t, st, brief, "a", short(t))
	appendTo(t, st, brief, "b", short(t))
	appendTo(t, st, kept, "k", 0)
	within(t, start, func() { t.Eq("the list within its TTL", list(t, st, brief), []string{`"a"`, `"b"`}) })
	advance(t, 2*short(t))
	t.Eq("the list past its TTL", list(t, st, brief), []string{})
	t.Eq("a list appended to without a TTL", list(t, st, kept), []string{`"k"`})
}

func listAppendRefreshesTTL(t *conform.T, st State) {
	// The last append's TTL is the list's, for the values before it too:
	// a short one ends the long one the list had.
	key := t.ID("list")
	appendTo(t, st, key, "a", longTTL)
	appendTo(t, st, key, "b", short(t))
	t.Eq("the list after an append with a short TTL", list(t, st, key), []string{`"a"`, `"b"`})
	advance(t, 2*short(t))
	t.Eq("the list past the last append's TTL", list(t, st, key), []string{})
	if t.Clock() == nil {
		return
	}
	// With a clock bsadapter moves, the refresh is checked the other way
	// too: an append within the TTL keeps the list past the first TTL.
	// (In real time that would race the machine's speed.) The TTL is long,
	// so that the time a busy machine takes between the calls is nothing
	// beside it where the store's clock runs on in real time as well (pg).
	key = t.ID("list")
	appendTo(t, st, key, "x", longTTL)
	advance(t, longTTL*3/5)
	appendTo(t, st, key, "y", longTTL)
	advance(t, longTTL*3/5)
	t.Eq("the list past the first append's TTL, within the second's", list(t, st, key), []string{`"x"`, `"y"`})
	advance(t, longTTL)
	t.Eq("the list past the second append's TTL", list(t, st, key), []string{})
}

func queueCapKeepsNewest(t *conform.T, st State) {
	thread := t.ID("thread")
	now := storeNow(t)
	var depth int
	var two QueueEntry
	for _, text := range []string{"one", "two", "three"} {
		e := queueEntry(thread, text, now, now.Add(longTTL))
		if text == "two" {
			two = e
		}
		depth = enqueue(t, st, "enqueue", thread, e, 2)
	}
	t.Eq("depth after three entries with maxSize 2", depth, 2)
	t.Eq("queueDepth", queueDepth(t, st, thread), 2)
	first := dequeue(t, st, thread)
	t.Eq("the first dequeued entry's text", entryText(first), "two")
	if first != nil {
		t.That(conform.SameJSON(first.Message, two.Message), "the dequeued message", string(two.Message), string(first.Message))
		t.Eq("the dequeued entry's times", [2]int64{first.EnqueuedAt, first.ExpiresAt}, [2]int64{two.EnqueuedAt, two.ExpiresAt})
	}
	t.Eq("queueDepth after a dequeue", queueDepth(t, st, thread), 1)
}

func queueOldestFirst(t *conform.T, st State) {
	thread := t.ID("thread")
	now := storeNow(t)
	t.Eq("depth of a new queue", queueDepth(t, st, thread), 0)
	e0 := dequeue(t, st, thread)
	t.That(e0 == nil, "dequeue of an empty queue", "nil", e0)
	for _, text := range []string{"one", "two", "three"} {
		enqueue(t, st, "enqueue", thread, queueEntry(thread, text, now, now.Add(longTTL)), 10)
	}
	t.Eq("four dequeues after three entries", dequeueTexts(t, st, thread, 4), []string{"one", "two", "three", ""})
}

func queueThreadsApart(t *conform.T, st State) {
	a, b := t.ID("thread"), t.ID("thread")
	now := storeNow(t)
	enqueue(t, st, "enqueue", a, queueEntry(a, "mine", now, now.Add(longTTL)), 10)
	t.Eq("another thread's depth", queueDepth(t, st, b), 0)
	e := dequeue(t, st, b)
	t.That(e == nil, "dequeue of another thread", "nil", entryText(e))
	t.Eq("the thread's own depth", queueDepth(t, st, a), 1)
}

func queueExpiredSkipped(t *conform.T, st State) {
	thread := t.ID("thread")
	now := storeNow(t)
	enqueue(t, st, "enqueue an expired entry", thread, queueEntry(thread, "stale", now.Add(-2*time.Minute), now.Add(-time.Minute)), 10)
	enqueue(t, st, "enqueue", thread, queueEntry(thread, "fresh", now, now.Add(longTTL)), 10)
	t.Eq("depth with one expired and one live entry", queueDepth(t, st, thread), 1)
	t.Eq("two dequeues", dequeueTexts(t, st, thread, 2), []string{"fresh", ""})
}

func queueExpiredArrivalTakesNoPlace(t *conform.T, st State) {
	thread := t.ID("thread")
	now := storeNow(t)
	for _, text := range []string{"one", "two"} {
		enqueue(t, st, "enqueue", thread, queueEntry(thread, text, now, now.Add(longTTL)), 2)
	}
	depth := enqueue(t, st, "enqueue an expired entry", thread, queueEntry(thread, "stale", now.Add(-2*time.Minute), now.Add(-time.Minute)), 2)
	t.Eq("the depth enqueue returns for an expired entry on a full queue", depth, 2)
	t.Eq("three dequeues", dequeueTexts(t, st, thread, 3), []string{"one", "two", ""})
}

func queueExpiredEntryIntact(t *conform.T, st State) {
	thread := t.ID("thread")
	now := storeNow(t)
	stale := queueEntry(thread, "stale", now.Add(-2*time.Minute), now.Add(-time.Minute))
	enqueue(t, st, "enqueue an expired entry", thread, stale, 10)
	enqueue(t, st, "enqueue", thread, queueEntry(thread, "fresh", now, now.Add(longTTL)), 10)
	var texts []string
	for range 3 {
		e := dequeue(t, st, thread)
		texts = append(texts, entryText(e))
		if e == nil {
			break
		}
		if entryText(e) == "stale" {
			t.That(e.ExpiresAt == stale.ExpiresAt && e.EnqueuedAt == stale.EnqueuedAt && conform.SameJSON(e.Message, stale.Message),
				"the expired entry dequeue returned", fmt.Sprintf("as it was queued (expiresAt %d)", stale.ExpiresAt), e)
		}
	}
	ok := slices.Equal(texts, []string{"fresh", ""}) || slices.Equal(texts, []string{"stale", "fresh", ""})
	t.That(ok, "dequeues after an expired and a live entry", `["fresh" ""] (the expired entry skipped) or ["stale" "fresh" ""] (left to the caller)`, texts)
}

func queueEntryExpires(t *conform.T, st State) {
	thread := t.ID("thread")
	start := time.Now()
	now := storeNow(t)
	enqueue(t, st, "enqueue", thread, queueEntry(thread, "soon", now, now.Add(short(t))), 10)
	within(t, start, func() { t.Eq("depth before expiry", queueDepth(t, st, thread), 1) })
	advance(t, 2*short(t))
	t.Eq("depth after expiry", queueDepth(t, st, thread), 0)
	e := dequeue(t, st, thread)
	t.That(e == nil, "dequeue after expiry", "nil", entryText(e))
}

func concurrentLock(t *conform.T, st State) {
	thread := t.ID("thread")
	locks := make([]*Lock, writers)
	errs := make([]error, writers)
	race(t, st, writers, func(i int) { locks[i], errs[i] = st.AcquireLock(t.Context(), thread, longTTL) })
	won := 0
	for i := range writers {
		t.Must("acquireLock", errs[i])
		if locks[i] != nil {
			won++
		}
	}
	t.Eq(fmt.Sprintf("winners among %d racing acquisitions", writers), won, 1)
}

func concurrentList(t *conform.T, st State) {
	key := t.ID("list")
	errs := make([]error, writers)
	race(t, st, writers, func(i int) {
		errs[i] = st.AppendToList(t.Context(), key, conform.JSON(fmt.Sprintf("w%02d", i)), 10*writers, 0)
	})
	for _, err := range errs {
		t.Must("appendToList", err)
	}
	vals := list(t, st, key)
	slices.Sort(vals)
	t.Eq("the list's values, sorted", vals, numbered(`"w%02d"`, writers))
}

func concurrentQueue(t *conform.T, st State) {
	thread := t.ID("thread")
	now := storeNow(t)
	errs := make([]error, writers)
	race(t, st, writers, func(i int) {
		_, errs[i] = st.Enqueue(t.Context(), thread, queueEntry(thread, fmt.Sprintf("m%02d", i), now, now.Add(longTTL)), 10*writers)
	})
	for _, err := range errs {
		t.Must("enqueue", err)
	}
	t.Eq("depth after the racing enqueues", queueDepth(t, st, thread), writers)
	got := make([]string, writers)
	race(t, st, writers, func(i int) {
		var e *QueueEntry
		e, errs[i] = st.Dequeue(t.Context(), thread)
		got[i] = entryText(e)
	})
	for _, err := range errs {
		t.Must("dequeue", err)
	}
	slices.Sort(got)
	t.Eq("the texts the racing dequeues returned, sorted", got, numbered("m%02d", writers))
	last := dequeue(t, st, thread)
	t.That(last == nil, "dequeue after every entry was taken", "nil", entryText(last))
}
