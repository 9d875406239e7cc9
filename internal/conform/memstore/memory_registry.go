package memstore

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/registry"
)

// refRegistry is the reference run registry.
type refRegistry struct {
	mu   sync.Mutex
	runs []*registry.Run
	last time.Time
	// grants holds "user tenant permission" triples (Grant).
	grants map[string]bool
}

// newRegistry returns an empty reference registry.
func newRegistry() *refRegistry { return &refRegistry{} }

// now returns a strictly increasing time with microsecond precision, so
// that newest-first order and paging by createdAt are well defined.
func (m *refRegistry) now() time.Time {
	t := time.Now().UTC().Truncate(time.Microsecond)
	if !t.After(m.last) {
		t = m.last.Add(time.Microsecond)
	}
	m.last = t
	return t
}

func terminal(status string) bool {
	return status == "completed" || status == "failed" || status == "cancelled"
}

func tp(t time.Time) *time.Time { return &t }

// normalize gives attributes the shape JSON decoding would (numbers as
// float64), so stored values compare like those of other stores.
func normalize(m map[string]any) map[string]any {
	out := map[string]any{}
	if len(m) == 0 {
		return out
	}
	b, _ := json.Marshal(m)
	_ = json.Unmarshal(b, &out)
	return out
}

func copyRun(r *registry.Run) *registry.Run {
	c := *r
	c.Attributes = normalize(r.Attributes)
	return &c
}

