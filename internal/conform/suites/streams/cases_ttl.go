package streams

import (
	"fmt"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform"
)

// The cases of purges, TTLs and purge windows. Where the store ages rows
// or moves its clock, an hour is their unit of time; where the cases wait
// in real time, a second is, and holds (see conform.Timed.Hold) keep each
// case's purge from taking what another case still waits for.

const day = 24 * time.Hour

// timed is a TTL case's conform.Timed, whose steps record their failures
// on the case.
type timed struct {
	*conform.Timed
	t *conform.T
}

// newTimed returns the timed of t's case: rows are aged when the store
// can, the clock moved when it has one, and the case waits otherwise.
func newTimed(t *conform.T, s Subject) timed { return timed{conform.NewTimed(t, name, s.Age), t} }

// expired opens a stream with a TTL of one unit, appends chunks to it and
// lets the TTL run out, a fifth of a unit more; hold says that no other
// case's purge may take the stream before the case has looked at it.
func (c timed) expired(s Subject, hold bool, chunks ...string) string {
	ttl := c.Unit
	if hold {
		c.Hold(conform.HoldExpiry, c.Now().Add(ttl))
	}
	began := time.Now()
	id := openStream(c.t, s, OpenOptions{TTL: ttl})
	opened := c.Now()
	// Waiting in real time, a store that expires streams by itself may
	// take the stream before a slow append reaches it: that says nothing
	// of the store.
	if _, err := s.Append(c.t.Context(), id, 0, chunks); err != nil {
		if c.Outran(began, ttl) {
			c.t.Fatal(conform.OutranError("opening the stream and its first append", began, ttl))
		}
		c.t.Must("append at 0", err)
	}
	c.elapse(ttl+c.Unit/5, opened, id)
	return id
}

// do runs fn, the case's body (see conform.Timed.Run); why the body could
// not run is one more failure.
func (c timed) do(fn func()) {
	c.t.Error(c.Run(c.t.Context(), func() error { fn(); return nil }))
}

// purging runs fn, a purge with window, as a whole-store step (see
// conform.Timed.Purge).
func (c timed) purging(window time.Duration, fn func()) {
	c.t.Error(c.Purge(c.t.Context(), window, func() error { fn(); return nil }))
}

// elapse makes d pass for the streams ids (see conform.Timed.Pass); the
// case stops when it cannot.
func (c timed) elapse(d time.Duration, since time.Time, ids ...string) {
	if err := c.Pass(c.t.Context(), d, since, ids...); err != nil {
		c.t.Fatal(err)
	}
}

// alone runs fn as a whole-store step with effect e (see conform.T.Alone).
func alone(t *conform.T, e conform.Effect, fn func()) {
	t.Error(t.Alone(e, func() error { fn(); return nil }))
}

func purgeReturnsCount(t *conform.T, s Subject) {
	alone(t, conform.PurgeOf(name, day), func() {
		n, err := s.Purge(t.Context(), 0)
		t.Must("purge", err)
		t.That(n >= 0, "purge count", "an integer >= 0", n)
	})
}

func purgeKeepsLiveAndRecent(t *conform.T, s Subject) {
	alone(t, conform.PurgeOf(name, time.Hour), func() {
		open := openStream(t, s, OpenOptions{})
		closed := openStream(t, s, OpenOptions{})
		appendOK(t, s, closed, 0, "done")
		closeOK(t, s, closed)
		_, err := s.Purge(t.Context(), time.Hour)
		t.Must("purge", err)
		t.Eq("status of the open stream after purge", statusOf(t, s, open), &Status{})
		t.Eq("status of the stream closed just now after a purge with olderThan 1 hour", statusOf(t, s, closed), &Status{Next: 1, Closed: true})
	})
}

// ttlExpiredGone is the interface's rule of expiry, which holds for the
// block and for a store that expires streams by itself alike: whatever
// happened before the purge, after it the expired stream is gone, and its
// id is free. Another case's purge may take the stream first; it is gone
// all the same, so the case registers no hold.
func ttlExpiredGone(t *conform.T, s Subject) {
	tm := newTimed(t, s)
	tm.do(func() {
		id := tm.expired(s, false, "a")
		tm.purging(30*day, func() {
			_, err := s.Purge(t.Context(), 30*day)
			t.Must("purge", err)
		})
		t.Eq("status after the TTL and a purge", statusOf(t, s, id), (*Status)(nil))
		again, err := s.Open(t.Context(), id, OpenOptions{})
		t.Must("open of the expired id", err)
		t.Eq("open of the expired id after the purge", again, true)
		t.Eq("status of the stream opened again under the expired id", statusOf(t, s, id), &Status{})
	})
}

