package world

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform"
)

// cases are the suite's cases in run order, grouped: the World itself,
// runs, steps, hooks, waits, the event log, the list methods, streams,
// the queue and close. A case whose rule the interface's documentation
// leaves open and world-local's behaviour settles says so in its rule.
var cases = []conform.CaseOf[World]{
	// The World itself.
	{ID: "world/identity", Rule: "specVersion is an event-sourced spec version (2 or more) and getDeploymentId answers a deployment id", Run: identity},

	// Runs.
	{ID: "world/run-created", Rule: "events.create(null, run_created) stores the event and a pending run with a new id, its deploymentId, workflowName and input as given; runs.get reads the same run", Run: runCreated},
	{ID: "world/run-created-client-id", Rule: "events.create with a client-generated run id (wrun_ and a ULID) creates the run under that id", Run: runCreatedClientID},
	{ID: "world/run-created-twice", Rule: "a second run_created under an existing run id fails with EntityConflictError and leaves the run as it was", Run: runCreatedTwice},
	{ID: "world/run-completed", Rule: "run_started makes the run running with a startedAt; run_completed makes it completed with its output and a completedAt", Run: runCompleted},
	{ID: "world/run-failed", Rule: "run_failed makes the run failed with its error and errorCode and a completedAt", Run: runFailed},
	{ID: "world/run-cancelled", Rule: "run_cancelled makes a running run cancelled with a completedAt", Run: runCancelled},
	{ID: "world/run-cancelled-twice", Rule: "a second run_cancelled on a cancelled run does not fail and leaves the run cancelled (world-local's behaviour: cancelling is idempotent)", Run: runCancelledTwice},
	{ID: "world/run-started-twice", Rule: "a second run_started on a running run does not fail and leaves the run running with its first startedAt (world-local's behaviour: the interface's resilient start sends run_started again)", Run: runStartedTwice},
	{ID: "world/run-terminal-final", Rule: "a run in a terminal state takes no other run transition: run_cancelled or run_failed after run_completed fail with EntityConflictError, run_started with EntityConflictError or RunExpiredError, and the run stays completed", Run: runTerminalFinal},
	{ID: "world/run-terminal-no-children", Rule: "a run in a terminal state takes no new step, hook or wait: their creation fails with EntityConflictError", Run: runTerminalNoChildren},
	{ID: "world/run-attributes", Rule: "a run_created's attributes (a reserved $ key among them, with allowReservedAttributes) are the run's; attr_set upserts a key with a string value, removes one with null and leaves the others", Run: runAttributes},
	{ID: "world/reserved-attributes-refused", Rule: "an attribute key with the reserved $ prefix is refused without allowReservedAttributes, at run_created and at attr_set, and the run's attributes stay as they were", Run: reservedAttributesRefused},
	{ID: "world/run-not-found", Rule: "runs.get of an unknown run fails with WorkflowRunNotFoundError, and an event other than run_created for an unknown run id is refused", Run: runNotFound},

	// Steps.
	{ID: "world/step-completed", Rule: "step_created makes a pending step (attempt 0) named by the event's correlationId; step_started makes it running, attempt 1, with a startedAt; step_completed makes it completed with its result as output", Run: stepCompleted},
	{ID: "world/step-retrying", Rule: "step_retrying puts a running step back to pending with its error; the next step_started counts attempt 2 and keeps the first startedAt", Run: stepRetrying},
	{ID: "world/step-failed", Rule: "step_failed makes a running step failed with its error and a completedAt", Run: stepFailed},
	{ID: "world/step-created-twice", Rule: "a second step_created with the same correlationId fails with EntityConflictError and leaves the step as it was", Run: stepCreatedTwice},
	{ID: "world/step-terminal-final", Rule: "a completed step takes no further step event: step_completed, step_failed or step_started again fail with EntityConflictError", Run: stepTerminalFinal},
	{ID: "world/step-not-found", Rule: "steps.get of an unknown step fails, and step_started, step_completed or step_failed for a step never created (and with no input to create it) are refused", Run: stepNotFound},

	// Hooks.
	{ID: "world/hook-created", Rule: "hook_created makes a hook named by the event's correlationId with its token and metadata; hooks.get and hooks.getByToken read it", Run: hookCreated},
	{ID: "world/hook-conflict", Rule: "hook_created with a token another run's live hook holds creates no hook: it answers a hook_conflict event naming the token and the holding run, and the token still reads the first hook", Run: hookConflict},
	{ID: "world/hook-received", Rule: "hook_received on a hook is logged with its payload under the hook's correlationId; on a hook that does not exist it fails with HookNotFoundError", Run: hookReceived},
	{ID: "world/hook-disposed", Rule: "hook_disposed removes the hook: hooks.get and getByToken fail with HookNotFoundError, and another run may then take the token", Run: hookDisposed},
	{ID: "world/hook-released-at-end", Rule: "a run's hooks are disposed when it reaches a terminal state: getByToken fails with HookNotFoundError and another run may take the token", Run: hookReleasedAtEnd},
	{ID: "world/hook-not-found", Rule: "hooks.get and hooks.getByToken of an unknown hook fail with HookNotFoundError", Run: hookNotFound},

	// Waits.
	{ID: "world/wait-completed", Rule: "wait_created makes a waiting wait with its resumeAt; wait_completed completes it; a second wait_completed fails with EntityConflictError", Run: waitCompleted},

	// The event log.
	{ID: "world/events-in-order", Rule: "events.list gives a run's events oldest first with sortOrder asc and newest first with desc, each once, every one with its runId, a unique eventId and a createdAt", Run: eventsInOrder},
	{ID: "world/events-get", Rule: "events.get reads a logged event as events.create returned it; an unknown event id fails", Run: eventsGet},
	{ID: "world/events-correlation", Rule: "events.listByCorrelationId gives the events of one correlation id, of every type and no other, oldest first", Run: eventsCorrelation},
	{ID: "world/resolve-data-none", Rule: "with resolveData none, runs.get, steps.get and events.list leave out the payloads (input, output, the event's payload field) and keep the rest", Run: resolveDataNone},

	// The list methods.
	{ID: "world/events-pages", Rule: "events.list with a limit pages through a run's events with its cursor: each page at most limit long, hasMore until the last, every event once, in order", Run: eventsPages},
	{ID: "world/runs-list", Rule: "runs.list filters by workflowName and status and pages with its cursor: every matching run once, no other", Run: runsList},
	{ID: "world/steps-list", Rule: "steps.list pages through a run's steps with its cursor: every step of the run once, no other run's", Run: stepsList},
	{ID: "world/hooks-list", Rule: "hooks.list pages through a run's hooks with its cursor: every hook of the run once, no other run's", Run: hooksList},

	// Streams.
	{ID: "world/stream-round-trip", Rule: "chunks written as text and as bytes read back with streams.get as bytes, in order, and the read ends once the stream is closed", Run: streamRoundTrip},
	{ID: "world/stream-write-multi", Rule: "writeMulti (or write of each chunk where the World has no writeMulti) stores the chunks in order, after the ones written before", Run: streamWriteMulti},
	{ID: "world/stream-start-index", Rule: "streams.get from a positive startIndex skips that many chunks; a negative one starts that many chunks before the end; one past the start clamps to 0", Run: streamStartIndex},
	{ID: "world/stream-live", Rule: "a read opened before any chunk is written gets the chunks as they are written and ends when the stream is closed", Run: streamLive},
	{ID: "world/stream-chunks-pages", Rule: "getChunks pages through the written chunks with its cursor (index and data of each, hasMore until the last page) and says done only once the stream is closed", Run: streamChunksPages},
	{ID: "world/stream-info", Rule: "getInfo's tailIndex is -1 before any chunk and the last chunk's index after; done turns true when the stream is closed", Run: streamInfo},
	{ID: "world/stream-list", Rule: "streams.list names the streams written for a run, and no other run's", Run: streamList},

	// The queue.
	{ID: "world/queue-delivers", Rule: "queue() answers a messageId, and the handler createQueueHandler made for the queue's prefix gets the message as sent, with its queueName, that messageId and attempt 1", Run: queueDelivers},
	{ID: "world/queue-step-and-workflow", Rule: "messages of a step queue and of a workflow queue each reach the handler of their own prefix, once each", Run: queueStepAndWorkflow},

	// Close.
	{ID: "world/close", Rule: "close() of a World that was used resolves", Run: closeWorld},
}

