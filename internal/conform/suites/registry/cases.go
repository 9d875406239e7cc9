package registry

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform"
)

// cases are the suite's cases in run order. A case with a Block checks
// that rule of the workflows block, beyond the registry's interface; the
// others check the interface.
var cases = []conform.CaseOf[Subject]{
	{ID: "registry/record-upsert-same-id", Rule: "recording the same (engine, external_id) again returns the same id", Run: recordUpsertSameID},
	{ID: "registry/record-key-is-engine-and-external-id", Rule: "the same external id under another engine is another run", Run: recordKeyIsEngineAndExternalID},
	{ID: "registry/record-overwrites-definition-and-status", Block: RecordRules, Rule: "a later record overwrites definition and status, with no transition rules", Run: recordOverwritesDefinitionAndStatus},
	{ID: "registry/record-keeps-first-tenant-actor-started", Block: RecordRules, Rule: "tenant, actor and started_at keep their first non-null value", Run: recordKeepsFirstTenantActorStarted},
	{ID: "registry/record-merges-attributes", Block: RecordRules, Rule: "attributes are merged, new keys winning", Run: recordMergesAttributes},
	{ID: "registry/record-error-not-cleared", Block: RecordRules, Rule: "an error is replaced only by another error: a run cannot clear its error", Run: recordErrorNotCleared},
	{ID: "registry/record-error-truncated", Block: RecordRules, Rule: "an error longer than 4000 characters is kept truncated to 4000", Run: recordErrorTruncated},
	{ID: "registry/record-completed-at-kept", Block: RecordRules, Rule: "completed_at is kept unless a new one is given", Run: recordCompletedAtKept},
	{ID: "registry/record-unknown-status-refused", Block: RecordRules, Rule: "a status outside the six is refused and nothing is stored or changed", Run: recordUnknownStatusRefused},
	{ID: "registry/every-status-accepted", Rule: "each of the six statuses is accepted and read back", Run: everyStatusAccepted},
	{ID: "registry/cancel-request-keeps-status", Rule: "a cancel request sets cancelRequestedAt and does not change the status", Run: cancelRequestKeepsStatus},
	{ID: "registry/cancel-request-keeps-first-time", Block: CancelRequestRules, Rule: "a second cancel request keeps the first request's time", Run: cancelRequestKeepsFirstTime},
	{ID: "registry/cancel-request-terminal-unchanged", Block: CancelRequestRules, Rule: "a cancel request returns a terminal run unchanged", Run: cancelRequestTerminalUnchanged},
	{ID: "registry/cancel-request-unknown-null", Rule: "a cancel request for an unknown run returns null", Run: cancelRequestUnknownNull},
	{ID: "registry/cancel-then-record-cancelled", Rule: "the engine records cancelled after a request; the request's time stays", Run: cancelThenRecordCancelled},
	{ID: "registry/get-by-id-and-external-id", Rule: "get finds a run by its registry id and by its external id, with every field", Run: getByIDAndExternalID},
	{ID: "registry/get-id-match-first", Block: IDMatchFirst, Rule: "get prefers a registry id match over an external id match", Run: getIDMatchFirst},
	{ID: "registry/get-unknown-null", Rule: "get of an unknown id or external id returns null", Run: getUnknownNull},
	{ID: "registry/list-filters", Rule: "list filters by tenant, definition and status", Run: listFilters},
	{ID: "registry/list-order-and-paging", Rule: "list is newest first, max bounds a page and before pages on", Run: listOrderAndPaging},
	{ID: "registry/list-max-clamped", Rule: "list clamps max to 1..500", Timeout: 3 * conform.DefaultTimeout, Run: listMaxClamped},
	{ID: "registry/purge-keeps-recent-runs", Isolated: true, Counts: true, Rule: "purge keeps terminal runs younger than the window and every run that is not terminal", Run: purgeKeepsRecentRuns},
	{ID: "registry/purge-terminal-past-window", Rule: "purge deletes only terminal runs older than the window", Isolated: true, Counts: true, Run: purgeTerminalPastWindow},
	{ID: "registry/actor-sees-own-run", Block: ReadRules, Needs: conform.FeatureTenants, Rule: "the run's actor finds it by get and in the list; another user and anon find nothing (a refused call is as good as an empty answer)", Run: actorSeesOwnRun},
	{ID: "registry/tenant-members-read-with-workflow-read", Block: ReadRules, Needs: conform.FeatureTenants, Rule: "a member holding workflow.read in the run's tenant finds it by get and in the list; one holding it in another tenant does not", Run: tenantMembersReadWithWorkflowRead},
	{ID: "registry/cancel-by-actor-or-tenant-admin", Needs: conform.FeatureTenants, Rule: "the actor and a member holding workflow.admin in the run's tenant may ask for a cancel; another user is refused (or answered null) and the run keeps no request", Run: cancelByActorOrTenantAdmin},
}

