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
	"github.com/bsadapter/bsadapter/internal/conform/memstore"
	"github.com/bsadapter/bsadapter/internal/conform/suites"
)

// countingStore hands out memory subjects and counts them and their
// releases.
type countingStore struct {
	conform.Store
	made, released atomic.Int64
}

func (c *countingStore) NewSubject(ctx context.Context, cs *conform.Case) (*conform.Subject, func(), error) {
	s, rel, err := c.Store.NewSubject(ctx, cs)
	c.made.Add(1)
	return s, func() { c.released.Add(1); rel() }, err
}

func TestRunReportsEveryOutcome(t *testing.T) {
	var seen []string
	cases := []conform.Case{
		{ID: "streams/ok", Suite: "streams", Rule: "passes", Run: func(ctx context.Context, s *conform.Subject) error {
			seen = append(seen, s.Prefix)
			return nil
		}},
		{ID: "streams/two-mismatches", Suite: "streams", Rule: "fails twice", Run: func(ctx context.Context, s *conform.Subject) error {
			seen = append(seen, s.Prefix)
			return errors.Join(&conform.Mismatch{What: "a", Expected: "1", Actual: "2"}, &conform.Mismatch{What: "b", Expected: "x", Actual: "y"})
		}},
		{ID: "streams/skip", Suite: "streams", Rule: "skips", Run: func(ctx context.Context, s *conform.Subject) error {
			return conform.Skip("no %s here", "feature")
		}},
		{ID: "streams/hangs", Suite: "streams", Rule: "hangs", Timeout: 50 * time.Millisecond, Run: func(ctx context.Context, s *conform.Subject) error {
			select {} // ignores its context entirely
		}},
		{ID: "streams/panics", Suite: "streams", Rule: "panics", Run: func(ctx context.Context, s *conform.Subject) error {
			panic("boom")
		}},
	}
	st := &countingStore{Store: memstore.New()}
	rep := conform.Run(t.Context(), st, cases, conform.Options{})
	if len(rep.Results) != len(cases) {
		t.Fatalf("got %d results for %d cases", len(rep.Results), len(cases))
	}
	want := map[string]conform.Outcome{"streams/ok": conform.Pass, "streams/two-mismatches": conform.Fail, "streams/skip": conform.Skipped, "streams/hangs": conform.Fail, "streams/panics": conform.Fail}
	for _, r := range rep.Results {
		if r.Outcome != want[r.ID] {
			t.Errorf("%s: %s, want %s", r.ID, r.Outcome, want[r.ID])
		}
		switch r.ID {
		case "streams/two-mismatches":
			if len(r.Failures) != 2 || r.Failures[0].What != "a" || r.Failures[1].Actual != "y" {
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
		}
	}
	if len(seen) != 2 || seen[0] == seen[1] {
		t.Errorf("each case must get a fresh subject, got prefixes %v", seen)
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
	cases := make([]conform.Case, 20)
	for i := range cases {
		cases[i] = conform.Case{ID: "streams/c" + string(rune('a'+i)), Suite: "streams", Rule: "waits", Run: func(ctx context.Context, s *conform.Subject) error {
			if started.Add(1) == 2 {
				cancel()
			}
			<-ctx.Done()
			return ctx.Err()
		}}
	}
	rep := conform.Run(ctx, memstore.New(), cases, conform.Options{Parallel: 2})
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
