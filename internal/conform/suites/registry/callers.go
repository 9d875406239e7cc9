package registry

import (
	"errors"

	"github.com/bsadapter/bsadapter/internal/conform"
)

// The rules of who sees and cancels which run: the actor, tenant members
// through workflow.read and workflow.admin, nobody else.

// callers returns the registry as its callers reach it, or skips the
// case when it does not take the caller's identity.
func callers(t *conform.T, s Subject) Callers {
	c, ok := s.Registry.(Callers)
	if !ok {
		t.Skip("the registry does not take the caller's identity, so run visibility cannot be checked")
	}
	return c
}

// grant gives user permission in tenant, or skips the case where the
// store cannot.
func grant(t *conform.T, rc Callers, user, tenant, permission string) {
	err := rc.Grant(t.Context(), user, tenant, permission)
	if errors.Is(err, conform.ErrNoGrants) {
		t.Skip("%v", err)
	}
	t.Must("grant "+permission, err)
}

// sees reports whether v, the registry as who sees it, finds run id by
// get and in the list of tenant; a refused call sees nothing.
func sees(t *conform.T, v View, who, id, tenant string) (byGet, inList bool) {
	ctx := t.Context()
	got, err := v.Get(ctx, id)
	if !conform.Refused(err) {
		t.Must("as "+who, conform.Op("get", err))
		byGet = got != nil && got.ID == id
	}
	runs, err := v.List(ctx, Filter{Tenant: tenant})
	if !conform.Refused(err) {
		t.Must("as "+who, conform.Op("list", err))
		for _, r := range runs {
			inList = inList || r.ID == id
		}
	}
	return byGet, inList
}

// setup records a running run of a fresh tenant started by a fresh
// actor, on a registry that takes callers.
func setup(t *conform.T, s Subject) (rc Callers, id, tenant, actor string) {
	rc = callers(t, s)
	tenant, actor = t.UUID(), t.UUID()
	id = record(t, s, Record{Engine: engine, ExternalID: t.ID("ext"), Definition: "def", Status: "running", Tenant: tenant, Actor: actor})
	return rc, id, tenant, actor
}

func actorSeesOwnRun(t *conform.T, s Subject) {
	rc, id, tenant, actor := setup(t, s)
	for _, who := range []struct {
		name string
		c    conform.Caller
		want bool
	}{{"the actor", conform.User(actor), true}, {"another user", conform.User(t.UUID()), false}, {"anon", conform.Anon, false}} {
		byGet, inList := sees(t, rc.As(who.c), who.name, id, tenant)
		t.Eq("get as "+who.name+" finds the run", byGet, who.want)
		t.Eq("list as "+who.name+" has the run", inList, who.want)
	}
}

func tenantMembersReadWithWorkflowRead(t *conform.T, s Subject) {
	rc, id, tenant, _ := setup(t, s)
	member, outsider := t.UUID(), t.UUID()
	grant(t, rc, member, tenant, "workflow.read")
	grant(t, rc, outsider, t.UUID(), "workflow.read")
	for _, who := range []struct {
		name string
		user string
		want bool
	}{{"the member", member, true}, {"a member of another tenant", outsider, false}} {
		byGet, inList := sees(t, rc.As(conform.User(who.user)), who.name, id, tenant)
		t.Eq("get as "+who.name+" finds the run", byGet, who.want)
		t.Eq("list as "+who.name+" has the run", inList, who.want)
	}
}

func cancelByActorOrTenantAdmin(t *conform.T, s Subject) {
	rc, id, tenant, actor := setup(t, s)
	got, err := rc.As(conform.User(t.UUID())).RequestCancel(t.Context(), id)
	t.That(err != nil || got == nil, "cancel as another user", "a refusal or null", got)
	t.Eq("cancel requested after the stranger's request", get(t, s, id).CancelRequestedAt != nil, false)
	got = requestCancel(t, rc.As(conform.User(actor)), id, "cancel as the actor")
	t.That(got != nil && got.CancelRequestedAt != nil, "cancel as the actor", "the run with its cancel request", got)

	// A second run of the tenant, which the admin did not start.
	other := record(t, s, Record{Engine: engine, ExternalID: t.ID("ext2"), Definition: "def", Status: "running", Tenant: tenant, Actor: actor})
	admin := t.UUID()
	grant(t, rc, admin, tenant, "workflow.admin")
	got = requestCancel(t, rc.As(conform.User(admin)), other, "cancel as a tenant admin")
	t.That(got != nil && got.CancelRequestedAt != nil, "cancel as a tenant admin", "the run with its cancel request", got)
}
