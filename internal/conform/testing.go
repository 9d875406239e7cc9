package conform

import (
	"context"
	"strings"
	"testing"
	"time"
)

// Test runs every case of the given suites (none: all) against store as
// subtests of t, named by case ID. Each case runs on a fresh subject, in
// parallel with the others, and fails with every mismatch it found; a
// case that does not finish within its timeout fails.
func Test(t *testing.T, store Store, suites ...string) {
	t.Helper()
	cases, err := Select(Cases(), Options{Suites: suites})
	if err != nil {
		t.Fatal(err)
	}
	for i := range cases {
		c := &cases[i]
		t.Run(strings.TrimPrefix(c.ID, c.Suite+"/"), func(t *testing.T) {
			t.Parallel()
			if err := store.Supports(c.Suite); err != nil {
				t.Skipf("%s: %v", c.ID, err)
			}
			ctx := t.Context()
			if dl, ok := t.Deadline(); ok {
				var cancel context.CancelFunc
				ctx, cancel = context.WithDeadline(ctx, dl.Add(-time.Second))
				defer cancel()
			}
			res := runCase(ctx, store, c, 0)
			switch res.Outcome {
			case Skipped:
				t.Skipf("%s: %s", c.ID, res.Reason)
			case Fail:
				t.Errorf("%s: rule: %s", c.ID, c.Rule)
				for _, f := range res.Failures {
					t.Errorf("  %s", f.Message)
				}
			}
		})
	}
}

// TestStreams runs the streams suite against store (see Test).
func TestStreams(t *testing.T, store Store) { t.Helper(); Test(t, store, SuiteStreams) }

// TestRegistry runs the run-registry suite against store (see Test).
func TestRegistry(t *testing.T, store Store) { t.Helper(); Test(t, store, SuiteRegistry) }

// TestChat runs the chat suite against store (see Test).
func TestChat(t *testing.T, store Store) { t.Helper(); Test(t, store, SuiteChat) }