// ttlExpiredPurged and openExpiredUnchanged check the block's expiry (its
// rule KeepsExpired): the expired stream stays until the purge, which
// counts it.
func ttlExpiredPurged(t *conform.T, s Subject) {
	tm := newTimed(t, s)
	tm.do(func() {
		id := tm.expired(s, true, "a")
		tm.purging(30*day, func() {
			n, err := s.Purge(t.Context(), 30*day)
			t.Must("purge", err)
			st := statusOf(t, s, id)
			t.That(n >= 1, "purge count", "at least 1", n)
			t.Eq("status after purge", st, (*Status)(nil))
		})
	})
}

func ttlUnexpiredKept(t *conform.T, s Subject) {
	tm := newTimed(t, s)
	// Older than the purge window, within its TTL.
	ttl, age, window := 30*day, 29*day, time.Hour
	if tm.Mode() == conform.WaitReal {
		ttl, age, window = time.Hour, 1200*time.Millisecond, time.Second
	}
	tm.do(func() {
		id := openStream(t, s, OpenOptions{TTL: ttl})
		opened := tm.Now()
		appendOK(t, s, id, 0, "a")
		tm.elapse(age, opened, id)
		tm.purging(window, func() {
			_, err := s.Purge(t.Context(), window)
			t.Must("purge", err)
			t.Eq("status after purge", statusOf(t, s, id), &Status{Next: 1})
		})
	})
}

func purgeClosedWindow(t *conform.T, s Subject) {
	tm := newTimed(t, s)
	// One stream closed 1.5 windows before the purge, one half a window
	// before it (when the cases wait, just before it).
	window := time.Hour
	if tm.Mode() == conform.WaitReal {
		window = time.Second
	}
	tm.do(func() {
		var ids []string
		for range 2 {
			id := openStream(t, s, OpenOptions{TTL: 30 * day})
			appendOK(t, s, id, 0, "a")
			ids = append(ids, id)
		}
		old, young := ids[0], ids[1]
		tm.Hold(conform.HoldAge, tm.Now())
		closeOK(t, s, old)
		closed := tm.Now()
		switch tm.Mode() {
		case conform.AgeRows:
			closeOK(t, s, young)
			tm.elapse(window*3/2, closed, old)
			tm.elapse(window/2, closed, young)
		case conform.MoveClock:
			tm.elapse(window, closed)
			closeOK(t, s, young)
			tm.elapse(window/2, closed)
		case conform.WaitReal:
			tm.elapse(window+window/5, closed)
		}
		tm.purging(window, func() {
			if tm.Mode() == conform.WaitReal {
				// Closed within the step, so that no wait for other
				// cases can age it past the window.
				closeOK(t, s, young)
			}
			n, err := s.Purge(t.Context(), window)
			t.Must("purge", err)
			t.Eq(fmt.Sprintf("status of a stream closed less than the window (%s) ago, after a purge", window), statusOf(t, s, young), &Status{Next: 1, Closed: true})
			st := statusOf(t, s, old)
			t.That(n >= 1, "purge count", "at least 1 (the stream closed longer than the window ago)", n)
			t.Eq(fmt.Sprintf("status of a stream closed longer than the window (%s) ago, after a purge", window), st, (*Status)(nil))
		})
	})
}

func openExpiredUnchanged(t *conform.T, s Subject) {
	tm := newTimed(t, s)
	tm.do(func() {
		id := tm.expired(s, true, "a", "b")
		// Expired, not purged: no purge comes before these checks (the
		// hold), and none need wait for the purge of this case.
		again, err := s.Open(t.Context(), id, OpenOptions{TTL: 30 * day})
		t.Must("second open", err)
		st := statusOf(t, s, id)
		tm.Release()
		t.Eq("open of the expired id", again, false)
		t.Eq("status before purge", st, &Status{Next: 2})
		tm.purging(30*day, func() {
			n, err := s.Purge(t.Context(), 30*day)
			t.Must("purge", err)
			gone := statusOf(t, s, id)
			if tm.Mode() != conform.WaitReal {
				// Waiting in real time, another case's purge may have
				// taken it first; it must be gone all the same.
				t.That(n >= 1, "purge count", "at least 1 (the TTL was not renewed)", n)
			}
			t.Eq("status after purge (the TTL was not renewed)", gone, (*Status)(nil))
		})
	})
}
