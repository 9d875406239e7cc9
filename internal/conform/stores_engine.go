package conform

import (
	"context"
	"time"
)

// EngineStatus is one status an engine reports (Temporal's
// WorkflowExecutionStatus values, say) and whether the engine's run is
// over in it.
type EngineStatus struct {
	Name     string `json:"name"`
	Terminal bool   `json:"terminal"`
}

// StartRequest is what the engine adapter's starter gets.
type StartRequest struct {
	Definition     string         `json:"definition"`
	IdempotencyKey string         `json:"idempotencyKey"`
	Tenant         string         `json:"tenant,omitempty"`
	Actor          string         `json:"actor,omitempty"`
	Input          map[string]any `json:"input,omitempty"`
}

// EngineEvent is a change the engine reports on a run, which the adapter
// must record in the registry: the engine's status, attributes and, for a
// failure, the error.
type EngineEvent struct {
	Status     string         `json:"status"`
	Attributes map[string]any `json:"attributes,omitempty"`
	Error      string         `json:"error,omitempty"`
	At         *time.Time     `json:"at,omitempty"`
}

// WorkflowEngine is an engine adapter (Temporal and the like) with the
// hooks its suite needs to play the engine's part. The adapter records
// every change in a run registry; the cases read that registry.
type WorkflowEngine interface {
	// Identity is the adapter's apiVersion, name and the engine name it
	// records runs under.
	Identity(ctx context.Context) (int, string, string, error)
	// Statuses lists every status the engine reports.
	Statuses(ctx context.Context) ([]EngineStatus, error)
	// MapStatus maps an engine status onto one of the registry's six; an
	// unknown status fails with kind invalid_input.
	MapStatus(ctx context.Context, engineStatus string) (string, error)
	// Start starts a run (passing the idempotency key to the engine) and
	// returns its registry id.
	Start(ctx context.Context, r StartRequest) (string, error)
	// Emit makes the engine report e on run id, as the engine would.
	Emit(ctx context.Context, id string, e EngineEvent) error
	// Sync lets the adapter do what it does between engine events:
	// notice cancel requests in the registry and cancel the engine's run.
	Sync(ctx context.Context, id string) error
	// EngineCancelled reports whether the engine's run was asked to
	// cancel by the adapter.
	EngineCancelled(ctx context.Context, id string) (bool, error)
	// Registry is the run registry the adapter records into.
	Registry() RunRegistry
}
