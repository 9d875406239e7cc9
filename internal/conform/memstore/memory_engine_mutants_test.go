package memstore

import (
	"context"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/engine"
)

// engineStore is the reference store whose engine adapters pass through
// mutant.
type engineStore struct {
	*memoryStore
	mutant func(engine.Engine) engine.Engine
}

// WorkflowEngine gives each case a reference adapter made the mutant.
func (m engineStore) WorkflowEngine(ctx context.Context) (conform.Opener[engine.Engine], error) {
	open, err := m.memoryStore.WorkflowEngine(ctx)
	return mutate(open, err, m.mutant)
}

// engineMutant returns the reference store with its engine adapter made
// the mutant name.
func engineMutant(name string) conform.Store {
	return engineStore{&memoryStore{}, func(e engine.Engine) engine.Engine {
		switch name {
		case "terminated-is-running":
			// A terminated run is taken for a running one.
			return mishearing{e, func(_ context.Context, status string) string {
				if status == "TERMINATED" {
					return "RUNNING"
				}
				return status
			}}
		case "guess-unknown":
			// A status the adapter does not know is guessed to be
			// RUNNING rather than refused.
			return mishearing{e, func(ctx context.Context, status string) string {
				if _, err := e.MapStatus(ctx, status); conform.HintOf(err) == conform.KindInvalidInput {
					return "RUNNING"
				}
				return status
			}}
		case "start-ignores-key":
			return startIgnoresKey{e}
		case "ignores-cancel":
			return ignoresCancel{e}
		case "drops-error":
			return dropsError{e}
		}
		panic("no engine mutant is named " + name)
	}}
}

// mishearing takes every engine status for the one heard makes of it,
// both where it maps a status and where it records one.
type mishearing struct {
	engine.Engine
	heard func(ctx context.Context, status string) string
}

// MapStatus maps the status it heard.
func (e mishearing) MapStatus(ctx context.Context, status string) (string, error) {
	return e.Engine.MapStatus(ctx, e.heard(ctx, status))
}

// Emit records the status it heard.
func (e mishearing) Emit(ctx context.Context, id string, ev engine.Event) error {
	ev.Status = e.heard(ctx, ev.Status)
	return e.Engine.Emit(ctx, id, ev)
}

// startIgnoresKey starts every run under a workflow id of its own, not
// the idempotency key: a start repeated is a second run.
type startIgnoresKey struct{ engine.Engine }

// Start starts a new run under the key with a fresh suffix.
func (e startIgnoresKey) Start(ctx context.Context, r engine.StartRequest) (string, error) {
	r.IdempotencyKey += "-" + conform.NewUUID()
	return e.Engine.Start(ctx, r)
}

// ignoresCancel never looks for cancel requests between engine events.
type ignoresCancel struct{ engine.Engine }

// Sync does nothing.
func (ignoresCancel) Sync(context.Context, string) error { return nil }

// dropsError records an engine's failure without its error.
type dropsError struct{ engine.Engine }

// Emit records ev without its error.
func (e dropsError) Emit(ctx context.Context, id string, ev engine.Event) error {
	ev.Error = ""
	return e.Engine.Emit(ctx, id, ev)
}
