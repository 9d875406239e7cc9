package graphcompiler

import (
	"encoding/json"
	"fmt"

	"github.com/bsadapter/bsadapter/internal/conform"
)

var cases = []conform.CaseOf[Compiler]{
	{ID: "graph-compiler/identity", Rule: "the compiler carries apiVersion 1", Run: identity},
	{ID: "graph-compiler/json-round-trip", Rule: "the compiled value survives a JSON round trip unchanged (no Date, Map, function or undefined in it); " +
		"a compiler may return nothing, which publish stores as null", Run: jsonRoundTrip},
	{ID: "graph-compiler/deterministic", Rule: "compiling the same graph twice gives equal values", Run: deterministic},
	{ID: "graph-compiler/input-not-mutated", Rule: "compiling leaves the graph passed in unchanged", Run: inputNotMutated},
	{ID: "graph-compiler/invalid-rejected", Rule: "a graph upstream's validateGraph refuses fails with invalid_input: no or two triggers, a node id that is not " +
		"1 to 100 letters, digits, _ or -, a duplicate node id, an unknown kind, a step that names no step, a sleep without a valid duration, a condition without a valid test, " +
		"an edge to a missing node, a duplicate edge id, a branch other than \"true\" or \"false\", a branch out of a step, an edge into the trigger, a cycle", Run: invalidRejected},
}

// The graphs below follow upstream's WorkflowGraph as
// packages/better-supabase/src/blocks/workflow-builder/graph.ts has it
// (ScaleDockHQ/better-supabase, commit 3e85683b4c63; the older
// c971815e61d5 differs only in taking any node id of 1 to 100
// characters): the node and edge fields, the sleep's duration, the
// condition's {path, op, value}, and what validateGraph refuses. The kit
// the cases stand for is testGraphCompiler in
// packages/better-supabase/src/testing/injectables.ts (commit
// ccf3b5780aa3); docs/upstream-interfaces.md has the whole record.

// ReferenceGraphs are valid graphs in upstream's form, between them with
// every node kind, every node field, the branches of a condition and of
// an approval, edges without a branch out of both, and an independent
// node. "linear" is approved or denied by its approval node "ok";
// "branches" tests the input's plan.
func ReferenceGraphs() map[string]Graph {
	return map[string]Graph{
		"linear": {Nodes: []Node{
			{ID: "start", Kind: "trigger", Label: "Signed up", Position: &Position{X: 0, Y: 0}},
			{ID: "fetch", Kind: "step", Step: "fetch", Config: map[string]any{"url": "https://example.com/a"}, Position: &Position{X: 0, Y: 120}},
			{ID: "wait", Kind: "sleep", Label: "An hour", Config: map[string]any{"duration": "1h"}},
			{ID: "ok", Kind: "approval", Label: "A person approves"},
			{ID: "send", Kind: "step", Step: "send", Config: map[string]any{"to": []any{"a@example.com"}}},
			{ID: "rejected", Kind: "step", Step: "notify-rejected"},
			{ID: "archive", Kind: "step", Step: "archive", Config: map[string]any{"keep": 30.0}},
		}, Edges: []Edge{
			{ID: "e1", Source: "start", Target: "fetch"},
			{ID: "e2", Source: "fetch", Target: "wait"},
			{ID: "e3", Source: "wait", Target: "ok"},
			{ID: "e4", Source: "ok", Target: "send", Branch: "true"},
			{ID: "e5", Source: "ok", Target: "rejected", Branch: "false"},
			{ID: "e6", Source: "ok", Target: "archive"},
		}},
		"branches": {Nodes: []Node{
			{ID: "start", Kind: "trigger"},
			{ID: "check", Kind: "condition", Label: "Pro plan?", Config: map[string]any{"path": "input.plan", "op": "equals", "value": "pro"}},
			{ID: "pro", Kind: "step", Step: "welcome-pro"},
			{ID: "free", Kind: "step", Step: "welcome-free"},
			{ID: "log", Kind: "step", Step: "log", Config: map[string]any{"level": "info"}},
			{ID: "audit", Kind: "step", Step: "audit", Config: map[string]any{"note": "runs beside the branch"}},
		}, Edges: []Edge{
			{ID: "e1", Source: "start", Target: "check"},
			{ID: "e2", Source: "check", Target: "pro", Branch: "true"},
			{ID: "e3", Source: "check", Target: "free", Branch: "false"},
			{ID: "e4", Source: "check", Target: "log"},
			{ID: "e5", Source: "start", Target: "audit"},
		}},
	}
}

