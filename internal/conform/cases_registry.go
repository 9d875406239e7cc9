package conform

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

func strp(s string) *string { return &s }

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// sameTime reports whether two optional times are the same instant, to
// the microsecond (what PostgreSQL keeps).
func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Truncate(time.Microsecond).Equal(b.Truncate(time.Microsecond))
}

// record records r and fails on an error.
func record(ctx context.Context, reg RunRegistry, r RunRecord) (string, error) {
	id, err := reg.Record(ctx, r)
	if err != nil {
		return "", op(fmt.Sprintf("record %s/%s (%s)", r.Engine, r.ExternalID, r.Status), err)
	}
	if id == "" {
		return "", &Mismatch{What: "id returned by record", Expected: "a non-empty id", Actual: `""`}
	}
	return id, nil
}

// getRun fetches a run that must exist.
func getRun(ctx context.Context, reg RunRegistry, ref string) (*WorkflowRun, error) {
	r, err := reg.Get(ctx, ref)
	if err != nil {
		return nil, op("get "+ref, err)
	}
	if r == nil {
		return nil, &Mismatch{What: "get " + ref, Expected: "the run", Actual: "null"}
	}
	return r, nil
}

func ids(runs []WorkflowRun) []string {
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = r.ID
	}
	return out
}

func registryCases() []Case {
	const engine = "conform"
	run := func(s *Subject, status string) RunRecord {
		return RunRecord{Engine: engine, ExternalID: s.ID("ext"), Definition: "def", Status: status}
	}
	cs := []Case{
		{ID: "registry/record-upsert-same-id", Rule: "recording the same (engine, external_id) again returns the same id", Run: func(ctx context.Context, s *Subject) error {
			r := run(s, "queued")
			first, err := record(ctx, s.Registry, r)
			if err != nil {
				return err
			}
			r.Status = "running"
			second, err := record(ctx, s.Registry, r)
			if err != nil {
				return err
			}
			return eq("id of the second record", second, first)
		}},
		{ID: "registry/record-key-is-engine-and-external-id", Rule: "the same external id under another engine is another run", Run: func(ctx context.Context, s *Subject) error {
			r := run(s, "queued")
			a, err := record(ctx, s.Registry, r)
			if err != nil {
				return err
			}
			r.Engine = "conform-other"
			b, err := record(ctx, s.Registry, r)
			if err != nil {
				return err
			}
			var c checks
			c.that(a != b, "ids of two engines' runs with one external id", "two different ids", a)
			return c.err()
		}},
		{ID: "registry/record-overwrites-definition-and-status", Rule: "a later record overwrites definition and status, with no transition rules", Run: func(ctx context.Context, s *Subject) error {
			r := run(s, "completed")
			id, err := record(ctx, s.Registry, r)
			if err != nil {
				return err
			}
			r.Definition, r.Status = "def-v2", "running"
			if _, err := record(ctx, s.Registry, r); err != nil {
				return err
			}
			got, err := getRun(ctx, s.Registry, id)
			if err != nil {
				return err
			}
			var c checks
			c.eq("definition", got.Definition, "def-v2")
			c.eq("status (completed back to running is allowed)", got.Status, "running")
			return c.err()
		}},
		{ID: "registry/record-keeps-first-tenant-actor-started", Rule: "tenant, actor and started_at keep their first non-null value", Run: func(ctx context.Context, s *Subject) error {
			r := run(s, "queued")
			id, err := record(ctx, s.Registry, r)
			if err != nil {
				return err
			}
			t1, a1 := s.UUID(), s.UUID()
			s1 := time.Now().Add(-time.Hour).UTC().Truncate(time.Microsecond)
			r.Status, r.Tenant, r.Actor, r.StartedAt = "running", t1, a1, &s1
			if _, err := record(ctx, s.Registry, r); err != nil {
				return err
			}
			s2 := s1.Add(time.Minute)
			r.Tenant, r.Actor, r.StartedAt = s.UUID(), s.UUID(), &s2
			if _, err := record(ctx, s.Registry, r); err != nil {
				return err
			}
			r.Tenant, r.Actor, r.StartedAt = "", "", nil
			if _, err := record(ctx, s.Registry, r); err != nil {
				return err
			}
			got, err := getRun(ctx, s.Registry, id)
			if err != nil {
				return err
			}
			var c checks
			c.eq("tenant", deref(got.Tenant), t1)
			c.eq("actor", deref(got.Actor), a1)
			c.that(sameTime(got.StartedAt, &s1), "startedAt", s1.Format(time.RFC3339Nano), got.StartedAt)
			return c.err()
		}},
		{ID: "registry/record-merges-attributes", Rule: "attributes are merged, new keys winning", Run: func(ctx context.Context, s *Subject) error {
			r := run(s, "running")
			r.Attributes = map[string]any{"a": "1", "b": "1"}
			id, err := record(ctx, s.Registry, r)
			if err != nil {
				return err
			}
			r.Attributes = map[string]any{"b": "2", "c": map[string]any{"n": 3.0}}
			if _, err := record(ctx, s.Registry, r); err != nil {
				return err
			}
			r.Attributes = nil
			if _, err := record(ctx, s.Registry, r); err != nil {
				return err
			}
			got, err := getRun(ctx, s.Registry, id)
			if err != nil {
				return err
			}
			return eq("attributes", got.Attributes, map[string]any{"a": "1", "b": "2", "c": map[string]any{"n": 3.0}})
		}},
		{ID: "registry/record-error-not-cleared", Rule: "an error is replaced only by another error: a run cannot clear its error", Run: func(ctx context.Context, s *Subject) error {
			r := run(s, "failed")
			r.Error = strp("boom")
			id, err := record(ctx, s.Registry, r)
			if err != nil {
				return err
			}
			r.Status, r.Error = "running", nil
			if _, err := record(ctx, s.Registry, r); err != nil {
				return err
			}
			got, err := getRun(ctx, s.Registry, id)
			if err != nil {
				return err
			}
			var c checks
			c.eq("error after a record without one", deref(got.Error), "boom")
			r.Error = strp("bang")
			if _, err := record(ctx, s.Registry, r); err != nil {
				return err
			}
			if got, err = getRun(ctx, s.Registry, id); err != nil {
				return err
			}
			c.eq("error after a record with a new one", deref(got.Error), "bang")
			return c.err()
		}},
		{ID: "registry/record-error-truncated", Rule: "an error longer than 4000 characters is kept truncated to 4000", Run: func(ctx context.Context, s *Subject) error {
			r := run(s, "failed")
			long := strings.Repeat("é", 5000)
			r.Error = &long
			id, err := record(ctx, s.Registry, r)
			if err != nil {
				return err
			}
			got, err := getRun(ctx, s.Registry, id)
			if err != nil {
				return err
			}
			return eq("error", deref(got.Error), strings.Repeat("é", 4000))
		}},
		{ID: "registry/record-completed-at-kept", Rule: "completed_at is kept unless a new one is given", Run: func(ctx context.Context, s *Subject) error {
			r := run(s, "completed")
			c1 := time.Now().Add(-time.Minute).UTC().Truncate(time.Microsecond)
			r.CompletedAt = &c1
			id, err := record(ctx, s.Registry, r)
			if err != nil {
				return err
			}
			r.CompletedAt = nil
			if _, err := record(ctx, s.Registry, r); err != nil {
				return err
			}
			got, err := getRun(ctx, s.Registry, id)
			if err != nil {
				return err
			}
			var c checks
			c.that(sameTime(got.CompletedAt, &c1), "completedAt after a record without one", c1.Format(time.RFC3339Nano), got.CompletedAt)
			c2 := c1.Add(time.Second)
			r.CompletedAt = &c2
			if _, err := record(ctx, s.Registry, r); err != nil {
				return err
			}
			if got, err = getRun(ctx, s.Registry, id); err != nil {
				return err
			}
			c.that(sameTime(got.CompletedAt, &c2), "completedAt after a record with a new one", c2.Format(time.RFC3339Nano), got.CompletedAt)
			return c.err()
		}},
		{ID: "registry/record-unknown-status-refused", Rule: "a status outside the six is refused and nothing is stored or changed", Run: func(ctx context.Context, s *Subject) error {
			var c checks
			fresh := run(s, "paused")
			_, err := s.Registry.Record(ctx, fresh)
			c.that(err != nil, "record of a new run with status paused", "a refusal", "success")
			got, err := s.Registry.Get(ctx, fresh.ExternalID)
			if err != nil {
				return op("get", err)
			}
			c.eq("the refused new run", got, (*WorkflowRun)(nil))
			r := run(s, "running")
			id, err := record(ctx, s.Registry, r)
			if err != nil {
				return err
			}
			r.Status = "RUNNING"
			_, err = s.Registry.Record(ctx, r)
			c.that(err != nil, "record with status RUNNING", "a refusal", "success")
			existing, err := getRun(ctx, s.Registry, id)
			if err != nil {
				return err
			}
			c.eq("status after the refused record", existing.Status, "running")
			return c.err()
		}},
		{ID: "registry/every-status-accepted", Rule: "each of the six statuses is accepted and read back", Run: func(ctx context.Context, s *Subject) error {
			r := run(s, "queued")
			var c checks
			for _, st := range RunStatuses {
				r.Status = st
				id, err := record(ctx, s.Registry, r)
				if err != nil {
					return err
				}
				got, err := getRun(ctx, s.Registry, id)
				if err != nil {
					return err
				}
				c.eq("status after recording "+st, got.Status, st)
			}
			return c.err()
		}},
		{ID: "registry/cancel-request-keeps-status", Rule: "a cancel request sets cancelRequestedAt and does not change the status", Run: func(ctx context.Context, s *Subject) error {
			var c checks
			for _, st := range []string{"queued", "running", "waiting"} {
				r := run(s, st)
				id, err := record(ctx, s.Registry, r)
				if err != nil {
					return err
				}
				got, err := s.Registry.RequestCancel(ctx, id)
				if err != nil {
					return op("requestCancel", err)
				}
				if !c.that(got != nil, "requestCancel of a "+st+" run", "the run", "null") {
					continue
				}
				c.eq("status returned by requestCancel of a "+st+" run", got.Status, st)
				c.that(got.CancelRequestedAt != nil, "cancelRequestedAt returned for a "+st+" run", "a time", "null")
				stored, err := getRun(ctx, s.Registry, id)
				if err != nil {
					return err
				}
				c.eq("stored status after requestCancel of a "+st+" run", stored.Status, st)
			}
			return c.err()
		}},
		{ID: "registry/cancel-request-keeps-first-time", Rule: "a second cancel request keeps the first request's time", Run: func(ctx context.Context, s *Subject) error {
			r := run(s, "running")
			id, err := record(ctx, s.Registry, r)
			if err != nil {
				return err
			}
			first, err := s.Registry.RequestCancel(ctx, r.ExternalID)
			if err != nil {
				return op("first requestCancel", err)
			}
			second, err := s.Registry.RequestCancel(ctx, id)
			if err != nil {
				return op("second requestCancel", err)
			}
			if first == nil || second == nil || first.CancelRequestedAt == nil {
				return &Mismatch{What: "two cancel requests", Expected: "the run with cancelRequestedAt, twice", Actual: fmt.Sprintf("%s and %s", show(first), show(second))}
			}
			var c checks
			c.that(sameTime(second.CancelRequestedAt, first.CancelRequestedAt), "cancelRequestedAt after the second request", first.CancelRequestedAt.Format(time.RFC3339Nano), second.CancelRequestedAt)
			return c.err()
		}},
		{ID: "registry/cancel-request-terminal-unchanged", Rule: "a cancel request returns a terminal run unchanged", Run: func(ctx context.Context, s *Subject) error {
			var c checks
			for _, st := range []string{"completed", "failed", "cancelled"} {
				r := run(s, st)
				id, err := record(ctx, s.Registry, r)
				if err != nil {
					return err
				}
				got, err := s.Registry.RequestCancel(ctx, id)
				if err != nil {
					return op("requestCancel", err)
				}
				if !c.that(got != nil, "requestCancel of a "+st+" run", "the run", "null") {
					continue
				}
				c.eq("status of a "+st+" run after requestCancel", got.Status, st)
				c.that(got.CancelRequestedAt == nil, "cancelRequestedAt of a "+st+" run", "null", got.CancelRequestedAt)
				stored, err := getRun(ctx, s.Registry, id)
				if err != nil {
					return err
				}
				c.that(stored.CancelRequestedAt == nil && stored.Status == st, "stored "+st+" run after requestCancel", "unchanged", stored)
			}
			return c.err()
		}},
		{ID: "registry/cancel-request-unknown-null", Rule: "a cancel request for an unknown run returns null", Run: func(ctx context.Context, s *Subject) error {
			got, err := s.Registry.RequestCancel(ctx, s.ID("nothing"))
			if err != nil {
				return op("requestCancel", err)
			}
			if err := eq("requestCancel of an unknown external id", got, (*WorkflowRun)(nil)); err != nil {
				return err
			}
			got, err = s.Registry.RequestCancel(ctx, s.UUID())
			if err != nil {
				return op("requestCancel", err)
			}
			return eq("requestCancel of an unknown uuid", got, (*WorkflowRun)(nil))
		}},
		{ID: "registry/cancel-then-record-cancelled", Rule: "the engine records cancelled after a request; the request's time stays", Run: func(ctx context.Context, s *Subject) error {
			r := run(s, "running")
			id, err := record(ctx, s.Registry, r)
			if err != nil {
				return err
			}
			req, err := s.Registry.RequestCancel(ctx, id)
			if err != nil || req == nil {
				return op("requestCancel", err)
			}
			r.Status = "cancelled"
			if _, err := record(ctx, s.Registry, r); err != nil {
				return err
			}
			got, err := getRun(ctx, s.Registry, id)
			if err != nil {
				return err
			}
			var c checks
			c.eq("status", got.Status, "cancelled")
			c.that(sameTime(got.CancelRequestedAt, req.CancelRequestedAt), "cancelRequestedAt", "the request's time", got.CancelRequestedAt)
			return c.err()
		}},
		{ID: "registry/get-by-id-and-external-id", Rule: "get finds a run by its registry id and by its external id, with every field", Run: func(ctx context.Context, s *Subject) error {
			r := run(s, "running")
			r.Tenant, r.Actor = s.UUID(), s.UUID()
			r.Attributes = map[string]any{"k": "v"}
			id, err := record(ctx, s.Registry, r)
			if err != nil {
				return err
			}
			byID, err := getRun(ctx, s.Registry, id)
			if err != nil {
				return err
			}
			byExt, err := getRun(ctx, s.Registry, r.ExternalID)
			if err != nil {
				return err
			}
			var c checks
			c.eq("id of get by id", byID.ID, id)
			c.eq("id of get by external id", byExt.ID, id)
			c.eq("fields", []any{byID.Engine, byID.ExternalID, byID.Definition, byID.Status, deref(byID.Tenant), deref(byID.Actor), byID.Attributes, deref(byID.Error)},
				[]any{r.Engine, r.ExternalID, r.Definition, r.Status, r.Tenant, r.Actor, map[string]any{"k": "v"}, nil})
			c.that(byID.CreatedAt != nil && byID.UpdatedAt != nil, "createdAt and updatedAt", "both set", byID)
			return c.err()
		}},
		{ID: "registry/get-id-match-first", Rule: "get prefers a registry id match over an external id match", Run: func(ctx context.Context, s *Subject) error {
			target, err := record(ctx, s.Registry, run(s, "running"))
			if err != nil {
				return err
			}
			decoy := run(s, "queued")
			decoy.ExternalID = target
			decoy.Engine = "conform-decoy"
			if _, err := record(ctx, s.Registry, decoy); err != nil {
				return err
			}
			got, err := getRun(ctx, s.Registry, target)
			if err != nil {
				return err
			}
			return eq("id of the run found", got.ID, target)
		}},
		{ID: "registry/get-unknown-null", Rule: "get of an unknown id or external id returns null", Run: func(ctx context.Context, s *Subject) error {
			var c checks
			for _, ref := range []string{s.ID("nothing"), s.UUID()} {
				got, err := s.Registry.Get(ctx, ref)
				if err != nil {
					return op("get", err)
				}
				c.eq("get "+ref, got, (*WorkflowRun)(nil))
			}
			return c.err()
		}},
		{ID: "registry/list-filters", Rule: "list filters by tenant, definition and status", Run: func(ctx context.Context, s *Subject) error {
			tenant := s.UUID()
			mk := func(def, status string) (string, error) {
				r := run(s, status)
				r.Tenant, r.Definition = tenant, def
				return record(ctx, s.Registry, r)
			}
			a, err := mk("alpha", "running")
			if err != nil {
				return err
			}
			b, err := mk("alpha", "completed")
			if err != nil {
				return err
			}
			cc, err := mk("beta", "running")
			if err != nil {
				return err
			}
			other := run(s, "running")
			other.Tenant, other.Definition = s.UUID(), "alpha"
			if _, err := record(ctx, s.Registry, other); err != nil {
				return err
			}
			var c checks
			for _, tc := range []struct {
				f    RunFilter
				want []string
			}{
				{RunFilter{Tenant: tenant}, []string{cc, b, a}},
				{RunFilter{Tenant: tenant, Definition: "alpha"}, []string{b, a}},
				{RunFilter{Tenant: tenant, Status: "running"}, []string{cc, a}},
				{RunFilter{Tenant: tenant, Definition: "beta", Status: "completed"}, []string{}},
			} {
				got, err := s.Registry.List(ctx, tc.f)
				if err != nil {
					return op("list", err)
				}
				c.eq(fmt.Sprintf("ids listed for %+v (newest first)", tc.f), ids(got), tc.want)
			}
			return c.err()
		}},
		{ID: "registry/list-order-and-paging", Rule: "list is newest first, max bounds a page and before pages on", Run: func(ctx context.Context, s *Subject) error {
			tenant := s.UUID()
			var made []string
			for range 5 {
				r := run(s, "running")
				r.Tenant = tenant
				id, err := record(ctx, s.Registry, r)
				if err != nil {
					return err
				}
				made = append([]string{id}, made...)
			}
			var c checks
			page1, err := s.Registry.List(ctx, RunFilter{Tenant: tenant, Max: 2})
			if err != nil {
				return op("list", err)
			}
			c.eq("first page (max 2)", ids(page1), made[:2])
			if len(page1) == 2 && page1[1].CreatedAt != nil {
				page2, err := s.Registry.List(ctx, RunFilter{Tenant: tenant, Max: 2, Before: page1[1].CreatedAt})
				if err != nil {
					return op("list", err)
				}
				c.eq("second page (before the first page's last createdAt)", ids(page2), made[2:4])
			}
			all, err := s.Registry.List(ctx, RunFilter{Tenant: tenant})
			if err != nil {
				return op("list", err)
			}
			c.eq("everything (default max 50)", ids(all), made)
			return c.err()
		}},
		{ID: "registry/list-max-clamped", Rule: "list clamps max to 1..500", Timeout: 30 * time.Second, Run: func(ctx context.Context, s *Subject) error {
			tenant := s.UUID()
			recs := make([]RunRecord, 501)
			for i := range recs {
				recs[i] = run(s, "queued")
				recs[i].Tenant = tenant
			}
			// Eight writers at once: the order of these runs does not
			// matter here, only their number.
			errs := make([]error, 8)
			var wg sync.WaitGroup
			for w := range errs {
				wg.Go(func() {
					for i := w; i < len(recs) && errs[w] == nil; i += len(errs) {
						_, errs[w] = record(ctx, s.Registry, recs[i])
					}
				})
			}
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				return err
			}
			var c checks
			for _, tc := range []struct{ max, want int }{{0, 50}, {-4, 1}, {1000, 500}} {
				got, err := s.Registry.List(ctx, RunFilter{Tenant: tenant, Max: tc.max})
				if err != nil {
					return op("list", err)
				}
				c.eq(fmt.Sprintf("runs listed with max %d", tc.max), len(got), tc.want)
			}
			return c.err()
		}},
		{ID: "registry/purge-keeps-recent-runs", Isolated: true, Rule: "purge keeps terminal runs younger than the window and every run that is not terminal", Run: func(ctx context.Context, s *Subject) error {
			return s.alone(ctx, PurgeOf(SuiteRegistry, 24*time.Hour), func() error {
				var made []string
				for _, st := range RunStatuses {
					id, err := record(ctx, s.Registry, run(s, st))
					if err != nil {
						return err
					}
					made = append(made, id)
				}
				n, err := s.Registry.Purge(ctx, 24*time.Hour, 1000)
				if err != nil {
					return op("purge", err)
				}
				var c checks
				if !s.Shared {
					// On a shared store the other cases' runs are the
					// store's too; what the rule is about is checked below.
					c.eq("purge count", n, 0)
				}
				for i, st := range RunStatuses {
					got, err := s.Registry.Get(ctx, made[i])
					if err != nil {
						return op("get", err)
					}
					c.eq(fmt.Sprintf("a new %s run survives a one-day purge", st), got != nil, true)
				}
				return c.err()
			})
		}},
		{ID: "registry/purge-terminal-past-window", Rule: "purge deletes only terminal runs older than the window", Isolated: true, Run: func(ctx context.Context, s *Subject) error {
			t := newTimed(s, SuiteRegistry)
			// Old runs are past the window, young ones within it.
			window, oldAge, youngAge := 30*24*time.Hour, 40*24*time.Hour, 20*24*time.Hour
			if t.mode == waitReal {
				window, oldAge = time.Second, 1200*time.Millisecond
			}
			return t.Run(ctx, func() error {
				var old, young []string
				t.Hold(HoldAge, t.Now())
				for _, st := range RunStatuses {
					id, err := record(ctx, s.Registry, run(s, st))
					if err != nil {
						return err
					}
					old = append(old, id)
				}
				recorded := t.Now()
				var beforeYoung time.Time
				switch t.mode {
				case ageRows:
					if err := t.Pass(ctx, oldAge, recorded, old...); err != nil {
						return err
					}
				case moveClock:
					if err := t.Pass(ctx, oldAge-youngAge, recorded); err != nil {
						return err
					}
				case waitReal:
					if err := t.Pass(ctx, oldAge, recorded); err != nil {
						return err
					}
				}
				recordYoung := func() error {
					beforeYoung = time.Now()
					for _, st := range RunStatuses {
						yid, err := record(ctx, s.Registry, run(s, st))
						if err != nil {
							return err
						}
						young = append(young, yid)
					}
					return nil
				}
				if t.mode != waitReal {
					if err := recordYoung(); err != nil {
						return err
					}
				}
				switch t.mode {
				case ageRows:
					if err := t.Pass(ctx, youngAge, recorded, young...); err != nil {
						return err
					}
				case moveClock:
					if err := t.Pass(ctx, youngAge, recorded); err != nil {
						return err
					}
				}
				return t.Purge(ctx, window, func() error {
					if t.mode == waitReal {
						// Recorded within the step, so that no wait for
						// other cases can age them past the window.
						if err := recordYoung(); err != nil {
							return err
						}
					}
					n, err := s.Registry.Purge(ctx, window, 1000)
					if err != nil {
						return op("purge", err)
					}
					if t.mode == waitReal && time.Since(beforeYoung) >= window {
						return fmt.Errorf("the check could not be made: the purge came %s after the young runs were recorded, not within the window of %s; store calls are too slow for real-time windows", time.Since(beforeYoung).Round(time.Millisecond), window)
					}
					var c checks
					if s.Shared {
						c.that(n >= 3, "purge count", "at least 3 (the case's three old terminal runs)", n)
					} else {
						c.eq("purge count", n, 3)
					}
					for i, st := range RunStatuses {
						terminal := st == "completed" || st == "failed" || st == "cancelled"
						got, err := s.Registry.Get(ctx, old[i])
						if err != nil {
							return op("get", err)
						}
						c.eq(fmt.Sprintf("an old %s run (past the window) survives the purge", st), got != nil, !terminal)
						got, err = s.Registry.Get(ctx, young[i])
						if err != nil {
							return op("get", err)
						}
						c.eq(fmt.Sprintf("a young %s run (within the window) survives the purge", st), got != nil, true)
					}
					return c.err()
				})
			})
		}},
	}
	cs = append(cs, registryCallerCases()...)
	for i := range cs {
		cs[i].Suite = SuiteRegistry
	}
	return cs
}
