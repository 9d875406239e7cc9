package engine

import (
	"errors"
	"slices"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/registry"
)

var cases = []conform.CaseOf[Engine]{
	{ID: "engine/identity", Rule: "the adapter reports apiVersion 1, a non-empty name and the engine name it records runs under", Run: identity},
	{ID: "engine/status-map-total", Rule: "every engine status maps onto one of queued, running, waiting, completed, failed, cancelled; terminal ones onto terminal ones and the others onto the others", Run: statusMapTotal},
	{ID: "engine/unknown-status-refused", Rule: "an engine status the adapter does not declare is refused with invalid_input, not guessed", Run: unknownStatusRefused},
	{ID: "engine/start-idempotent", Rule: "starting twice with the same idempotency key gives the same run id and one run in the registry", Run: startIdempotent},
	{ID: "engine/cancel-reaches-engine", Rule: "a cancel request reaches the engine; the registry reports the request without changing the status by itself, and the adapter then records cancelled", Run: cancelReachesEngine},
	{ID: "engine/records-follow-registry", Rule: "what the adapter records follows the registry's rules: the start's tenant and actor, the first start time, attributes merged, a failure's error kept", Run: recordsFollowRegistry},
}

// start starts a run of a fresh definition with a fresh key; a failure
// stops the case.
func start(t *conform.T, e Engine) (string, StartRequest) {
	r := StartRequest{Definition: t.ID("definition"), IdempotencyKey: t.ID("key"), Tenant: t.UUID(), Actor: t.UUID(), Input: map[string]any{"n": 1.0}}
	id, err := e.Start(t.Context(), r)
	t.Must("start", err)
	if id == "" {
		t.Fatal(errors.New("start returned an empty run id"))
	}
	return id, r
}

// statusFor returns the first engine status that maps onto want, or
// skips the case when there is none.
func statusFor(t *conform.T, e Engine, want string) string {
	sts, err := e.Statuses(t.Context())
	t.Must("statuses", err)
	for _, st := range sts {
		if m, err := e.MapStatus(t.Context(), st.Name); err == nil && m == want {
			return st.Name
		}
	}
	t.Skip("the engine declares no status that maps onto %s", want)
	return ""
}

// get reads run id from the adapter's registry; a failure stops the case.
func get(t *conform.T, e Engine, id string) *registry.Run {
	run, err := e.Registry().Get(t.Context(), id)
	t.Must("get", err)
	return run
}

func terminal(status string) bool {
	return status == "completed" || status == "failed" || status == "cancelled"
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

func identity(t *conform.T, e Engine) {
	v, name, engine, err := e.Identity(t.Context())
	t.Must("identity", err)
	t.Eq("apiVersion", v, 1)
	t.That(name != "", "name", "a non-empty name", name)
	t.That(engine != "", "engine", "a non-empty engine name", engine)
}

func statusMapTotal(t *conform.T, e Engine) {
	sts, err := e.Statuses(t.Context())
	t.Must("statuses", err)
	if !t.That(len(sts) > 0, "statuses", "at least one engine status", sts) {
		return
	}
	for _, st := range sts {
		m, err := e.MapStatus(t.Context(), st.Name)
		if err != nil {
			t.Error(conform.Op("mapStatus("+st.Name+")", err))
			continue
		}
		if !t.That(slices.Contains(registry.Statuses, m), "mapStatus("+st.Name+")", "one of the six registry statuses", m) {
			continue
		}
		want := "a status that is not terminal"
		if st.Terminal {
			want = "a terminal status (completed, failed or cancelled)"
		}
		t.That(terminal(m) == st.Terminal, "mapStatus("+st.Name+")", want, m)
	}
}

func unknownStatusRefused(t *conform.T, e Engine) {
	m, err := e.MapStatus(t.Context(), "CONFORMANCE_UNKNOWN_"+t.UUID())
	if err == nil {
		t.Fatal(&conform.Mismatch{What: "mapStatus of an unknown status", Expected: "a failure of kind " + conform.KindInvalidInput, Actual: conform.Show(m)})
	}
	t.Eq("the failure's kind", conform.HintOf(err), conform.KindInvalidInput)
}

func startIdempotent(t *conform.T, e Engine) {
	id, r := start(t, e)
	again, err := e.Start(t.Context(), r)
	t.Must("start again", err)
	runs, err := e.Registry().List(t.Context(), registry.Filter{Definition: r.Definition, Max: 500})
	t.Must("list the registry", err)
	t.Eq("the second start's run id", again, id)
	t.Eq("runs of the definition in the registry", len(runs), 1)
}

func cancelReachesEngine(t *conform.T, e Engine) {
	ctx := t.Context()
	running := statusFor(t, e, "running")
	id, _ := start(t, e)
	t.Must("emit "+running, e.Emit(ctx, id, Event{Status: running}))
	req, err := e.Registry().RequestCancel(ctx, id)
	t.Must("requestCancel", err)
	if t.That(req != nil, "requestCancel", "the run", req) {
		t.Eq("the status right after the request", req.Status, "running")
		t.That(req.CancelRequestedAt != nil, "cancelRequestedAt", "set", req.CancelRequestedAt)
	}
	t.Must("sync", e.Sync(ctx, id))
	reached, err := e.EngineCancelled(ctx, id)
	t.Must("engineCancelled", err)
	t.Eq("the engine was asked to cancel", reached, true)
	run := get(t, e, id)
	if t.That(run != nil, "the run after sync", "the run", run) {
		t.Eq("the status once the engine cancelled", run.Status, "cancelled")
		if req != nil && req.CancelRequestedAt != nil {
			t.That(run.CancelRequestedAt != nil && run.CancelRequestedAt.Equal(*req.CancelRequestedAt), "cancelRequestedAt", "the request's time, kept", run.CancelRequestedAt)
		}
	}
}

func recordsFollowRegistry(t *conform.T, e Engine) {
	running, failed := statusFor(t, e, "running"), statusFor(t, e, "failed")
	id, r := start(t, e)
	t1 := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
	t2 := t1.Add(time.Minute)
	for _, ev := range []Event{
		{Status: running, Attributes: map[string]any{"a": 1.0}, At: &t1},
		{Status: running, Attributes: map[string]any{"b": 2.0}, At: &t2},
		{Status: failed, Error: "boom: the step failed", At: &t2},
	} {
		t.Must("emit "+ev.Status, e.Emit(t.Context(), id, ev))
	}
	run := get(t, e, id)
	if !t.That(run != nil, "the run", "the run", run) {
		return
	}
	t.Eq("status", run.Status, "failed")
	t.Eq("definition", run.Definition, r.Definition)
	t.Eq("tenant", deref(run.Tenant), r.Tenant)
	t.Eq("actor", deref(run.Actor), r.Actor)
	t.That(run.StartedAt != nil && run.StartedAt.Equal(t1), "startedAt", "the first start time "+t1.Format(time.RFC3339), run.StartedAt)
	t.Eq("attributes a and b", []any{run.Attributes["a"], run.Attributes["b"]}, []any{1.0, 2.0})
	t.Eq("error", deref(run.Error), "boom: the step failed")
}
