package bridgestore

import (
	"context"

	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/builder"
)

// bridgeBuilder drives a builder runtime over the builderRuntime methods.
type bridgeBuilder struct{ p bridgeCredentials }

func (b bridgeBuilder) Identity(ctx context.Context) (int, string, error) {
	var res struct {
		APIVersion int    `json:"apiVersion"`
		Name       string `json:"name"`
	}
	err := b.p.call(ctx, bridge.MethodBuilderIdentity, map[string]any{}, &res)
	return res.APIVersion, res.Name, err
}

func (b bridgeBuilder) Execute(ctx context.Context, r builder.Request) (builder.Result, error) {
	var res builder.Result
	err := b.p.call(ctx, bridge.MethodBuilderExecute, map[string]any{"request": r}, &res)
	if res.Outputs == nil {
		res.Outputs = map[string]any{}
	}
	return res, err
}

// BuilderRuntime drives the bridge's builderRuntime methods.
func (b *Store) BuilderRuntime(context.Context) (conform.Opener[builder.Runtime], error) {
	return group[builder.Runtime](b, bridge.GroupBuilderRuntime, bridgeBuilder{bridgeCredentials{b}})
}
