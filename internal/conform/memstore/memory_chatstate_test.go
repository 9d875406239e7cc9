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

// Each mutant departs from the StateAdapter contract in one way, and
// exactly the cases of the rule it breaks fail: no rule goes unchecked,
// and no case fails for another rule's fault.
func TestChatStateMutants(t *testing.T) {
	cases, err := conform.Select(conform.Cases(), conform.Options{Suites: []string{conform.SuiteChatState}})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct {
		mutation string
		caught   []string
	}{
		{"release-ignores-token", []string{"chat-state/lock-wrong-token"}},
		{"lock-never-expires", []string{"chat-state/lock-expired"}},
		{"lock-check-then-set", []string{"chat-state/lock-one-winner", "chat-state/concurrent-lock"}},
		{"set-ignores-ttl", []string{"chat-state/value-ttl"}},
		{"null-is-a-miss", []string{"chat-state/value-null-not-a-miss"}},
		{"list-cap-keeps-oldest", []string{"chat-state/list-cap-keeps-newest"}},
		{"list-read-modify-write", []string{"chat-state/concurrent-list"}},
		{"queue-counts-expired", []string{"chat-state/queue-expired-skipped", "chat-state/queue-expired-arrival-takes-no-place", "chat-state/queue-entry-expires"}},
		{"expired-takes-a-place", []string{"chat-state/queue-expired-arrival-takes-no-place"}},
	} {
		t.Run(m.mutation, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			rep := conform.Run(ctx, memstore.NewChatStateMutant(m.mutation), cases, conform.Options{Parallel: 8})
			if got := rep.Failed(); !slices.Equal(got, m.caught) {
				t.Errorf("mutant %s: failed cases %v, want exactly %v\n%s", m.mutation, got, m.caught, conformtest.Failures(rep))
			}
			if n := rep.Count(conform.Skipped); n != 0 {
				t.Errorf("mutant %s: %d cases skipped on the memory store", m.mutation, n)
			}
		})
	}
}
