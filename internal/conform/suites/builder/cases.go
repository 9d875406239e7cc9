package builder

import (
	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/graphcompiler"
)

// The rules follow upstream's executeGraph and GraphRuntime as
// packages/better-supabase/src/blocks/workflow-builder/executor.ts has
// them (ScaleDockHQ/better-supabase, commit 60ae38acef62), with the graph
// of graph.ts (commit c971815e61d5): the GraphStepCall a step gets, a
// sleep's milliseconds, an approval's hook token and outcome, and which
// edges are active.
var cases = []conform.CaseOf[Runtime]{
	{ID: "builder/identity", Rule: "the runtime reports apiVersion 1 and a non-empty name", Run: identity},
	{ID: "builder/step-called-once", Rule: "every step node that runs calls its library step once with upstream's GraphStepCall: its node id, the node's step, " +
		"its config ({} when it has none), the trigger's input and the run key; a step node that does not run calls nothing", Run: stepCalledOnce},
	{ID: "builder/step-sees-results", Rule: "a step is called with the outputs of the nodes that ran before it, by node id (a sleep's is null, an approval's its payload), and not its own", Run: stepSeesResults},
	{ID: "builder/sleep-durable-timer", Rule: "a sleep node is one durable timer of its duration in milliseconds (\"1h\" is 3600000)", Run: sleepDurableTimer},
	{ID: "builder/approval-signal", Rule: "an approval waits once for the hook whose token is <runKey>:<nodeId>", Run: approvalSignal},
	{ID: "builder/approval-branches", Rule: "an approval approves unless its payload has approved: false; its edges follow the outcome's branch, " +
		"an edge without a branch is followed whatever the outcome, and its output is the payload", Run: approvalBranches},
	{ID: "builder/only-active-edges", Rule: "a condition's output is its test's outcome; its edges follow the outcome's branch, an edge without a branch " +
		"is followed whatever the outcome, and an independent node runs too", Run: onlyActiveEdges},
	{ID: "builder/outputs-of-nodes-that-ran", Rule: "executeGraph returns the output of every node that ran and of no other: the trigger's is the input, " +
		"a step's what its step returned, a sleep's null, an approval's its payload", Run: outputsOfNodesThatRan},
}

// approvedPayload resumes the linear graph's approval node "ok" with an
// approval; it says approved: true, so that only approval-branches holds
// a runtime to the payloads that approve without saying so.
var approvedPayload = map[string]any{"approved": true, "by": "ana"}

// linearRan are the step nodes of the linear graph that run when "ok" is
// approved.
var linearRan = []string{"fetch", "send", "archive"}

// execute runs one of the reference graphs with input and approval
// payloads; a failed run stops the case.
func execute(t *conform.T, rt Runtime, graph string, input map[string]any, approvals map[string]any) (Request, Result) {
	r := Request{Graph: graphcompiler.ReferenceGraphs()[graph], Input: input, RunKey: t.ID("run"), Approvals: approvals}
	if r.Approvals == nil {
		r.Approvals = map[string]any{}
	}
	res, err := rt.Execute(t.Context(), r)
	t.Must("execute the "+graph+" graph", err)
	return r, res
}

// approved runs the linear graph with "ok" approved.
func approved(t *conform.T, rt Runtime, input map[string]any) (Request, Result) {
	return execute(t, rt, "linear", input, map[string]any{"ok": approvedPayload})
}

