package conform

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A whole-store step runs with no other case in flight, however many run
// at once.
func TestWholeStoreStepsRunAlone(t *testing.T) {
	var inflight, alone atomic.Int32
	var cases []CaseOf[bare]
	for i := range 40 {
		cases = append(cases, CaseOf[bare]{ID: fmt.Sprintf("streams/ordinary-%d", i), Run: func(t *T, _ bare) {
			inflight.Add(1)
			defer inflight.Add(-1)
			if alone.Load() != 0 {
				t.Fatal(errors.New("an ordinary case ran during a whole-store step"))
			}
			time.Sleep(2 * time.Millisecond)
		}})
		if i%10 == 0 {
			cases = append(cases, CaseOf[bare]{ID: fmt.Sprintf("streams/whole-%d", i), Isolated: true, Run: func(t *T, _ bare) {
				t.Error(t.Alone(PurgeOf("streams", time.Hour), func() error {
					if alone.Add(1) != 1 || inflight.Load() != 0 {
						return fmt.Errorf("%d cases in flight and %d whole-store steps during a whole-store step", inflight.Load(), alone.Load()-1)
					}
					time.Sleep(3 * time.Millisecond)
					alone.Add(-1)
					return nil
				}))
			}})
		}
	}
	rep := Run(t.Context(), &fakeStore{}, fakeSuite("streams", cases...).Cases, Options{Parallel: 8})
	if ids := rep.Failed(); len(ids) > 0 {
		for _, r := range rep.Results {
			if r.Outcome == Fail {
				t.Errorf("%s: %s", r.ID, FailureText(r))
			}
		}
	}
}

// A purge that would take what another case waits for waits for that
// case; one of another suite, or that takes nothing of it, does not.
func TestHoldsOrderWholeStoreSteps(t *testing.T) {
	var mu sync.Mutex
	var order []string
	step := func(name string) {
		mu.Lock()
		defer mu.Unlock()
		order = append(order, name)
	}
	start := time.Now()
	at := func(d time.Duration) time.Time { return start.Add(d) }
	cases := append(fakeSuite("streams",
		CaseOf[bare]{ID: "streams/waits-for-expiry", Isolated: true, Run: func(t *T, _ bare) {
			t.s.holdFrom("streams", HoldExpiry, at(300*time.Millisecond))
			t.Must("sleep", t.SleepUntil(at(400*time.Millisecond)))
			t.Error(t.Alone(PurgeOf("streams", 30*24*time.Hour), func() error { step("expiry"); return nil }))
		}},
		CaseOf[bare]{ID: "streams/purges-meanwhile", Isolated: true, Run: func(t *T, _ bare) {
			t.Must("sleep", t.SleepUntil(at(100*time.Millisecond)))
			t.Error(t.Alone(PurgeOf("streams", time.Hour), func() error { step("streams purge"); return nil }))
		}}).Cases,
		fakeSuite("registry", CaseOf[bare]{ID: "registry/purges-meanwhile", Isolated: true, Run: func(t *T, _ bare) {
			t.Must("sleep", t.SleepUntil(at(150*time.Millisecond)))
			t.Error(t.Alone(PurgeOf("registry", time.Second), func() error { step("registry purge"); return nil }))
		}}).Cases...)
	rep := Run(t.Context(), &fakeStore{}, cases, Options{Parallel: 1})
	if f := rep.Failed(); len(f) > 0 {
		t.Fatalf("failed: %v", f)
	}
	if want := []string{"registry purge", "expiry", "streams purge"}; !slices.Equal(order, want) {
		t.Errorf("order %v, want %v: the streams purge came within the guard of the expiry, so it waits; the registry's takes no stream", order, want)
	}
}

