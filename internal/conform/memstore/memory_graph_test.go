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

// Each mutant compiler breaks one graph-compiler rule, and exactly that
// rule's case fails.
func TestGraphMutants(t *testing.T) {
	cases, err := conform.Select(conform.Cases(), conform.Options{Suites: []string{conform.SuiteGraphCompiler}})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct {
		mutation string
		caught   []string
	}{
		{"lossy", []string{"graph-compiler/json-round-trip"}},
		{"nondeterministic", []string{"graph-compiler/deterministic"}},
		{"mutates-input", []string{"graph-compiler/input-not-mutated"}},
		{"accepts-cycles", []string{"graph-compiler/invalid-rejected"}},
	} {
		t.Run(m.mutation, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			rep := conform.Run(ctx, memstore.NewGraphMutant(m.mutation), cases, conform.Options{Parallel: 4})
			if got := rep.Failed(); !slices.Equal(got, m.caught) {
				t.Errorf("mutant %s: failed cases %v, want exactly %v\n%s", m.mutation, got, m.caught, conformtest.Failures(rep))
			}
		})
	}
}
