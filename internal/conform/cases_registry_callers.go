package conform

import (
	"context"
	"errors"
)

func needRegistryCallers(s *Subject) (RegistryCallers, error) {
	c, ok := s.Registry.(RegistryCallers)
	if !ok {
		return nil, Skip("the registry does not take the caller's identity, so run visibility cannot be checked")
	}
	return c, nil
}

// grant gives user permission in tenant, or skips the case where the
// store cannot.
func grant(ctx context.Context, rc RegistryCallers, user, tenant, permission string) error {
	err := rc.Grant(ctx, user, tenant, permission)
	if errors.Is(err, ErrNoGrants) {
		return Skip("%v", err)
	}
	return op("grant "+permission, err)
}

// sees reports whether v finds run id by get and in the list of tenant; a
// refused call sees nothing.
func sees(ctx context.Context, v RegistryView, id, tenant string) (byGet, inList bool, err error) {
	got, err := v.Get(ctx, id)
	switch {
	case Refused(err):
	case err != nil:
		return false, false, op("get", err)
	default:
		byGet = got != nil && got.ID == id
	}
	list, err := v.List(ctx, RunFilter{Tenant: tenant})
	switch {
	case Refused(err):
	case err != nil:
		return false, false, op("list", err)
	default:
		for _, r := range list {
			inList = inList || r.ID == id
		}
	}
	return byGet, inList, nil
}

// registryCallerCases are the rules of who sees and cancels which run: the
// actor, tenant members through workflow.read and workflow.admin, nobody
// else.
func registryCallerCases() []Case {
	const engine = "conform"
	// setup records a running run of a fresh tenant started by a fresh
	// actor.
	setup := func(ctx context.Context, s *Subject) (rc RegistryCallers, id, tenant, actor string, err error) {
		if rc, err = needRegistryCallers(s); err != nil {
			return
		}
		tenant, actor = s.UUID(), s.UUID()
		id, err = record(ctx, s.Registry, RunRecord{Engine: engine, ExternalID: s.ID("ext"), Definition: "def", Status: "running", Tenant: tenant, Actor: actor})
		return
	}
	return []Case{
		{ID: "registry/actor-sees-own-run", Needs: FeatureTenants, Rule: "the run's actor finds it by get and in the list; another user and anon find nothing (a refused call is as good as an empty answer)", Run: func(ctx context.Context, s *Subject) error {
			rc, id, tenant, actor, err := setup(ctx, s)
			if err != nil {
				return err
			}
			var c checks
			for _, who := range []struct {
				name string
				c    Caller
				want bool
			}{{"the actor", User(actor), true}, {"another user", User(s.UUID()), false}, {"anon", Anon, false}} {
				byGet, inList, err := sees(ctx, rc.As(who.c), id, tenant)
				if err != nil {
					return op("as "+who.name, err)
				}
				c.eq("get as "+who.name+" finds the run", byGet, who.want)
				c.eq("list as "+who.name+" has the run", inList, who.want)
			}
			return c.err()
		}},
		{ID: "registry/tenant-members-read-with-workflow-read", Needs: FeatureTenants, Rule: "a member holding workflow.read in the run's tenant finds it by get and in the list; one holding it in another tenant does not", Run: func(ctx context.Context, s *Subject) error {
			rc, id, tenant, _, err := setup(ctx, s)
			if err != nil {
				return err
			}
			member, outsider := s.UUID(), s.UUID()
			if err := grant(ctx, rc, member, tenant, "workflow.read"); err != nil {
				return err
			}
			if err := grant(ctx, rc, outsider, s.UUID(), "workflow.read"); err != nil {
				return err
			}
			var c checks
			for _, who := range []struct {
				name string
				user string
				want bool
			}{{"the member", member, true}, {"a member of another tenant", outsider, false}} {
				byGet, inList, err := sees(ctx, rc.As(User(who.user)), id, tenant)
				if err != nil {
					return op("as "+who.name, err)
				}
				c.eq("get as "+who.name+" finds the run", byGet, who.want)
				c.eq("list as "+who.name+" has the run", inList, who.want)
			}
			return c.err()
		}},
		{ID: "registry/cancel-by-actor-or-tenant-admin", Needs: FeatureTenants, Rule: "the actor and a member holding workflow.admin in the run's tenant may ask for a cancel; another user is refused (or answered null) and the run keeps no request", Run: func(ctx context.Context, s *Subject) error {
			rc, id, tenant, actor, err := setup(ctx, s)
			if err != nil {
				return err
			}
			var c checks
			got, err := rc.As(User(s.UUID())).RequestCancel(ctx, id)
			c.that(err != nil || got == nil, "cancel as another user", "a refusal or null", got)
			run, err := getRun(ctx, s.Registry, id)
			if err != nil {
				return err
			}
			c.eq("cancel requested after the stranger's request", run.CancelRequestedAt != nil, false)
			got, err = rc.As(User(actor)).RequestCancel(ctx, id)
			if err != nil {
				return op("cancel as the actor", err)
			}
			c.that(got != nil && got.CancelRequestedAt != nil, "cancel as the actor", "the run with its cancel request", got)

			// A second run of the tenant, which the admin did not start.
			other, err := record(ctx, s.Registry, RunRecord{Engine: engine, ExternalID: s.ID("ext2"), Definition: "def", Status: "running", Tenant: tenant, Actor: actor})
			if err != nil {
				return err
			}
			admin := s.UUID()
			if err := grant(ctx, rc, admin, tenant, "workflow.admin"); err != nil {
				return err
			}
			got, err = rc.As(User(admin)).RequestCancel(ctx, other)
			if err != nil {
				return op("cancel as a tenant admin", err)
			}
			c.that(got != nil && got.CancelRequestedAt != nil, "cancel as a tenant admin", "the run with its cancel request", got)
			return c.err()
		}},
	}
}