// engine is the engine the cases record their runs under.
const engine = "conform"

// day is the unit of the purge windows.
const day = 24 * time.Hour

// fresh is a new run of the case in status, not recorded yet.
func fresh(t *conform.T, status string) Record {
	return Record{Engine: engine, ExternalID: t.ID("ext"), Definition: "def", Status: status}
}

// tryRecord records r: the id, or why the store failed the call or
// answered without one. Goroutines of a case use it; the case's own
// goroutine uses record.
func tryRecord(ctx context.Context, reg Registry, r Record) (string, error) {
	id, err := reg.Record(ctx, r)
	if err != nil {
		return "", conform.Op(fmt.Sprintf("record %s/%s (%s)", r.Engine, r.ExternalID, r.Status), err)
	}
	if id == "" {
		return "", &conform.Mismatch{What: "id returned by record", Expected: "a non-empty id", Actual: `""`}
	}
	return id, nil
}

// record records r and returns its id; a failure stops the case.
func record(t *conform.T, reg Registry, r Record) string {
	id, err := tryRecord(t.Context(), reg, r)
	stopOn(t, err)
	return id
}

// recordEach records a fresh run in each of the six statuses, and returns
// their ids in the order of Statuses.
func recordEach(t *conform.T, reg Registry) []string {
	ids := make([]string, len(Statuses))
	for i, st := range Statuses {
		ids[i] = record(t, reg, fresh(t, st))
	}
	return ids
}

// get fetches a run that must exist; a failure or null stops the case.
func get(t *conform.T, reg Registry, ref string) *Run {
	r, err := reg.Get(t.Context(), ref)
	t.Must("get "+ref, err)
	if r == nil {
		t.Fatal(&conform.Mismatch{What: "get " + ref, Expected: "the run", Actual: "null"})
	}
	return r
}

// exists says whether get finds the run ref; a failure stops the case.
func exists(t *conform.T, reg Registry, ref string) bool {
	r, err := reg.Get(t.Context(), ref)
	t.Must("get", err)
	return r != nil
}

// requestCancel asks for a cancel of ref; a failure stops the case.
func requestCancel(t *conform.T, reg View, ref, what string) *Run {
	r, err := reg.RequestCancel(t.Context(), ref)
	t.Must(what, err)
	return r
}

// list lists the runs f selects; a failure stops the case.
func list(t *conform.T, reg Registry, f Filter) []Run {
	runs, err := reg.List(t.Context(), f)
	t.Must("list", err)
	return runs
}

// stopOn stops the case on err, an error that says already what failed.
func stopOn(t *conform.T, err error) {
	if err != nil {
		t.Fatal(err)
	}
}

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

// stamp renders a time the way the cases' expectations show it.
func stamp(at time.Time) string { return at.Format(time.RFC3339Nano) }

func ids(runs []Run) []string {
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = r.ID
	}
	return out
}

func terminal(status string) bool {
	return status == "completed" || status == "failed" || status == "cancelled"
}

