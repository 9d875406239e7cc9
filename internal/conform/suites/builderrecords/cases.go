package builderrecords

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform"
)

var cases = []conform.CaseOf[Records]{
	{ID: "builder-records/publish-keeps-compiled", Rule: "publishing stores the compiled form given, and the start target is exactly the published graph and compiled form", Run: publishKeepsCompiled},
	{ID: "builder-records/save-after-publish-opens-draft", Rule: "a save after publishing opens a new draft: the published version keeps its id, graph and compiled form", Run: saveAfterPublish},
	{ID: "builder-records/publish-archives-previous", Rule: "publishing another version archives the one published before, its graph and compiled form unchanged", Run: publishArchives},
	{ID: "builder-records/draft-not-start-target", Rule: "a definition with only a draft has no start target (" + HintNotPublished + ")", Run: draftNotTarget},
	{ID: "builder-records/member-no-compiled", Rule: "a member who may publish may not store a compiled form (" + HintCompiledForbidden + "), and the refused version stays a draft without one", Run: memberNoCompiled},
	{ID: "builder-records/webhook-token-live", Rule: "a webhook token resolves to its trigger only while the trigger is enabled, and rotating stops the old token", Run: webhookTokenLive},
	{ID: "builder-records/token-hash-only", Rule: "no webhook token appears in the rows kept of triggers and tokens: only its hash", Run: tokenHashOnly},
	{ID: "builder-records/node-runs", Rule: "a node keeps the highest attempt reported and its first start, has an end only after completed, failed or skipped, and a run lists only its own nodes", Run: nodeRuns},
	{ID: "builder-records/alerts-fire-once", Rule: "a failed run fires each failed alert of its definition once, reported failed again or not, and a slow run fires its slow alert once however often alerts are checked", Run: alertsFireOnce},
}

// graphA and graphB are valid graphs: one trigger node, every edge between
// nodes that exist.
var (
	graphA = json.RawMessage(`{"nodes": [{"id": "start", "kind": "trigger"}, {"id": "pause", "kind": "sleep"}], "edges": [{"id": "e1", "source": "start", "target": "pause"}]}`)
	graphB = json.RawMessage(`{"nodes": [{"id": "start", "kind": "trigger"}, {"id": "hold", "kind": "approval"}], "edges": [{"id": "e1", "source": "start", "target": "hold"}]}`)
)

