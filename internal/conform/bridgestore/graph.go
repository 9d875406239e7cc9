package bridgestore

import (
	"context"
	"encoding/json"

	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/graphcompiler"
)

// bridgeGraphs drives a graph compiler over the graphCompiler methods;
// a refused graph is an error whose data names the kind, as with
// credentials.
type bridgeGraphs struct{ p bridgeCredentials }

func (g bridgeGraphs) Identity(ctx context.Context) (int, string, error) {
	var res struct {
		APIVersion int    `json:"apiVersion"`
		Name       string `json:"name"`
	}
	err := g.p.call(ctx, bridge.MethodGraphIdentity, map[string]any{}, &res)
	return res.APIVersion, res.Name, err
}

func (g bridgeGraphs) Compile(ctx context.Context, graph json.RawMessage) (graphcompiler.CompileResult, error) {
	var res graphcompiler.CompileResult
	err := g.p.call(ctx, bridge.MethodGraphCompile, map[string]any{"graph": graph}, &res)
	return res, err
}

// GraphCompiler drives the bridge's graphCompiler methods.
func (b *Store) GraphCompiler(context.Context) (conform.Opener[graphcompiler.Compiler], error) {
	return group[graphcompiler.Compiler](b, bridge.GroupGraphCompiler, bridgeGraphs{bridgeCredentials{b}})
}
