package conform

import (
	"context"
	"errors"
	"slices"
	"time"
)

// startRun starts a run of a fresh definition with a fresh key.
func startRun(ctx context.Context, s *Subject) (string, StartRequest, error) {
	r := StartRequest{Definition: s.ID("definition"), IdempotencyKey: s.ID("key"), Tenant: s.UUID(), Actor: s.UUID(), Input: map[string]any{"n": 1.0}}
	id, err := s.Engine.Start(ctx, r)
	if err != nil {
		return "", r, op("start", err)
	}
	if id == "" {
		return "", r, errors.New("start returned an empty run id")
	}
	return id, r, nil
}

// engineStatusFor returns the first engine status that maps onto want.
func engineStatusFor(ctx context.Context, s *Subject, want string) (string, error) {
	sts, err := s.Engine.Statuses(ctx)
	if err != nil {
		return "", op("statuses", err)
	}
	for _, st := range sts {
		if m, err := s.Engine.MapStatus(ctx, st.Name); err == nil && m == want {
			return st.Name, nil
		}
	}
	return "", Skip("the engine declares no status that maps onto %s", want)
}

func engineCases() []Case {
	cs := []Case{
		{ID: "engine/identity", Rule: "the adapter reports apiVersion 1, a non-empty name and the engine name it records runs under", Run: func(ctx context.Context, s *Subject) error {
			v, name, engine, err := s.Engine.Identity(ctx)
			if err != nil {
				return op("identity", err)
			}
			var c checks
			c.eq("apiVersion", v, 1)
			c.that(name != "", "name", "a non-empty name", name)
			c.that(engine != "", "engine", "a non-empty engine name", engine)
			return c.err()
		}},
		{ID: "engine/status-map-total", Rule: "every engine status maps onto one of queued, running, waiting, completed, failed, cancelled; terminal ones onto terminal ones and the others onto the others", Run: func(ctx context.Context, s *Subject) error {
			sts, err := s.Engine.Statuses(ctx)
			if err != nil {
				return op("statuses", err)
			}
			var c checks
			if !c.that(len(sts) > 0, "statuses", "at least one engine status", sts) {
				return c.err()
			}
			for _, st := range sts {
				m, err := s.Engine.MapStatus(ctx, st.Name)
				if err != nil {
					c.list = append(c.list, op("mapStatus("+st.Name+")", err))
					continue
				}
				if !c.that(slices.Contains(RunStatuses, m), "mapStatus("+st.Name+")", "one of the six registry statuses", m) {
					continue
				}
				term := m == "completed" || m == "failed" || m == "cancelled"
				want := "a status that is not terminal"
				if st.Terminal {
					want = "a terminal status (completed, failed or cancelled)"
				}
				c.that(term == st.Terminal, "mapStatus("+st.Name+")", want, m)
			}
			return c.err()
		}},
		{ID: "engine/unknown-status-refused", Rule: "an engine status the adapter does not declare is refused with invalid_input, not guessed", Run: func(ctx context.Context, s *Subject) error {
			m, err := s.Engine.MapStatus(ctx, "CONFORMANCE_UNKNOWN_"+newUUID())
			if err == nil {
				return &Mismatch{What: "mapStatus of an unknown status", Expected: "a failure of kind " + KindInvalidInput, Actual: show(m)}
			}
			return eq("the failure's kind", HintOf(err), KindInvalidInput)
		}},
		{ID: "engine/start-idempotent", Rule: "starting twice with the same idempotency key gives the same run id and one run in the registry", Run: func(ctx context.Context, s *Subject) error {
			id, r, err := startRun(ctx, s)
			if err != nil {
				return err
			}
			again, err := s.Engine.Start(ctx, r)
			if err != nil {
				return op("start again", err)
			}
			runs, err := s.Engine.Registry().List(ctx, RunFilter{Definition: r.Definition, Max: 500})
			if err != nil {
				return op("list the registry", err)
			}
			var c checks
			c.eq("the second start's run id", again, id)
			c.eq("runs of the definition in the registry", len(runs), 1)
			return c.err()
		}},
		{ID: "engine/cancel-reaches-engine", Rule: "a cancel request reaches the engine; the registry reports the request without changing the status by itself, and the adapter then records cancelled", Run: func(ctx context.Context, s *Subject) error {
			running, err := engineStatusFor(ctx, s, "running")
			if err != nil {
				return err
			}
			id, _, err := startRun(ctx, s)
			if err != nil {
				return err
			}
			if err := s.Engine.Emit(ctx, id, EngineEvent{Status: running}); err != nil {
				return op("emit "+running, err)
			}
			req, err := s.Engine.Registry().RequestCancel(ctx, id)
			if err != nil {
				return op("requestCancel", err)
			}
			var c checks
			if c.that(req != nil, "requestCancel", "the run", req) {
				c.eq("the status right after the request", req.Status, "running")
				c.that(req.CancelRequestedAt != nil, "cancelRequestedAt", "set", req.CancelRequestedAt)
			}
			if err := s.Engine.Sync(ctx, id); err != nil {
				return op("sync", err)
			}
			reached, err := s.Engine.EngineCancelled(ctx, id)
			if err != nil {
				return op("engineCancelled", err)
			}
			c.eq("the engine was asked to cancel", reached, true)
			run, err := s.Engine.Registry().Get(ctx, id)
			if err != nil {
				return op("get", err)
			}
			if c.that(run != nil, "the run after sync", "the run", run) {
				c.eq("the status once the engine cancelled", run.Status, "cancelled")
				if req != nil && req.CancelRequestedAt != nil {
					c.that(run.CancelRequestedAt != nil && run.CancelRequestedAt.Equal(*req.CancelRequestedAt), "cancelRequestedAt", "the request's time, kept", run.CancelRequestedAt)
				}
			}
			return c.err()
		}},
		{ID: "engine/records-follow-registry", Rule: "what the adapter records follows the registry's rules: the start's tenant and actor, the first start time, attributes merged, a failure's error kept", Run: func(ctx context.Context, s *Subject) error {
			running, err := engineStatusFor(ctx, s, "running")
			if err != nil {
				return err
			}
			failed, err := engineStatusFor(ctx, s, "failed")
			if err != nil {
				return err
			}
			id, r, err := startRun(ctx, s)
			if err != nil {
				return err
			}
			t1 := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
			t2 := t1.Add(time.Minute)
			for _, e := range []EngineEvent{
				{Status: running, Attributes: map[string]any{"a": 1.0}, At: &t1},
				{Status: running, Attributes: map[string]any{"b": 2.0}, At: &t2},
				{Status: failed, Error: "boom: the step failed", At: &t2},
			} {
				if err := s.Engine.Emit(ctx, id, e); err != nil {
					return op("emit "+e.Status, err)
				}
			}
			run, err := s.Engine.Registry().Get(ctx, id)
			if err != nil {
				return op("get", err)
			}
			var c checks
			if !c.that(run != nil, "the run", "the run", run) {
				return c.err()
			}
			c.eq("status", run.Status, "failed")
			c.eq("definition", run.Definition, r.Definition)
			c.eq("tenant", deref(run.Tenant), r.Tenant)
			c.eq("actor", deref(run.Actor), r.Actor)
			c.that(run.StartedAt != nil && run.StartedAt.Equal(t1), "startedAt", "the first start time "+t1.Format(time.RFC3339), run.StartedAt)
			c.eq("attributes a and b", []any{run.Attributes["a"], run.Attributes["b"]}, []any{1.0, 2.0})
			c.eq("error", deref(run.Error), "boom: the step failed")
			return c.err()
		}},
	}
	for i := range cs {
		cs[i].Suite = SuiteEngine
		run := cs[i].Run
		cs[i].Run = func(ctx context.Context, s *Subject) error {
			if s.Engine == nil {
				return errors.New("the store made a subject without an engine adapter")
			}
			return run(ctx, s)
		}
	}
	return cs
}
