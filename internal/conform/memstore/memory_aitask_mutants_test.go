package memstore

import (
	"context"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/aitaskrunner"
)

// aiTaskStore is the reference store whose runners carry a mutation.
type aiTaskStore struct {
	*memoryStore
	mutation runnerMutation
}

// AiTaskRunner gives each case a reference runner with the mutation.
func (m aiTaskStore) AiTaskRunner(ctx context.Context) (conform.Opener[aitaskrunner.Runner], error) {
	open, err := m.memoryStore.AiTaskRunner(ctx)
	return mutate(open, err, func(r aitaskrunner.Runner) aitaskrunner.Runner {
		r.(*refRunner).mut = m.mutation
		return r
	})
}

// aiTaskMutant returns the reference store with its runner made the
// mutant name.
func aiTaskMutant(name string) conform.Store {
	switch runnerMutation(name) {
	case "no-api-version", "resolves-null", "sends-as-service", "new-chat-each-run", "returns-run-id",
		"mutates-input", "swallows-failure", "ignores-signal", "checks-signal-once", "sends-then-checks":
		return aiTaskStore{&memoryStore{}, runnerMutation(name)}
	}
	panic("no ai-task-runner mutant is named " + name)
}