// The time a case waits for the gate does not count against its timeout.
func TestGateWaitIsNotTimed(t *testing.T) {
	cases := fakeSuite("streams",
		CaseOf[bare]{ID: "streams/slow", Timeout: 2 * time.Second, Run: func(t *T, _ bare) {
			time.Sleep(600 * time.Millisecond)
		}},
		CaseOf[bare]{ID: "streams/whole", Isolated: true, Timeout: 300 * time.Millisecond, Run: func(t *T, _ bare) {
			time.Sleep(50 * time.Millisecond)
			t.Error(t.Alone(PurgeOf("streams", time.Hour), func() error { return t.Context().Err() }))
		}}).Cases
	rep := Run(t.Context(), &fakeStore{}, cases, Options{Parallel: 2})
	for _, r := range rep.Results {
		if r.Outcome != Pass {
			t.Errorf("%s: %s %s", r.ID, r.Outcome, FailureText(r))
		}
	}
}

// A whole-store step inside which its case stops (T.Must and T.Fatal end
// the case's goroutine there) still lets go of the gate and tells the
// other cases what it may have removed.
func TestStepStoppedInsideStillEnds(t *testing.T) {
	g := newGate()
	waiter := &caseState{gate: g}
	waiter.holdFrom("streams", HoldExpiry, time.Now().Add(guard+50*time.Millisecond))
	purger := &caseState{gate: g, isolated: true}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = purger.alone(t.Context(), PurgeOf("streams", time.Hour), func() error {
			time.Sleep(guard + 100*time.Millisecond)
			runtime.Goexit()
			return nil
		})
	}()
	<-done
	if !g.rw.TryLock() {
		t.Fatal("the gate is still held after the step")
	}
	g.rw.Unlock()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.holds[0].disturbed == "" {
		t.Error("the hold the step's purge may have removed is not marked disturbed")
	}
}

// A case that failed after another case's purge may have taken what it
// waited for runs again on a fresh subject; a failure without such a
// disturbance, or one that comes back every time, stands.
func TestDisturbedCaseRunsAgain(t *testing.T) {
	var flaky, broken, plain atomic.Int32
	disturb := func(t *T) {
		t.s.holdFrom("streams", HoldExpiry, time.Now())
		// Another case's whole-store step that may remove anything ends
		// after the hold was due...
		t.s.gate.stepDone(&caseState{gate: t.s.gate}, ClockMove, time.Now())
		// ...and the case lets go of its holds before its last checks, as
		// Timed.Release does: the disturbance still counts.
		t.s.gate.releaseHolds(t.s)
	}
	cases := fakeSuite("streams",
		CaseOf[bare]{ID: "streams/flaky", Run: func(t *T, _ bare) {
			if flaky.Add(1) == 1 {
				disturb(t)
				t.Fatalf("lost what it waited for")
			}
		}},
		CaseOf[bare]{ID: "streams/broken", Run: func(t *T, _ bare) {
			broken.Add(1)
			disturb(t)
			t.Fatalf("the rule does not hold")
		}},
		CaseOf[bare]{ID: "streams/plain-failure", Run: func(t *T, _ bare) {
			plain.Add(1)
			t.Fatalf("the rule does not hold")
		}},
	).Cases
	rep := Run(t.Context(), &fakeStore{}, cases, Options{Parallel: 3})
	want := map[string]Outcome{"streams/flaky": Pass, "streams/broken": Fail, "streams/plain-failure": Fail}
	for _, r := range rep.Results {
		if r.Outcome != want[r.ID] {
			t.Errorf("%s: %s, want %s", r.ID, r.Outcome, want[r.ID])
		}
	}
	if flaky.Load() != 2 || broken.Load() != disturbedAttempts || plain.Load() != 1 {
		t.Errorf("runs: flaky %d (want 2), broken %d (want %d), plain failure %d (want 1)", flaky.Load(), broken.Load(), disturbedAttempts, plain.Load())
	}
}

