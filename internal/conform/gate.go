package conform

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"
)

// A run's gate keeps whole-store steps (a purge, a move of the store's
// clock) away from every other case of the store: ordinary cases hold it
// shared while they run, and T.Alone takes it exclusively.
//
// On a store whose clock cannot be moved, the TTL cases wait in real time,
// and they wait side by side with the rest of the run. While one of them
// waits for its stream to expire, another case's purge would take that
// stream first and spoil the check, so a waiting case registers a hold:
// the time from which a purge could remove what it waits for. A
// whole-store step that would remove a hold waits until its owner is done,
// except for the owner of the earliest hold, which goes first (that breaks
// every cycle). A hold removed anyway (a store so slow that a purge
// overran its margin) makes its case fail with that explanation, never
// pass.
type gate struct {
	rw sync.RWMutex

	mu      sync.Mutex
	holds   []*hold
	waiting map[*caseState]waiter
	changed chan struct{}
	// slowest is the longest whole-store step seen so far: on a slow
	// store (or a busy machine) steps take longer, and the guard grows
	// with them (see guardLocked).
	slowest time.Duration
}

// waiter is a whole-store step waiting for other cases' holds.
type waiter struct {
	e     Effect
	since time.Time
}

func newGate() *gate { return &gate{changed: make(chan struct{}), waiting: map[*caseState]waiter{}} }

// gates holds each store's gate: runs against one store (go test runs
// each case in a run of its own, side by side) share it, so that a
// whole-store step of one keeps clear of the cases of all.
var gates sync.Map

func gateOf(store Store) *gate {
	if !reflect.TypeOf(store).Comparable() {
		return newGate()
	}
	g, _ := gates.LoadOrStore(store, newGate())
	return g.(*gate)
}

// HoldKind says which purges remove what a hold protects.
type HoldKind int

const (
	// HoldExpiry protects a stream whose TTL ends at the hold's time: any
	// purge of its suite removes it after that.
	HoldExpiry HoldKind = iota
	// HoldAge protects a row that starts ageing at the hold's time (a
	// closed stream, a finished run): a purge with window w removes it
	// from w later on.
	HoldAge
)

type hold struct {
	owner     *caseState
	suite     string
	kind      HoldKind
	at        time.Time
	disturbed string
}

// Effect is what a whole-store step may remove: the rows a purge of suite
// with window takes, or (all) anything, for a move of the clock.
type Effect struct {
	suite  string
	window time.Duration
	all    bool
}

// PurgeOf is the effect of a purge of suite's rows with window.
func PurgeOf(suite string, window time.Duration) Effect { return Effect{suite: suite, window: window} }

// ClockMove is the effect of moving a store's clock: it may remove anything.
var ClockMove = Effect{all: true}

// removes says whether a step with Effect e at time t may remove what h
// protects.
func (e Effect) removes(h *hold, t time.Time) bool {
	if e.all {
		return true
	}
	if h.suite != e.suite {
		return false
	}
	if h.kind == HoldExpiry {
		return !h.at.After(t)
	}
	return !h.at.Add(e.window).After(t)
}

// guard is how long a whole-store step may take: a hold due within it
// counts as due.
const guard = 500 * time.Millisecond

// guardLocked is the guard the gate keeps now: at least guard, and twice
// the slowest whole-store step seen, so that a store whose steps take
// longer (a loaded machine slows every call) is given the room it needs
// rather than spoiling the checks of the cases that wait.
func (g *gate) guardLocked() time.Duration { return max(guard, 2*g.slowest) }

// slot is a case's place among the run's parallel cases. A case gives it
// up while it sleeps, so that a run waiting for TTLs goes on with other
// cases.
type slot struct {
	sem        chan struct{}
	mu         sync.Mutex
	held, done bool
}

func (s *slot) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held {
		<-s.sem
		s.held = false
	}
}

func (s *slot) acquire(ctx context.Context) error {
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		// The runner gave up on the case meanwhile: its place is not its
		// own any more.
		<-s.sem
		return context.Canceled
	}
	s.held = true
	return nil
}

func (s *slot) finish() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done = true
	if s.held {
		<-s.sem
		s.held = false
	}
}

// holdFrom registers a hold of the subject's case (only while it waits in
// real time; see gate).
func (s *caseState) holdFrom(suite string, kind HoldKind, at time.Time) {
	if s.gate == nil {
		return
	}
	g := s.gate
	g.mu.Lock()
	defer g.mu.Unlock()
	g.holds = append(g.holds, &hold{owner: s, suite: suite, kind: kind, at: at})
}

// releaseHolds drops every hold of s; the runner calls it when its case
// ends.
func (g *gate) releaseHolds(s *caseState) {
	g.mu.Lock()
	defer g.mu.Unlock()
	kept := g.holds[:0]
	for _, h := range g.holds {
		if h.owner != s {
			kept = append(kept, h)
		}
	}
	clear(g.holds[len(kept):])
	g.holds = kept
	close(g.changed)
	g.changed = make(chan struct{})
}

// blockedLocked says whether a step with Effect e of s must wait for
// another case's hold. It waits for every hold it could remove, except
// where the hold's owner is itself waiting with a step that would remove
// a hold of s: of two such steps, the one that began to wait first goes.
func (g *gate) blockedLocked(s *caseState, e Effect, since, now time.Time) bool {
	for _, h := range g.holds {
		if h.owner == s || !e.removes(h, now.Add(g.guardLocked())) {
			continue
		}
		if w, ok := g.waiting[h.owner]; ok && since.Before(w.since) && g.removesHoldOfLocked(w.e, s, now) {
			continue
		}
		return true
	}
	return false
}

