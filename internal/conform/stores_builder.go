package conform

import "context"

// BuilderRequest is one executeGraph(graph, input, runtime) call: the
// graph, the trigger's input, the run key the runtime names things by,
// and the outcome of each approval node's signal (true: approved).
//
// The harness's step functions return {"node": <id>, "step": <name>}; a
// condition's config {"field", "equals"} compares the input's field; an
// approval's output is {"approved": <outcome>}, and a denied approval's
// edges are not followed; a sleep's output is {"slept": <seconds>}.
type BuilderRequest struct {
	Graph     Graph           `json:"graph"`
	Input     map[string]any  `json:"input"`
	RunKey    string          `json:"runKey"`
	Approvals map[string]bool `json:"approvals"`
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

// BuilderResult is what executeGraph returned (the outputs of the nodes
// that ran) and the trace the runtime reported.
type BuilderResult struct {
	Outputs map[string]any `json:"outputs"`
	Trace   []TraceEvent   `json:"trace"`
}

// BuilderRuntime is a workflow builder runtime: the adapter's mapping of
// step, sleep and approval nodes onto an engine's durable steps, timers
// and signals, driven by executeGraph.
type BuilderRuntime interface {
	Identity(ctx context.Context) (int, string, error)
	Execute(ctx context.Context, r BuilderRequest) (BuilderResult, error)
}