func recordUpsertSameID(t *conform.T, s Subject) {
	r := fresh(t, "queued")
	first := record(t, s, r)
	r.Status = "running"
	second := record(t, s, r)
	t.Eq("id of the second record", second, first)
}

func recordKeyIsEngineAndExternalID(t *conform.T, s Subject) {
	r := fresh(t, "queued")
	a := record(t, s, r)
	r.Engine = "conform-other"
	b := record(t, s, r)
	t.That(a != b, "ids of two engines' runs with one external id", "two different ids", a)
}

func recordOverwritesDefinitionAndStatus(t *conform.T, s Subject) {
	r := fresh(t, "completed")
	id := record(t, s, r)
	r.Definition, r.Status = "def-v2", "running"
	record(t, s, r)
	got := get(t, s, id)
	t.Eq("definition", got.Definition, "def-v2")
	t.Eq("status (completed back to running is allowed)", got.Status, "running")
}

func recordKeepsFirstTenantActorStarted(t *conform.T, s Subject) {
	r := fresh(t, "queued")
	id := record(t, s, r)
	t1, a1 := t.UUID(), t.UUID()
	s1 := time.Now().Add(-time.Hour).UTC().Truncate(time.Microsecond)
	r.Status, r.Tenant, r.Actor, r.StartedAt = "running", t1, a1, &s1
	record(t, s, r)
	s2 := s1.Add(time.Minute)
	r.Tenant, r.Actor, r.StartedAt = t.UUID(), t.UUID(), &s2
	record(t, s, r)
	r.Tenant, r.Actor, r.StartedAt = "", "", nil
	record(t, s, r)
	got := get(t, s, id)
	t.Eq("tenant", deref(got.Tenant), t1)
	t.Eq("actor", deref(got.Actor), a1)
	t.That(sameTime(got.StartedAt, &s1), "startedAt", stamp(s1), got.StartedAt)
}

func recordMergesAttributes(t *conform.T, s Subject) {
	r := fresh(t, "running")
	r.Attributes = map[string]any{"a": "1", "b": "1"}
	id := record(t, s, r)
	r.Attributes = map[string]any{"b": "2", "c": map[string]any{"n": 3.0}}
	record(t, s, r)
	r.Attributes = nil
	record(t, s, r)
	t.Eq("attributes", get(t, s, id).Attributes, map[string]any{"a": "1", "b": "2", "c": map[string]any{"n": 3.0}})
}

func recordErrorNotCleared(t *conform.T, s Subject) {
	r := fresh(t, "failed")
	r.Error = strp("boom")
	id := record(t, s, r)
	r.Status, r.Error = "running", nil
	record(t, s, r)
	t.Eq("error after a record without one", deref(get(t, s, id).Error), "boom")
	r.Error = strp("bang")
	record(t, s, r)
	t.Eq("error after a record with a new one", deref(get(t, s, id).Error), "bang")
}

func recordErrorTruncated(t *conform.T, s Subject) {
	r := fresh(t, "failed")
	long := strings.Repeat("é", 5000)
	r.Error = &long
	id := record(t, s, r)
	t.Eq("error", deref(get(t, s, id).Error), strings.Repeat("é", 4000))
}

func recordCompletedAtKept(t *conform.T, s Subject) {
	r := fresh(t, "completed")
	c1 := time.Now().Add(-time.Minute).UTC().Truncate(time.Microsecond)
	r.CompletedAt = &c1
	id := record(t, s, r)
	r.CompletedAt = nil
	record(t, s, r)
	got := get(t, s, id)
	t.That(sameTime(got.CompletedAt, &c1), "completedAt after a record without one", stamp(c1), got.CompletedAt)
	c2 := c1.Add(time.Second)
	r.CompletedAt = &c2
	record(t, s, r)
	got = get(t, s, id)
	t.That(sameTime(got.CompletedAt, &c2), "completedAt after a record with a new one", stamp(c2), got.CompletedAt)
}

