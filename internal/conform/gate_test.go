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

// bareStore makes empty subjects: the cases below drive only the gate.
type bareStore struct{}

func (bareStore) Name() string          { return "bare" }
func (bareStore) Supports(string) error { return nil }
func (bareStore) Close() error          { return nil }
func (*bareStore) NewSubject(context.Context, *Case) (*Subject, func(), error) {
	return &Subject{Shared: true}, func() {}, nil
}

// A whole-store step runs with no other case in flight, however many run
// at once.
func TestWholeStoreStepsRunAlone(t *testing.T) {
	var inflight, alone atomic.Int32
	var cases []Case
	for i := range 40 {
		cases = append(cases, Case{ID: fmt.Sprintf("streams/ordinary-%d", i), Suite: SuiteStreams, Run: func(ctx context.Context, s *Subject) error {
			inflight.Add(1)
			defer inflight.Add(-1)
			if alone.Load() != 0 {
				return errors.New("an ordinary case ran during a whole-store step")
			}
			time.Sleep(2 * time.Millisecond)
			return nil
		}})
		if i%10 == 0 {
			cases = append(cases, Case{ID: fmt.Sprintf("streams/whole-%d", i), Suite: SuiteStreams, Isolated: true, Run: func(ctx context.Context, s *Subject) error {
				return s.alone(ctx, PurgeOf(SuiteStreams, time.Hour), func() error {
					if alone.Add(1) != 1 || inflight.Load() != 0 {
						return fmt.Errorf("%d cases in flight and %d whole-store steps during a whole-store step", inflight.Load(), alone.Load()-1)
					}
					time.Sleep(3 * time.Millisecond)
					alone.Add(-1)
					return nil
				})
			}})
		}
	}
	rep := Run(t.Context(), &bareStore{}, cases, Options{Parallel: 8})
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
	cases := []Case{
		{ID: "streams/waits-for-expiry", Suite: SuiteStreams, Isolated: true, Run: func(ctx context.Context, s *Subject) error {
			s.holdFrom(SuiteStreams, HoldExpiry, at(300*time.Millisecond))
			if err := s.sleepUntil(ctx, at(400*time.Millisecond)); err != nil {
				return err
			}
			return s.alone(ctx, PurgeOf(SuiteStreams, 30*24*time.Hour), func() error { step("expiry"); return nil })
		}},
		{ID: "streams/purges-meanwhile", Suite: SuiteStreams, Isolated: true, Run: func(ctx context.Context, s *Subject) error {
			if err := s.sleepUntil(ctx, at(100*time.Millisecond)); err != nil {
				return err
			}
			return s.alone(ctx, PurgeOf(SuiteStreams, time.Hour), func() error { step("streams purge"); return nil })
		}},
		{ID: "registry/purges-meanwhile", Suite: SuiteRegistry, Isolated: true, Run: func(ctx context.Context, s *Subject) error {
			if err := s.sleepUntil(ctx, at(150*time.Millisecond)); err != nil {
				return err
			}
			return s.alone(ctx, PurgeOf(SuiteRegistry, time.Second), func() error { step("registry purge"); return nil })
		}},
	}
	rep := Run(t.Context(), &bareStore{}, cases, Options{Parallel: 1})
	if f := rep.Failed(); len(f) > 0 {
		t.Fatalf("failed: %v", f)
	}
	if want := []string{"registry purge", "expiry", "streams purge"}; !slices.Equal(order, want) {
		t.Errorf("order %v, want %v: the streams purge came within the guard of the expiry, so it waits; the registry's takes no stream", order, want)
	}
}

// The time a case waits for the gate does not count against its timeout.
func TestGateWaitIsNotTimed(t *testing.T) {
	cases := []Case{
		{ID: "streams/slow", Suite: SuiteStreams, Timeout: 2 * time.Second, Run: func(ctx context.Context, s *Subject) error {
			time.Sleep(600 * time.Millisecond)
			return nil
		}},
		{ID: "streams/whole", Suite: SuiteStreams, Isolated: true, Timeout: 300 * time.Millisecond, Run: func(ctx context.Context, s *Subject) error {
			time.Sleep(50 * time.Millisecond)
			return s.alone(ctx, PurgeOf(SuiteStreams, time.Hour), func() error { return ctx.Err() })
		}},
	}
	rep := Run(t.Context(), &bareStore{}, cases, Options{Parallel: 2})
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
	waiter := &Subject{gate: g}
	waiter.holdFrom(SuiteStreams, HoldExpiry, time.Now().Add(guard+50*time.Millisecond))
	purger := &Subject{gate: g, isolated: true}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = purger.alone(t.Context(), PurgeOf(SuiteStreams, time.Hour), func() error {
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
