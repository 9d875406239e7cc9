package bridgestore

import (
	"context"

	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/engine"
	"github.com/bsadapter/bsadapter/internal/conform/suites/registry"
)

// bridgeEngine drives an engine adapter over the workflowEngine methods;
// the registry it records into is the bridge's runRegistry group.
type bridgeEngine struct{ p bridgeCredentials }

func (e bridgeEngine) Identity(ctx context.Context) (int, string, string, error) {
	var res struct {
		APIVersion int    `json:"apiVersion"`
		Name       string `json:"name"`
		Engine     string `json:"engine"`
	}
	err := e.p.call(ctx, bridge.MethodEngineIdentity, map[string]any{}, &res)
	return res.APIVersion, res.Name, res.Engine, err
}

func (e bridgeEngine) Statuses(ctx context.Context) ([]engine.Status, error) {
	var res struct {
		Statuses []engine.Status `json:"statuses"`
	}
	err := e.p.call(ctx, bridge.MethodEngineStatuses, map[string]any{}, &res)
	return res.Statuses, err
}

func (e bridgeEngine) MapStatus(ctx context.Context, status string) (string, error) {
	var res struct {
		Status string `json:"status"`
	}
	err := e.p.call(ctx, bridge.MethodEngineMapStatus, map[string]any{"status": status}, &res)
	return res.Status, err
}

func (e bridgeEngine) Start(ctx context.Context, r engine.StartRequest) (string, error) {
	var res struct {
		RunID string `json:"runId"`
	}
	err := e.p.call(ctx, bridge.MethodEngineStart, map[string]any{"request": r}, &res)
	return res.RunID, err
}

func (e bridgeEngine) Emit(ctx context.Context, id string, ev engine.Event) error {
	return e.p.call(ctx, bridge.MethodEngineEmit, map[string]any{"runId": id, "event": ev}, nil)
}

func (e bridgeEngine) Sync(ctx context.Context, id string) error {
	return e.p.call(ctx, bridge.MethodEngineSync, map[string]any{"runId": id}, nil)
}

func (e bridgeEngine) EngineCancelled(ctx context.Context, id string) (bool, error) {
	var res struct {
		Cancelled bool `json:"cancelled"`
	}
	err := e.p.call(ctx, bridge.MethodEngineCancelRequested, map[string]any{"runId": id}, &res)
	return res.Cancelled, err
}

func (e bridgeEngine) Registry() registry.Registry { return bridgeRegistry{e.p.b, nil} }

// WorkflowEngine drives the bridge's workflowEngine methods, and reads
// what the adapter records through its runRegistry methods.
func (b *Store) WorkflowEngine(context.Context) (conform.Opener[engine.Engine], error) {
	caps := b.c.Capabilities()
	if !caps.Has(bridge.GroupWorkflowEngine) || !caps.RunRegistry {
		return nil, conform.NotImplemented("the bridge does not declare capabilities.%s and capabilities.runRegistry (the registry it records into)", bridge.GroupWorkflowEngine)
	}
	return open[engine.Engine](b, bridgeEngine{bridgeCredentials{b}}), nil
}
