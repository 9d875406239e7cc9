package conform

import (
	"context"
	"time"
)

// How a timed case makes time pass for a store.
type timeMode int

const (
	// ageRows shifts the timestamps of the case's own rows (pg, memory).
	ageRows timeMode = iota
	// moveClock moves the store's whole clock (a bridge with capability
	// clock); the whole case is then one whole-store step.
	moveClock
	// waitReal waits in real time, with TTLs and windows of seconds.
	waitReal
)

// timed drives time for one case of one suite.
type timed struct {
	s     *Subject
	suite string
	mode  timeMode
	// unit is the case's unit of time: an hour when time is moved, a
	// second when the case waits for it.
	unit time.Duration
}

func newTimed(s *Subject, suite string) *timed {
	t := &timed{s: s, suite: suite, unit: time.Hour}
	var ages bool
	switch suite {
	case SuiteStreams:
		_, ages = s.Streams.(StreamAger)
	case SuiteRegistry:
		_, ages = s.Registry.(RunAger)
	}
	switch {
	case ages:
		t.mode = ageRows
	case s.Clock != nil:
		t.mode = moveClock
	default:
		t.mode = waitReal
		t.unit = time.Second
	}
	return t
}

// run runs the case's body: in one whole-store step when it moves the
// store's clock (a move affects every case), as it is otherwise.
func (t *timed) run(ctx context.Context, body func() error) error {
	if t.mode == moveClock {
		return t.s.alone(ctx, clockMove, body)
	}
	return body()
}

// purge runs fn, a purge of the suite with window, as a whole-store step
// (already one when the clock moves).
func (t *timed) purge(ctx context.Context, window time.Duration, fn func() error) error {
	if t.mode == moveClock {
		return fn()
	}
	return t.s.alone(ctx, purgeOf(t.suite, window), fn)
}

// now is the time the store lives in.
func (t *timed) now() time.Time {
	if t.mode == moveClock {
		// Advancing by nothing reads the store's time; a failure shows
		// in the store call that follows.
		if now, err := t.s.Clock.Advance(context.Background(), 0); err == nil {
			return now
		}
	}
	return time.Now()
}

// hold registers, when the case waits in real time, that from at on a
// purge may remove what it waits for (see gate).
func (t *timed) hold(kind holdKind, at time.Time) {
	if t.mode == waitReal {
		t.s.holdFrom(t.suite, kind, at)
	}
}

// release drops the case's holds: what it waited for has been checked,
// and other cases' purges may take it now.
func (t *timed) release() {
	if t.mode == waitReal && t.s.gate != nil {
		t.s.gate.releaseHolds(t.s)
	}
}

// pass makes d pass for the rows ids (streams or runs of the suite),
// counted from since when the case waits in real time.
func (t *timed) pass(ctx context.Context, d time.Duration, since time.Time, ids ...string) error {
	switch t.mode {
	case ageRows:
		for _, id := range ids {
			var err error
			if t.suite == SuiteStreams {
				err = t.s.Streams.(StreamAger).AgeStream(ctx, id, d)
			} else {
				err = t.s.Registry.(RunAger).AgeRun(ctx, id, d)
			}
			if err != nil {
				return op("move time", err)
			}
		}
		return nil
	case moveClock:
		_, err := t.s.Clock.Advance(ctx, d)
		return op("move the store's clock", err)
	}
	return t.s.sleepUntil(ctx, since.Add(d))
}
