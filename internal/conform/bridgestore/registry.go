package bridgestore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/registry"
)

// bridgeRegistry drives the registry as the service role, or, with a
// caller, as that caller (capability runRegistry.callers).
type bridgeRegistry struct {
	b      *Store
	caller *conform.Caller
}

// bridgeCallerRegistry is a bridgeRegistry whose bridge takes callers and
// grants permissions.
type bridgeCallerRegistry struct{ bridgeRegistry }

func (r bridgeCallerRegistry) As(c conform.Caller) registry.View {
	return bridgeRegistry{r.b, &c}
}

// Grant is runRegistry.grant. A bridge that answers it with method not
// found has a store that cannot grant: the case is skipped (ErrNoGrants).
func (r bridgeCallerRegistry) Grant(ctx context.Context, user, tenant, permission string) error {
	err := r.b.c.Call(ctx, bridge.MethodRunGrant, map[string]any{"user": user, "tenant": tenant, "permission": permission}, nil)
	var rpc *bridge.RPCError
	if errors.As(err, &rpc) && rpc.Code == bridge.CodeMethodNotFound {
		return fmt.Errorf("%w: the bridge answers %s with method not found", conform.ErrNoGrants, bridge.MethodRunGrant)
	}
	return r.b.mapErr(err)
}

func (b bridgeRegistry) params(p map[string]any) map[string]any { return withCaller(p, b.caller) }

// decodeRun decodes a run from raw JSON with plain float64 numbers, as
// the other stores produce them.
func decodeRun(raw json.RawMessage) (*registry.Run, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var r registry.Run
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("the bridge answered with a run that does not decode: %w", err)
	}
	if r.Attributes == nil {
		r.Attributes = map[string]any{}
	}
	return &r, nil
}

func (b bridgeRegistry) Record(ctx context.Context, r registry.Record) (string, error) {
	var res struct {
		ID string `json:"id"`
	}
	err := b.b.call(ctx, bridge.MethodRunRecord, map[string]any{"run": r}, &res)
	return res.ID, err
}

func (b bridgeRegistry) Get(ctx context.Context, ref string) (*registry.Run, error) {
	var res struct {
		Run json.RawMessage `json:"run"`
	}
	if err := b.b.call(ctx, bridge.MethodRunGet, b.params(map[string]any{"run": ref}), &res); err != nil {
		return nil, err
	}
	return decodeRun(res.Run)
}

func (b bridgeRegistry) List(ctx context.Context, f registry.Filter) ([]registry.Run, error) {
	var res struct {
		Runs []json.RawMessage `json:"runs"`
	}
	params := struct {
		registry.Filter
		Caller *conform.Caller `json:"caller,omitempty"`
	}{f, b.caller}
	if err := b.b.call(ctx, bridge.MethodRunList, params, &res); err != nil {
		return nil, err
	}
	out := []registry.Run{}
	for _, raw := range res.Runs {
		r, err := decodeRun(raw)
		if err != nil {
			return nil, err
		}
		if r != nil {
			out = append(out, *r)
		}
	}
	return out, nil
}

func (b bridgeRegistry) RequestCancel(ctx context.Context, ref string) (*registry.Run, error) {
	var res struct {
		Run json.RawMessage `json:"run"`
	}
	if err := b.b.call(ctx, bridge.MethodRunRequestCancel, b.params(map[string]any{"run": ref}), &res); err != nil {
		return nil, err
	}
	return decodeRun(res.Run)
}

func (b bridgeRegistry) Purge(ctx context.Context, olderThan time.Duration, batch int) (int, error) {
	p := map[string]any{}
	if olderThan > 0 {
		p["olderThanSeconds"] = int64(olderThan / time.Second)
	}
	if batch > 0 {
		p["batch"] = batch
	}
	var res struct {
		Purged int `json:"purged"`
	}
	err := b.b.call(ctx, bridge.MethodRunPurge, p, &res)
	return res.Purged, err
}

// RunRegistry drives the bridge's runRegistry methods, as the caller a
// case names when the bridge takes callers (capability
// runRegistry.callers). A case that makes time pass for its runs moves
// the bridge's clock when it offers one (unless RealTTLs), and only in
// whole-store steps (the runner's gate): the clock is the whole store's.
func (b *Store) RunRegistry(context.Context) (conform.Opener[registry.Subject], error) {
	var reg registry.Registry = bridgeRegistry{b, nil}
	if b.c.Version() >= 2 && b.c.Capabilities().Has(bridge.CapRunCallers) {
		reg = bridgeCallerRegistry{bridgeRegistry{b, nil}}
	}
	o, err := group(b, bridge.GroupRunRegistry, registry.Subject{Registry: reg})
	if err != nil || !b.movesClock(bridge.GroupRunRegistry) {
		return o, err
	}
	return func(t *conform.T) (registry.Subject, error) {
		t.SetClock(bridgeClock{b})
		return o(t)
	}, nil
}