func recordUnknownStatusRefused(t *conform.T, s Subject) {
	ctx := t.Context()
	paused := fresh(t, "paused")
	_, err := s.Record(ctx, paused)
	t.That(err != nil, "record of a new run with status paused", "a refusal", "success")
	got, err := s.Get(ctx, paused.ExternalID)
	t.Must("get", err)
	t.Eq("the refused new run", got, (*Run)(nil))
	r := fresh(t, "running")
	id := record(t, s, r)
	r.Status = "RUNNING"
	_, err = s.Record(ctx, r)
	t.That(err != nil, "record with status RUNNING", "a refusal", "success")
	t.Eq("status after the refused record", get(t, s, id).Status, "running")
}

func everyStatusAccepted(t *conform.T, s Subject) {
	r := fresh(t, "queued")
	for _, st := range Statuses {
		r.Status = st
		id := record(t, s, r)
		t.Eq("status after recording "+st, get(t, s, id).Status, st)
	}
}

func cancelRequestKeepsStatus(t *conform.T, s Subject) {
	for _, st := range []string{"queued", "running", "waiting"} {
		id := record(t, s, fresh(t, st))
		got := requestCancel(t, s, id, "requestCancel")
		if !t.That(got != nil, "requestCancel of a "+st+" run", "the run", "null") {
			continue
		}
		t.Eq("status returned by requestCancel of a "+st+" run", got.Status, st)
		t.That(got.CancelRequestedAt != nil, "cancelRequestedAt returned for a "+st+" run", "a time", "null")
		t.Eq("stored status after requestCancel of a "+st+" run", get(t, s, id).Status, st)
	}
}

func cancelRequestKeepsFirstTime(t *conform.T, s Subject) {
	r := fresh(t, "running")
	id := record(t, s, r)
	first := requestCancel(t, s, r.ExternalID, "first requestCancel")
	second := requestCancel(t, s, id, "second requestCancel")
	if first == nil || second == nil || first.CancelRequestedAt == nil {
		t.Fatal(&conform.Mismatch{What: "two cancel requests", Expected: "the run with cancelRequestedAt, twice", Actual: fmt.Sprintf("%s and %s", conform.Show(first), conform.Show(second))})
	}
	t.That(sameTime(second.CancelRequestedAt, first.CancelRequestedAt), "cancelRequestedAt after the second request", stamp(*first.CancelRequestedAt), second.CancelRequestedAt)
}

func cancelRequestTerminalUnchanged(t *conform.T, s Subject) {
	for _, st := range []string{"completed", "failed", "cancelled"} {
		id := record(t, s, fresh(t, st))
		got := requestCancel(t, s, id, "requestCancel")
		if !t.That(got != nil, "requestCancel of a "+st+" run", "the run", "null") {
			continue
		}
		t.Eq("status of a "+st+" run after requestCancel", got.Status, st)
		t.That(got.CancelRequestedAt == nil, "cancelRequestedAt of a "+st+" run", "null", got.CancelRequestedAt)
		stored := get(t, s, id)
		t.That(stored.CancelRequestedAt == nil && stored.Status == st, "stored "+st+" run after requestCancel", "unchanged", stored)
	}
}

func cancelRequestUnknownNull(t *conform.T, s Subject) {
	if t.Eq("requestCancel of an unknown external id", requestCancel(t, s, t.ID("nothing"), "requestCancel"), (*Run)(nil)) {
		t.Eq("requestCancel of an unknown uuid", requestCancel(t, s, t.UUID(), "requestCancel"), (*Run)(nil))
	}
}