// ---- helpers ----

// spec is the World's specVersion, which the cases' events carry.
func spec(t *conform.T, w World) int {
	v, err := w.SpecVersion(t.Context())
	t.Must("specVersion", err)
	return v
}

// payload is a JSON payload (the legacy SerializedData form every World
// stores as given) that names the case's id n.
func payload(t *conform.T, n string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"case":%q,"n":[1,2,3]}`, nm(t, n)))
}

// ev is an event request of type typ with correlation id corr and data.
func ev(t *conform.T, w World, typ, corr string, data map[string]any) EventRequest {
	return EventRequest{EventType: typ, CorrelationID: corr, SpecVersion: spec(t, w), EventData: data}
}

// create is events.create that must succeed.
func create(t *conform.T, w World, runID string, req EventRequest) EventResult {
	r, err := w.CreateEvent(t.Context(), runID, req, "")
	t.Must("events.create "+req.EventType, err)
	return r
}

// newRun creates a run of workflow wf and returns it.
func newRun(t *conform.T, w World, wf string) Run {
	r := create(t, w, "", ev(t, w, "run_created", "", map[string]any{
		"deploymentId": "dpl-conform", "workflowName": wf, "input": payload(t, "input"),
	}))
	if r.Run == nil || r.Run.RunID == "" {
		t.Fatalf("events.create run_created answered no run with an id: %s", conform.Show(r))
	}
	return *r.Run
}

// startedRun creates and starts a run.
func startedRun(t *conform.T, w World) Run {
	run := newRun(t, w, nm(t, "wf"))
	create(t, w, run.RunID, ev(t, w, "run_started", "", nil))
	return run
}

// getRun is runs.get that must succeed.
func getRun(t *conform.T, w World, id string) Run {
	r, err := w.GetRun(t.Context(), id, "")
	t.Must("runs.get", err)
	return r
}

// getStep is steps.get that must succeed.
func getStep(t *conform.T, w World, run, step string) Step {
	s, err := w.GetStep(t.Context(), run, step, "")
	t.Must("steps.get", err)
	return s
}

// refused checks that err is a failure named want, or one of also ("" for
// any failure).
func refused(t *conform.T, what string, err error, want string, also ...string) {
	names := append([]string{want}, also...)
	switch {
	case err == nil:
		t.Errorf("%s: succeeded; want it refused (%s)", what, orAny(names))
	case want != "" && !slices.Contains(names, conform.HintOf(err)):
		t.Errorf("%s: failed with %v (error name %q); want %s", what, err, conform.HintOf(err), orAny(names))
	}
}

func orAny(names []string) string {
	if names[0] == "" {
		return "any error"
	}
	return strings.Join(names, " or ")
}

// sameJSON says whether two JSON texts hold the same value.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// eqJSON records a mismatch unless got holds the same JSON value as want.
func eqJSON(t *conform.T, what string, got, want json.RawMessage) {
	if !sameJSON(got, want) {
		t.Error(&conform.Mismatch{What: what, Expected: string(want), Actual: string(got)})
	}
}

// allEvents lists every event of a run in order asc, following cursors.
func allEvents(t *conform.T, w World, runID string) []Event {
	var out []Event
	p := Pagination{SortOrder: "asc", Limit: 100}
	for range 100 {
		page, err := w.ListEvents(t.Context(), runID, p, "")
		t.Must("events.list", err)
		out = append(out, page.Data...)
		if !page.HasMore || page.Cursor == nil {
			return out
		}
		p.Cursor = *page.Cursor
	}
	t.Fatalf("events.list: still hasMore after 100 pages")
	return nil
}

// types are the event types of events, in order.
func types(events []Event) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.EventType
	}
	return out
}

// count counts the events of type typ.
func count(events []Event, typ string) int {
	n := 0
	for _, e := range events {
		if e.EventType == typ {
			n++
		}
	}
	return n
}

// ---- the World itself ----

func identity(t *conform.T, w World) {
	t.That(spec(t, w) >= 2, "specVersion", "2 or more (the event-sourced model)", spec(t, w))
	d, err := w.DeploymentID(t.Context())
	t.Must("getDeploymentId", err)
	t.That(d != "", "getDeploymentId", "a deployment id", d)
}

// ---- runs ----

func runCreated(t *conform.T, w World) {
	wf := nm(t, "wf")
	in := payload(t, "input")
	r := create(t, w, "", ev(t, w, "run_created", "", map[string]any{"deploymentId": "dpl-conform", "workflowName": wf, "input": in}))
	if r.Run == nil || r.Event == nil {
		t.Fatalf("run_created answered %s; want the event and the run", conform.Show(r))
	}
	t.That(r.Run.RunID != "", "the run's id", "a new id", r.Run.RunID)
	t.Eq("the run's status", r.Run.Status, "pending")
	t.Eq("the run's deploymentId", r.Run.DeploymentID, "dpl-conform")
	t.Eq("the run's workflowName", r.Run.WorkflowName, wf)
	eqJSON(t, "the run's input", r.Run.Input, in)
	t.Eq("the event's type", r.Event.EventType, "run_created")
	t.Eq("the event's runId", r.Event.RunID, r.Run.RunID)
	t.That(r.Event.EventID != "", "the event's id", "an id", r.Event.EventID)
	t.That(!r.Event.CreatedAt.IsZero(), "the event's createdAt", "a time", r.Event.CreatedAt)
	got := getRun(t, w, r.Run.RunID)
	t.Eq("runs.get: status", got.Status, "pending")
	t.Eq("runs.get: workflowName", got.WorkflowName, wf)
	eqJSON(t, "runs.get: input", got.Input, in)
}

// ulidChars is Crockford's base32, the alphabet of ULIDs.
const ulidChars = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// NewRunID returns a client-generated run id: wrun_ and a ULID of now.
func NewRunID() string {
	ms := uint64(time.Now().UnixMilli())
	var b [26]byte
	for i := 9; i >= 0; i-- {
		b[i] = ulidChars[ms&31]
		ms >>= 5
	}
	var rnd [16]byte
	_, _ = rand.Read(rnd[:])
	for i := 10; i < 26; i++ {
		b[i] = ulidChars[rnd[i-10]%32]
	}
	return "wrun_" + string(b[:])
}

func runCreatedClientID(t *conform.T, w World) {
	id := NewRunID()
	r := create(t, w, id, ev(t, w, "run_created", "", map[string]any{"deploymentId": "dpl-conform", "workflowName": nm(t, "wf"), "input": payload(t, "in")}))
	if r.Run == nil {
		t.Fatalf("run_created answered no run")
	}
	t.Eq("the run's id", r.Run.RunID, id)
	t.Eq("runs.get: the run's id", getRun(t, w, id).RunID, id)
}

func runCreatedTwice(t *conform.T, w World) {
	run := newRun(t, w, nm(t, "wf"))
	_, err := w.CreateEvent(t.Context(), run.RunID, ev(t, w, "run_created", "", map[string]any{"deploymentId": "dpl-other", "workflowName": nm(t, "other"), "input": payload(t, "other")}), "")
	refused(t, "run_created under an existing run id", err, ErrEntityConflict)
	got := getRun(t, w, run.RunID)
	t.Eq("the run's workflowName after", got.WorkflowName, run.WorkflowName)
	t.Eq("the run's deploymentId after", got.DeploymentID, "dpl-conform")
	t.Eq("run_created events of the run", count(allEvents(t, w, run.RunID), "run_created"), 1)
}

func runCompleted(t *conform.T, w World) {
	run := newRun(t, w, nm(t, "wf"))
	r := create(t, w, run.RunID, ev(t, w, "run_started", "", nil))
	if r.Run == nil {
		t.Fatalf("run_started answered no run")
	}
	t.Eq("status after run_started", r.Run.Status, "running")
	t.That(r.Run.StartedAt != nil, "startedAt after run_started", "a time", r.Run.StartedAt)
	out := payload(t, "output")
	r = create(t, w, run.RunID, ev(t, w, "run_completed", "", map[string]any{"output": out}))
	got := getRun(t, w, run.RunID)
	t.Eq("status after run_completed", got.Status, "completed")
	eqJSON(t, "output", got.Output, out)
	t.That(got.CompletedAt != nil, "completedAt", "a time", got.CompletedAt)
	if r.Run != nil {
		t.Eq("the run events.create answered: status", r.Run.Status, "completed")
	}
}

func runFailed(t *conform.T, w World) {
	run := startedRun(t, w)
	e := json.RawMessage(`{"message":"it broke"}`)
	create(t, w, run.RunID, ev(t, w, "run_failed", "", map[string]any{"error": e, "errorCode": "USER_ERROR"}))
	got := getRun(t, w, run.RunID)
	t.Eq("status", got.Status, "failed")
	eqJSON(t, "error", got.Error, e)
	t.Eq("errorCode", got.ErrorCode, "USER_ERROR")
	t.That(got.CompletedAt != nil, "completedAt", "a time", got.CompletedAt)
}

func runCancelled(t *conform.T, w World) {
	run := startedRun(t, w)
	create(t, w, run.RunID, ev(t, w, "run_cancelled", "", map[string]any{"cancelReason": "conform"}))
	got := getRun(t, w, run.RunID)
	t.Eq("status", got.Status, "cancelled")
	t.That(got.CompletedAt != nil, "completedAt", "a time", got.CompletedAt)
	t.That(len(got.Output) == 0 && len(got.Error) == 0, "output and error", "none", got)
}

func runCancelledTwice(t *conform.T, w World) {
	run := startedRun(t, w)
	create(t, w, run.RunID, ev(t, w, "run_cancelled", "", nil))
	_, err := w.CreateEvent(t.Context(), run.RunID, ev(t, w, "run_cancelled", "", nil), "")
	t.Must("a second run_cancelled", err)
	t.Eq("status", getRun(t, w, run.RunID).Status, "cancelled")
}

func runStartedTwice(t *conform.T, w World) {
	run := startedRun(t, w)
	first := getRun(t, w, run.RunID)
	_, err := w.CreateEvent(t.Context(), run.RunID, ev(t, w, "run_started", "", nil), "")
	t.Must("a second run_started", err)
	got := getRun(t, w, run.RunID)
	t.Eq("status", got.Status, "running")
	if first.StartedAt != nil && got.StartedAt != nil {
		t.That(got.StartedAt.Equal(*first.StartedAt), "startedAt", "the first start's "+first.StartedAt.String(), got.StartedAt)
	}
}

func runTerminalFinal(t *conform.T, w World) {
	run := startedRun(t, w)
	create(t, w, run.RunID, ev(t, w, "run_completed", "", map[string]any{"output": payload(t, "out")}))
	for _, req := range []EventRequest{
		ev(t, w, "run_cancelled", "", nil),
		ev(t, w, "run_failed", "", map[string]any{"error": json.RawMessage(`{"message":"late"}`)}),
		ev(t, w, "run_started", "", nil),
	} {
		_, err := w.CreateEvent(t.Context(), run.RunID, req, "")
		if req.EventType == "run_started" {
			// @workflow/errors' RunExpiredError tells the runtime that the
			// run is over and the delivery must not be retried.
			refused(t, "run_started on a completed run", err, ErrEntityConflict, ErrRunExpired)
			continue
		}
		refused(t, req.EventType+" on a completed run", err, ErrEntityConflict)
	}
	t.Eq("status after", getRun(t, w, run.RunID).Status, "completed")
}

func runTerminalNoChildren(t *conform.T, w World) {
	run := startedRun(t, w)
	create(t, w, run.RunID, ev(t, w, "run_cancelled", "", nil))
	for _, req := range []EventRequest{
		ev(t, w, "step_created", nm(t, "step"), map[string]any{"stepName": "conform-step", "input": payload(t, "in")}),
		ev(t, w, "hook_created", nm(t, "hook"), map[string]any{"token": nm(t, "token")}),
		ev(t, w, "wait_created", nm(t, "wait"), map[string]any{"resumeAt": time.Now().Add(time.Hour).UTC().Format(time.RFC3339Nano)}),
	} {
		_, err := w.CreateEvent(t.Context(), run.RunID, req, "")
		refused(t, req.EventType+" on a cancelled run", err, ErrEntityConflict)
	}
}

func runAttributes(t *conform.T, w World) {
	r := create(t, w, "", ev(t, w, "run_created", "", map[string]any{
		"deploymentId": "dpl-conform", "workflowName": nm(t, "wf"), "input": payload(t, "in"),
		"attributes": map[string]string{"kept": "1", "dropped": "2", "$root": "r"}, "allowReservedAttributes": true,
	}))
	if r.Run == nil {
		t.Fatalf("run_created answered no run")
	}
	id := r.Run.RunID
	t.Eq("the run's attributes", getRun(t, w, id).Attributes, map[string]string{"kept": "1", "dropped": "2", "$root": "r"})
	create(t, w, id, ev(t, w, "run_started", "", nil))
	create(t, w, id, ev(t, w, "attr_set", "", map[string]any{
		"changes": []map[string]any{{"key": "added", "value": "3"}, {"key": "dropped", "value": nil}, {"key": "kept", "value": "1b"}},
		"writer":  map[string]any{"type": "workflow"},
	}))
	t.Eq("the attributes after attr_set", getRun(t, w, id).Attributes, map[string]string{"kept": "1b", "added": "3", "$root": "r"})
}

func reservedAttributesRefused(t *conform.T, w World) {
	_, err := w.CreateEvent(t.Context(), "", ev(t, w, "run_created", "", map[string]any{
		"deploymentId": "dpl-conform", "workflowName": nm(t, "wf"), "input": payload(t, "in"),
		"attributes": map[string]string{"$root": "r"},
	}), "")
	refused(t, "run_created with a $ attribute and no allowReservedAttributes", err, "")
	page, err := w.ListRuns(t.Context(), RunFilter{WorkflowName: nm(t, "wf")}, Pagination{}, "")
	t.Must("runs.list", err)
	t.Eq("runs of the refused run_created", len(page.Data), 0)
	run := startedRun(t, w)
	_, err = w.CreateEvent(t.Context(), run.RunID, ev(t, w, "attr_set", "", map[string]any{
		"changes": []map[string]any{{"key": "$x", "value": "1"}},
		"writer":  map[string]any{"type": "workflow"},
	}), "")
	refused(t, "attr_set of a $ key without allowReservedAttributes", err, "")
	t.Eq("the run's attributes after", len(getRun(t, w, run.RunID).Attributes), 0)
}

func runNotFound(t *conform.T, w World) {
	id := NewRunID()
	_, err := w.GetRun(t.Context(), id, "")
	refused(t, "runs.get of an unknown run", err, ErrRunNotFound)
	for _, req := range []EventRequest{
		ev(t, w, "run_started", "", nil),
		ev(t, w, "step_created", nm(t, "step"), map[string]any{"stepName": "conform-step", "input": payload(t, "in")}),
		ev(t, w, "run_completed", "", map[string]any{"output": payload(t, "out")}),
	} {
		_, err := w.CreateEvent(t.Context(), id, req, "")
		refused(t, req.EventType+" for an unknown run", err, "")
	}
}

// ---- steps ----

// newStep creates step id on run.
func newStep(t *conform.T, w World, run, id string) Step {
	r := create(t, w, run, ev(t, w, "step_created", id, map[string]any{"stepName": "conform-step", "input": payload(t, "step-input")}))
	if r.Step == nil {
		t.Fatalf("step_created answered no step")
	}
	return *r.Step
}

func stepCompleted(t *conform.T, w World) {
	run := startedRun(t, w)
	id := nm(t, "step")
	s := newStep(t, w, run.RunID, id)
	t.Eq("stepId", s.StepID, id)
	t.Eq("runId", s.RunID, run.RunID)
	t.Eq("stepName", s.StepName, "conform-step")
	t.Eq("status after step_created", s.Status, "pending")
	t.Eq("attempt after step_created", s.Attempt, 0)
	eqJSON(t, "input", s.Input, payload(t, "step-input"))
	create(t, w, run.RunID, ev(t, w, "step_started", id, nil))
	s = getStep(t, w, run.RunID, id)
	t.Eq("status after step_started", s.Status, "running")
	t.Eq("attempt after step_started", s.Attempt, 1)
	t.That(s.StartedAt != nil, "startedAt", "a time", s.StartedAt)
	res := payload(t, "result")
	create(t, w, run.RunID, ev(t, w, "step_completed", id, map[string]any{"result": res}))
	s = getStep(t, w, run.RunID, id)
	t.Eq("status after step_completed", s.Status, "completed")
	eqJSON(t, "output", s.Output, res)
	t.That(s.CompletedAt != nil, "completedAt", "a time", s.CompletedAt)
}

func stepRetrying(t *conform.T, w World) {
	run := startedRun(t, w)
	id := nm(t, "step")
	newStep(t, w, run.RunID, id)
	create(t, w, run.RunID, ev(t, w, "step_started", id, nil))
	first := getStep(t, w, run.RunID, id)
	e := json.RawMessage(`{"message":"try again"}`)
	create(t, w, run.RunID, ev(t, w, "step_retrying", id, map[string]any{"error": e}))
	s := getStep(t, w, run.RunID, id)
	t.Eq("status after step_retrying", s.Status, "pending")
	eqJSON(t, "error after step_retrying", s.Error, e)
	create(t, w, run.RunID, ev(t, w, "step_started", id, nil))
	s = getStep(t, w, run.RunID, id)
	t.Eq("status after the second step_started", s.Status, "running")
	t.Eq("attempt after the second step_started", s.Attempt, 2)
	if first.StartedAt != nil && s.StartedAt != nil {
		t.That(s.StartedAt.Equal(*first.StartedAt), "startedAt", "the first start's", s.StartedAt)
	}
}

func stepFailed(t *conform.T, w World) {
	run := startedRun(t, w)
	id := nm(t, "step")
	newStep(t, w, run.RunID, id)
	create(t, w, run.RunID, ev(t, w, "step_started", id, nil))
	e := json.RawMessage(`{"message":"fatal"}`)
	create(t, w, run.RunID, ev(t, w, "step_failed", id, map[string]any{"error": e}))
	s := getStep(t, w, run.RunID, id)
	t.Eq("status", s.Status, "failed")
	eqJSON(t, "error", s.Error, e)
	t.That(s.CompletedAt != nil, "completedAt", "a time", s.CompletedAt)
}

func stepCreatedTwice(t *conform.T, w World) {
	run := startedRun(t, w)
	id := nm(t, "step")
	newStep(t, w, run.RunID, id)
	create(t, w, run.RunID, ev(t, w, "step_started", id, nil))
	_, err := w.CreateEvent(t.Context(), run.RunID, ev(t, w, "step_created", id, map[string]any{"stepName": "other-step", "input": payload(t, "other")}), "")
	refused(t, "a second step_created with the same correlationId", err, ErrEntityConflict)
	s := getStep(t, w, run.RunID, id)
	t.Eq("stepName after", s.StepName, "conform-step")
	t.Eq("status after", s.Status, "running")
	eqJSON(t, "input after", s.Input, payload(t, "step-input"))
}

func stepTerminalFinal(t *conform.T, w World) {
	run := startedRun(t, w)
	id := nm(t, "step")
	newStep(t, w, run.RunID, id)
	create(t, w, run.RunID, ev(t, w, "step_started", id, nil))
	create(t, w, run.RunID, ev(t, w, "step_completed", id, map[string]any{"result": payload(t, "r")}))
	for _, req := range []EventRequest{
		ev(t, w, "step_completed", id, map[string]any{"result": payload(t, "again")}),
		ev(t, w, "step_failed", id, map[string]any{"error": json.RawMessage(`{"message":"late"}`)}),
		ev(t, w, "step_started", id, nil),
	} {
		_, err := w.CreateEvent(t.Context(), run.RunID, req, "")
		refused(t, req.EventType+" on a completed step", err, ErrEntityConflict)
	}
	s := getStep(t, w, run.RunID, id)
	t.Eq("status after", s.Status, "completed")
	eqJSON(t, "output after", s.Output, payload(t, "r"))
}

func stepNotFound(t *conform.T, w World) {
	run := startedRun(t, w)
	_, err := w.GetStep(t.Context(), run.RunID, nm(t, "nostep"), "")
	refused(t, "steps.get of an unknown step", err, "")
	for _, req := range []EventRequest{
		ev(t, w, "step_started", nm(t, "nostep"), nil),
		ev(t, w, "step_completed", nm(t, "nostep"), map[string]any{"result": payload(t, "r")}),
		ev(t, w, "step_failed", nm(t, "nostep"), map[string]any{"error": json.RawMessage(`{"message":"x"}`)}),
	} {
		_, err := w.CreateEvent(t.Context(), run.RunID, req, "")
		refused(t, req.EventType+" of a step never created", err, "")
	}
}

// ---- hooks ----

// newHook creates hook id with token on run.
func newHook(t *conform.T, w World, run, id, token string) EventResult {
	return create(t, w, run, ev(t, w, "hook_created", id, map[string]any{"token": token, "metadata": payload(t, "meta")}))
}

func hookCreated(t *conform.T, w World) {
	run := startedRun(t, w)
	id, token := nm(t, "hook"), nm(t, "token")
	r := newHook(t, w, run.RunID, id, token)
	if r.Hook == nil {
		t.Fatalf("hook_created answered no hook: %s", conform.Show(r))
	}
	t.Eq("the hook's id", r.Hook.HookID, id)
	t.Eq("the hook's token", r.Hook.Token, token)
	t.Eq("the hook's runId", r.Hook.RunID, run.RunID)
	h, err := w.GetHook(t.Context(), id)
	t.Must("hooks.get", err)
	t.Eq("hooks.get: token", h.Token, token)
	eqJSON(t, "hooks.get: metadata", h.Metadata, payload(t, "meta"))
	h, err = w.GetHookByToken(t.Context(), token)
	t.Must("hooks.getByToken", err)
	t.Eq("getByToken: hookId", h.HookID, id)
	t.Eq("getByToken: runId", h.RunID, run.RunID)
}

func hookConflict(t *conform.T, w World) {
	a, b := startedRun(t, w), startedRun(t, w)
	token := nm(t, "token")
	newHook(t, w, a.RunID, nm(t, "hook-a"), token)
	r := create(t, w, b.RunID, ev(t, w, "hook_created", nm(t, "hook-b"), map[string]any{"token": token}))
	if r.Event == nil {
		t.Fatalf("the conflicting hook_created answered no event: %s", conform.Show(r))
	}
	t.Eq("the answered event's type", r.Event.EventType, "hook_conflict")
	t.Eq("the answered event's correlationId", r.Event.CorrelationID, nm(t, "hook-b"))
	var tok, holder string
	_ = json.Unmarshal(r.Event.EventData["token"], &tok)
	_ = json.Unmarshal(r.Event.EventData["conflictingRunId"], &holder)
	t.Eq("the hook_conflict's token", tok, token)
	t.Eq("the hook_conflict's conflictingRunId", holder, a.RunID)
	t.That(r.Hook == nil, "the hook answered", "none", r.Hook)
	_, err := w.GetHook(t.Context(), nm(t, "hook-b"))
	refused(t, "hooks.get of the conflicting hook", err, ErrHookNotFound)
	h, err := w.GetHookByToken(t.Context(), token)
	t.Must("hooks.getByToken", err)
	t.Eq("the token's hook", h.HookID, nm(t, "hook-a"))
	t.Eq("hook_conflict events logged on the second run", count(allEvents(t, w, b.RunID), "hook_conflict"), 1)
}

func hookReceived(t *conform.T, w World) {
	run := startedRun(t, w)
	id := nm(t, "hook")
	newHook(t, w, run.RunID, id, nm(t, "token"))
	p := payload(t, "payload")
	create(t, w, run.RunID, ev(t, w, "hook_received", id, map[string]any{"payload": p}))
	page, err := w.ListEventsByCorrelation(t.Context(), id, Pagination{SortOrder: "asc"}, "")
	t.Must("events.listByCorrelationId", err)
	t.Eq("the hook's events", types(page.Data), []string{"hook_created", "hook_received"})
	if len(page.Data) == 2 {
		eqJSON(t, "hook_received's payload", page.Data[1].EventData["payload"], p)
	}
	_, err = w.CreateEvent(t.Context(), run.RunID, ev(t, w, "hook_received", nm(t, "nohook"), map[string]any{"payload": p}), "")
	refused(t, "hook_received on a hook that does not exist", err, ErrHookNotFound)
}

func hookDisposed(t *conform.T, w World) {
	run, other := startedRun(t, w), startedRun(t, w)
	id, token := nm(t, "hook"), nm(t, "token")
	newHook(t, w, run.RunID, id, token)
	create(t, w, run.RunID, ev(t, w, "hook_disposed", id, nil))
	_, err := w.GetHook(t.Context(), id)
	refused(t, "hooks.get of a disposed hook", err, ErrHookNotFound)
	_, err = w.GetHookByToken(t.Context(), token)
	refused(t, "hooks.getByToken of a disposed hook", err, ErrHookNotFound)
	r := newHook(t, w, other.RunID, nm(t, "hook-2"), token)
	if t.That(r.Hook != nil, "another run's hook_created with the released token", "a hook", r) {
		h, err := w.GetHookByToken(t.Context(), token)
		t.Must("hooks.getByToken", err)
		t.Eq("the token's run", h.RunID, other.RunID)
	}
}

func hookReleasedAtEnd(t *conform.T, w World) {
	run, other := startedRun(t, w), startedRun(t, w)
	token := nm(t, "token")
	newHook(t, w, run.RunID, nm(t, "hook"), token)
	create(t, w, run.RunID, ev(t, w, "run_completed", "", map[string]any{"output": payload(t, "o")}))
	_, err := w.GetHookByToken(t.Context(), token)
	refused(t, "hooks.getByToken of a finished run's hook", err, ErrHookNotFound)
	r := newHook(t, w, other.RunID, nm(t, "hook-2"), token)
	t.That(r.Hook != nil, "another run's hook_created with the token", "a hook", r)
}

func hookNotFound(t *conform.T, w World) {
	_, err := w.GetHook(t.Context(), nm(t, "nohook"))
	refused(t, "hooks.get of an unknown hook", err, ErrHookNotFound)
	_, err = w.GetHookByToken(t.Context(), nm(t, "notoken"))
	refused(t, "hooks.getByToken of an unknown token", err, ErrHookNotFound)
}

// ---- waits ----

func waitCompleted(t *conform.T, w World) {
	run := startedRun(t, w)
	id := nm(t, "wait")
	at := time.Now().Add(time.Hour).UTC().Truncate(time.Millisecond)
	r := create(t, w, run.RunID, ev(t, w, "wait_created", id, map[string]any{"resumeAt": at.Format(time.RFC3339Nano)}))
	if t.That(r.Wait != nil, "wait_created's wait", "a wait", r) {
		t.Eq("the wait's status", r.Wait.Status, "waiting")
		t.That(r.Wait.ResumeAt != nil && r.Wait.ResumeAt.Equal(at), "the wait's resumeAt", at.String(), r.Wait.ResumeAt)
	}
	r = create(t, w, run.RunID, ev(t, w, "wait_completed", id, nil))
	if t.That(r.Wait != nil, "wait_completed's wait", "a wait", r) {
		t.Eq("the wait's status after wait_completed", r.Wait.Status, "completed")
	}
	_, err := w.CreateEvent(t.Context(), run.RunID, ev(t, w, "wait_completed", id, nil), "")
	refused(t, "a second wait_completed", err, ErrEntityConflict)
	page, err := w.ListEventsByCorrelation(t.Context(), id, Pagination{SortOrder: "asc"}, "")
	t.Must("events.listByCorrelationId", err)
	t.Eq("the wait's events", types(page.Data), []string{"wait_created", "wait_completed"})
}

// ---- the event log ----

// busyRun makes a run with a step, a hook and a wait, and returns it with
// the types of its events in order.
func busyRun(t *conform.T, w World) (Run, []string) {
	run := startedRun(t, w)
	step, hook, wait := nm(t, "step"), nm(t, "hook"), nm(t, "wait")
	newStep(t, w, run.RunID, step)
	create(t, w, run.RunID, ev(t, w, "step_started", step, nil))
	newHook(t, w, run.RunID, hook, nm(t, "token"))
	create(t, w, run.RunID, ev(t, w, "step_completed", step, map[string]any{"result": payload(t, "r")}))
	create(t, w, run.RunID, ev(t, w, "wait_created", wait, map[string]any{"resumeAt": time.Now().Add(time.Hour).UTC().Format(time.RFC3339Nano)}))
	create(t, w, run.RunID, ev(t, w, "hook_received", hook, map[string]any{"payload": payload(t, "p")}))
	create(t, w, run.RunID, ev(t, w, "wait_completed", wait, nil))
	return run, []string{"run_created", "run_started", "step_created", "step_started", "hook_created", "step_completed", "wait_created", "hook_received", "wait_completed"}
}

func eventsInOrder(t *conform.T, w World) {
	run, want := busyRun(t, w)
	asc, err := w.ListEvents(t.Context(), run.RunID, Pagination{SortOrder: "asc"}, "")
	t.Must("events.list asc", err)
	t.Eq("event types, asc", types(asc.Data), want)
	desc, err := w.ListEvents(t.Context(), run.RunID, Pagination{SortOrder: "desc"}, "")
	t.Must("events.list desc", err)
	rev := slices.Clone(want)
	slices.Reverse(rev)
	t.Eq("event types, desc", types(desc.Data), rev)
	seen := map[string]bool{}
	for _, e := range asc.Data {
		t.That(!seen[e.EventID] && e.EventID != "", "eventId "+e.EventID, "unique", e.EventID)
		seen[e.EventID] = true
		t.Eq("the runId of "+e.EventType, e.RunID, run.RunID)
		t.That(!e.CreatedAt.IsZero(), "the createdAt of "+e.EventType, "a time", e.CreatedAt)
	}
}

func eventsGet(t *conform.T, w World) {
	run := startedRun(t, w)
	id := nm(t, "step")
	r := create(t, w, run.RunID, ev(t, w, "step_created", id, map[string]any{"stepName": "conform-step", "input": payload(t, "in")}))
	if r.Event == nil {
		t.Fatalf("step_created answered no event")
	}
	got, err := w.GetEvent(t.Context(), run.RunID, r.Event.EventID, "")
	t.Must("events.get", err)
	t.Eq("eventType", got.EventType, "step_created")
	t.Eq("eventId", got.EventID, r.Event.EventID)
	t.Eq("correlationId", got.CorrelationID, id)
	eqJSON(t, "eventData.input", got.EventData["input"], payload(t, "in"))
	t.That(got.CreatedAt.Equal(r.Event.CreatedAt), "createdAt", r.Event.CreatedAt.String(), got.CreatedAt)
	_, err = w.GetEvent(t.Context(), run.RunID, "evnt_"+NewRunID()[5:], "")
	refused(t, "events.get of an unknown event", err, "")
}

func eventsCorrelation(t *conform.T, w World) {
	run, _ := busyRun(t, w)
	for _, c := range []struct {
		id   string
		want []string
	}{
		{nm(t, "step"), []string{"step_created", "step_started", "step_completed"}},
		{nm(t, "hook"), []string{"hook_created", "hook_received"}},
		{nm(t, "wait"), []string{"wait_created", "wait_completed"}},
	} {
		page, err := w.ListEventsByCorrelation(t.Context(), c.id, Pagination{SortOrder: "asc"}, "")
		t.Must("events.listByCorrelationId", err)
		t.Eq("the events of "+c.id, types(page.Data), c.want)
		for _, e := range page.Data {
			t.Eq("the correlationId of "+e.EventType, e.CorrelationID, c.id)
			t.Eq("the runId of "+e.EventType, e.RunID, run.RunID)
		}
	}
}

func resolveDataNone(t *conform.T, w World) {
	run := startedRun(t, w)
	id := nm(t, "step")
	newStep(t, w, run.RunID, id)
	r, err := w.GetRun(t.Context(), run.RunID, ResolveNone)
	t.Must("runs.get with resolveData none", err)
	t.That(len(r.Input) == 0 || string(r.Input) == "null", "the run's input", "left out", string(r.Input))
	t.Eq("the run's workflowName", r.WorkflowName, run.WorkflowName)
	s, err := w.GetStep(t.Context(), run.RunID, id, ResolveNone)
	t.Must("steps.get with resolveData none", err)
	t.That(len(s.Input) == 0 || string(s.Input) == "null", "the step's input", "left out", string(s.Input))
	t.Eq("the step's stepName", s.StepName, "conform-step")
	page, err := w.ListEvents(t.Context(), run.RunID, Pagination{SortOrder: "asc"}, ResolveNone)
	t.Must("events.list with resolveData none", err)
	for _, e := range page.Data {
		if e.EventType == "step_created" {
			_, has := e.EventData["input"]
			t.That(!has, "step_created's eventData.input", "left out", e.EventData)
			t.Eq("step_created's eventData.stepName", string(e.EventData["stepName"]), `"conform-step"`)
		}
	}
	full, err := w.GetRun(t.Context(), run.RunID, ResolveAll)
	t.Must("runs.get with resolveData all", err)
	eqJSON(t, "the run's input with resolveData all", full.Input, payload(t, "input"))
}

// ---- the list methods ----

// pages follows a list method's cursor from the first page, limit at a
// time, and returns every item; it checks the page sizes and hasMore.
func pages[T any](t *conform.T, what string, limit int, list func(cursor string) (Page[T], error)) []T {
	var out []T
	cursor := ""
	for range 50 {
		page, err := list(cursor)
		t.Must(what, err)
		t.That(len(page.Data) <= limit, what+": page size", fmt.Sprintf("at most %d", limit), len(page.Data))
		out = append(out, page.Data...)
		if !page.HasMore {
			return out
		}
		if !t.That(page.Cursor != nil && *page.Cursor != "", what+": cursor of a page with hasMore", "a cursor", page.Cursor) {
			return out
		}
		cursor = *page.Cursor
	}
	t.Fatalf("%s: still hasMore after 50 pages", what)
	return nil
}

func eventsPages(t *conform.T, w World) {
	run, want := busyRun(t, w)
	got := pages(t, "events.list", 2, func(c string) (Page[Event], error) {
		return w.ListEvents(t.Context(), run.RunID, Pagination{Limit: 2, Cursor: c, SortOrder: "asc"}, "")
	})
	t.Eq("event types over the pages", types(got), want)
	first, err := w.ListEvents(t.Context(), run.RunID, Pagination{Limit: 2, SortOrder: "asc"}, "")
	t.Must("events.list", err)
	t.That(first.HasMore, "hasMore of the first page of 2", "true", first.HasMore)
}

func runsList(t *conform.T, w World) {
	wf := nm(t, "wf")
	var ids []string
	for i := range 5 {
		r := newRun(t, w, wf)
		ids = append(ids, r.RunID)
		if i < 2 {
			create(t, w, r.RunID, ev(t, w, "run_started", "", nil))
		}
	}
	newRun(t, w, nm(t, "other-wf"))
	got := pages(t, "runs.list", 2, func(c string) (Page[Run], error) {
		return w.ListRuns(t.Context(), RunFilter{WorkflowName: wf}, Pagination{Limit: 2, Cursor: c}, "")
	})
	var gotIDs []string
	for _, r := range got {
		gotIDs = append(gotIDs, r.RunID)
	}
	slices.Sort(gotIDs)
	want := slices.Clone(ids)
	slices.Sort(want)
	t.Eq("the runs of the workflow", gotIDs, want)
	running, err := w.ListRuns(t.Context(), RunFilter{WorkflowName: wf, Status: "running"}, Pagination{}, "")
	t.Must("runs.list by status", err)
	var runIDs []string
	for _, r := range running.Data {
		runIDs = append(runIDs, r.RunID)
	}
	slices.Sort(runIDs)
	wantRunning := slices.Clone(ids[:2])
	slices.Sort(wantRunning)
	t.Eq("the running runs of the workflow", runIDs, wantRunning)
}

func stepsList(t *conform.T, w World) {
	run, other := startedRun(t, w), startedRun(t, w)
	var want []string
	for i := range 5 {
		id := nm(t, fmt.Sprintf("step-%d", i))
		newStep(t, w, run.RunID, id)
		want = append(want, id)
	}
	newStep(t, w, other.RunID, nm(t, "other-step"))
	got := pages(t, "steps.list", 2, func(c string) (Page[Step], error) {
		return w.ListSteps(t.Context(), run.RunID, Pagination{Limit: 2, Cursor: c}, "")
	})
	var ids []string
	for _, s := range got {
		ids = append(ids, s.StepID)
	}
	slices.Sort(ids)
	slices.Sort(want)
	t.Eq("the run's steps", ids, want)
}

func hooksList(t *conform.T, w World) {
	run, other := startedRun(t, w), startedRun(t, w)
	var want []string
	for i := range 5 {
		id := nm(t, fmt.Sprintf("hook-%d", i))
		newHook(t, w, run.RunID, id, nm(t, fmt.Sprintf("token-%d", i)))
		want = append(want, id)
	}
	newHook(t, w, other.RunID, nm(t, "other-hook"), nm(t, "other-token"))
	got := pages(t, "hooks.list", 2, func(c string) (Page[Hook], error) {
		return w.ListHooks(t.Context(), run.RunID, Pagination{Limit: 2, Cursor: c})
	})
	var ids []string
	for _, h := range got {
		ids = append(ids, h.HookID)
	}
	slices.Sort(ids)
	slices.Sort(want)
	t.Eq("the run's hooks", ids, want)
}

// ---- streams ----

// readWait is how long a read that must end waits for its stream's end.
const readWait = 8 * time.Second

// datas are the bytes of chunks.
func datas(chunks []Chunk) [][]byte {
	out := make([][]byte, len(chunks))
	for i, c := range chunks {
		out[i] = c.Data()
	}
	return out
}

// written writes chunks (one call each) to a new stream of a new run and
// returns the run and the stream's name.
func written(t *conform.T, w World, chunks []Chunk) (string, string) {
	run := startedRun(t, w)
	name := nm(t, "stream")
	t.Must("streams.write", w.StreamWrite(t.Context(), run.RunID, name, chunks, false))
	return run.RunID, name
}

// testChunks are text and byte chunks, one of them not UTF-8.
var testChunks = []Chunk{Text("héllo "), Bytes([]byte{0, 1, 2, 255}), Text("world"), Bytes([]byte("!"))}

func streamRoundTrip(t *conform.T, w World) {
	run, name := written(t, w, testChunks)
	t.Must("streams.close", w.StreamClose(t.Context(), run, name))
	r, err := w.StreamRead(t.Context(), run, name, nil, readWait)
	t.Must("streams.get", err)
	t.Eq("the chunks read", r.Chunks, datas(testChunks))
	t.That(r.Ended, "the read", "ended (the stream is closed)", r)
}

func streamWriteMulti(t *conform.T, w World) {
	run, name := written(t, w, testChunks[:1])
	t.Must("streams.writeMulti", w.StreamWrite(t.Context(), run, name, testChunks[1:], true))
	t.Must("streams.close", w.StreamClose(t.Context(), run, name))
	r, err := w.StreamRead(t.Context(), run, name, nil, readWait)
	t.Must("streams.get", err)
	t.Eq("the chunks read", r.Chunks, datas(testChunks))
}

func streamStartIndex(t *conform.T, w World) {
	run, name := written(t, w, testChunks)
	t.Must("streams.close", w.StreamClose(t.Context(), run, name))
	all := datas(testChunks)
	for _, c := range []struct {
		start int
		want  [][]byte
	}{
		{0, all}, {1, all[1:]}, {3, all[3:]}, {-1, all[3:]}, {-3, all[1:]}, {-10, all},
	} {
		r, err := w.StreamRead(t.Context(), run, name, &c.start, readWait)
		t.Must("streams.get", err)
		t.Eq(fmt.Sprintf("the chunks read from startIndex %d", c.start), r.Chunks, c.want)
	}
}

func streamLive(t *conform.T, w World) {
	run := startedRun(t, w)
	name := nm(t, "stream")
	type result struct {
		r   StreamRead
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := w.StreamRead(t.Context(), run.RunID, name, nil, readWait)
		done <- result{r, err}
	}()
	// The read is open before any chunk exists; the chunks come after it
	// has had a moment to start (if they came first, the read would still
	// have to deliver them: the rule holds either way).
	time.Sleep(200 * time.Millisecond)
	for _, c := range testChunks {
		t.Must("streams.write", w.StreamWrite(t.Context(), run.RunID, name, []Chunk{c}, false))
	}
	t.Must("streams.close", w.StreamClose(t.Context(), run.RunID, name))
	res := <-done
	t.Must("streams.get", res.err)
	t.Eq("the chunks the live read got", res.r.Chunks, datas(testChunks))
	t.That(res.r.Ended, "the live read", "ended when the stream closed", res.r)
}

func streamChunksPages(t *conform.T, w World) {
	run, name := written(t, w, testChunks)
	read := func() []StreamChunk {
		var out []StreamChunk
		cursor := ""
		for range 20 {
			p, err := w.StreamChunks(t.Context(), run, name, 3, cursor)
			t.Must("streams.getChunks", err)
			t.That(len(p.Data) <= 3, "a page's chunks", "at most 3", len(p.Data))
			out = append(out, p.Data...)
			t.That(!p.Done, "done before close", "false", p.Done)
			if !p.HasMore {
				return out
			}
			if p.Cursor == nil {
				t.Errorf("getChunks: hasMore with no cursor")
				return out
			}
			cursor = *p.Cursor
		}
		t.Fatalf("getChunks: still hasMore after 20 pages")
		return nil
	}
	got := read()
	var idx []int
	var data [][]byte
	for _, c := range got {
		idx = append(idx, c.Index)
		data = append(data, c.Data)
	}
	t.Eq("the chunks' indexes", idx, []int{0, 1, 2, 3})
	t.Eq("the chunks' data", data, datas(testChunks))
	t.Must("streams.close", w.StreamClose(t.Context(), run, name))
	p, err := w.StreamChunks(t.Context(), run, name, 10, "")
	t.Must("streams.getChunks", err)
	t.That(p.Done, "done after close", "true", p.Done)
	t.Eq("the chunks after close", len(p.Data), 4)
}

func streamInfo(t *conform.T, w World) {
	run := startedRun(t, w)
	name := nm(t, "stream")
	info, err := w.StreamInfo(t.Context(), run.RunID, name)
	t.Must("streams.getInfo", err)
	t.Eq("tailIndex before any chunk", info.TailIndex, -1)
	t.Eq("done before any chunk", info.Done, false)
	t.Must("streams.write", w.StreamWrite(t.Context(), run.RunID, name, testChunks, false))
	info, err = w.StreamInfo(t.Context(), run.RunID, name)
	t.Must("streams.getInfo", err)
	t.Eq("tailIndex after 4 chunks", info.TailIndex, 3)
	t.Eq("done before close", info.Done, false)
	t.Must("streams.close", w.StreamClose(t.Context(), run.RunID, name))
	info, err = w.StreamInfo(t.Context(), run.RunID, name)
	t.Must("streams.getInfo", err)
	t.Eq("tailIndex after close", info.TailIndex, 3)
	t.Eq("done after close", info.Done, true)
}

func streamList(t *conform.T, w World) {
	run, other := startedRun(t, w), startedRun(t, w)
	a, b := nm(t, "stream-a"), nm(t, "stream-b")
	for _, n := range []string{a, b} {
		t.Must("streams.write", w.StreamWrite(t.Context(), run.RunID, n, testChunks[:1], false))
	}
	t.Must("streams.write", w.StreamWrite(t.Context(), other.RunID, nm(t, "stream-other"), testChunks[:1], false))
	names, err := w.StreamList(t.Context(), run.RunID)
	t.Must("streams.list", err)
	slices.Sort(names)
	want := []string{a, b}
	slices.Sort(want)
	t.Eq("the run's streams", names, want)
}

// ---- the queue ----

// deliveryWait bounds the wait for a queued message to reach its handler.
const deliveryWait = 8 * time.Second

func queueDelivers(t *conform.T, w World) {
	q := "__wkf_workflow_" + nm(t, "q")
	msg := json.RawMessage(fmt.Sprintf(`{"runId":%q}`, NewRunID()))
	id, err := w.Queue(t.Context(), q, msg, QueueOptions{})
	t.Must("queue", err)
	t.That(id != "", "the messageId", "an id", id)
	ds, err := w.Deliveries(t.Context(), q, 1, deliveryWait)
	t.Must("the handler's deliveries", err)
	if !t.Eq("deliveries", len(ds), 1) {
		return
	}
	d := ds[0]
	eqJSON(t, "the message the handler got", d.Message, msg)
	t.Eq("the handler's queueName", d.QueueName, q)
	t.Eq("the handler's messageId", d.MessageID, id)
	t.Eq("the handler's attempt", d.Attempt, 1)
}

func queueStepAndWorkflow(t *conform.T, w World) {
	wq := "__wkf_workflow_" + nm(t, "q")
	sq := "__wkf_step_" + nm(t, "q")
	wmsg := json.RawMessage(fmt.Sprintf(`{"runId":%q}`, NewRunID()))
	smsg := json.RawMessage(fmt.Sprintf(`{"workflowName":"wf","workflowRunId":%q,"workflowStartedAt":1,"stepId":"step_1"}`, NewRunID()))
	_, err := w.Queue(t.Context(), wq, wmsg, QueueOptions{})
	t.Must("queue to a workflow queue", err)
	_, err = w.Queue(t.Context(), sq, smsg, QueueOptions{})
	t.Must("queue to a step queue", err)
	for _, c := range []struct {
		q   string
		msg json.RawMessage
	}{{wq, wmsg}, {sq, smsg}} {
		ds, err := w.Deliveries(t.Context(), c.q, 1, deliveryWait)
		t.Must("the handler's deliveries", err)
		if t.Eq("deliveries of "+c.q, len(ds), 1) {
			eqJSON(t, "the message of "+c.q, ds[0].Message, c.msg)
			t.Eq("the queueName", ds[0].QueueName, c.q)
		}
	}
}

// ---- close ----

func closeWorld(t *conform.T, w World) {
	t.Must("close", w.CloseFresh(t.Context()))
}

// nm is the case's name n: the same for the same n within a case, unique
// to the case within the store.
func nm(t *conform.T, n string) string { return t.Prefix() + "-" + n }
