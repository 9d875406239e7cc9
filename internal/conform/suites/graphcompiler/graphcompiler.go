// Package graphcompiler is the graph-compiler suite: a workflow builder
// graph compiler, which turns better-supabase's WorkflowGraph of trigger,
// step, sleep, approval and condition nodes into an engine's definition.
package graphcompiler

import (
	"context"
	"encoding/json"

	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/conform"
)

// Suite is the graph-compiler suite.
var Suite = conform.NewSuite(conform.Info{
	Name:        "graph-compiler",
	Contract:    "builder",
	Requires:    "workflows",
	RequiresWhy: "it records its runs in the run registry",
	BridgeGroup: bridge.GroupGraphCompiler,
	Intro: "A workflow builder graph compiler: better-supabase's `GraphCompiler`, a function of a `WorkflowGraph` " +
		"(`{nodes: [{id, kind, step?, config?, label?, position?}], edges: [{id, source, target, branch?}]}`, with `kind` one of " +
		"`trigger`, `step`, `sleep`, `approval`, `condition`) that returns the engine's compiled form and carries `apiVersion: 1`. " +
		"Upstream's kit is `testGraphCompiler(compile, {graph})` (`src/testing/injectables.ts`); its checks map onto the cases: " +
		"\"has apiVersion 1\" is `graph-compiler/identity`, \"returns a JSON value\" is `graph-compiler/json-round-trip`, and " +
		"\"compiles one graph to one value, without changing it\" is `graph-compiler/deterministic` with `graph-compiler/input-not-mutated`. " +
		"bsadapter sends reference graphs in upstream's form (every node kind with its config, a condition's and an approval's " +
		"`true` and `false` branches, an edge without a branch, an independent node, labels and positions) where the kit takes " +
		"the one graph you pass it, and adds `graph-compiler/invalid-rejected`, the graphs upstream's `validateGraph` refuses " +
		"(upstream's publish turns a compiler's throw into an `invalid_input` error). The JSON round trip is checked where the " +
		"value lives: over the bridge, your bridge answers whether the compiled value deep-equals its own round trip. " +
		"Over the bridge this suite needs the `graphCompiler` capability.",
}, Provider.GraphCompiler, cases)

// Provider is implemented by a store that offers a graph compiler.
type Provider interface {
	// GraphCompiler prepares the suite for a run: what gives each case the
	// compiler, or why the store cannot run the suite.
	GraphCompiler(ctx context.Context) (conform.Opener[Compiler], error)
}

// NodeKinds are the node kinds of a WorkflowGraph (upstream's
// WorkflowNodeKind).
var NodeKinds = []string{"trigger", "step", "sleep", "approval", "condition"}

// Node is one node of a WorkflowGraph (upstream's WorkflowGraphNode). A
// step node names its library step in Step and passes Config to it; a
// sleep's Config holds "duration" (milliseconds, or "30s", "5m", "2h",
// "1d"); a condition's Config is a test {"path", "op", "value"} on the
// run's "input..." or "results..."; an approval has no config. Label and
// Position are the canvas's, which the engines ignore.
type Node struct {
	ID       string         `json:"id"`
	Kind     string         `json:"kind"`
	Label    string         `json:"label,omitempty"`
	Step     string         `json:"step,omitempty"`
	Config   map[string]any `json:"config,omitempty"`
	Position *Position      `json:"position,omitempty"`
}

// Position is where the builder's canvas draws a node.
type Position struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// Edge runs its target after its source (upstream's WorkflowGraphEdge).
// Out of a condition or an approval, Branch ("true" or "false") is the
// outcome the edge follows; an edge without one is followed whatever the
// outcome. An approval's outcome is true unless its payload has
// "approved": false.
type Edge struct {
	ID     string `json:"id"`
	Source string `json:"source"`
	Target string `json:"target"`
	Branch string `json:"branch,omitempty"`
}

// Graph is a WorkflowGraph, the engine-neutral graph a workflow version
// stores.
type Graph struct {
	Nodes []Node `json:"nodes"`
	Edges []Edge `json:"edges"`
}

// CompileResult is what compiling a graph gives: the compiled value as
// JSON, whether the value the compiler made equals itself after a JSON
// round trip (checked where the value lives, in the adapter's process:
// a Date, a Map, a function or an undefined is lost on the way), and the
// graph object passed in as it was after the call.
type CompileResult struct {
	Compiled   json.RawMessage `json:"compiled"`
	Lossless   bool            `json:"lossless"`
	GraphAfter json.RawMessage `json:"graphAfter"`
}

// Compiler compiles builder graphs into an engine's definitions. A graph
// the contract rejects fails with a *conform.StoreError of kind
// invalid_input.
type Compiler interface {
	Identity(ctx context.Context) (int, string, error)
	Compile(ctx context.Context, g json.RawMessage) (CompileResult, error)
}
