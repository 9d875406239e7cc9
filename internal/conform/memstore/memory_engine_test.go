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

// Each mutant engine adapter breaks one engine rule, and exactly that
// rule's case fails.
func TestEngineMutants(t *testing.T) {
	cases, err := conform.Select(conform.Cases(), conform.Options{Suites: []string{conform.SuiteEngine}})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct {
		mutation string
		caught   []string
	}{
		{"terminated-is-running", []string{"engine/status-map-total"}},
		{"guess-unknown", []string{"engine/unknown-status-refused"}},
		{"start-ignores-key", []string{"engine/start-idempotent"}},
		{"ignores-cancel", []string{"engine/cancel-reaches-engine"}},
		{"drops-error", []string{"engine/records-follow-registry"}},
	} {
		t.Run(m.mutation, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			rep := conform.Run(ctx, memstore.NewEngineMutant(m.mutation), cases, conform.Options{Parallel: 4})
			if got := rep.Failed(); !slices.Equal(got, m.caught) {
				t.Errorf("mutant %s: failed cases %v, want exactly %v\n%s", m.mutation, got, m.caught, conformtest.Failures(rep))
			}
		})
	}
}
