package memstore

import (
	"context"
	"fmt"
	"maps"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/builder"
	"github.com/bsadapter/bsadapter/internal/conform/suites/graphcompiler"
)

// builderMutation names a deliberate fault of the reference runtime,
// which only the mutant tests set; the zero value is the reference. Most
// mutants wrap the Runtime interface in the tests instead; the faults
// here, "runs-both-branches" and "denied-continues", are edges the graph
// walk follows where it should not, which a wrapper could only make by
// walking the graph itself.
type builderMutation string

// refBuilder is the reference builder runtime with the graph walk of
// executeGraph: nodes run once every edge into them has been decided and
// at least one of them is active; a condition activates its matching
// branch, a denied approval none of its edges.
type refBuilder struct {
	// mut is a mutant's fault, set only by the mutant tests.
	mut builderMutation
}

func (b *refBuilder) Identity(context.Context) (int, string, error) { return 1, "memory", nil }

func (b *refBuilder) Execute(_ context.Context, r builder.Request) (builder.Result, error) {
	res := builder.Result{Outputs: map[string]any{}, Trace: []builder.TraceEvent{}}
	nodes := map[string]graphcompiler.Node{}
	incoming := map[string][]graphcompiler.Edge{}
	for _, n := range r.Graph.Nodes {
		nodes[n.ID] = n
	}
	for _, e := range r.Graph.Edges {
		incoming[e.To] = append(incoming[e.To], e)
	}
	// active[edge] is decided once its source has run (or been skipped).
	decided := map[int]bool{}
	active := map[int]bool{}
	done := map[string]bool{}
	for progress := true; progress; {
		progress = false
		for _, n := range r.Graph.Nodes {
			if done[n.ID] {
				continue
			}
			ready, on := true, n.Kind == "trigger"
			for i, e := range r.Graph.Edges {
				if e.To != n.ID {
					continue
				}
				if !decided[i] {
					ready = false
				}
				on = on || active[i]
			}
			if !ready {
				continue
			}
			done[n.ID], progress = true, true
			var out any
			if on {
				var err error
				if out, err = b.run(n, r, &res); err != nil {
					return res, err
				}
				res.Outputs[n.ID] = out
			}
			for i, e := range r.Graph.Edges {
				if e.From != n.ID {
					continue
				}
				decided[i] = true
				// The runs-both-branches and denied-continues mutants
				// follow edges the reference leaves.
				switch {
				case !on:
				case n.Kind == "condition":
					active[i] = e.Branch == fmt.Sprint(out) || b.mut == "runs-both-branches"
				case n.Kind == "approval":
					active[i] = out.(map[string]any)["approved"] == true || b.mut == "denied-continues"
				default:
					active[i] = true
				}
			}
		}
	}
	return res, nil
}

// run is the runtime's part: a durable step, timer or signal per node.
func (b *refBuilder) run(n graphcompiler.Node, r builder.Request, res *builder.Result) (any, error) {
	switch n.Kind {
	case "trigger":
		return r.Input, nil
	case "step":
		res.Trace = append(res.Trace, builder.TraceEvent{Type: "step", NodeID: n.ID, Step: fmt.Sprint(n.Config["step"]), Config: maps.Clone(n.Config),
			Input: maps.Clone(r.Input), Results: maps.Clone(res.Outputs), RunKey: r.RunKey, Attempt: 1})
		return map[string]any{"node": n.ID, "step": n.Config["step"]}, nil
	case "sleep":
		secs, _ := n.Config["seconds"].(float64)
		res.Trace = append(res.Trace, builder.TraceEvent{Type: "sleep", NodeID: n.ID, Seconds: secs})
		return map[string]any{"slept": secs}, nil
	case "approval":
		res.Trace = append(res.Trace, builder.TraceEvent{Type: "signal", NodeID: n.ID, Signal: r.RunKey + ":" + n.ID})
		return map[string]any{"approved": r.Approvals[n.ID]}, nil
	case "condition":
		return r.Input[fmt.Sprint(n.Config["field"])] == n.Config["equals"], nil
	}
	return nil, &conform.StoreError{Hint: conform.KindInvalidInput, Message: "unknown node kind " + n.Kind}
}

// BuilderRuntime gives each builder case a reference runtime of its own.
func (m *memoryStore) BuilderRuntime(context.Context) (conform.Opener[builder.Runtime], error) {
	return func(t *conform.T) (builder.Runtime, error) {
		t.SetPrefix(m.prefix())
		return &refBuilder{}, nil
	}, nil
}
