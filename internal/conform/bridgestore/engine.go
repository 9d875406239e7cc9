package bridgestore

import (
	"context"

	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/conform"
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

func (e bridgeEngine) Statuses(ctx context.Context) ([]conform.EngineStatus, error) {
	var res struct {
		Statuses []conform.EngineStatus `json:"statuses"`
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

func (e bridgeEngine) Start(ctx context.Context, r conform.StartRequest) (string, error) {
	var res struct {
		RunID string `json:"runId"`
	}
	err := e.p.call(ctx, bridge.MethodEngineStart, map[string]any{"request": r}, &res)
	return res.RunID, err
}

func (e bridgeEngine) Emit(ctx context.Context, id string, ev conform.EngineEvent) error {
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

func (e bridgeEngine) Registry() conform.RunRegistry { return bridgeRegistry{e.p.b, nil} }