func compiledForm(tag string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"format": "conformance", "tag": %q, "steps": ["start", "next"]}`, tag))
}

// canon is v as compact JSON with sorted keys, "null" for none.
func canon(v json.RawMessage) string {
	if len(bytes.TrimSpace(v)) == 0 {
		return "null"
	}
	var x any
	if err := json.Unmarshal(v, &x); err != nil {
		return "invalid JSON: " + string(v)
	}
	out, _ := json.Marshal(x)
	return string(out)
}

func sameJSON(t *conform.T, what string, got, want json.RawMessage) {
	t.Eq(what, canon(got), canon(want))
}

// published makes a definition and publishes graph with compiled.
func published(t *conform.T, r Records, graph, compiled json.RawMessage) (string, Version) {
	ctx := t.Context()
	def, err := r.NewDefinition(ctx)
	t.Must("new definition", err)
	d, err := r.SaveDraft(ctx, def, graph)
	t.Must("save draft", err)
	v, err := r.Publish(ctx, d.ID, compiled)
	t.Must("publish", err)
	return def, v
}

func publishKeepsCompiled(t *conform.T, r Records) {
	compiled := compiledForm(t.UUID())
	def, v := published(t, r, graphA, compiled)
	target, err := r.StartTarget(t.Context(), def)
	t.Must("start target", err)
	t.Eq("the published version's status", v.Status, "published")
	sameJSON(t, "the published version's compiled form", v.Compiled, compiled)
	t.Eq("the start target's version", target.ID, v.ID)
	sameJSON(t, "the start target's graph", target.Graph, graphA)
	sameJSON(t, "the start target's compiled form", target.Compiled, compiled)
}

func saveAfterPublish(t *conform.T, r Records) {
	ctx := t.Context()
	compiled := compiledForm(t.UUID())
	def, v := published(t, r, graphA, compiled)
	d, err := r.SaveDraft(ctx, def, graphB)
	t.Must("save after publish", err)
	again, err := r.Version(ctx, v.ID)
	t.Must("read the published version", err)
	target, err := r.StartTarget(ctx, def)
	t.Must("start target", err)
	t.That(d.ID != v.ID, "the saved version", "a new draft, not the published version "+v.ID, d.ID)
	t.Eq("the saved version's status", d.Status, "draft")
	t.That(d.Version > v.Version, "the new draft's number", fmt.Sprintf("above %d", v.Version), d.Version)
	t.Eq("the published version's status", again.Status, "published")
	sameJSON(t, "the published version's graph", again.Graph, graphA)
	sameJSON(t, "the published version's compiled form", again.Compiled, compiled)
	t.Eq("the start target", target.ID, v.ID)
	sameJSON(t, "the start target's graph", target.Graph, graphA)
}

func publishArchives(t *conform.T, r Records) {
	ctx := t.Context()
	first, second := compiledForm("first-"+t.UUID()), compiledForm("second-"+t.UUID())
	def, v1 := published(t, r, graphA, first)
	d, err := r.SaveDraft(ctx, def, graphB)
	t.Must("save the second version", err)
	v2, err := r.Publish(ctx, d.ID, second)
	t.Must("publish the second version", err)
	old, err := r.Version(ctx, v1.ID)
	t.Must("read the first version", err)
	target, err := r.StartTarget(ctx, def)
	t.Must("start target", err)
	t.Eq("the first version's status", old.Status, "archived")
	sameJSON(t, "the first version's graph", old.Graph, graphA)
	sameJSON(t, "the first version's compiled form", old.Compiled, first)
	t.Eq("the start target", target.ID, v2.ID)
	sameJSON(t, "the start target's graph", target.Graph, graphB)
	sameJSON(t, "the start target's compiled form", target.Compiled, second)
}

func draftNotTarget(t *conform.T, r Records) {
	ctx := t.Context()
	def, err := r.NewDefinition(ctx)
	t.Must("new definition", err)
	_, err = r.SaveDraft(ctx, def, graphA)
	t.Must("save draft", err)
	target, err := r.StartTarget(ctx, def)
	if err == nil {
		t.Error(&conform.Mismatch{What: "the start target of a definition with only a draft", Expected: "a failure " + HintNotPublished, Actual: "version " + target.ID})
		return
	}
	t.Eq("the start target's failure", conform.HintOf(err), HintNotPublished)
}

func memberNoCompiled(t *conform.T, r Records) {
	m, ok := r.(Member)
	if !ok {
		t.Skip("the store has no callers but the server")
	}
	ctx := t.Context()
	id, err := m.PublishAsMember(ctx, compiledForm(t.UUID()))
	if errors.Is(err, conform.ErrNoGrants) {
		t.Skip("%v", err)
	}
	if id == "" {
		t.Must("publish as a member", err)
		t.Fatal(fmt.Errorf("the member's publish named no version"))
	}
	after, rerr := r.Version(ctx, id)
	t.Must("read the version", rerr)
	if err == nil {
		t.Error(&conform.Mismatch{What: "a member's publish with a compiled form", Expected: "a failure " + HintCompiledForbidden, Actual: "published"})
	} else {
		t.Eq("a member's publish with a compiled form", conform.HintOf(err), HintCompiledForbidden)
	}
	t.Eq("the version's status", after.Status, "draft")
	sameJSON(t, "the version's compiled form", after.Compiled, nil)
}

func webhookTokenLive(t *conform.T, r Records) {
	ctx := t.Context()
	def, err := r.NewDefinition(ctx)
	t.Must("new definition", err)
	trig, err := r.NewTrigger(ctx, def, "webhook")
	t.Must("new webhook trigger", err)
	tok1, err := r.RotateToken(ctx, trig)
	t.Must("first token", err)
	live, err := r.WebhookTarget(ctx, tok1)
	t.Must("resolve the token", err)
	t.Must("disable the trigger", r.EnableTrigger(ctx, def, trig, false))
	off, err := r.WebhookTarget(ctx, tok1)
	t.Must("resolve the token of a disabled trigger", err)
	t.Must("enable the trigger", r.EnableTrigger(ctx, def, trig, true))
	on, err := r.WebhookTarget(ctx, tok1)
	t.Must("resolve the token again", err)
	tok2, err := r.RotateToken(ctx, trig)
	t.Must("rotate", err)
	old, err := r.WebhookTarget(ctx, tok1)
	t.Must("resolve the old token", err)
	fresh, err := r.WebhookTarget(ctx, tok2)
	t.Must("resolve the new token", err)
	t.Eq("the token's trigger", live, trig)
	t.Eq("the token's trigger while disabled", off, "")
	t.Eq("the token's trigger enabled again", on, trig)
	t.That(tok2 != tok1, "the rotated token", "a new token", tok2)
	t.Eq("the old token's trigger after rotating", old, "")
	t.Eq("the new token's trigger", fresh, trig)
}

func tokenHashOnly(t *conform.T, r Records) {
	ctx := t.Context()
	def, err := r.NewDefinition(ctx)
	t.Must("new definition", err)
	trig, err := r.NewTrigger(ctx, def, "webhook")
	t.Must("new webhook trigger", err)
	tok, err := r.RotateToken(ctx, trig)
	t.Must("token", err)
	target, err := r.WebhookTarget(ctx, tok)
	t.Must("resolve the token", err)
	rest, err := r.AtRest(ctx)
	t.Must("rows at rest", err)
	t.Eq("the token's trigger", target, trig)
	t.That(len(tok) >= 16, "the token", "at least 16 characters", tok)
	t.That(strings.Contains(string(rest), trig), "the rows at rest", "the trigger's rows", "no row names trigger "+trig)
	t.That(!strings.Contains(string(rest), tok), "the rows at rest", "no token", "the token "+tok)
}

func nodeRuns(t *conform.T, r Records) {
	ctx := t.Context()
	def, err := r.NewDefinition(ctx)
	t.Must("new definition", err)
	run, err := r.NewRun(ctx, def)
	t.Must("new run", err)
	other, err := r.NewRun(ctx, def)
	t.Must("another run", err)
	record := func(run, node, status string, attempt int) {
		ok, err := r.RecordNode(ctx, run, node, status, attempt)
		t.Must("record "+node+" "+status, err)
		if !ok {
			t.Fatal(fmt.Errorf("recording node %s of run %s answered that there is no such run", node, run))
		}
	}
	node := func(run, id string) NodeRun {
		list, err := r.NodeRuns(ctx, run)
		t.Must("list the run's nodes", err)
		for _, n := range list {
			if n.Node == id {
				return n
			}
		}
		t.Fatal(fmt.Errorf("run %s lists no node %s (it lists %v)", run, id, list))
		return NodeRun{}
	}
	record(run, "work", "running", 1)
	first := node(run, "work")
	record(run, "work", "failed", 1)
	failed := node(run, "work")
	record(run, "work", "running", 3)
	retried := node(run, "work")
	record(run, "work", "running", 2) // a late report of an earlier attempt
	late := node(run, "work")
	record(run, "work", "completed", 0)
	done := node(run, "work")
	record(other, "elsewhere", "running", 1)
	list, err := r.NodeRuns(ctx, run)
	t.Must("list the run's nodes", err)

	t.Eq("attempts after the first report", first.Attempts, 1)
	t.That(first.StartedAt != nil, "startedAt after the first report", "set", nil)
	t.That(first.EndedAt == nil, "endedAt while running", "unset", first.EndedAt)
	t.That(failed.EndedAt != nil, "endedAt after failed", "set", nil)
	t.That(retried.EndedAt == nil, "endedAt running again", "unset", retried.EndedAt)
	t.Eq("attempts after a retry's report", retried.Attempts, 3)
	t.Eq("attempts after a late report of attempt 2", late.Attempts, 3)
	t.Eq("attempts after completed without an attempt", done.Attempts, 3)
	t.Eq("status", done.Status, "completed")
	t.That(done.EndedAt != nil, "endedAt after completed", "set", nil)
	if first.StartedAt != nil && done.StartedAt != nil {
		t.That(done.StartedAt.Equal(*first.StartedAt), "startedAt", "the first report's "+first.StartedAt.Format(time.RFC3339Nano), done.StartedAt)
	}
	var nodes []string
	for _, n := range list {
		nodes = append(nodes, n.Node)
	}
	t.Eq("the run's nodes", strings.Join(nodes, ","), "work")
}

func alertsFireOnce(t *conform.T, r Records) {
	ctx := t.Context()
	def, err := r.NewDefinition(ctx)
	t.Must("new definition", err)
	a1, err := r.NewAlert(ctx, def, "failed", 0)
	t.Must("failed alert", err)
	a2, err := r.NewAlert(ctx, def, "failed", 0)
	t.Must("second failed alert", err)
	slow, err := r.NewAlert(ctx, def, "slow", time.Hour)
	t.Must("slow alert", err)
	failing, err := r.NewRun(ctx, def)
	t.Must("new run", err)
	t.Must("fail the run", r.FailRun(ctx, failing))
	fires := func(alert string) []time.Time {
		f, err := r.Fires(ctx, alert)
		t.Must("fires", err)
		return f
	}
	f1, f2 := fires(a1), fires(a2)
	t.Must("fail the run again", r.FailRun(ctx, failing))
	g1, g2 := fires(a1), fires(a2)

	lagging, err := r.NewRun(ctx, def)
	t.Must("new run", err)
	_, err = r.CheckAlerts(ctx)
	t.Must("check alerts", err)
	early := fires(slow)
	t.Must("age the run", r.AgeRun(ctx, lagging, 2*time.Hour))
	_, err = r.CheckAlerts(ctx)
	t.Must("check alerts", err)
	s1 := fires(slow)
	_, err = r.CheckAlerts(ctx)
	t.Must("check alerts again", err)
	s2 := fires(slow)

	t.Eq("fires of the first failed alert", len(f1), 1)
	t.Eq("fires of the second failed alert", len(f2), 1)
	t.Eq("fires of the first failed alert after the run is reported failed again", fmt.Sprint(g1), fmt.Sprint(f1))
	t.Eq("fires of the second failed alert after the run is reported failed again", fmt.Sprint(g2), fmt.Sprint(f2))
	t.Eq("fires of the slow alert before its threshold (the failed run is finished)", len(early), 0)
	t.Eq("fires of the slow alert past its threshold", len(s1), 1)
	t.Eq("fires of the slow alert after another check", fmt.Sprint(s2), fmt.Sprint(s1))
}
