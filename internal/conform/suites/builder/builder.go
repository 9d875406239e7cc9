// Package builder is the builder suite: a workflow builder runtime,
// better-supabase's executeGraph driving the adapter's GraphRuntime, which
// maps step, sleep and approval nodes onto an engine's durable steps,
// timers and hooks.
package builder

import (
	"context"

	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/graphcompiler"
)

// Suite is the builder suite.
var Suite = conform.NewSuite(conform.Info{
	Name:        "builder",
	Contract:    "builder",
	Requires:    "workflows",
	RequiresWhy: "it records its runs in the run registry",
	BridgeGroup: bridge.GroupBuilderRuntime,
	Intro: "A workflow builder runtime: `executeGraph(graph, input, runtime)` over a `WorkflowGraph` with the adapter's " +
		"`GraphRuntime` (`{runKey, step(call), sleep(ms), approval(token, node)}`, upstream's `src/blocks/workflow-builder/executor.ts`): " +
		"a step node calls its library step with a `GraphStepCall` `{node, step, config, input, results, runKey}`, a sleep waits its " +
		"`config.duration` in milliseconds, an approval waits for the hook whose token is `<runKey>:<nodeId>` and approves unless " +
		"its payload has `approved: false`, and a node runs when an edge into it is active (its source ran and, out of a condition or " +
		"an approval, the edge has no branch or the outcome's). bsadapter sends the graph-compiler suite's reference graphs with each " +
		"approval's payload and checks what the runtime asked of the engine and of the step functions. A `GraphRuntime` has no " +
		"`apiVersion` or name of its own: `builder/identity` checks the ones your bridge reports for its builder. Upstream has no kit for the " +
		"runtime; its `testBuilderStarter` kit checks the `BuilderStarter` that starts such runs (\"has apiVersion 1\", \"returns one " +
		"run id per idempotency key\"), which no suite runs over the bridge: `engine/identity` and `engine/start-idempotent` hold the " +
		"engine adapter's own start to the same rules. Over the bridge this suite needs the `builderRuntime` capability.",
}, Provider.BuilderRuntime, cases)

// Provider is implemented by a store that offers a builder runtime.
type Provider interface {
	// BuilderRuntime prepares the suite for a run: what gives each case
	// the runtime, or why the store cannot run the suite.
	BuilderRuntime(ctx context.Context) (conform.Opener[Runtime], error)
}

// Request is one executeGraph(graph, input, runtime) call: the graph,
// the trigger's input, the run key the runtime is made with, and the
// payload each approval node's hook is resumed with, by node id.
//
// The harness plays the engine and the step library: every step returns
// {"node": <id>, "step": <name>}, and the hook whose token is
// <runKey>:<nodeId> is resumed with Approvals[nodeId].
type Request struct {
	Graph     graphcompiler.Graph `json:"graph"`
	Input     map[string]any      `json:"input"`
	RunKey    string              `json:"runKey"`
	Approvals map[string]any      `json:"approvals"`
}

// TraceEvent is one thing the runtime asked for, in upstream's terms: a
// call of a library step (type "step", with the GraphStepCall's fields as
// the step received them), a durable timer ("sleep", its length in Ms)
// or a wait for an approval's hook ("approval", its Token).
type TraceEvent struct {
	Type    string         `json:"type"`
	Node    string         `json:"node,omitempty"`
	Step    string         `json:"step,omitempty"`
	Config  map[string]any `json:"config,omitempty"`
	Input   map[string]any `json:"input,omitempty"`
	Results map[string]any `json:"results,omitempty"`
	RunKey  string         `json:"runKey,omitempty"`
	Ms      float64        `json:"ms,omitempty"`
	Token   string         `json:"token,omitempty"`
}

// Result is what executeGraph returned (the outputs of the nodes that
// ran, by node id) and the trace the runtime reported.
type Result struct {
	Outputs map[string]any `json:"outputs"`
	Trace   []TraceEvent   `json:"trace"`
}

// Runtime is a workflow builder runtime: executeGraph with the adapter's
// GraphRuntime, which maps step, sleep and approval nodes onto an
// engine's durable steps, timers and hooks.
type Runtime interface {
	Identity(ctx context.Context) (int, string, error)
	Execute(ctx context.Context, r Request) (Result, error)
}
