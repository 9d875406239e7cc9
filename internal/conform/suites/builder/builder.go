// Package builder is the builder suite: a workflow builder runtime, the
// adapter's mapping of step, sleep and approval nodes onto an engine's
// durable steps, timers and signals, driven by executeGraph.
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
	Intro: "A workflow builder runtime: `executeGraph(graph, input, runtime)` with the adapter's runtime " +
		"(contracts.md section 5). bsadapter sends reference graphs with all five node kinds, branches and an independent node, " +
		"and checks the trace the runtime reports: durable steps, durable timers and signals named `<runKey>:<nodeId>`. " +
		"Upstream has no kit for it. Over the bridge this suite needs the `builderRuntime` capability.",
}, Provider.BuilderRuntime, cases)

// Provider is implemented by a store that offers a builder runtime.
type Provider interface {
	// BuilderRuntime prepares the suite for a run: what gives each case
	// the runtime, or why the store cannot run the suite.
	BuilderRuntime(ctx context.Context) (conform.Opener[Runtime], error)
}

// Request is one executeGraph(graph, input, runtime) call: the
// graph, the trigger's input, the run key the runtime names things by,
// and the outcome of each approval node's signal (true: approved).
//
// The harness's step functions return {"node": <id>, "step": <name>}; a
// condition's config {"field", "equals"} compares the input's field; an
// approval's output is {"approved": <outcome>}, and a denied approval's
// edges are not followed; a sleep's output is {"slept": <seconds>}.
type Request struct {
	Graph     graphcompiler.Graph `json:"graph"`
	Input     map[string]any      `json:"input"`
	RunKey    string              `json:"runKey"`
	Approvals map[string]bool     `json:"approvals"`
}

// TraceEvent is one thing the runtime did: a durable step call (type
// "step"), a durable timer ("sleep") or a wait for a signal ("signal").
type TraceEvent struct {
	Type    string         `json:"type"`
	NodeID  string         `json:"nodeId"`
	Step    string         `json:"step,omitempty"`
	Config  map[string]any `json:"config,omitempty"`
	Input   map[string]any `json:"input,omitempty"`
	Results map[string]any `json:"results,omitempty"`
	RunKey  string         `json:"runKey,omitempty"`
	Attempt int            `json:"attempt,omitempty"`
	Seconds float64        `json:"seconds,omitempty"`
	Signal  string         `json:"signal,omitempty"`
}

// Result is what executeGraph returned (the outputs of the nodes
// that ran) and the trace the runtime reported.
type Result struct {
	Outputs map[string]any `json:"outputs"`
	Trace   []TraceEvent   `json:"trace"`
}

// Runtime is a workflow builder runtime: the adapter's mapping of
// step, sleep and approval nodes onto an engine's durable steps, timers
// and signals, driven by executeGraph.
type Runtime interface {
	Identity(ctx context.Context) (int, string, error)
	Execute(ctx context.Context, r Request) (Result, error)
}
