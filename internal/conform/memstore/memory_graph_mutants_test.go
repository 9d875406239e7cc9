package memstore

import (
	"context"
	"encoding/json"
	"slices"
	"sync/atomic"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/graphcompiler"
)

// graphStore is the reference store whose graph compilers pass through
// mutant.
type graphStore struct {
	*memoryStore
	mutant func(graphcompiler.Compiler) graphcompiler.Compiler
}

// GraphCompiler gives each case a reference compiler made the mutant.
func (m graphStore) GraphCompiler(ctx context.Context) (conform.Opener[graphcompiler.Compiler], error) {
	open, err := m.memoryStore.GraphCompiler(ctx)
	return mutate(open, err, m.mutant)
}

// graphMutant returns the reference store with its graph compiler made
// the mutant name.
func graphMutant(name string) conform.Store {
	return graphStore{&memoryStore{}, func(c graphcompiler.Compiler) graphcompiler.Compiler {
		switch name {
		case "lossy":
			// A time is a string once it has been through JSON, so the
			// plan no longer equals its own round trip.
			return addsToPlan{c, "compiledAt", func() any { return time.Unix(0, 0).UTC() }}
		case "nondeterministic":
			var builds atomic.Int64
			return addsToPlan{c, "build", func() any { return float64(builds.Add(1)) }}
		case "mutates-input":
			return mutatesInput{c}
		case "from-to":
			return readsFromTo{c}
		case "accepts-cycles":
			c.(*refCompiler).mut = graphMutation(name)
			return c
		}
		panic("no graph-compiler mutant is named " + name)
	}}
}

// addsToPlan adds key to every plan it compiles, with the value value
// gives, and reports the plan as the reference reports its own.
type addsToPlan struct {
	graphcompiler.Compiler
	key   string
	value func() any
}

// Compile compiles raw as the reference does and adds key to the plan.
func (c addsToPlan) Compile(ctx context.Context, raw json.RawMessage) (graphcompiler.CompileResult, error) {
	r, err := c.Compiler.Compile(ctx, raw)
	if err != nil {
		return r, err
	}
	var plan map[string]any
	if err := json.Unmarshal(r.Compiled, &plan); err != nil {
		return graphcompiler.CompileResult{}, err
	}
	plan[c.key] = c.value()
	return compileResult(plan, r.GraphAfter)
}

// mutatesInput reverses the nodes of the caller's graph in place, as a
// careless compiler that sorts them might.
type mutatesInput struct{ graphcompiler.Compiler }

// Compile compiles raw as the reference does and reports the caller's
// graph with its nodes reversed.
func (c mutatesInput) Compile(ctx context.Context, raw json.RawMessage) (graphcompiler.CompileResult, error) {
	r, err := c.Compiler.Compile(ctx, raw)
	if err != nil {
		return r, err
	}
	var g graphcompiler.Graph
	if err := json.Unmarshal(raw, &g); err != nil {
		return graphcompiler.CompileResult{}, err
	}
	slices.Reverse(g.Nodes)
	r.GraphAfter, err = json.Marshal(g)
	return r, err
}

// readsFromTo reads an edge's ends from "from" and "to", the fields of
// bsadapter's graphs before they followed upstream's WorkflowGraph, where
// upstream's edges have "source" and "target": every edge of an upstream
// graph then names no node, and the graph is refused.
type readsFromTo struct{ graphcompiler.Compiler }

// Compile hands the reference the graph as a compiler reading from and
// to sees it.
func (c readsFromTo) Compile(ctx context.Context, raw json.RawMessage) (graphcompiler.CompileResult, error) {
	var g struct {
		Nodes []graphcompiler.Node `json:"nodes"`
		Edges []struct {
			ID     string `json:"id"`
			From   string `json:"from"`
			To     string `json:"to"`
			Branch string `json:"branch"`
		} `json:"edges"`
	}
	if err := json.Unmarshal(raw, &g); err != nil {
		return graphcompiler.CompileResult{}, err
	}
	seen := graphcompiler.Graph{Nodes: g.Nodes, Edges: []graphcompiler.Edge{}}
	for _, e := range g.Edges {
		seen.Edges = append(seen.Edges, graphcompiler.Edge{ID: e.ID, Source: e.From, Target: e.To, Branch: e.Branch})
	}
	r, err := c.Compiler.Compile(ctx, conform.JSON(seen))
	r.GraphAfter = raw
	return r, err
}
