// Package conformtest runs internal/conform's suites under go test, in the
// manner of testing/fstest and testing/slogtest. It is the only part of
// the kit that imports testing, and only tests import it, so the
// bsadapter binary does not link testing.
package conformtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites"
)

// Run runs every case of the given suites (none: all) against store as
// subtests of t, named by case ID. Each case runs on a fresh subject, in
// parallel with the others, and fails with every mismatch it found; a
// case that does not finish within its timeout fails. A case of a block
// rule the store declares it does not keep is skipped, with the reason.
func Run(t *testing.T, store conform.Store, names ...string) {
	t.Helper()
	cases, err := conform.Select(suites.Cases(), conform.Options{Suites: names})
	if err != nil {
		t.Fatal(err)
	}
	for i := range cases {
		c := cases[i]
		t.Run(strings.TrimPrefix(c.ID, c.Suite+"/"), func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			if dl, ok := t.Deadline(); ok {
				var cancel context.CancelFunc
				ctx, cancel = context.WithDeadline(ctx, dl.Add(-time.Second))
				defer cancel()
			}
			rep := conform.Run(ctx, store, []conform.Case{c}, conform.Options{})
			if len(rep.NotApplicable) == 1 {
				// A block rule the store declares it does not keep.
				t.Skipf("%s: does not apply: %s", c.ID, rep.NotApplicable[0].Reason)
			}
			if len(rep.Results) != 1 {
				// Run leaves out what an interrupt stopped.
				t.Fatalf("%s: interrupted before it finished: %v", c.ID, ctx.Err())
			}
			switch res := rep.Results[0]; res.Outcome {
			case conform.Skipped:
				t.Skipf("%s: %s", c.ID, res.Reason)
			case conform.Fail:
				t.Errorf("%s: rule: %s", c.ID, c.Rule)
				for _, f := range res.Failures {
					t.Errorf("  %s", f.Message)
				}
			}
		})
	}
}

// Failures renders every failed case of rep with its failures, one
// case a line and one failure an indented line below it, for a test's
// error message; it is empty when nothing failed.
func Failures(rep *conform.Report) string {
	var b strings.Builder
	for _, r := range rep.Results {
		if r.Outcome == conform.Fail {
			b.WriteString(r.ID + ":\n")
			for _, f := range r.Failures {
				b.WriteString("    " + f.Message + "\n")
			}
		}
	}
	return b.String()
}