// Record upserts a run on (engine, external id).
func (m *refRegistry) Record(_ context.Context, in registry.Record) (string, error) {
	if !slices.Contains(registry.Statuses, in.Status) {
		return "", &conform.StoreError{SQLState: "23514", Message: fmt.Sprintf("status %q violates the check constraint", in.Status)}
	}
	if in.Engine == "" || len(in.Engine) > 100 || in.ExternalID == "" || len(in.ExternalID) > 200 || in.Definition == "" || len(in.Definition) > 200 {
		return "", &conform.StoreError{SQLState: "23514", Message: "engine, externalId or definition has a bad length"}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	var errp *string
	if in.Error != nil {
		e := []rune(*in.Error)
		if len(e) > 4000 {
			e = e[:4000]
		}
		errp = strp(string(e))
	}
	opt := func(s string) *string {
		if s == "" {
			return nil
		}
		return strp(s)
	}
	for _, r := range m.runs {
		if r.Engine == in.Engine && r.ExternalID == in.ExternalID {
			r.Definition, r.Status = in.Definition, in.Status
			if r.Tenant == nil {
				r.Tenant = opt(in.Tenant)
			}
			if r.Actor == nil {
				r.Actor = opt(in.Actor)
			}
			if r.StartedAt == nil && in.StartedAt != nil {
				r.StartedAt = tp(in.StartedAt.UTC())
			}
			for k, v := range normalize(in.Attributes) {
				r.Attributes[k] = v
			}
			if errp != nil {
				r.Error = errp
			}
			if in.CompletedAt != nil {
				r.CompletedAt = tp(in.CompletedAt.UTC())
			}
			r.UpdatedAt = tp(now)
			return r.ID, nil
		}
	}
	r := &registry.Run{ID: conform.NewUUID(), Engine: in.Engine, ExternalID: in.ExternalID, Definition: in.Definition, Status: in.Status,
		Tenant: opt(in.Tenant), Actor: opt(in.Actor), Attributes: normalize(in.Attributes), Error: errp,
		CreatedAt: tp(now), UpdatedAt: tp(now)}
	if in.StartedAt != nil {
		r.StartedAt = tp(in.StartedAt.UTC())
	}
	if in.CompletedAt != nil {
		r.CompletedAt = tp(in.CompletedAt.UTC())
	}
	m.runs = append(m.runs, r)
	return r.ID, nil
}

func (m *refRegistry) find(ref string) *registry.Run {
	for _, r := range m.runs {
		if r.ID == ref {
			return r
		}
	}
	for _, r := range m.runs {
		if r.ExternalID == ref {
			return r
		}
	}
	return nil
}

// Get finds a run by registry id, else by external id.
func (m *refRegistry) Get(_ context.Context, ref string) (*registry.Run, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r := m.find(ref); r != nil {
		return copyRun(r), nil
	}
	return nil, nil
}

// List returns runs newest first, filtered and bounded.
func (m *refRegistry) List(_ context.Context, f registry.Filter) ([]registry.Run, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	limit := f.Max
	if limit == 0 {
		limit = 50
	}
	limit = min(max(limit, 1), 500)
	out := []registry.Run{}
	for _, r := range m.runs {
		if (f.Tenant != "" && deref(r.Tenant) != f.Tenant) || (f.Definition != "" && r.Definition != f.Definition) ||
			(f.Status != "" && r.Status != f.Status) || (f.Before != nil && !r.CreatedAt.Before(*f.Before)) {
			continue
		}
		out = append(out, *copyRun(r))
	}
	slices.SortStableFunc(out, func(a, b registry.Run) int { return b.CreatedAt.Compare(*a.CreatedAt) })
	return out[:min(limit, len(out))], nil
}

// RequestCancel records a cancel request on a non-terminal run. As
// upstream measures it, a repeated request keeps the first request's time
// and still touches the run (updatedAt).
func (m *refRegistry) RequestCancel(_ context.Context, ref string) (*registry.Run, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.find(ref)
	if r == nil {
		return nil, nil
	}
	if !terminal(r.Status) {
		now := m.now()
		if r.CancelRequestedAt == nil {
			r.CancelRequestedAt = tp(now)
		}
		r.UpdatedAt = tp(now)
	}
	return copyRun(r), nil
}

// Purge deletes up to batch terminal runs completed (or, without a
// completion time, last updated) before the window.
func (m *refRegistry) Purge(_ context.Context, olderThan time.Duration, batch int) (int, error) {
	if olderThan <= 0 {
		olderThan = 30 * 24 * time.Hour
	}
	if batch <= 0 {
		batch = 1000
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	cut := time.Now().Add(-olderThan)
	n := 0
	m.runs = slices.DeleteFunc(m.runs, func(r *registry.Run) bool {
		at := r.UpdatedAt
		if r.CompletedAt != nil {
			at = r.CompletedAt
		}
		if n < batch && terminal(r.Status) && at.Before(cut) {
			n++
			return true
		}
		return false
	})
	return n, nil
}

// AgeRun moves every timestamp of run id back by d.
func (m *refRegistry) AgeRun(_ context.Context, id string, d time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.find(id)
	if r == nil {
		return fmt.Errorf("no run %s to age", id)
	}
	for _, t := range []**time.Time{&r.CreatedAt, &r.UpdatedAt, &r.StartedAt, &r.CompletedAt, &r.CancelRequestedAt} {
		if *t != nil {
			*t = tp((*t).Add(-d))
		}
	}
	return nil
}

func strp(s string) *string { return &s }

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// Grant gives user permission in tenant, as the access module's
// tenant_permissions row does; permissions are independent.
func (m *refRegistry) Grant(_ context.Context, user, tenant, permission string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.grants == nil {
		m.grants = map[string]bool{}
	}
	m.grants[user+" "+tenant+" "+permission] = true
	return nil
}

// As returns the registry as caller c sees it.
func (m *refRegistry) As(c conform.Caller) registry.View { return memRegistryView{m, c} }

// memRegistryView applies the blocks' rules: anon is refused every call; a
// user reads the runs it is the actor of and those of tenants where it
// holds workflow.read, and may cancel its own runs and those of tenants
// where it holds workflow.admin.
type memRegistryView struct {
	m *refRegistry
	c conform.Caller
}

var errAnonRegistry = &conform.StoreError{SQLState: "42501", Hint: conform.HintPermissionDenied, Message: "anon may not call the registry functions"}

func (v memRegistryView) service() bool { return v.c.Role == "" || v.c.Role == conform.RoleService }

func (v memRegistryView) holds(tenant *string, permission string) bool {
	return tenant != nil && v.m.grants[v.c.Sub+" "+*tenant+" "+permission]
}

// reads is called with the lock held.
func (v memRegistryView) reads(r *registry.Run) bool {
	return v.service() || (r.Actor != nil && *r.Actor == v.c.Sub) || v.holds(r.Tenant, "workflow.read")
}

func (v memRegistryView) Get(_ context.Context, ref string) (*registry.Run, error) {
	if v.c.Role == conform.RoleAnon {
		return nil, errAnonRegistry
	}
	v.m.mu.Lock()
	defer v.m.mu.Unlock()
	// Only the runs the caller may read are looked through.
	for _, byID := range []bool{true, false} {
		for _, r := range v.m.runs {
			if ((byID && r.ID == ref) || (!byID && r.ExternalID == ref)) && v.reads(r) {
				return copyRun(r), nil
			}
		}
	}
	return nil, nil
}

func (v memRegistryView) List(ctx context.Context, f registry.Filter) ([]registry.Run, error) {
	if v.c.Role == conform.RoleAnon {
		return nil, errAnonRegistry
	}
	all, err := v.m.List(ctx, registry.Filter{Tenant: f.Tenant, Definition: f.Definition, Status: f.Status, Before: f.Before, Max: 500})
	if err != nil {
		return nil, err
	}
	limit := f.Max
	if limit == 0 {
		limit = 50
	}
	limit = min(max(limit, 1), 500)
	v.m.mu.Lock()
	defer v.m.mu.Unlock()
	out := []registry.Run{}
	for _, r := range all {
		if len(out) < limit && v.reads(&r) {
			out = append(out, r)
		}
	}
	return out, nil
}

func (v memRegistryView) RequestCancel(ctx context.Context, ref string) (*registry.Run, error) {
	if v.c.Role == conform.RoleAnon {
		return nil, errAnonRegistry
	}
	if v.service() {
		return v.m.RequestCancel(ctx, ref)
	}
	v.m.mu.Lock()
	r := v.m.find(ref)
	ok := r == nil || (r.Actor != nil && *r.Actor == v.c.Sub) || v.holds(r.Tenant, "workflow.admin")
	v.m.mu.Unlock()
	if !ok {
		return nil, &conform.StoreError{SQLState: "42501", Hint: registry.HintWorkflowForbidden, Message: "you may not cancel this run"}
	}
	return v.m.RequestCancel(ctx, ref)
}

// RunRegistry gives each registry case a reference registry of its own,
// whose runs it ages to make time pass.
func (m *memoryStore) RunRegistry(context.Context) (conform.Opener[registry.Subject], error) {
	return func(t *conform.T) (registry.Subject, error) {
		t.SetPrefix(m.prefix())
		reg := newRegistry()
		return registry.Subject{Registry: reg, Age: reg.AgeRun}, nil
	}, nil
}