// The guard grows with the slowest whole-store step the gate has seen, so
// that a slow store is given the room it needs.
func TestGuardGrowsWithSlowSteps(t *testing.T) {
	g := newGate()
	s := &caseState{gate: g, isolated: true}
	if err := s.alone(t.Context(), PurgeOf("streams", time.Hour), func() error {
		time.Sleep(guard)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if got := g.guardLocked(); got < 2*guard {
		t.Errorf("guard %s after a step of at least %s, want at least twice that", got, guard)
	}
}

// A case waiting in real time whose set-up outran its own TTL runs again;
// one that kept within it, or whose time is moved, does not count as
// outrun.
func TestOutranCaseRunsAgain(t *testing.T) {
	var slow, quick atomic.Int32
	var movedOutran atomic.Bool
	cases := fakeSuite("streams",
		CaseOf[bare]{ID: "streams/slow-setup", Run: func(t *T, _ bare) {
			tm := NewTimed(t, "streams", nil)
			began := time.Now().Add(-2 * tm.Unit) // as if the set-up took two TTLs
			if slow.Add(1) == 1 && tm.Outran(began, tm.Unit) {
				t.Fatal(OutranError("the set-up", began, tm.Unit))
			}
		}},
		CaseOf[bare]{ID: "streams/quick-setup", Run: func(t *T, _ bare) {
			quick.Add(1)
			tm := NewTimed(t, "streams", nil)
			if tm.Outran(time.Now(), time.Hour) {
				t.Fatalf("a set-up that just began counts as outrun")
			}
			t.Fatalf("the rule does not hold")
		}},
		CaseOf[bare]{ID: "streams/moved", Run: func(t *T, _ bare) {
			tm := NewTimed(t, "streams", func(context.Context, string, time.Duration) error { return nil })
			movedOutran.Store(tm.Outran(time.Now().Add(-48*time.Hour), time.Hour))
		}},
	).Cases
	rep := Run(t.Context(), &fakeStore{}, cases, Options{Parallel: 3})
	want := map[string]Outcome{"streams/slow-setup": Pass, "streams/quick-setup": Fail, "streams/moved": Pass}
	for _, r := range rep.Results {
		if r.Outcome != want[r.ID] {
			t.Errorf("%s: %s, want %s", r.ID, r.Outcome, want[r.ID])
		}
	}
	if slow.Load() != 2 || quick.Load() != 1 {
		t.Errorf("runs: slow set-up %d (want 2), quick set-up %d (want 1)", slow.Load(), quick.Load())
	}
	if movedOutran.Load() {
		t.Error("a case whose rows are aged counted as outrun")
	}
}

// A whole-store step of a case on a subject of its own (T.SetPrivate)
// reaches no other case: it runs while they are in flight, and it still
// must come from an Isolated case. Here the ordinary case waits, inside
// its shared hold of the gate, for the step: a step that waited for the
// gate would never come (the case's timeout ends it).
func TestPrivateStepsRunAmongOtherCases(t *testing.T) {
	stepped := make(chan struct{})
	cases := fakeSuite("streams",
		CaseOf[bare]{ID: "streams/waits-for-the-step", Timeout: 2 * time.Second, Run: func(t *T, _ bare) {
			select {
			case <-stepped:
			case <-t.Context().Done():
				t.Fatal(errors.New("the private case's step did not run while this case was in flight"))
			}
		}},
		CaseOf[bare]{ID: "streams/private-step", Isolated: true, Timeout: 2 * time.Second, Run: func(t *T, _ bare) {
			t.SetPrivate()
			time.Sleep(50 * time.Millisecond) // the other case holds the gate by now
			t.Error(t.Alone(PurgeOf("streams", time.Hour), func() error { close(stepped); return nil }))
		}},
		CaseOf[bare]{ID: "streams/private-not-isolated", Run: func(t *T, _ bare) {
			t.SetPrivate()
			if err := t.Alone(PurgeOf("streams", time.Hour), func() error { return nil }); !errors.Is(err, errNotIsolated) {
				t.Fatal(fmt.Errorf("a step of a case that is not Isolated: %v, want %v", err, errNotIsolated))
			}
		}}).Cases
	rep := Run(t.Context(), &fakeStore{}, cases, Options{Parallel: 3})
	for _, r := range rep.Results {
		if r.Outcome != Pass {
			t.Errorf("%s: %s %s", r.ID, r.Outcome, FailureText(r))
		}
	}
}
