// Package graphcompiler is the graph-compiler suite: a workflow builder
// graph compiler, which turns a graph of trigger, step, sleep, approval
// and condition nodes into an engine's definition.
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
	Intro: "A workflow builder graph compiler: it turns a graph of `trigger`, `step`, `sleep`, `approval` and `condition` nodes " +
		"into an engine's definition. Upstream has no kit for it; bsadapter sends reference graphs (every node kind, branches, " +
		"an independent node) and graphs the contract rejects. The JSON round trip is checked where the value lives: " +
		"over the bridge, your bridge answers whether the compiled value deep-equals its own round trip. " +
		"Over the bridge this suite needs the `graphCompiler` capability.",
}, Provider.GraphCompiler, cases)

// Provider is implemented by a store that offers a graph compiler.
type Provider interface {
	// GraphCompiler prepares the suite for a run: what gives each case the
	// compiler, or why the store cannot run the suite.
	GraphCompiler(ctx context.Context) (conform.Opener[Compiler], error)
}

// NodeKinds are the node kinds of a workflow builder graph (contracts.md
// section 5).
var NodeKinds = []string{"trigger", "step", "sleep", "approval", "condition"}

// Node is one node of a builder graph. Config holds the kind's settings:
// a step's "step" name and its options, a sleep's "seconds", a
// condition's "field" and "equals".
type Node struct {
	ID     string         `json:"id"`
	Kind   string         `json:"kind"`
	Config map[string]any `json:"config,omitempty"`
}

// Edge runs from one node to another; an edge out of a condition names
// the branch it belongs to ("true" or "false").
type Edge struct {
	From   string `json:"from"`
	To     string `json:"to"`
	Branch string `json:"branch,omitempty"`
}

// Graph is a workflow builder graph as the cases send it.
type Graph struct {
	ID    string `json:"id"`
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
