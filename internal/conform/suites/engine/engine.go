// Package engine is the engine suite: a workflow engine adapter (Temporal
// and the like), with its status map, its starter, cancel requests and
// what it records in the run registry, which the cases read.
package engine

import (
	"context"
	"time"

	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/registry"
)

// Suite is the engine suite.
var Suite = conform.NewSuite(conform.Info{
	Name:        "engine",
	Contract:    "engine",
	Requires:    "workflows",
	RequiresWhy: "it records its runs in the run registry",
	BridgeGroup: bridge.GroupWorkflowEngine,
	Intro: "A workflow engine adapter (Temporal and the like; contracts.md section 5): its status map, its starter, " +
		"cancel requests and what it records in the run registry. Upstream has no kit for a `WorkflowStarter`, `runs.record` or an " +
		"engine's status map; its `testBuilderStarter` kit holds a builder's starter to one run id per idempotency key, the rule " +
		"`engine/start-idempotent` holds for the engine's starter. The rest is built from the engine contract. The suite plays the engine's part through hooks " +
		"(emit a status change, let the adapter sync) and reads the registry the adapter records into. " +
		"Over the bridge this suite needs the `workflowEngine` capability and the bridge's `runRegistry`.",
}, Provider.WorkflowEngine, cases)

// Provider is implemented by a store that offers a workflow engine
// adapter.
type Provider interface {
	// WorkflowEngine prepares the suite for a run: what gives each case
	// the adapter, or why the store cannot run the suite.
	WorkflowEngine(ctx context.Context) (conform.Opener[Engine], error)
}

// Status is one status an engine reports (Temporal's
// WorkflowExecutionStatus values, say) and whether the engine's run is
// over in it.
type Status struct {
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

// Event is a change the engine reports on a run, which the adapter must
// record in the registry: the engine's status, attributes and, for a
// failure, the error.
type Event struct {
	Status     string         `json:"status"`
	Attributes map[string]any `json:"attributes,omitempty"`
	Error      string         `json:"error,omitempty"`
	At         *time.Time     `json:"at,omitempty"`
}

// Engine is an engine adapter (Temporal and the like) with the hooks its
// suite needs to play the engine's part. The adapter records every change
// in a run registry; the cases read that registry.
type Engine interface {
	// Identity is the adapter's apiVersion, name and the engine name it
	// records runs under.
	Identity(ctx context.Context) (int, string, string, error)
	// Statuses lists every status the engine reports.
	Statuses(ctx context.Context) ([]Status, error)
	// MapStatus maps an engine status onto one of the registry's six; an
	// unknown status fails with kind invalid_input.
	MapStatus(ctx context.Context, engineStatus string) (string, error)
	// Start starts a run (passing the idempotency key to the engine) and
	// returns its registry id.
	Start(ctx context.Context, r StartRequest) (string, error)
	// Emit makes the engine report e on run id, as the engine would.
	Emit(ctx context.Context, id string, e Event) error
	// Sync lets the adapter do what it does between engine events:
	// notice cancel requests in the registry and cancel the engine's run.
	Sync(ctx context.Context, id string) error
	// EngineCancelled reports whether the engine's run was asked to
	// cancel by the adapter.
	EngineCancelled(ctx context.Context, id string) (bool, error)
	// Registry is the run registry the adapter records into.
	Registry() registry.Registry
}