func cancelThenRecordCancelled(t *conform.T, s Subject) {
	r := fresh(t, "running")
	id := record(t, s, r)
	req := requestCancel(t, s, id, "requestCancel")
	if req == nil {
		// A request answered with null is cancel-request-keeps-status's
		// failure; there is no request's time to keep here.
		return
	}
	r.Status = "cancelled"
	record(t, s, r)
	got := get(t, s, id)
	t.Eq("status", got.Status, "cancelled")
	t.That(sameTime(got.CancelRequestedAt, req.CancelRequestedAt), "cancelRequestedAt", "the request's time", got.CancelRequestedAt)
}

func getByIDAndExternalID(t *conform.T, s Subject) {
	r := fresh(t, "running")
	r.Tenant, r.Actor = t.UUID(), t.UUID()
	r.Attributes = map[string]any{"k": "v"}
	id := record(t, s, r)
	byID := get(t, s, id)
	byExt := get(t, s, r.ExternalID)
	t.Eq("id of get by id", byID.ID, id)
	t.Eq("id of get by external id", byExt.ID, id)
	t.Eq("fields", []any{byID.Engine, byID.ExternalID, byID.Definition, byID.Status, deref(byID.Tenant), deref(byID.Actor), byID.Attributes, deref(byID.Error)},
		[]any{r.Engine, r.ExternalID, r.Definition, r.Status, r.Tenant, r.Actor, map[string]any{"k": "v"}, nil})
	t.That(byID.CreatedAt != nil && byID.UpdatedAt != nil, "createdAt and updatedAt", "both set", byID)
}

func getIDMatchFirst(t *conform.T, s Subject) {
	target := record(t, s, fresh(t, "running"))
	decoy := fresh(t, "queued")
	decoy.ExternalID = target
	decoy.Engine = "conform-decoy"
	record(t, s, decoy)
	t.Eq("id of the run found", get(t, s, target).ID, target)
}

func getUnknownNull(t *conform.T, s Subject) {
	for _, ref := range []string{t.ID("nothing"), t.UUID()} {
		got, err := s.Get(t.Context(), ref)
		t.Must("get", err)
		t.Eq("get "+ref, got, (*Run)(nil))
	}
}

func listFilters(t *conform.T, s Subject) {
	tenant := t.UUID()
	mk := func(def, status string) string {
		r := fresh(t, status)
		r.Tenant, r.Definition = tenant, def
		return record(t, s, r)
	}
	a, b, c := mk("alpha", "running"), mk("alpha", "completed"), mk("beta", "running")
	other := fresh(t, "running")
	other.Tenant, other.Definition = t.UUID(), "alpha"
	record(t, s, other)
	for _, tc := range []struct {
		f    Filter
		want []string
	}{
		{Filter{Tenant: tenant}, []string{c, b, a}},
		{Filter{Tenant: tenant, Definition: "alpha"}, []string{b, a}},
		{Filter{Tenant: tenant, Status: "running"}, []string{c, a}},
		{Filter{Tenant: tenant, Definition: "beta", Status: "completed"}, []string{}},
	} {
		t.Eq(fmt.Sprintf("ids listed for %+v (newest first)", tc.f), ids(list(t, s, tc.f)), tc.want)
	}
}

func listOrderAndPaging(t *conform.T, s Subject) {
	tenant := t.UUID()
	var made []string
	for range 5 {
		r := fresh(t, "running")
		r.Tenant = tenant
		made = append([]string{record(t, s, r)}, made...)
	}
	page1 := list(t, s, Filter{Tenant: tenant, Max: 2})
	t.Eq("first page (max 2)", ids(page1), made[:2])
	if len(page1) == 2 && page1[1].CreatedAt != nil {
		page2 := list(t, s, Filter{Tenant: tenant, Max: 2, Before: page1[1].CreatedAt})
		t.Eq("second page (before the first page's last createdAt)", ids(page2), made[2:4])
	}
	t.Eq("everything (default max 50)", ids(list(t, s, Filter{Tenant: tenant})), made)
}

