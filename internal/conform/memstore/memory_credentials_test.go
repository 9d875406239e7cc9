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

// Each mutant provider breaks one credentials rule, and exactly that
// rule's cases fail.
func TestCredentialsMutants(t *testing.T) {
	cases, err := conform.Select(conform.Cases(), conform.Options{Suites: []string{conform.SuiteCredentials}})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct {
		mutation string
		caught   []string
	}{
		{"unknown-provider-not-found", []string{"credentials/unknown-provider"}},
		{"stale-cache", []string{"credentials/reseed-seen"}},
		{"ignore-tenant", []string{"credentials/tenants-apart"}},
		{"revoke-all-users", []string{"credentials/revoke-one-user"}},
		{"verify-ignores-body", []string{"credentials/inbound-tampered-refused"}},
		{"token-in-rows", []string{"credentials/no-token-at-rest"}},
	} {
		t.Run(m.mutation, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			rep := conform.Run(ctx, memstore.NewCredentialsMutant(m.mutation), cases, conform.Options{Parallel: 4})
			if got := rep.Failed(); !slices.Equal(got, m.caught) {
				t.Errorf("mutant %s: failed cases %v, want exactly %v\n%s", m.mutation, got, m.caught, conformtest.Failures(rep))
			}
		})
	}
}
