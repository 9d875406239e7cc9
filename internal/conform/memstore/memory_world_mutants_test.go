package memstore

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/conformtest"
	"github.com/bsadapter/bsadapter/internal/conform/suites"
	"github.com/bsadapter/bsadapter/internal/conform/suites/world"
)

// worldStore is the reference store whose Worlds carry the fault mut.
type worldStore struct {
	*memoryStore
	mut worldMutation
}

// World gives each case a reference World with the store's fault.
func (m worldStore) World(ctx context.Context) (conform.Opener[world.World], error) {
	open, err := m.memoryStore.World(ctx)
	return mutate(open, err, func(w world.World) world.World {
		w.(*refWorld).mut = m.mut
		return w
	})
}

// Each fault of the reference World is caught by the cases of the rule
// it breaks, and by no other case of the world suite.
func TestWorldMutants(t *testing.T) {
	cases, err := conform.Select(suites.Cases(), conform.Options{Suites: []string{world.Suite.Name}})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct {
		mutation worldMutation
		caught   []string
	}{
		{"run-created-overwrites", []string{"world/run-created-twice"}},
		{"terminal-run-reopens", []string{"world/run-terminal-final"}},
		{"cancel-not-idempotent", []string{"world/run-cancelled-twice"}},
		{"reserved-allowed", []string{"world/reserved-attributes-refused"}},
		{"step-attempt-resets", []string{"world/step-retrying"}},
		{"hook-token-not-unique", []string{"world/hook-conflict"}},
		{"hooks-kept-at-end", []string{"world/hook-released-at-end"}},
		{"events-desc-ignored", []string{"world/events-in-order"}},
		{"correlation-leaks", []string{"world/hook-received", "world/wait-completed", "world/events-correlation"}},
		{"resolve-none-ignored", []string{"world/resolve-data-none"}},
		{"cursor-ignored", []string{"world/events-pages", "world/runs-list", "world/steps-list", "world/hooks-list"}},
		{"stream-negative-start-from-zero", []string{"world/stream-start-index"}},
		{"live-read-snapshot", []string{"world/stream-live"}},
		{"stream-done-early", []string{"world/stream-chunks-pages"}},
		{"queue-wrong-attempt", []string{"world/queue-delivers"}},
	} {
		t.Run(string(m.mutation), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			rep := conform.Run(ctx, worldStore{&memoryStore{}, m.mutation}, cases, conform.Options{Parallel: 8})
			if got := rep.Failed(); !slices.Equal(got, m.caught) {
				t.Errorf("mutant %s: failed cases %v, want exactly %v\n%s", m.mutation, got, m.caught, conformtest.Failures(rep))
			}
			if n := rep.Count(conform.Skipped); n != 0 {
				t.Errorf("mutant %s: %d cases skipped on the memory store", m.mutation, n)
			}
		})
	}
}
