package graphcompiler

import (
	"fmt"

	"github.com/bsadapter/bsadapter/internal/conform"
)

var cases = []conform.CaseOf[Compiler]{
	{ID: "graph-compiler/identity", Rule: "the compiler reports apiVersion 1 and a non-empty name", Run: identity},
	{ID: "graph-compiler/json-round-trip", Rule: "the compiled value survives a JSON round trip unchanged (no Date, Map, function or undefined in it)", Run: jsonRoundTrip},
	{ID: "graph-compiler/deterministic", Rule: "compiling the same graph twice gives equal values", Run: deterministic},
	{ID: "graph-compiler/input-not-mutated", Rule: "compiling leaves the graph passed in unchanged", Run: inputNotMutated},
	{ID: "graph-compiler/invalid-rejected", Rule: "a graph the contract rejects (no or two triggers, an unknown kind, a duplicate id, a dangling edge, a cycle, an edge into the trigger, a branchless condition edge) fails with invalid_input", Run: invalidRejected},
}

// ReferenceGraphs are valid graphs with every node kind, branches and
// independent nodes.
func ReferenceGraphs() map[string]Graph {
	return map[string]Graph{
		"linear": {ID: "linear", Nodes: []Node{
			{ID: "start", Kind: "trigger"},
			{ID: "fetch", Kind: "step", Config: map[string]any{"step": "fetch", "url": "https://example.com/a"}},
			{ID: "wait", Kind: "sleep", Config: map[string]any{"seconds": 3600.0}},
			{ID: "ok", Kind: "approval"},
			{ID: "send", Kind: "step", Config: map[string]any{"step": "send", "to": []any{"a@example.com"}}},
		}, Edges: []Edge{{From: "start", To: "fetch"}, {From: "fetch", To: "wait"}, {From: "wait", To: "ok"}, {From: "ok", To: "send"}}},
		"branches": {ID: "branches", Nodes: []Node{
			{ID: "start", Kind: "trigger"},
			{ID: "check", Kind: "condition", Config: map[string]any{"field": "plan", "equals": "pro"}},
			{ID: "pro", Kind: "step", Config: map[string]any{"step": "welcome-pro"}},
			{ID: "free", Kind: "step", Config: map[string]any{"step": "welcome-free"}},
			{ID: "audit", Kind: "step", Config: map[string]any{"step": "audit", "note": "runs beside the branch"}},
		}, Edges: []Edge{{From: "start", To: "check"}, {From: "check", To: "pro", Branch: "true"}, {From: "check", To: "free", Branch: "false"}, {From: "start", To: "audit"}}},
	}
}

// invalidGraphs are graphs the contract rejects, each for one reason.
func invalidGraphs() map[string]Graph {
	tr := Node{ID: "start", Kind: "trigger"}
	st := func(id string) Node { return Node{ID: id, Kind: "step", Config: map[string]any{"step": id}} }
	return map[string]Graph{
		"no trigger":                {ID: "bad", Nodes: []Node{st("a")}},
		"two triggers":              {ID: "bad", Nodes: []Node{tr, {ID: "again", Kind: "trigger"}}},
		"an unknown node kind":      {ID: "bad", Nodes: []Node{tr, {ID: "x", Kind: "teleport"}}, Edges: []Edge{{From: "start", To: "x"}}},
		"a duplicate node id":       {ID: "bad", Nodes: []Node{tr, st("a"), st("a")}, Edges: []Edge{{From: "start", To: "a"}}},
		"an edge to a missing node": {ID: "bad", Nodes: []Node{tr, st("a")}, Edges: []Edge{{From: "start", To: "a"}, {From: "a", To: "ghost"}}},
		"a cycle":                   {ID: "bad", Nodes: []Node{tr, st("a"), st("b")}, Edges: []Edge{{From: "start", To: "a"}, {From: "a", To: "b"}, {From: "b", To: "a"}}},
		"an edge into the trigger":  {ID: "bad", Nodes: []Node{tr, st("a")}, Edges: []Edge{{From: "start", To: "a"}, {From: "a", To: "start"}}},
		"a condition edge without a branch": {ID: "bad", Nodes: []Node{tr, {ID: "c", Kind: "condition", Config: map[string]any{"field": "f", "equals": 1.0}}, st("a")},
			Edges: []Edge{{From: "start", To: "c"}, {From: "c", To: "a"}}},
	}
}

// compileEach compiles every reference graph, in name order, and hands
// each result to check; a failed compile stops the case.
func compileEach(t *conform.T, gc Compiler, check func(name string, g Graph, r CompileResult)) {
	gs := ReferenceGraphs()
	for _, name := range conform.SortedKeys(gs) {
		r, err := gc.Compile(t.Context(), conform.JSON(gs[name]))
		t.Must("compile the "+name+" graph", err)
		check(name, gs[name], r)
	}
}

func identity(t *conform.T, gc Compiler) {
	v, name, err := gc.Identity(t.Context())
	t.Must("identity", err)
	t.Eq("apiVersion", v, 1)
	t.That(name != "", "name", "a non-empty name", name)
}

func jsonRoundTrip(t *conform.T, gc Compiler) {
	compileEach(t, gc, func(name string, _ Graph, r CompileResult) {
		t.That(len(r.Compiled) > 0 && string(r.Compiled) != "null", "the compiled "+name+" graph", "a value", string(r.Compiled))
		t.Eq("the compiled "+name+" graph equals itself after a JSON round trip", r.Lossless, true)
	})
}

func deterministic(t *conform.T, gc Compiler) {
	compileEach(t, gc, func(name string, g Graph, first CompileResult) {
		second, err := gc.Compile(t.Context(), conform.JSON(g))
		t.Must("compile the "+name+" graph again", err)
		t.That(conform.SameJSON(first.Compiled, second.Compiled), "the "+name+" graph compiled twice", string(first.Compiled), string(second.Compiled))
	})
}

func inputNotMutated(t *conform.T, gc Compiler) {
	compileEach(t, gc, func(name string, g Graph, r CompileResult) {
		t.That(conform.SameJSON(r.GraphAfter, conform.JSON(g)), "the "+name+" graph after compile", string(conform.JSON(g)), string(r.GraphAfter))
	})
}

func invalidRejected(t *conform.T, gc Compiler) {
	gs := invalidGraphs()
	for _, why := range conform.SortedKeys(gs) {
		r, err := gc.Compile(t.Context(), conform.JSON(gs[why]))
		what := "compile of a graph with " + why
		switch {
		case err == nil:
			t.Error(&conform.Mismatch{What: what, Expected: "a failure of kind " + conform.KindInvalidInput, Actual: "compiled: " + conform.Show(string(r.Compiled))})
		case conform.HintOf(err) != conform.KindInvalidInput:
			t.Error(&conform.Mismatch{What: what, Expected: "a failure of kind " + conform.KindInvalidInput, Actual: fmt.Sprintf("kind %q (%v)", conform.HintOf(err), err)})
		}
	}
}