func (g *gate) removesHoldOfLocked(e Effect, s *caseState, now time.Time) bool {
	for _, h := range g.holds {
		if h.owner == s && e.removes(h, now.Add(g.guardLocked())) {
			return true
		}
	}
	return false
}

// alone runs fn, a whole-store step, with no other case of the store in
// flight. Only Isolated cases call it. e says what the step may remove, so
// that it does not take what another case is waiting for.
func (s *caseState) alone(ctx context.Context, e Effect, fn func() error) error {
	g := s.gate
	if g == nil {
		return fn()
	}
	if !s.isolated {
		return errNotIsolated
	}
	if s.private {
		// The step reaches only the case's own subject.
		return fn()
	}
	since := time.Now()
	defer func() {
		g.mu.Lock()
		delete(g.waiting, s)
		g.mu.Unlock()
	}()
	for {
		g.mu.Lock()
		blocked := g.blockedLocked(s, e, since, time.Now())
		if blocked {
			g.waiting[s] = waiter{e, since}
		} else {
			delete(g.waiting, s)
		}
		ch := g.changed
		g.mu.Unlock()
		if !blocked {
			break
		}
		s.slot.release()
		select {
		case <-ch:
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
		if err := s.slot.acquire(ctx); err != nil {
			return err
		}
	}
	if s.deadline != nil {
		s.deadline.pause()
	}
	g.rw.Lock()
	if s.deadline != nil {
		s.deadline.resume()
	}
	defer g.rw.Unlock()
	g.mu.Lock()
	var spoiled []string
	for _, h := range g.holds {
		if h.owner == s && h.disturbed != "" {
			spoiled = append(spoiled, h.disturbed)
		}
	}
	room := g.guardLocked()
	g.mu.Unlock()
	if len(spoiled) > 0 {
		return fmt.Errorf("the check could not be made: %s; this happens when store calls take longer than %s: give the store a movable clock (capability clock) or run fewer cases at once", spoiled[0], room)
	}
	// However the step ends: a case may stop inside it (T.Must, T.Fatal)
	// after its purge took what it took.
	defer g.stepDone(s, e, time.Now())
	return fn()
}

// disturbed says whether a whole-store step of another case may have
// removed what the case of s waited for: its result then says nothing
// sure about the store.
func (g *gate) disturbed(s *caseState) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return s.disturbed
}

// stepDone tells the other cases that the whole-store step of s, with
// Effect e, begun at began, has ended (and the gate how long it took): a hold it may have removed is marked disturbed, and
// the steps waiting for the gate look again.
func (g *gate) stepDone(s *caseState, e Effect, began time.Time) {
	end := time.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	g.slowest = max(g.slowest, end.Sub(began))
	for _, h := range g.holds {
		if h.owner != s && h.disturbed == "" && e.removes(h, end) {
			h.disturbed = fmt.Sprintf("another case's whole-store step ended at %s, after what this case waits for could have expired (%s)", end.Format("15:04:05.000"), h.at.Format("15:04:05.000"))
			// Kept on the case, not only on the hold: the case may let
			// go of its holds (Timed.Release) before it looks at what
			// was left of its rows.
			h.owner.disturbed = true
		}
	}
	close(g.changed)
	g.changed = make(chan struct{})
}

// sleepUntil waits until t without holding the case's parallel slot.
func (s *caseState) sleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return nil
	}
	if s.slot != nil {
		s.slot.release()
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
	case <-ctx.Done():
		return ctx.Err()
	}
	if s.slot != nil {
		return s.slot.acquire(ctx)
	}
	return nil
}

// errNotIsolated is what alone returns to a case that forgot Isolated.
var errNotIsolated = errors.New("a case that is not Isolated made a whole-store step")

// pausableCtx is a case's context: cancelled at its deadline, like one of
// context.WithTimeout, except that the time the case waits for the gate
// (other cases to finish, however long a broken store makes them take)
// does not count against its timeout.
type pausableCtx struct {
	context.Context
	done chan struct{}

	mu       sync.Mutex
	deadline time.Time
	left     time.Duration // while paused
	paused   int
	timer    *time.Timer
	err      error
}

func newPausableCtx(parent context.Context, timeout time.Duration) (*pausableCtx, func()) {
	c := &pausableCtx{Context: parent, done: make(chan struct{}), deadline: time.Now().Add(timeout)}
	c.timer = time.AfterFunc(timeout, func() { c.cancel(context.DeadlineExceeded) })
	stop := context.AfterFunc(parent, func() { c.cancel(parent.Err()) })
	return c, func() {
		stop()
		c.timer.Stop()
		c.cancel(context.Canceled)
	}
}

func (c *pausableCtx) cancel(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	if err == context.DeadlineExceeded && c.paused > 0 {
		return // a late timer of a paused case
	}
	c.err = err
	close(c.done)
}

func (c *pausableCtx) Done() <-chan struct{} { return c.done }

func (c *pausableCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *pausableCtx) Deadline() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused > 0 {
		return time.Now().Add(c.left), true
	}
	return c.deadline, true
}

// pause stops the clock of the case's timeout until resume.
func (c *pausableCtx) pause() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused == 0 && c.err == nil {
		c.timer.Stop()
		c.left = time.Until(c.deadline)
	}
	c.paused++
}

func (c *pausableCtx) resume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.paused--
	if c.paused == 0 && c.err == nil {
		c.deadline = time.Now().Add(c.left)
		c.timer.Reset(max(c.left, 0))
	}
}
