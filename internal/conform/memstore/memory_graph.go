package memstore

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/graphcompiler"
)

// graphMutation names a deliberate fault of the reference compiler,
// which only the mutant tests set; the zero value is the reference. Most
// mutants wrap the Compiler interface in the tests instead; the one here,
// "accepts-cycles", is a check the compiler leaves out, which a wrapper
// could only make by compiling the graph itself.
type graphMutation string

// refCompiler is the reference graph compiler: it checks a WorkflowGraph
// as upstream's validateGraph does and compiles it into a plan of nodes
// in topological order, each with the edges out of it.
type refCompiler struct {
	// mut is a mutant's fault, set only by the mutant tests.
	mut graphMutation
}

func (r *refCompiler) Identity(context.Context) (int, string, error) { return 1, "memory", nil }

func invalid(format string, args ...any) error {
	return &conform.StoreError{Hint: conform.KindInvalidInput, Message: fmt.Sprintf(format, args...)}
}

// durationUnits are the units of a sleep's duration written as text, in
// milliseconds.
var durationUnits = map[string]float64{"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}

var durationText = regexp.MustCompile(`^(\d+)(ms|s|m|h|d)$`)

// durationMs reads a sleep node's duration: a positive number of
// milliseconds, or a whole number with a unit ("30s", "5m", "2h", "1d").
func durationMs(v any) (float64, bool) {
	switch d := v.(type) {
	case float64:
		if math.IsInf(d, 0) || math.IsNaN(d) || d <= 0 {
			return 0, false
		}
		return math.Round(d), true
	case string:
		m := durationText.FindStringSubmatch(strings.TrimSpace(d))
		if m == nil {
			return 0, false
		}
		n, err := strconv.ParseFloat(m[1], 64)
		if err != nil || n*durationUnits[m[2]] <= 0 {
			return 0, false
		}
		return n * durationUnits[m[2]], true
	}
	return 0, false
}

// conditionOps are the tests a condition node's config can name.
var conditionOps = []string{"equals", "notEquals", "exists", "truthy", "greaterThan", "lessThan", "contains"}

// nodeID is the form of a node id: upstream puts ids into generated
// source and SQL.
var nodeID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,100}$`)

var conditionPath = regexp.MustCompile(`^(input|results)(\.[^.]+)*$`)

// isCondition reports whether a condition node's config is a test: a path
// into the run's input or results and one of the known ops.
func isCondition(config map[string]any) bool {
	path, _ := config["path"].(string)
	op, _ := config["op"].(string)
	return conditionPath.MatchString(path) && slices.Contains(conditionOps, op)
}

// check returns why g breaks the rules of upstream's validateGraph, or
// nil, and the nodes in topological order (the graph's own order among
// nodes that are ready together).
func (r *refCompiler) check(g *graphcompiler.Graph) ([]string, error) {
	byID := map[string]graphcompiler.Node{}
	triggers := 0
	for _, n := range g.Nodes {
		if !nodeID.MatchString(n.ID) {
			return nil, invalid("node id %q is not 1 to 100 letters, digits, _ or -", n.ID)
		}
		if _, dup := byID[n.ID]; dup {
			return nil, invalid("node id %q is used twice", n.ID)
		}
		if !slices.Contains(graphcompiler.NodeKinds, n.Kind) {
			return nil, invalid("node %s has unknown kind %q", n.ID, n.Kind)
		}
		switch n.Kind {
		case "trigger":
			triggers++
		case "step":
			if n.Step == "" {
				return nil, invalid("step node %s names no step", n.ID)
			}
		case "sleep":
			if _, ok := durationMs(n.Config["duration"]); !ok {
				return nil, invalid("sleep node %s has no valid duration", n.ID)
			}
		case "condition":
			if !isCondition(n.Config) {
				return nil, invalid("condition node %s has no valid test", n.ID)
			}
		}
		byID[n.ID] = n
	}
	if triggers != 1 {
		return nil, invalid("a graph has exactly one trigger, this one has %d", triggers)
	}
	in := map[string]int{}
	next := map[string][]string{}
	edgeIDs := map[string]bool{}
	for _, e := range g.Edges {
		source, ok1 := byID[e.Source]
		target, ok2 := byID[e.Target]
		switch {
		case !ok1 || !ok2:
			return nil, invalid("edge %s (%s -> %s) names a missing node", e.ID, e.Source, e.Target)
		case edgeIDs[e.ID]:
			return nil, invalid("edge id %q is used twice", e.ID)
		case e.Branch != "" && e.Branch != "true" && e.Branch != "false":
			return nil, invalid("edge %s has the branch %q, not \"true\" or \"false\"", e.ID, e.Branch)
		case e.Branch != "" && source.Kind != "condition" && source.Kind != "approval":
			return nil, invalid("edge %s branches out of a %s node", e.ID, source.Kind)
		case target.Kind == "trigger":
			return nil, invalid("edge %s leads into the trigger", e.ID)
		}
		edgeIDs[e.ID] = true
		in[e.Target]++
		next[e.Source] = append(next[e.Source], e.Target)
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
		return graphcompiler.CompileResult{}, invalid("the graph is not JSON of a WorkflowGraph's form: %v", err)
	}
	order, err := r.check(&g)
	if err != nil {
		return graphcompiler.CompileResult{}, err
	}
	nodes := map[string]any{}
	for _, n := range g.Nodes {
		var next []any
		for _, e := range g.Edges {
			if e.Source == n.ID {
				next = append(next, map[string]any{"edge": e.ID, "target": e.Target, "branch": e.Branch})
			}
		}
		cfg := map[string]any{}
		for k, v := range n.Config {
			cfg[k] = v
		}
		nodes[n.ID] = map[string]any{"kind": n.Kind, "step": n.Step, "config": cfg, "next": next}
	}
	orderAny := make([]any, len(order))
	for i, id := range order {
		orderAny[i] = id
	}
	plan := map[string]any{"order": orderAny, "nodes": nodes}
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