// invalidGraphs are graphs upstream's validateGraph refuses, each for one
// reason.
func invalidGraphs() map[string]Graph {
	tr := Node{ID: "start", Kind: "trigger"}
	st := func(id string) Node { return Node{ID: id, Kind: "step", Step: id} }
	e := func(id, source, target string) Edge { return Edge{ID: id, Source: source, Target: target} }
	return map[string]Graph{
		"no trigger":                  {Nodes: []Node{st("a")}, Edges: []Edge{}},
		"two triggers":                {Nodes: []Node{tr, {ID: "again", Kind: "trigger"}}, Edges: []Edge{}},
		"a node without an id":        {Nodes: []Node{tr, {Kind: "step", Step: "a"}}, Edges: []Edge{}},
		"a node id with a space":      {Nodes: []Node{tr, st("send mail")}, Edges: []Edge{e("e1", "start", "send mail")}},
		"a duplicate node id":         {Nodes: []Node{tr, st("a"), st("a")}, Edges: []Edge{e("e1", "start", "a")}},
		"an unknown node kind":        {Nodes: []Node{tr, {ID: "x", Kind: "teleport"}}, Edges: []Edge{e("e1", "start", "x")}},
		"a step that names no step":   {Nodes: []Node{tr, {ID: "a", Kind: "step", Config: map[string]any{"step": "a"}}}, Edges: []Edge{e("e1", "start", "a")}},
		"a sleep without a duration":  {Nodes: []Node{tr, {ID: "w", Kind: "sleep", Config: map[string]any{"duration": "soon"}}}, Edges: []Edge{e("e1", "start", "w")}},
		"a condition without a test":  {Nodes: []Node{tr, {ID: "c", Kind: "condition", Config: map[string]any{"path": "input.plan", "op": "resembles", "value": "pro"}}}, Edges: []Edge{e("e1", "start", "c")}},
		"an edge to a missing node":   {Nodes: []Node{tr, st("a")}, Edges: []Edge{e("e1", "start", "a"), e("e2", "a", "ghost")}},
		"a duplicate edge id":         {Nodes: []Node{tr, st("a"), st("b")}, Edges: []Edge{e("e1", "start", "a"), e("e1", "start", "b")}},
		"a branch that is no outcome": {Nodes: []Node{tr, {ID: "ok", Kind: "approval"}, st("a")}, Edges: []Edge{e("e1", "start", "ok"), {ID: "e2", Source: "ok", Target: "a", Branch: "maybe"}}},
		"a branch out of a step":      {Nodes: []Node{tr, st("a"), st("b")}, Edges: []Edge{e("e1", "start", "a"), {ID: "e2", Source: "a", Target: "b", Branch: "true"}}},
		"an edge into the trigger":    {Nodes: []Node{tr, st("a")}, Edges: []Edge{e("e1", "start", "a"), e("e2", "a", "start")}},
		"a cycle":                     {Nodes: []Node{tr, st("a"), st("b")}, Edges: []Edge{e("e1", "start", "a"), e("e2", "a", "b"), e("e3", "b", "a")}},
	}
}

// compileEach compiles every reference graph, in name order, and hands
// each result to check; a failed compile stops the case.
func compileEach(t *conform.T, gc Compiler, check func(name string, g Graph, r CompileResult)) {
	gs := ReferenceGraphs()
	for _, name := range conform.SortedKeys(gs) {
		r, err := gc.Compile(t.Context(), conform.JSON(gs[name]))
		t.Must("compile the "+name+" graph", err)
		if len(r.Compiled) == 0 {
			// The compiler returned nothing: publish stores null.
			r.Compiled = json.RawMessage("null")
		}
		check(name, gs[name], r)
	}
}

// identity checks upstream's "has apiVersion 1". A GraphCompiler is a
// function and has no name: the one a bridge reports is its own.
func identity(t *conform.T, gc Compiler) {
	v, _, err := gc.Identity(t.Context())
	t.Must("identity", err)
	t.Eq("apiVersion", v, 1)
}

func jsonRoundTrip(t *conform.T, gc Compiler) {
	compileEach(t, gc, func(name string, _ Graph, r CompileResult) {
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