// events returns the trace's events of type typ.
func events(res Result, typ string) []TraceEvent {
	var out []TraceEvent
	for _, e := range res.Trace {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// stepCalls returns the trace's step calls by node id.
func stepCalls(res Result) map[string][]TraceEvent {
	out := map[string][]TraceEvent{}
	for _, e := range events(res, "step") {
		out[e.Node] = append(out[e.Node], e)
	}
	return out
}

// node returns the node id of graph g, and whether g has it.
func node(g graphcompiler.Graph, id string) (graphcompiler.Node, bool) {
	for _, n := range g.Nodes {
		if n.ID == id {
			return n, true
		}
	}
	return graphcompiler.Node{}, false
}

// mustNode returns the node id of a reference graph, which has it.
func mustNode(g graphcompiler.Graph, id string) graphcompiler.Node {
	n, ok := node(g, id)
	if !ok {
		panic("builder: no node " + id + " in a reference graph")
	}
	return n
}

// stepOutput is what the harness's step function returns for node n.
func stepOutput(n graphcompiler.Node) map[string]any {
	return map[string]any{"node": n.ID, "step": n.Step}
}

// sameAs checks that got is, as JSON, the value want.
func sameAs(t *conform.T, what string, got, want any) {
	t.That(conform.SameJSON(conform.JSON(got), conform.JSON(want)), what, string(conform.JSON(want)), string(conform.JSON(got)))
}

// ran checks whether the step node id was called in res, as want says.
func ran(t *conform.T, what string, res Result, id string, want bool) {
	got := len(stepCalls(res)[id]) > 0
	say := map[bool]string{true: "run", false: "not run"}
	t.That(got == want, what+": the "+id+" step", say[want], say[got])
}

func identity(t *conform.T, rt Runtime) {
	v, name, err := rt.Identity(t.Context())
	t.Must("identity", err)
	t.Eq("apiVersion", v, 1)
	t.That(name != "", "name", "a non-empty name", name)
}

func stepCalledOnce(t *conform.T, rt Runtime) {
	req, res := approved(t, rt, map[string]any{"user": "u-1"})
	calls := stepCalls(res)
	for _, n := range req.Graph.Nodes {
		if n.Kind != "step" {
			continue
		}
		want := 0
		for _, id := range linearRan {
			if id == n.ID {
				want = 1
			}
		}
		if !t.Eq("calls of step node "+n.ID, len(calls[n.ID]), want) || want == 0 {
			continue
		}
		e := calls[n.ID][0]
		t.Eq(n.ID+": step", e.Step, n.Step)
		config := n.Config
		if config == nil {
			config = map[string]any{}
		}
		sameAs(t, n.ID+": config", e.Config, config)
		sameAs(t, n.ID+": input", e.Input, req.Input)
		t.Eq(n.ID+": run key", e.RunKey, req.RunKey)
	}
	for _, id := range conform.SortedKeys(calls) {
		switch n, ok := node(req.Graph, id); {
		case !ok:
			t.Eq("step calls naming the node "+conform.Show(id)+", which the graph does not have", len(calls[id]), 0)
		case n.Kind != "step":
			t.Eq("step calls of the "+n.Kind+" node "+id, len(calls[id]), 0)
		}
	}
}

func stepSeesResults(t *conform.T, rt Runtime) {
	req, res := approved(t, rt, map[string]any{"user": "u-1"})
	send := stepCalls(res)["send"]
	if len(send) == 0 {
		t.Fatal(&conform.Mismatch{What: "the send step", Expected: "called", Actual: "not called"})
	}
	before := map[string]any{"start": req.Input, "fetch": stepOutput(mustNode(req.Graph, "fetch")), "wait": nil, "ok": approvedPayload}
	for _, id := range conform.SortedKeys(before) {
		got, has := send[0].Results[id]
		if t.That(has, "the results the send step saw", "an output of "+id, "none") {
			sameAs(t, "the result of "+id+" the send step saw", got, before[id])
		}
	}
	_, hasSelf := send[0].Results["send"]
	t.Eq("the send step sees its own result", hasSelf, false)
}

func sleepDurableTimer(t *conform.T, rt Runtime) {
	_, res := approved(t, rt, map[string]any{})
	timers := events(res, "sleep")
	if t.Eq("durable timers", len(timers), 1) {
		t.Eq("the timer's length in milliseconds", timers[0].Ms, 3600000.0)
	}
}

func approvalSignal(t *conform.T, rt Runtime) {
	req, res := approved(t, rt, map[string]any{})
	hooks := events(res, "approval")
	if t.Eq("hooks the approval node waited for", len(hooks), 1) {
		t.Eq("the hook's token", hooks[0].Token, req.RunKey+":ok")
	}
}

func approvalBranches(t *conform.T, rt Runtime) {
	for _, tc := range []struct {
		what     string
		payload  map[string]any
		approves bool
	}{
		{"approved: true", approvedPayload, true},
		{"a payload without approved", map[string]any{"by": "ana"}, true},
		{"approved: false", map[string]any{"approved": false, "reason": "no budget"}, false},
	} {
		_, res := execute(t, rt, "linear", map[string]any{}, map[string]any{"ok": tc.payload})
		ran(t, tc.what, res, "send", tc.approves)
		ran(t, tc.what, res, "rejected", !tc.approves)
		ran(t, tc.what, res, "archive", true)
		sameAs(t, tc.what+": the approval's output", res.Outputs["ok"], tc.payload)
	}
}

func onlyActiveEdges(t *conform.T, rt Runtime) {
	for _, tc := range []struct {
		plan      string
		ran, skip string
	}{{"pro", "pro", "free"}, {"free", "free", "pro"}} {
		what := "plan " + tc.plan
		_, res := execute(t, rt, "branches", map[string]any{"plan": tc.plan}, nil)
		ran(t, what, res, tc.ran, true)
		ran(t, what, res, tc.skip, false)
		ran(t, what+" (an edge without a branch)", res, "log", true)
		ran(t, what+" (an independent node)", res, "audit", true)
		sameAs(t, what+": the condition's output", res.Outputs["check"], tc.plan == "pro")
	}
}

func outputsOfNodesThatRan(t *conform.T, rt Runtime) {
	req, res := approved(t, rt, map[string]any{"user": "u-1"})
	want := map[string]any{"start": req.Input, "wait": nil, "ok": approvedPayload}
	for _, id := range linearRan {
		want[id] = stepOutput(mustNode(req.Graph, id))
	}
	t.Eq("the nodes with an output", conform.SortedKeys(res.Outputs), conform.SortedKeys(want))
	sameAs(t, "the outputs", res.Outputs, want)
}
