package conform

import (
	"context"
	"errors"
)

// execute runs one of the reference graphs with input and approvals.
func execute(ctx context.Context, s *Subject, graph string, input map[string]any, approvals map[string]bool) (BuilderRequest, BuilderResult, error) {
	r := BuilderRequest{Graph: referenceGraphs()[graph], Input: input, RunKey: s.ID("run"), Approvals: approvals}
	if r.Approvals == nil {
		r.Approvals = map[string]bool{}
	}
	res, err := s.Builder.Execute(ctx, r)
	return r, res, op("execute the "+graph+" graph", err)
}

// events returns the trace's events of type t, by node id.
func events(res BuilderResult, t string) map[string][]TraceEvent {
	out := map[string][]TraceEvent{}
	for _, e := range res.Trace {
		if e.Type == t {
			out[e.NodeID] = append(out[e.NodeID], e)
		}
	}
	return out
}

// stepOutput is what the harness's step function returns for node n.
func stepOutput(n GraphNode) map[string]any {
	return map[string]any{"node": n.ID, "step": n.Config["step"]}
}

func builderCases() []Case {
	approved := map[string]bool{"ok": true}
	cs := []Case{
		{ID: "builder/identity", Rule: "the runtime reports apiVersion 1 and a non-empty name", Run: func(ctx context.Context, s *Subject) error {
			v, name, err := s.Builder.Identity(ctx)
			if err != nil {
				return op("identity", err)
			}
			var c checks
			c.eq("apiVersion", v, 1)
			c.that(name != "", "name", "a non-empty name", name)
			return c.err()
		}},
		{ID: "builder/step-called-once", Rule: "every step node that runs is called once, as attempt 1, with its node, step name, config, the input and the run key", Run: func(ctx context.Context, s *Subject) error {
			req, res, err := execute(ctx, s, "linear", map[string]any{"user": "u-1"}, approved)
			if err != nil {
				return err
			}
			steps := events(res, "step")
			var c checks
			for _, n := range req.Graph.Nodes {
				if n.Kind != "step" {
					continue
				}
				calls := steps[n.ID]
				if !c.eq("calls of step node "+n.ID, len(calls), 1) {
					continue
				}
				e := calls[0]
				c.eq(n.ID+": attempt", e.Attempt, 1)
				c.eq(n.ID+": step name", e.Step, n.Config["step"])
				c.that(sameJSON(raw(e.Config), raw(n.Config)), n.ID+": config", string(raw(n.Config)), string(raw(e.Config)))
				c.that(sameJSON(raw(e.Input), raw(req.Input)), n.ID+": input", string(raw(req.Input)), string(raw(e.Input)))
				c.eq(n.ID+": run key", e.RunKey, req.RunKey)
			}
			c.eq("step calls of nodes that are not steps", len(steps)-2, 0)
			return c.err()
		}},
		{ID: "builder/step-sees-results", Rule: "a step is called with the results of the nodes that ran before it", Run: func(ctx context.Context, s *Subject) error {
			req, res, err := execute(ctx, s, "linear", map[string]any{"user": "u-1"}, approved)
			if err != nil {
				return err
			}
			send := events(res, "step")["send"]
			if len(send) == 0 {
				return &Mismatch{What: "the send step", Expected: "called", Actual: "not called"}
			}
			var fetch GraphNode
			for _, n := range req.Graph.Nodes {
				if n.ID == "fetch" {
					fetch = n
				}
			}
			var c checks
			c.that(sameJSON(raw(send[0].Results["fetch"]), raw(stepOutput(fetch))), "the results the send step saw for fetch", string(raw(stepOutput(fetch))), string(raw(send[0].Results["fetch"])))
			_, hasSelf := send[0].Results["send"]
			c.eq("the send step sees its own result", hasSelf, false)
			return c.err()
		}},
		{ID: "builder/sleep-durable-timer", Rule: "a sleep node is one durable timer of its configured length", Run: func(ctx context.Context, s *Subject) error {
			_, res, err := execute(ctx, s, "linear", map[string]any{}, approved)
			if err != nil {
				return err
			}
			timers := events(res, "sleep")["wait"]
			var c checks
			if c.eq("durable timers of the sleep node", len(timers), 1) {
				c.eq("the timer's length in seconds", timers[0].Seconds, 3600.0)
			}
			return c.err()
		}},
		{ID: "builder/approval-signal", Rule: "an approval waits for one signal named <runKey>:<nodeId>", Run: func(ctx context.Context, s *Subject) error {
			req, res, err := execute(ctx, s, "linear", map[string]any{}, approved)
			if err != nil {
				return err
			}
			sig := events(res, "signal")["ok"]
			var c checks
			if c.eq("signals the approval node waited for", len(sig), 1) {
				c.eq("the signal's name", sig[0].Signal, req.RunKey+":ok")
			}
			return c.err()
		}},
		{ID: "builder/approval-denied-stops", Rule: "a denied approval's outgoing edges are not followed: nothing after it runs, and its output says so", Run: func(ctx context.Context, s *Subject) error {
			_, res, err := execute(ctx, s, "linear", map[string]any{}, map[string]bool{"ok": false})
			if err != nil {
				return err
			}
			var c checks
			c.eq("calls of the step after a denied approval", len(events(res, "step")["send"]), 0)
			_, ran := res.Outputs["send"]
			c.eq("the step after a denied approval has an output", ran, false)
			c.that(sameJSON(raw(res.Outputs["ok"]), raw(map[string]any{"approved": false})), "the denied approval's output", `{"approved":false}`, string(raw(res.Outputs["ok"])))
			return c.err()
		}},
		{ID: "builder/only-active-edges", Rule: "only nodes on active edges run: a condition follows its matching branch, and an independent node runs too", Run: func(ctx context.Context, s *Subject) error {
			var c checks
			for _, tc := range []struct {
				plan      string
				ran, skip string
			}{{"pro", "pro", "free"}, {"free", "free", "pro"}} {
				_, res, err := execute(ctx, s, "branches", map[string]any{"plan": tc.plan}, nil)
				if err != nil {
					return err
				}
				steps := events(res, "step")
				c.that(len(steps[tc.ran]) > 0, "plan "+tc.plan+": the "+tc.ran+" branch", "run", "not run")
				c.eq("plan "+tc.plan+": calls of the "+tc.skip+" branch", len(steps[tc.skip]), 0)
				c.that(len(steps["audit"]) > 0, "plan "+tc.plan+": the independent audit step", "run", "not run")
			}
			return c.err()
		}},
		{ID: "builder/outputs-of-nodes-that-ran", Rule: "executeGraph returns the output of every node that ran and of no other", Run: func(ctx context.Context, s *Subject) error {
			req, res, err := execute(ctx, s, "linear", map[string]any{"user": "u-1"}, approved)
			if err != nil {
				return err
			}
			want := map[string]any{"start": req.Input, "wait": map[string]any{"slept": 3600.0}, "ok": map[string]any{"approved": true}}
			for _, n := range req.Graph.Nodes {
				if n.Kind == "step" {
					want[n.ID] = stepOutput(n)
				}
			}
			var c checks
			c.eq("the nodes with an output", sortedKeys(res.Outputs), sortedKeys(want))
			c.that(sameJSON(raw(res.Outputs), raw(want)), "the outputs", string(raw(want)), string(raw(res.Outputs)))
			return c.err()
		}},
	}
	for i := range cs {
		cs[i].Suite = SuiteBuilder
		run := cs[i].Run
		cs[i].Run = func(ctx context.Context, s *Subject) error {
			if s.Builder == nil {
				return errors.New("the store made a subject without a builder runtime")
			}
			return run(ctx, s)
		}
	}
	return cs
}