func listMaxClamped(t *conform.T, s Subject) {
	tenant := t.UUID()
	recs := make([]Record, 501)
	for i := range recs {
		recs[i] = fresh(t, "queued")
		recs[i].Tenant = tenant
	}
	// Eight writers at once: the order of these runs does not matter
	// here, only their number. They collect their failures for the case's
	// goroutine, which alone may stop the case.
	errs := make([]error, 8)
	var wg sync.WaitGroup
	for w := range errs {
		wg.Go(func() {
			for i := w; i < len(recs) && errs[w] == nil; i += len(errs) {
				_, errs[w] = tryRecord(t.Context(), s, recs[i])
			}
		})
	}
	wg.Wait()
	stopOn(t, errors.Join(errs...))
	for _, tc := range []struct{ max, want int }{{0, 50}, {-4, 1}, {1000, 500}} {
		t.Eq(fmt.Sprintf("runs listed with max %d", tc.max), len(list(t, s, Filter{Tenant: tenant, Max: tc.max})), tc.want)
	}
}

func purgeKeepsRecentRuns(t *conform.T, s Subject) {
	t.Error(t.Alone(conform.PurgeOf(name, day), func() error {
		made := recordEach(t, s)
		n, err := s.Purge(t.Context(), day, 1000)
		t.Must("purge", err)
		if !t.Shared() {
			// On a shared store the other cases' runs are the store's
			// too; what the rule is about is checked below.
			t.Eq("purge count", n, 0)
		}
		for i, st := range Statuses {
			t.Eq(fmt.Sprintf("a new %s run survives a one-day purge", st), exists(t, s, made[i]), true)
		}
		return nil
	}))
}

func purgeTerminalPastWindow(t *conform.T, s Subject) {
	ctx := t.Context()
	tm := conform.NewTimed(t, name, s.Age)
	ages, waits := tm.Mode() == conform.AgeRows, tm.Mode() == conform.WaitReal
	// Old runs are past the window, young ones within it.
	window, oldAge, youngAge := 30*day, 40*day, 20*day
	if waits {
		window, oldAge = time.Second, 1200*time.Millisecond
	}
	t.Error(tm.Run(ctx, func() error {
		tm.Hold(conform.HoldAge, tm.Now())
		old := recordEach(t, s)
		recorded := tm.Now()
		var young []string
		var beforeYoung time.Time
		recordYoung := func() {
			beforeYoung = time.Now()
			young = recordEach(t, s)
		}
		switch {
		case ages:
			stopOn(t, tm.Pass(ctx, oldAge, recorded, old...))
			recordYoung()
			stopOn(t, tm.Pass(ctx, youngAge, recorded, young...))
		case waits:
			stopOn(t, tm.Pass(ctx, oldAge, recorded))
		default:
			// The clock moves every run at once: the old ones are
			// recorded the difference earlier.
			stopOn(t, tm.Pass(ctx, oldAge-youngAge, recorded))
			recordYoung()
			stopOn(t, tm.Pass(ctx, youngAge, recorded))
		}
		return tm.Purge(ctx, window, func() error {
			if waits {
				// Recorded within the step, so that no wait for other
				// cases can age them past the window.
				recordYoung()
			}
			n, err := s.Purge(ctx, window, 1000)
			t.Must("purge", err)
			if waits && time.Since(beforeYoung) >= window {
				t.Fatalf("the check could not be made: the purge came %s after the young runs were recorded, not within the window of %s; store calls are too slow for real-time windows", time.Since(beforeYoung).Round(time.Millisecond), window)
			}
			if t.Shared() {
				t.That(n >= 3, "purge count", "at least 3 (the case's three old terminal runs)", n)
			} else {
				t.Eq("purge count", n, 3)
			}
			for i, st := range Statuses {
				t.Eq(fmt.Sprintf("an old %s run (past the window) survives the purge", st), exists(t, s, old[i]), !terminal(st))
				t.Eq(fmt.Sprintf("a young %s run (within the window) survives the purge", st), exists(t, s, young[i]), true)
			}
			return nil
		})
	}))
}
