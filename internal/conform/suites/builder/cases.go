package builder

import (
	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/graphcompiler"
)

var cases = []conform.CaseOf[Runtime]{
	{ID: "builder/identity", Rule: "the runtime reports apiVersion 1 and a non-empty name", Run: identity},
	{ID: "builder/step-called-once", Rule: "every step node that runs is called once, as attempt 1, with its node, step name, config, the input and the run key", Run: stepCalledOnce},
	{ID: "builder/step-sees-results", Rule: "a step is called with the results of the nodes that ran before it", Run: stepSeesResults},
	{ID: "builder/sleep-durable-timer", Rule: "a sleep node is one durable timer of its configured length", Run: sleepDurableTimer},
	{ID: "builder/approval-signal", Rule: "an approval waits for one signal named <runKey>:<nodeId>", Run: approvalSignal},
	{ID: "builder/approval-denied-stops", Rule: "a denied approval's outgoing edges are not followed: nothing after it runs, and its output says so", Run: approvalDeniedStops},
	{ID: "builder/only-active-edges", Rule: "only nodes on active edges run: a condition follows its matching branch, and an independent node runs too", Run: onlyActiveEdges},
	{ID: "builder/outputs-of-nodes-that-ran", Rule: "executeGraph returns the output of every node that ran and of no other", Run: outputsOfNodesThatRan},
}

// approved approves the linear graph's approval node.
var approved = map[string]bool{"ok": true}

// execute runs one of the reference graphs with input and approvals; a
// failed run stops the case.
func execute(t *conform.T, rt Runtime, graph string, input map[string]any, approvals map[string]bool) (Request, Result) {
	r := Request{Graph: graphcompiler.ReferenceGraphs()[graph], Input: input, RunKey: t.ID("run"), Approvals: approvals}
	if r.Approvals == nil {
		r.Approvals = map[string]bool{}
	}
	res, err := rt.Execute(t.Context(), r)
	t.Must("execute the "+graph+" graph", err)
	return r, res
}

// events returns the trace's events of type typ, by node id.
func events(res Result, typ string) map[string][]TraceEvent {
	out := map[string][]TraceEvent{}
	for _, e := range res.Trace {
		if e.Type == typ {
			out[e.NodeID] = append(out[e.NodeID], e)
		}
	}
	return out
}

// stepOutput is what the harness's step function returns for node n.
func stepOutput(n graphcompiler.Node) map[string]any {
	return map[string]any{"node": n.ID, "step": n.Config["step"]}
}

// sameAs checks that got is, as JSON, the value want.
func sameAs(t *conform.T, what string, got, want any) {
	t.That(conform.SameJSON(conform.JSON(got), conform.JSON(want)), what, string(conform.JSON(want)), string(conform.JSON(got)))
}

func identity(t *conform.T, rt Runtime) {
	v, name, err := rt.Identity(t.Context())
	t.Must("identity", err)
	t.Eq("apiVersion", v, 1)
	t.That(name != "", "name", "a non-empty name", name)
}

func stepCalledOnce(t *conform.T, rt Runtime) {
	req, res := execute(t, rt, "linear", map[string]any{"user": "u-1"}, approved)
	steps := events(res, "step")
	for _, n := range req.Graph.Nodes {
		if n.Kind != "step" {
			continue
		}
		calls := steps[n.ID]
		if !t.Eq("calls of step node "+n.ID, len(calls), 1) {
			continue
		}
		e := calls[0]
		t.Eq(n.ID+": attempt", e.Attempt, 1)
		t.Eq(n.ID+": step name", e.Step, n.Config["step"])
		sameAs(t, n.ID+": config", e.Config, n.Config)
		sameAs(t, n.ID+": input", e.Input, req.Input)
		t.Eq(n.ID+": run key", e.RunKey, req.RunKey)
	}
	t.Eq("step calls of nodes that are not steps", len(steps)-2, 0)
}

func stepSeesResults(t *conform.T, rt Runtime) {
	req, res := execute(t, rt, "linear", map[string]any{"user": "u-1"}, approved)
	send := events(res, "step")["send"]
	if len(send) == 0 {
		t.Fatal(&conform.Mismatch{What: "the send step", Expected: "called", Actual: "not called"})
	}
	var fetch graphcompiler.Node
	for _, n := range req.Graph.Nodes {
		if n.ID == "fetch" {
			fetch = n
		}
	}
	sameAs(t, "the results the send step saw for fetch", send[0].Results["fetch"], stepOutput(fetch))
	_, hasSelf := send[0].Results["send"]
	t.Eq("the send step sees its own result", hasSelf, false)
}

func sleepDurableTimer(t *conform.T, rt Runtime) {
	_, res := execute(t, rt, "linear", map[string]any{}, approved)
	timers := events(res, "sleep")["wait"]
	if t.Eq("durable timers of the sleep node", len(timers), 1) {
		t.Eq("the timer's length in seconds", timers[0].Seconds, 3600.0)
	}
}

func approvalSignal(t *conform.T, rt Runtime) {
	req, res := execute(t, rt, "linear", map[string]any{}, approved)
	sig := events(res, "signal")["ok"]
	if t.Eq("signals the approval node waited for", len(sig), 1) {
		t.Eq("the signal's name", sig[0].Signal, req.RunKey+":ok")
	}
}

func approvalDeniedStops(t *conform.T, rt Runtime) {
	_, res := execute(t, rt, "linear", map[string]any{}, map[string]bool{"ok": false})
	t.Eq("calls of the step after a denied approval", len(events(res, "step")["send"]), 0)
	_, ran := res.Outputs["send"]
	t.Eq("the step after a denied approval has an output", ran, false)
	t.That(conform.SameJSON(conform.JSON(res.Outputs["ok"]), conform.JSON(map[string]any{"approved": false})), "the denied approval's output", `{"approved":false}`, string(conform.JSON(res.Outputs["ok"])))
}

func onlyActiveEdges(t *conform.T, rt Runtime) {
	for _, tc := range []struct {
		plan      string
		ran, skip string
	}{{"pro", "pro", "free"}, {"free", "free", "pro"}} {
		_, res := execute(t, rt, "branches", map[string]any{"plan": tc.plan}, nil)
		steps := events(res, "step")
		t.That(len(steps[tc.ran]) > 0, "plan "+tc.plan+": the "+tc.ran+" branch", "run", "not run")
		t.Eq("plan "+tc.plan+": calls of the "+tc.skip+" branch", len(steps[tc.skip]), 0)
		t.That(len(steps["audit"]) > 0, "plan "+tc.plan+": the independent audit step", "run", "not run")
	}
}

func outputsOfNodesThatRan(t *conform.T, rt Runtime) {
	req, res := execute(t, rt, "linear", map[string]any{"user": "u-1"}, approved)
	want := map[string]any{"start": req.Input, "wait": map[string]any{"slept": 3600.0}, "ok": map[string]any{"approved": true}}
	for _, n := range req.Graph.Nodes {
		if n.Kind == "step" {
			want[n.ID] = stepOutput(n)
		}
	}
	t.Eq("the nodes with an output", conform.SortedKeys(res.Outputs), conform.SortedKeys(want))
	sameAs(t, "the outputs", res.Outputs, want)
}
