package conform

import (
	"context"
	"encoding/json"
)

// The node kinds of a workflow builder graph (contracts.md section 5).
var NodeKinds = []string{"trigger", "step", "sleep", "approval", "condition"}

// GraphNode is one node of a builder graph. Config holds the kind's
// settings: a step's "step" name and its options, a sleep's "seconds", a
// condition's "field" and "equals".
type GraphNode struct {
	ID     string         `json:"id"`
	Kind   string         `json:"kind"`
	Config map[string]any `json:"config,omitempty"`
}

// GraphEdge runs from one node to another; an edge out of a condition
// names the branch it belongs to ("true" or "false").
type GraphEdge struct {
	From   string `json:"from"`
	To     string `json:"to"`
	Branch string `json:"branch,omitempty"`
}

// Graph is a workflow builder graph as the cases send it.
type Graph struct {
	ID    string      `json:"id"`
	Nodes []GraphNode `json:"nodes"`
	Edges []GraphEdge `json:"edges"`
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

// GraphCompiler compiles builder graphs into an engine's definitions. A
// graph the contract rejects fails with a *StoreError of kind
// invalid_input.
type GraphCompiler interface {
	Identity(ctx context.Context) (int, string, error)
	Compile(ctx context.Context, g json.RawMessage) (CompileResult, error)
}
