package memstore_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/conformtest"
	"github.com/bsadapter/bsadapter/internal/conform/memstore"
)

// Each mutant builder runtime breaks one builder rule, and exactly that
// rule's case fails.
func TestBuilderMutants(t *testing.T) {
	cases, err := conform.Select(conform.Cases(), conform.Options{Suites: []string{conform.SuiteBuilder}})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct {
		mutation string
		caught   []string
	}{
		{"retries-step", []string{"builder/step-called-once"}},
		{"skips-sleep", []string{"builder/sleep-durable-timer"}},
		{"signal-by-node", []string{"builder/approval-signal"}},
		{"denied-continues", []string{"builder/approval-denied-stops"}},
		{"runs-both-branches", []string{"builder/only-active-edges"}},
		{"outputs-miss-trigger", []string{"builder/outputs-of-nodes-that-ran"}},
	} {
		t.Run(m.mutation, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			rep := conform.Run(ctx, memstore.NewBuilderMutant(m.mutation), cases, conform.Options{Parallel: 4})
			if got := rep.Failed(); !slices.Equal(got, m.caught) {
				t.Errorf("mutant %s: failed cases %v, want exactly %v\n%s", m.mutation, got, m.caught, conformtest.Failures(rep))
			}
		})
	}
}
