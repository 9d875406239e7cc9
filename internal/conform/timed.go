package conform

import (
	"context"
	"fmt"
	"time"
)

// TimeMode is how a timed case makes time pass for a store. Some cases
// take other steps, or other lengths of time, for each.
type TimeMode int

const (
	// AgeRows shifts the timestamps of the case's own rows (pg, memory).
	AgeRows TimeMode = iota
	// MoveClock moves the store's whole clock (a bridge with capability
	// clock); the whole case is then one whole-store step.
	MoveClock
	// WaitReal waits in real time, with TTLs and windows of seconds.
	WaitReal
)

// Ager shifts the timestamps of one row of a suite (a stream, a run) back
// by d, as if d had passed for it; stores that can (pg, memory) give one
// to the suites whose cases move time.
type Ager func(ctx context.Context, id string, d time.Duration) error

// Timed drives time for one case of one suite: it ages the case's rows
// when the store can, moves the store's clock when it has one, and waits
// in real time, with TTLs of seconds, otherwise.
type Timed struct {
	s     *caseState
	ctx   context.Context
	suite string
	mode  TimeMode
	age   Ager
	// Unit is the case's unit of time: an hour when time is moved, a
	// second when the case waits for it.
	Unit time.Duration
}

// NewTimed returns the Timed of t's case in suite; age is nil when the
// store cannot age rows.
func NewTimed(t *T, suite string, age Ager) *Timed {
	return newTimedOf(t.s, suite, age)
}

func newTimedOf(s *caseState, suite string, age Ager) *Timed {
	t := &Timed{s: s, suite: suite, age: age, Unit: time.Hour}
	switch {
	case age != nil:
		t.mode = AgeRows
	case s.clock != nil:
		t.mode = MoveClock
	default:
		t.mode = WaitReal
		t.Unit = time.Second
	}
	return t
}

// Mode is how t makes time pass for the store.
func (t *Timed) Mode() TimeMode { return t.mode }

// Run runs the case's body: in one whole-store step when it moves the
// store's clock (a move affects every case), as it is otherwise.
func (t *Timed) Run(ctx context.Context, body func() error) error {
	if t.mode == MoveClock {
		return t.s.alone(ctx, ClockMove, body)
	}
	return body()
}

// Purge runs fn, a purge of the suite with window, as a whole-store step
// (already one when the clock moves).
func (t *Timed) Purge(ctx context.Context, window time.Duration, fn func() error) error {
	if t.mode == MoveClock {
		return fn()
	}
	return t.s.alone(ctx, PurgeOf(t.suite, window), fn)
}

// Now is the time the store lives in.
func (t *Timed) Now() time.Time {
	if t.mode == MoveClock {
		// Advancing by nothing reads the store's time; a failure shows
		// in the store call that follows.
		if now, err := t.s.clock.Advance(context.Background(), 0); err == nil {
			return now
		}
	}
	return time.Now()
}

// Hold registers, when the case waits in real time, that from at on a
// purge may remove what it waits for (see gate).
func (t *Timed) Hold(kind HoldKind, at time.Time) {
	if t.mode == WaitReal {
		t.s.holdFrom(t.suite, kind, at)
	}
}

// Release drops the case's holds: what it waited for has been checked,
// and other cases' purges may take it now.
func (t *Timed) Release() {
	if t.mode == WaitReal && t.s.gate != nil {
		t.s.gate.releaseHolds(t.s)
	}
}

// Pass makes d pass for the rows ids (streams or runs of the suite),
// counted from since when the case waits in real time.
func (t *Timed) Pass(ctx context.Context, d time.Duration, since time.Time, ids ...string) error {
	switch t.mode {
	case AgeRows:
		for _, id := range ids {
			if err := t.age(ctx, id, d); err != nil {
				return Op("move time", err)
			}
		}
		return nil
	case MoveClock:
		_, err := t.s.clock.Advance(ctx, d)
		return Op("move the store's clock", err)
	}
	return t.s.sleepUntil(ctx, since.Add(d))
}

// Outran says whether, waiting in real time, more than d has passed since
// since: a set-up that had to finish within a TTL of d did not, and what
// it made may have expired under it. The case is then marked disturbed,
// so that its failure does not stand and it runs again on a fresh
// subject (see runCase). With time aged or moved it never outruns.
func (t *Timed) Outran(since time.Time, d time.Duration) bool {
	if t.mode != WaitReal || time.Since(since) < d {
		return false
	}
	if g := t.s.gate; g != nil {
		g.mu.Lock()
		t.s.disturbed = true
		g.mu.Unlock()
	}
	return true
}

// OutranError is the failure of a case whose set-up outran its TTL.
func OutranError(what string, since time.Time, d time.Duration) error {
	return fmt.Errorf("the check could not be made: %s took %s, longer than the TTL of %s, so what it made may have expired under it; "+
		"this happens when store calls are slow: give the store a movable clock (capability clock) or run fewer cases at once",
		what, time.Since(since).Round(time.Millisecond), d)
}
