package conform

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// referenceGraphs are valid graphs with every node kind, branches and
// independent nodes.
func referenceGraphs() map[string]Graph {
	return map[string]Graph{
		"linear": {ID: "linear", Nodes: []GraphNode{
			{ID: "start", Kind: "trigger"},
			{ID: "fetch", Kind: "step", Config: map[string]any{"step": "fetch", "url": "https://example.com/a"}},
			{ID: "wait", Kind: "sleep", Config: map[string]any{"seconds": 3600.0}},
			{ID: "ok", Kind: "approval"},
			{ID: "send", Kind: "step", Config: map[string]any{"step": "send", "to": []any{"a@example.com"}}},
		}, Edges: []GraphEdge{{From: "start", To: "fetch"}, {From: "fetch", To: "wait"}, {From: "wait", To: "ok"}, {From: "ok", To: "send"}}},
		"branches": {ID: "branches", Nodes: []GraphNode{
			{ID: "start", Kind: "trigger"},
			{ID: "check", Kind: "condition", Config: map[string]any{"field": "plan", "equals": "pro"}},
			{ID: "pro", Kind: "step", Config: map[string]any{"step": "welcome-pro"}},
			{ID: "free", Kind: "step", Config: map[string]any{"step": "welcome-free"}},
			{ID: "audit", Kind: "step", Config: map[string]any{"step": "audit", "note": "runs beside the branch"}},
		}, Edges: []GraphEdge{{From: "start", To: "check"}, {From: "check", To: "pro", Branch: "true"}, {From: "check", To: "free", Branch: "false"}, {From: "start", To: "audit"}}},
	}
}

// invalidGraphs are graphs the contract rejects, each for one reason.
func invalidGraphs() map[string]Graph {
	tr := GraphNode{ID: "start", Kind: "trigger"}
	st := func(id string) GraphNode { return GraphNode{ID: id, Kind: "step", Config: map[string]any{"step": id}} }
	return map[string]Graph{
		"no trigger":                {ID: "bad", Nodes: []GraphNode{st("a")}},
		"two triggers":              {ID: "bad", Nodes: []GraphNode{tr, {ID: "again", Kind: "trigger"}}},
		"an unknown node kind":      {ID: "bad", Nodes: []GraphNode{tr, {ID: "x", Kind: "teleport"}}, Edges: []GraphEdge{{From: "start", To: "x"}}},
		"a duplicate node id":       {ID: "bad", Nodes: []GraphNode{tr, st("a"), st("a")}, Edges: []GraphEdge{{From: "start", To: "a"}}},
		"an edge to a missing node": {ID: "bad", Nodes: []GraphNode{tr, st("a")}, Edges: []GraphEdge{{From: "start", To: "a"}, {From: "a", To: "ghost"}}},
		"a cycle":                   {ID: "bad", Nodes: []GraphNode{tr, st("a"), st("b")}, Edges: []GraphEdge{{From: "start", To: "a"}, {From: "a", To: "b"}, {From: "b", To: "a"}}},
		"an edge into the trigger":  {ID: "bad", Nodes: []GraphNode{tr, st("a")}, Edges: []GraphEdge{{From: "start", To: "a"}, {From: "a", To: "start"}}},
		"a condition edge without a branch": {ID: "bad", Nodes: []GraphNode{tr, {ID: "c", Kind: "condition", Config: map[string]any{"field": "f", "equals": 1.0}}, st("a")},
			Edges: []GraphEdge{{From: "start", To: "c"}, {From: "c", To: "a"}}},
	}
}

// sortedKeys returns m's keys in order, so that cases report stably.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// compileEach compiles every reference graph and hands each result to check.
func compileEach(ctx context.Context, s *Subject, check func(name string, g Graph, r CompileResult) error) error {
	gs := referenceGraphs()
	for _, name := range sortedKeys(gs) {
		r, err := s.Graphs.Compile(ctx, raw(gs[name]))
		if err != nil {
			return op("compile the "+name+" graph", err)
		}
		if err := check(name, gs[name], r); err != nil {
			return err
		}
	}
	return nil
}

func graphCases() []Case {
	cs := []Case{
		{ID: "graph-compiler/identity", Rule: "the compiler reports apiVersion 1 and a non-empty name", Run: func(ctx context.Context, s *Subject) error {
			v, name, err := s.Graphs.Identity(ctx)
			if err != nil {
				return op("identity", err)
			}
			var c checks
			c.eq("apiVersion", v, 1)
			c.that(name != "", "name", "a non-empty name", name)
			return c.err()
		}},
		{ID: "graph-compiler/json-round-trip", Rule: "the compiled value survives a JSON round trip unchanged (no Date, Map, function or undefined in it)", Run: func(ctx context.Context, s *Subject) error {
			var c checks
			err := compileEach(ctx, s, func(name string, _ Graph, r CompileResult) error {
				c.that(len(r.Compiled) > 0 && string(r.Compiled) != "null", "the compiled "+name+" graph", "a value", string(r.Compiled))
				c.eq("the compiled "+name+" graph equals itself after a JSON round trip", r.Lossless, true)
				return nil
			})
			return firstErr(err, c.err())
		}},
		{ID: "graph-compiler/deterministic", Rule: "compiling the same graph twice gives equal values", Run: func(ctx context.Context, s *Subject) error {
			var c checks
			err := compileEach(ctx, s, func(name string, g Graph, first CompileResult) error {
				second, err := s.Graphs.Compile(ctx, raw(g))
				if err != nil {
					return op("compile the "+name+" graph again", err)
				}
				c.that(sameJSON(first.Compiled, second.Compiled), "the "+name+" graph compiled twice", string(first.Compiled), string(second.Compiled))
				return nil
			})
			return firstErr(err, c.err())
		}},
		{ID: "graph-compiler/input-not-mutated", Rule: "compiling leaves the graph passed in unchanged", Run: func(ctx context.Context, s *Subject) error {
			var c checks
			err := compileEach(ctx, s, func(name string, g Graph, r CompileResult) error {
				c.that(sameJSON(r.GraphAfter, raw(g)), "the "+name+" graph after compile", string(raw(g)), string(r.GraphAfter))
				return nil
			})
			return firstErr(err, c.err())
		}},
		{ID: "graph-compiler/invalid-rejected", Rule: "a graph the contract rejects (no or two triggers, an unknown kind, a duplicate id, a dangling edge, a cycle, an edge into the trigger, a branchless condition edge) fails with invalid_input", Run: func(ctx context.Context, s *Subject) error {
			var c checks
			gs := invalidGraphs()
			for _, why := range sortedKeys(gs) {
				r, err := s.Graphs.Compile(ctx, raw(gs[why]))
				what := "compile of a graph with " + why
				switch {
				case err == nil:
					c.list = append(c.list, &Mismatch{What: what, Expected: "a failure of kind " + KindInvalidInput, Actual: "compiled: " + show(string(r.Compiled))})
				case HintOf(err) != KindInvalidInput:
					c.list = append(c.list, &Mismatch{What: what, Expected: "a failure of kind " + KindInvalidInput, Actual: fmt.Sprintf("kind %q (%v)", HintOf(err), err)})
				}
			}
			return c.err()
		}},
	}
	for i := range cs {
		cs[i].Suite = SuiteGraphCompiler
		run := cs[i].Run
		cs[i].Run = func(ctx context.Context, s *Subject) error {
			if s.Graphs == nil {
				return errors.New("the store made a subject without a graph compiler")
			}
			return run(ctx, s)
		}
	}
	return cs
}
