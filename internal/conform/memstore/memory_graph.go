package memstore

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/graphcompiler"
)

// graphMutation names a deliberate fault of the reference compiler,
// which only the mutant tests set; the zero value is the reference. Most
// mutants wrap the Compiler interface in the tests instead; the one here,
// "accepts-cycles", is a check the compiler leaves out, which a wrapper
// could only make by compiling the graph itself.
type graphMutation string

// refCompiler is the reference graph compiler: it checks a graph against
// the contract and compiles it into a plan of nodes in topological order,
// each with the nodes it leads to.
type refCompiler struct {
	// mut is a mutant's fault, set only by the mutant tests.
	mut graphMutation
}

func (r *refCompiler) Identity(context.Context) (int, string, error) { return 1, "memory", nil }

func invalid(format string, args ...any) error {
	return &conform.StoreError{Hint: conform.KindInvalidInput, Message: fmt.Sprintf(format, args...)}
}

// check returns why g breaks the contract, or nil, and the nodes in
// topological order.
func (r *refCompiler) check(g *graphcompiler.Graph) ([]string, error) {
	byID := map[string]graphcompiler.Node{}
	triggers := 0
	for _, n := range g.Nodes {
		if _, dup := byID[n.ID]; dup || n.ID == "" {
			return nil, invalid("node id %q is empty or used twice", n.ID)
		}
		if !slices.Contains(graphcompiler.NodeKinds, n.Kind) {
			return nil, invalid("node %s has unknown kind %q", n.ID, n.Kind)
		}
		if n.Kind == "trigger" {
			triggers++
		}
		byID[n.ID] = n
	}
	if triggers != 1 {
		return nil, invalid("a graph has exactly one trigger, this one has %d", triggers)
	}
	in := map[string]int{}
	next := map[string][]string{}
	for _, e := range g.Edges {
		from, ok1 := byID[e.From]
		to, ok2 := byID[e.To]
		switch {
		case !ok1 || !ok2:
			return nil, invalid("edge %s -> %s names a missing node", e.From, e.To)
		case to.Kind == "trigger":
			return nil, invalid("edge %s -> %s leads into the trigger", e.From, e.To)
		case from.Kind == "condition" && e.Branch != "true" && e.Branch != "false":
			return nil, invalid("edge %s -> %s out of a condition names no branch", e.From, e.To)
		}
		in[e.To]++
		next[e.From] = append(next[e.From], e.To)
	}
	var order, ready []string
	for _, n := range g.Nodes {
		if in[n.ID] == 0 {
			ready = append(ready, n.ID)
		}
	}
	for len(ready) > 0 {
		id := ready[0]
		ready = ready[1:]
		order = append(order, id)
		for _, t := range next[id] {
			if in[t]--; in[t] == 0 {
				ready = append(ready, t)
			}
		}
	}
	// The accepts-cycles mutant compiles the graph anyway, with an order
	// that leaves out the nodes on the cycle.
	if len(order) != len(g.Nodes) && r.mut != "accepts-cycles" {
		return nil, invalid("the graph has a cycle")
	}
	return order, nil
}

func (r *refCompiler) Compile(_ context.Context, raw json.RawMessage) (graphcompiler.CompileResult, error) {
	var g graphcompiler.Graph
	if err := json.Unmarshal(raw, &g); err != nil {
		return graphcompiler.CompileResult{}, invalid("the graph is not JSON of the graph's form: %v", err)
	}
	order, err := r.check(&g)
	if err != nil {
		return graphcompiler.CompileResult{}, err
	}
	nodes := map[string]any{}
	for _, n := range g.Nodes {
		var next []any
		for _, e := range g.Edges {
			if e.From == n.ID {
				next = append(next, map[string]any{"to": e.To, "branch": e.Branch})
			}
		}
		cfg := map[string]any{}
		for k, v := range n.Config {
			cfg[k] = v
		}
		nodes[n.ID] = map[string]any{"kind": n.Kind, "config": cfg, "next": next}
	}
	orderAny := make([]any, len(order))
	for i, id := range order {
		orderAny[i] = id
	}
	plan := map[string]any{"definition": g.ID, "order": orderAny, "nodes": nodes}
	// The compiler decoded a copy of its own, so the caller's graph is as
	// it was.
	return compileResult(plan, raw)
}

// compileResult is the result of a compile that made plan: plan as JSON,
// whether a JSON round trip keeps all of it, and after as the caller's
// graph once the call returns.
func compileResult(plan map[string]any, after json.RawMessage) (graphcompiler.CompileResult, error) {
	compiled, err := json.Marshal(plan)
	if err != nil {
		return graphcompiler.CompileResult{}, err
	}
	var back any
	if err := json.Unmarshal(compiled, &back); err != nil {
		return graphcompiler.CompileResult{}, err
	}
	return graphcompiler.CompileResult{Compiled: compiled, Lossless: reflect.DeepEqual(untyped(plan), back), GraphAfter: after}, nil
}

// untyped turns the plan's typed slices and maps into the any-typed
// ones a JSON decode gives, leaving every other value (a time.Time, say)
// as it is, so that DeepEqual with the round-tripped value tells exactly
// whether JSON lost something.
func untyped(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = untyped(e)
		}
		return out
	case []any:
		if x == nil {
			return nil
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = untyped(e)
		}
		return out
	}
	return v
}

// GraphCompiler gives each graph-compiler case a reference compiler of its
// own.
func (m *memoryStore) GraphCompiler(context.Context) (conform.Opener[graphcompiler.Compiler], error) {
	return func(t *conform.T) (graphcompiler.Compiler, error) {
		t.SetPrefix(m.prefix())
		return &refCompiler{}, nil
	}, nil
}
