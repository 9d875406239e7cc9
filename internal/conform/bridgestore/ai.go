package bridgestore

import (
	"context"
	"encoding/json"
	"errors"
	"math"

	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/aitaskrunner"
	"github.com/bsadapter/bsadapter/internal/conform/suites/embedder"
)

// bridgeSignals drives the signal methods an embedder or an AiTaskRunner
// bridge answers, and maps a rejected call's error answer, whose data
// names what was thrown ({"name": "AbortError"}), to a
// *conform.Rejection.
type bridgeSignals struct{ b *Store }

// call sends a request; an error answer with a name in its data is the
// implementation's rejection.
func (s bridgeSignals) call(ctx context.Context, method string, params, result any) error {
	err := s.b.c.Call(ctx, method, params, result)
	var rpc *bridge.RPCError
	if errors.As(err, &rpc) {
		var d struct {
			Name *string         `json:"name"`
			Sent json.RawMessage `json:"sent"`
		}
		if len(rpc.Data) > 0 && json.Unmarshal(rpc.Data, &d) == nil && d.Name != nil {
			return &conform.Rejection{Name: *d.Name, Message: rpc.Message, Detail: d.Sent}
		}
	}
	return s.b.mapErr(err)
}

func (s bridgeSignals) Abort(ctx context.Context, id string) error {
	return s.call(ctx, bridge.MethodSignalAbort, map[string]any{"signal": id}, nil)
}

func (s bridgeSignals) Held(ctx context.Context, id string) error {
	return s.call(ctx, bridge.MethodSignalHeld, map[string]any{"signal": id}, nil)
}

func (s bridgeSignals) Release(ctx context.Context, id string) error {
	return s.call(ctx, bridge.MethodSignalRelease, map[string]any{"signal": id}, nil)
}

// bridgeEmbedder drives an Embedder over the embedder methods.
type bridgeEmbedder struct{ bridgeSignals }

func (e bridgeEmbedder) Identity(ctx context.Context) (embedder.Identity, error) {
	var res struct {
		APIVersion *int   `json:"apiVersion"`
		Model      string `json:"model"`
	}
	err := e.call(ctx, bridge.MethodEmbedderIdentity, map[string]any{}, &res)
	id := embedder.Identity{Model: res.Model}
	if res.APIVersion != nil {
		id.APIVersion = *res.APIVersion
	}
	return id, err
}

// Embed embeds values; a null in a vector (how JSON carries NaN and the
// infinities) comes back as NaN.
func (e bridgeEmbedder) Embed(ctx context.Context, values []string, c embedder.Call) ([][]float64, error) {
	var res struct {
		Vectors [][]*float64 `json:"vectors"`
	}
	params := map[string]any{"values": values}
	if c.Signal != "" {
		params["signal"] = c.Signal
	}
	if c.Hold {
		params["hold"] = true
	}
	if err := e.call(ctx, bridge.MethodEmbedderEmbed, params, &res); err != nil {
		return nil, err
	}
	out := make([][]float64, len(res.Vectors))
	for i, v := range res.Vectors {
		out[i] = make([]float64, len(v))
		for j, x := range v {
			if x == nil {
				out[i][j] = math.NaN()
			} else {
				out[i][j] = *x
			}
		}
	}
	return out, nil
}

// Embedder drives the bridge's embedder methods.
func (b *Store) Embedder(context.Context) (conform.Opener[embedder.Embedder], error) {
	return group[embedder.Embedder](b, bridge.GroupEmbedder, bridgeEmbedder{bridgeSignals{b}})
}

// bridgeRunner drives an AiTaskRunner over the aiTaskRunner methods.
type bridgeRunner struct{ bridgeSignals }

func (r bridgeRunner) Identity(ctx context.Context) (int, error) {
	var res struct {
		APIVersion *int `json:"apiVersion"`
	}
	err := r.call(ctx, bridge.MethodRunnerIdentity, map[string]any{}, &res)
	if res.APIVersion == nil {
		return 0, err
	}
	return *res.APIVersion, err
}

func (r bridgeRunner) Run(ctx context.Context, task aitaskrunner.Task, run aitaskrunner.Run, c aitaskrunner.Call) (aitaskrunner.Outcome, error) {
	params := map[string]any{"task": task, "run": run}
	if c.Signal != "" {
		params["signal"] = c.Signal
	}
	if c.Hold {
		params["hold"] = true
	}
	if c.Fail {
		params["fail"] = true
	}
	var out aitaskrunner.Outcome
	err := r.call(ctx, bridge.MethodRunnerRun, params, &out)
	return out, err
}

// AiTaskRunner drives the bridge's aiTaskRunner methods.
func (b *Store) AiTaskRunner(context.Context) (conform.Opener[aitaskrunner.Runner], error) {
	return group[aitaskrunner.Runner](b, bridge.GroupAiTaskRunner, bridgeRunner{bridgeSignals{b}})
}
