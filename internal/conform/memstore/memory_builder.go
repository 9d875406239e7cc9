package memstore

import (
	"context"
	"maps"
	"reflect"
	"strconv"
	"strings"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/builder"
	"github.com/bsadapter/bsadapter/internal/conform/suites/graphcompiler"
)

// builderMutation names a deliberate fault of the reference runtime,
// which only the mutant tests set; the zero value is the reference. Most
// mutants wrap the Runtime interface in the tests instead; the faults
// here lie inside the graph walk or the runtime's reading of a node,
// which a wrapper could only make by walking the graph itself:
// "runs-both-branches" (a condition's edges are all followed),
// "denied-stops" (an edge without a branch out of a condition or an
// approval is followed only when the outcome is true, the rule bsadapter
// held before it read upstream's executeGraph), "strict-approval" (an
// approval approves only a payload with approved: true) and
// "step-in-config" (a step's name is read from config.step, where
// bsadapter's graphs kept it, instead of the node's step).
type builderMutation string

// refBuilder is the reference builder runtime with the graph walk of
// upstream's executeGraph: the nodes run in topological order, each once
// an edge into it is active; an edge is active once its source ran and,
// out of a condition or an approval, it has no branch or the branch of
// the outcome.
type refBuilder struct {
	// mut is a mutant's fault, set only by the mutant tests.
	mut builderMutation
}

func (b *refBuilder) Identity(context.Context) (int, string, error) { return 1, "memory", nil }

func (b *refBuilder) Execute(_ context.Context, r builder.Request) (builder.Result, error) {
	res := builder.Result{Outputs: map[string]any{}, Trace: []builder.TraceEvent{}}
	// executeGraph refuses what the compiler refuses, before it runs
	// anything.
	order, err := (&refCompiler{}).check(&r.Graph)
	if err != nil {
		return res, err
	}
	nodes := map[string]graphcompiler.Node{}
	for _, n := range r.Graph.Nodes {
		nodes[n.ID] = n
	}
	// outcome holds the outcome of every node that ran: a condition's
	// test, an approval's decision, true for the others.
	outcome := map[string]bool{}
	for _, id := range order {
		n := nodes[id]
		if n.Kind != "trigger" && !b.reached(r.Graph, nodes, id, outcome) {
			continue
		}
		out, took := b.run(n, r, &res)
		res.Outputs[id] = out
		outcome[id] = took
	}
	return res, nil
}

// reached reports whether an edge into the node id is active.
func (b *refBuilder) reached(g graphcompiler.Graph, nodes map[string]graphcompiler.Node, id string, outcome map[string]bool) bool {
	for _, e := range g.Edges {
		if e.Target != id {
			continue
		}
		took, ran := outcome[e.Source]
		kind := nodes[e.Source].Kind
		switch {
		case !ran:
		case kind == "condition" && b.mut == "runs-both-branches":
			return true
		case e.Branch == "" && (took || b.mut != "denied-stops"):
			return true
		case e.Branch == strconv.FormatBool(took):
			return true
		}
	}
	return false
}

// run is the runtime's part, as the harness sees it: a call of the
// node's library step, a durable timer, a wait for an approval's hook. It
// returns the node's output and its outcome.
func (b *refBuilder) run(n graphcompiler.Node, r builder.Request, res *builder.Result) (any, bool) {
	switch n.Kind {
	case "step":
		step := n.Step
		if b.mut == "step-in-config" {
			step, _ = n.Config["step"].(string)
		}
		config := maps.Clone(n.Config)
		if config == nil {
			config = map[string]any{}
		}
		res.Trace = append(res.Trace, builder.TraceEvent{Type: "step", Node: n.ID, Step: step, Config: config,
			Input: maps.Clone(r.Input), Results: maps.Clone(res.Outputs), RunKey: r.RunKey})
		out := map[string]any{"node": n.ID}
		if step != "" {
			out["step"] = step
		}
		return out, true
	case "sleep":
		ms, _ := durationMs(n.Config["duration"])
		res.Trace = append(res.Trace, builder.TraceEvent{Type: "sleep", Ms: ms})
		return nil, true
	case "approval":
		res.Trace = append(res.Trace, builder.TraceEvent{Type: "approval", Token: r.RunKey + ":" + n.ID})
		payload := r.Approvals[n.ID]
		decision, _ := payload.(map[string]any)
		if b.mut == "strict-approval" {
			return payload, decision["approved"] == true
		}
		return payload, decision == nil || decision["approved"] != false
	case "condition":
		ok := test(n.Config, map[string]any{"input": r.Input, "results": res.Outputs})
		return ok, ok
	}
	return r.Input, true // the trigger's output is the input
}

// test evaluates a condition node's config {path, op, value} on the run's
// data, scope's "input" and "results".
func test(config map[string]any, scope map[string]any) bool {
	path, _ := config["path"].(string)
	parts := strings.Split(path, ".")
	var actual any = scope[parts[0]]
	for _, key := range parts[1:] {
		switch v := actual.(type) {
		case map[string]any:
			actual = v[key]
		case []any:
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(v) {
				return false
			}
			actual = v[i]
		default:
			actual = nil
		}
	}
	want := config["value"]
	a, aNum := actual.(float64)
	w, wNum := want.(float64)
	switch config["op"] {
	case "equals":
		return sameValue(actual, want)
	case "notEquals":
		return !sameValue(actual, want)
	case "exists":
		return actual != nil
	case "truthy":
		return truthy(actual)
	case "greaterThan":
		return aNum && wNum && a > w
	case "lessThan":
		return aNum && wNum && a < w
	case "contains":
		if s, ok := actual.(string); ok {
			sub, ok := want.(string)
			return ok && strings.Contains(s, sub)
		}
		list, _ := actual.([]any)
		for _, item := range list {
			if sameValue(item, want) {
				return true
			}
		}
	}
	return false
}

// sameValue compares two JSON values as values.
func sameValue(a, b any) bool { return reflect.DeepEqual(a, b) }

// truthy is JavaScript's truthiness of a JSON value.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0
	case string:
		return x != ""
	}
	return true
}

// BuilderRuntime gives each builder case a reference runtime of its own.
func (m *memoryStore) BuilderRuntime(context.Context) (conform.Opener[builder.Runtime], error) {
	return func(t *conform.T) (builder.Runtime, error) {
		t.SetPrefix(m.prefix())
		return &refBuilder{}, nil
	}, nil
}
