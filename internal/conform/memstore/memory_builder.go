package memstore

import (
	"context"
	"fmt"
	"maps"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/builder"
	"github.com/bsadapter/bsadapter/internal/conform/suites/graphcompiler"
)

// builderMutation names a deliberate departure from the builder runtime
// contract, for the tests' mutants; the zero value is the reference.
type builderMutation string

// refBuilder is the reference builder runtime with the graph walk of
// executeGraph: nodes run once every edge into them has been decided and
// at least one of them is active; a condition activates its matching
// branch, a denied approval none of its edges.
type refBuilder struct{ mut builderMutation }

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
				if n.Kind != "trigger" || b.mut != "outputs-miss-trigger" {
					res.Outputs[n.ID] = out
				}
			}
			for i, e := range r.Graph.Edges {
				if e.From != n.ID {
					continue
				}
				decided[i] = true
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
		attempts := 1
		if b.mut == "retries-step" {
			attempts = 2
		}
		for a := 1; a <= attempts; a++ {
			res.Trace = append(res.Trace, builder.TraceEvent{Type: "step", NodeID: n.ID, Step: fmt.Sprint(n.Config["step"]), Config: maps.Clone(n.Config),
				Input: maps.Clone(r.Input), Results: maps.Clone(res.Outputs), RunKey: r.RunKey, Attempt: a})
		}
		return map[string]any{"node": n.ID, "step": n.Config["step"]}, nil
	case "sleep":
		secs, _ := n.Config["seconds"].(float64)
		if b.mut != "skips-sleep" {
			res.Trace = append(res.Trace, builder.TraceEvent{Type: "sleep", NodeID: n.ID, Seconds: secs})
		}
		return map[string]any{"slept": secs}, nil
	case "approval":
		name := r.RunKey + ":" + n.ID
		if b.mut == "signal-by-node" {
			name = n.ID
		}
		res.Trace = append(res.Trace, builder.TraceEvent{Type: "signal", NodeID: n.ID, Signal: name})
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
		return &refBuilder{mut: m.builderMut}, nil
	}, nil
}
