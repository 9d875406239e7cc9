package conform_test

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites"
)

// probe is the subject of the runner's fake suite: the number of the
// subject, so that a case can tell that its subject is fresh.
type probe struct{ n int64 }

// countingStore offers the fake suite and counts the subjects it makes
// and releases.
type countingStore struct{ made, released atomic.Int64 }

func (*countingStore) Name() string { return "counting" }
func (*countingStore) Close() error { return nil }

// Probe is the fake suite's provider method.
func (c *countingStore) Probe(context.Context) (conform.Opener[*probe], error) {
	return func(t *conform.T) (*probe, error) {
		p := &probe{n: c.made.Add(1)}
		t.Cleanup(func() { c.released.Add(1) })
		return p, nil
	}, nil
}

// prober is the fake suite's provider interface.
type prober interface {
	Probe(context.Context) (conform.Opener[*probe], error)
}

// probeCases returns the cases of a fake suite called streams.
func probeCases(cases ...conform.CaseOf[*probe]) []conform.Case {
	return conform.NewSuite(conform.Info{Name: "streams"}, prober.Probe, cases).Cases
}

func TestRunReportsEveryOutcome(t *testing.T) {
	var seen []int64
	cases := probeCases(
		conform.CaseOf[*probe]{ID: "streams/ok", Rule: "passes", Run: func(t *conform.T, p *probe) {
			seen = append(seen, p.n)
		}},
		conform.CaseOf[*probe]{ID: "streams/two-mismatches", Rule: "fails twice", Run: func(t *conform.T, p *probe) {
			seen = append(seen, p.n)
			t.Error(&conform.Mismatch{What: "a", Expected: "1", Actual: "2"})
			t.Eq("b", "y", "x")
		}},
		conform.CaseOf[*probe]{ID: "streams/skip", Rule: "skips", Run: func(t *conform.T, p *probe) {
			t.Skip("no %s here", "feature")
		}},
		conform.CaseOf[*probe]{ID: "streams/hangs", Rule: "hangs", Timeout: 50 * time.Millisecond, Run: func(t *conform.T, p *probe) {
			select {} // ignores its context entirely
		}},
		conform.CaseOf[*probe]{ID: "streams/panics", Rule: "panics", Run: func(t *conform.T, p *probe) {
			panic("boom")
		}},
		conform.CaseOf[*probe]{ID: "streams/stops", Rule: "stops at its first fatal failure", Run: func(t *conform.T, p *probe) {
			t.Must("open", errors.New("refused"))
			t.Error(errors.New("not reached"))
		}},
	)
	st := &countingStore{}
	rep := conform.Run(t.Context(), st, cases, conform.Options{})
	if len(rep.Results) != len(cases) {
		t.Fatalf("got %d results for %d cases", len(rep.Results), len(cases))
	}
	want := map[string]conform.Outcome{"streams/ok": conform.Pass, "streams/two-mismatches": conform.Fail, "streams/skip": conform.Skipped, "streams/hangs": conform.Fail, "streams/panics": conform.Fail, "streams/stops": conform.Fail}
	for _, r := range rep.Results {
		if r.Outcome != want[r.ID] {
			t.Errorf("%s: %s, want %s", r.ID, r.Outcome, want[r.ID])
		}
		switch r.ID {
		case "streams/two-mismatches":
			if len(r.Failures) != 2 || r.Failures[0].What != "a" || r.Failures[1].Actual != `"y"` || r.Failures[1].Expected != `"x"` {
				t.Errorf("both mismatches must be reported, got %+v", r.Failures)
			}
		case "streams/skip":
			if r.Reason != "no feature here" {
				t.Errorf("skip reason %q", r.Reason)
			}
		case "streams/hangs":
			if len(r.Failures) == 0 || !strings.Contains(r.Failures[0].Message, "did not finish within its timeout of 50ms") {
				t.Errorf("hanging case: %+v", r.Failures)
			}
		case "streams/panics":
			if len(r.Failures) == 0 || !strings.Contains(r.Failures[0].Message, "panic: boom") {
				t.Errorf("panicking case: %+v", r.Failures)
			}
		case "streams/stops":
			if len(r.Failures) != 1 || r.Failures[0].Message != "open: unexpected error: refused" {
				t.Errorf("a case that stops must report its one failure, got %+v", r.Failures)
			}
		}
	}
	if len(seen) != 2 || seen[0] == seen[1] {
		t.Errorf("each case must get a fresh subject, got %v", seen)
	}
	if st.made.Load() != int64(len(cases)) {
		t.Errorf("made %d subjects for %d cases", st.made.Load(), len(cases))
	}
	// Every subject is released once its case returns; only the hanging
	// case, abandoned, still holds its own.
	if st.released.Load() != int64(len(cases)-1) {
		t.Errorf("released %d subjects, want %d", st.released.Load(), len(cases)-1)
	}
}

func TestRunStopsWhenInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var started atomic.Int64
	var list []conform.CaseOf[*probe]
	for i := range 20 {
		list = append(list, conform.CaseOf[*probe]{ID: "streams/c" + string(rune('a'+i)), Rule: "waits", Run: func(t *conform.T, p *probe) {
			if started.Add(1) == 2 {
				cancel()
			}
			<-t.Context().Done()
			t.Fatal(t.Context().Err())
		}})
	}
	cases := probeCases(list...)
	rep := conform.Run(ctx, &countingStore{}, cases, conform.Options{Parallel: 2})
	if n := rep.Count(conform.Fail); n != 0 {
		t.Errorf("interrupted cases must not be reported as failures, got %d: %v", n, rep.Failed())
	}
	if started.Load() > 4 {
		t.Errorf("%d cases started after the interrupt", started.Load())
	}
}

func TestSelect(t *testing.T) {
	all := suites.Cases()
	got, err := conform.Select(all, conform.Options{Suites: []string{"registry"}, Run: regexp.MustCompile("cancel")})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range got {
		if c.Suite != "registry" || !strings.Contains(c.ID, "cancel") {
			t.Errorf("selected %s", c.ID)
		}
	}
	if len(got) < 4 {
		t.Errorf("selected only %d cases", len(got))
	}
	_, err = conform.Select(all, conform.Options{Run: regexp.MustCompile("^streams/"), Skip: regexp.MustCompile("owner")})
	if err == nil || !strings.Contains(err.Error(), "streams/owner-sees-own, streams/owner-may-cancel") {
		t.Errorf("overlapping filters: %v", err)
	}
	if _, err := conform.Select(all, conform.Options{Suites: []string{"chats"}}); err == nil || !strings.Contains(err.Error(), `unknown suite "chats"`) {
		t.Errorf("unknown suite: %v", err)
	}
	if _, err := conform.Select(all, conform.Options{Run: regexp.MustCompile("nothing-matches")}); err == nil {
		t.Error("an empty selection must be an error")
	}
	got, err = conform.Select(all, conform.Options{Skip: regexp.MustCompile("^(streams|registry)/")})
	if err != nil || len(got) == 0 || got[0].Suite != "chat" {
		t.Errorf("--skip alone: %v, %d cases", err, len(got))
	}
}

// A probe's Discard drops the failures recorded after it and keeps the
// ones before: a case whose check came too late to judge still fails for
// what it found before.
func TestProbeDiscard(t *testing.T) {
	cases := probeCases(
		conform.CaseOf[*probe]{ID: "streams/discarded", Rule: "a late check says nothing", Run: func(t *conform.T, _ *probe) {
			p := t.Probe()
			t.Eq("late", 1, 2)
			p.Discard()
		}},
		conform.CaseOf[*probe]{ID: "streams/kept", Rule: "what came before stays", Run: func(t *conform.T, _ *probe) {
			t.Eq("before", 1, 2)
			p := t.Probe()
			t.Eq("late", 3, 4)
			p.Discard()
		}},
	)
	rep := conform.Run(t.Context(), &countingStore{}, cases, conform.Options{})
	got := map[string]conform.Outcome{}
	for _, r := range rep.Results {
		got[r.ID] = r.Outcome
		if r.ID == "streams/kept" && (len(r.Failures) != 1 || !strings.Contains(r.Failures[0].What, "before")) {
			t.Errorf("streams/kept failures: %+v, want the one before the probe", r.Failures)
		}
	}
	if got["streams/discarded"] != conform.Pass || got["streams/kept"] != conform.Fail {
		t.Errorf("outcomes: %v", got)
	}
}
