package conform

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"runtime/debug"
	"sync"
	"time"
)

// T is what a case function gets: the case's context and fresh ids, and
// the record of its failures. Like testing.T, a case records every failed
// expectation (Error, Eq, That) and goes on, so that one run shows all the
// ways a store departs from a rule; Fatal and Must stop the case at once,
// for an error after which nothing more can be checked.
//
// Error, Eq and That may be called from any goroutine; Fatal, Must, Skip
// and FailNow only from the goroutine that runs the case.
type T struct {
	ctx  context.Context
	c    *Case
	s    *caseState
	mu   sync.Mutex
	errs []error
	skip *skipError
	// cleanups run when the case ends, last registered first.
	cleanups []func()
}

// newT returns the T of case c on the subject state s.
func newT(ctx context.Context, c *Case, s *caseState) *T { return &T{ctx: ctx, c: c, s: s} }

// Context is the case's context: cancelled when the case's time is up or
// the run is interrupted. Every store call takes it.
func (t *T) Context() context.Context { return t.ctx }

// Case is the case being run.
func (t *T) Case() *Case { return t.c }

// ID returns a new id for a stream, a run, a thread or a message, unique
// within the store: the subject's prefix and a counter. Call it from the
// case's own goroutine.
func (t *T) ID(name string) string { return t.s.id(name) }

// UUID returns a random version 4 UUID: a fresh user, tenant or actor.
func (t *T) UUID() string { return NewUUID() }

// Prefix is what makes the case's ids unique within a shared store.
func (t *T) Prefix() string { return t.s.prefix }

// Shared says that the case's store is shared with the other cases of the
// run (a bridge): what a purge returns counts their rows too.
func (t *T) Shared() bool { return t.s.shared }

// Clock is the store's movable clock, or nil when its time cannot be
// moved.
func (t *T) Clock() Clock { return t.s.clock }

// SetPrefix sets the prefix of the case's ids; a store's opener calls it.
func (t *T) SetPrefix(p string) { t.s.prefix = p }

// SetShared marks the case's store as shared with the run's other cases;
// a store's opener calls it.
func (t *T) SetShared() { t.s.shared = true }

// SetPrivate marks the case's subject as its own, seen by no other case
// (a database cloned for it): its whole-store steps (T.Alone) then run at
// once, with the other cases in flight, since they cannot reach what
// those cases store or wait for. A store's opener calls it.
func (t *T) SetPrivate() { t.s.private = true }

// SetClock gives the case the store's movable clock; a store's opener
// calls it.
func (t *T) SetClock(c Clock) { t.s.clock = c }

// Cleanup registers f to run when the case ends (last registered, first
// run), after its checks, whether it passed or not.
func (t *T) Cleanup(f func()) { t.cleanups = append(t.cleanups, f) }

// Error records err as a failure of the case and goes on. A *Mismatch (or
// an error wrapping one) shows as expected and actual values; errors
// joined with errors.Join are one failure each.
func (t *T) Error(err error) {
	if err == nil {
		return
	}
	t.mu.Lock()
	t.errs = append(t.errs, err)
	t.mu.Unlock()
}

// Errorf records a failure with the formatted message and goes on.
func (t *T) Errorf(format string, args ...any) { t.Error(fmt.Errorf(format, args...)) }

// Fatal records err (when not nil) and stops the case.
func (t *T) Fatal(err error) {
	t.Error(err)
	t.FailNow()
}

// Fatalf records a failure with the formatted message and stops the case.
func (t *T) Fatalf(format string, args ...any) { t.Fatal(fmt.Errorf(format, args...)) }

// FailNow stops the case; it fails when a failure was recorded, and
// passes otherwise (a case may end early when nothing is left to check).
func (t *T) FailNow() { runtime.Goexit() }

// Must stops the case when a store operation failed unexpectedly: the
// failure reads "<op>: unexpected error: <err>".
func (t *T) Must(op string, err error) {
	if err != nil {
		t.Fatal(Op(op, err))
	}
}

// Skip stops the case and reports it as skipped with the reason: the
// store lacks an optional feature the case needs.
func (t *T) Skip(format string, args ...any) {
	t.mu.Lock()
	t.skip = &skipError{reason: fmt.Sprintf(format, args...)}
	t.mu.Unlock()
	t.FailNow()
}

// Eq records a mismatch unless got deeply equals want, and says whether
// it did.
func (t *T) Eq(what string, got, want any) bool {
	if reflect.DeepEqual(got, want) {
		return true
	}
	t.Error(&Mismatch{What: what, Expected: Show(want), Actual: Show(got)})
	return false
}

// That records a mismatch unless ok, and returns ok; expected describes
// the rule's value in words.
func (t *T) That(ok bool, what, expected string, got any) bool {
	if !ok {
		t.Error(&Mismatch{What: what, Expected: expected, Actual: Show(got)})
	}
	return ok
}

// Failed says whether the case has recorded a failure.
func (t *T) Failed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.errs) > 0
}

// Alone runs fn, a whole-store step, with no other case of the store in
// flight; only Isolated cases may call it. e says what the step may
// remove, so that it does not take what another case waits for. fn runs
// on the case's goroutine and may stop the case.
func (t *T) Alone(e Effect, fn func() error) error { return t.s.alone(t.ctx, e, fn) }

// SleepUntil waits until at, giving up the case's place among the run's
// parallel cases meanwhile.
func (t *T) SleepUntil(at time.Time) error { return t.s.sleepUntil(t.ctx, at) }

// result is the case's outcome as one error: nil, the single failure, all
// of them joined, or a skip.
func (t *T) result() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case len(t.errs) == 1:
		return t.errs[0]
	case len(t.errs) > 1:
		return errors.Join(t.errs...)
	case t.skip != nil:
		return t.skip
	}
	return nil
}

// run runs fn as the case's body and returns its outcome; a panic is a
// failure with its stack.
func (t *T) run(fn func(*T)) (err error) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if p := recover(); p != nil {
				t.Error(fmt.Errorf("panic: %v\n%s", p, debug.Stack()))
			}
		}()
		defer func() {
			for i := len(t.cleanups) - 1; i >= 0; i-- {
				t.cleanups[i]()
			}
		}()
		fn(t)
	}()
	<-done
	return t.result()
}

// Op names the store operation that failed unexpectedly: "<name>:
// unexpected error: <err>"; nil for a nil err.
func Op(name string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: unexpected error: %w", name, err)
}

// Show renders a value for a Mismatch: strings quoted (and long ones
// shortened), everything else in Go syntax.
func Show(v any) string { return show(v) }

// Probe marks the failures a case has recorded so far, so that it can
// drop the ones of a check that turned out to say nothing (a check that
// came too late to judge): Discard drops every failure recorded after
// the mark. Use it from the case's own goroutine, with no other check in
// flight.
type Probe struct {
	t *T
	n int
}

// Probe returns a mark of the failures recorded so far.
func (t *T) Probe() Probe {
	t.mu.Lock()
	defer t.mu.Unlock()
	return Probe{t: t, n: len(t.errs)}
}

// Discard drops the failures recorded since p was taken.
func (p Probe) Discard() {
	p.t.mu.Lock()
	defer p.t.mu.Unlock()
	if len(p.t.errs) > p.n {
		p.t.errs = p.t.errs[:p.n]
	}
}
