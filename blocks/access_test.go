package blocks_test

import (
	"context"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/internal/pgserver/pgtest"
	"github.com/jackc/pgx/v5"
)

// On a database with an access module of its own (a better-supabase
// project), the access module replaces none of its functions, fills in
// only what is missing, and is not recorded; by Install and by the printed
// SQL alike.
func TestAccessModuleKeepsTheDatabasesOwn(t *testing.T) {
	own := `
		create schema if not exists better_supabase;
		create function better_supabase.can(scope text, scope_id uuid, permission text) returns boolean
		language sql stable as $$ select permission = 'theirs' $$;`
	check := func(t *testing.T, conn *pgx.Conn) {
		t.Helper()
		var theirs, listed, table, recorded, workflows bool
		if err := conn.QueryRow(context.Background(), `select
			better_supabase.can('tenant', gen_random_uuid(), 'theirs'),
			exists (select from better_supabase.tenant_ids_with('theirs')),
			to_regclass('better_supabase.tenant_permissions') is not null,
			exists (select from better_supabase.modules where name = 'access'),
			exists (select from better_supabase.modules where name = 'workflows')`).Scan(&theirs, &listed, &table, &recorded, &workflows); err != nil {
			t.Fatal(err)
		}
		if !theirs || listed || table || recorded || !workflows {
			t.Errorf("their can() kept %v, a tenant listed %v, the stand-in's table made %v, access recorded %v, workflows installed %v; want true, false, false, false, true",
				theirs, listed, table, recorded, workflows)
		}
	}
	t.Run("install", func(t *testing.T) {
		s, db := pgtest.EmptyDB(t)
		conn := pgtest.Conn(t, s, db)
		ctx := context.Background()
		if _, err := blocks.Install(ctx, conn, blocks.BaseModule); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, own); err != nil {
			t.Fatal(err)
		}
		rep, err := blocks.Install(ctx, conn, "workflows")
		if err != nil {
			t.Fatal(err)
		}
		if got := actions(rep); got[blocks.AccessModule] != blocks.Skipped {
			t.Errorf("access: %q, want skipped", got[blocks.AccessModule])
		}
		check(t, conn)
	})
	t.Run("printed SQL", func(t *testing.T) {
		s, db := pgtest.EmptyDB(t)
		conn := pgtest.Conn(t, s, db)
		ctx := context.Background()
		base, err := blocks.SQL(blocks.BaseModule)
		if err != nil {
			t.Fatal(err)
		}
		sql, err := blocks.SQL("workflows")
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{base, own, sql} {
			if _, err := conn.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		check(t, conn)
	})
}

// The access module's audit_event records each event once (once per
// idempotency key and tenant), with the caller's role and user; the
// service role reads the log, a signed-in user does not.
func TestAccessModuleRecordsAuditEvents(t *testing.T) {
	s, db := pgtest.DB(t)
	conn := pgtest.Conn(t, s, db)
	ctx := context.Background()
	const user = "11111111-1111-4111-8111-111111111111"
	if _, err := conn.Exec(ctx, `select set_config('request.jwt.claims', '{"role":"service_role","sub":"`+user+`"}', false); set role service_role`); err != nil {
		t.Fatal(err)
	}
	var ids []*string
	for _, q := range []string{
		"select better_supabase.audit_event('thing.done', category => 'test', record_id => 'r1', metadata => '{\"n\": 1}')",
		"select better_supabase.audit_event('thing.done', idempotency_key => 'k1')",
		"select better_supabase.audit_event('thing.done', idempotency_key => 'k1')",
		"select better_supabase.audit_event('thing.done', idempotency_key => 'k1', tenant => 'a0000000-0000-4000-8000-00000000000a')",
	} {
		var id *string
		if err := conn.QueryRow(ctx, q).Scan(&id); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		ids = append(ids, id)
	}
	if ids[0] == nil || ids[1] == nil || ids[2] == nil || *ids[1] != *ids[2] || *ids[3] == *ids[1] {
		t.Errorf("event ids %v: want one each, the repeated key's the same", ids)
	}
	var log string
	if err := conn.QueryRow(ctx, `select string_agg(pg_catalog.format('%s/%s/%s/%s/%s/%s', op, event_type, coalesce(category, '-'), coalesce(record_id, '-'), actor_role, actor_id), ' ' order by id)
		from better_supabase.audit_events`).Scan(&log); err != nil {
		t.Fatal(err)
	}
	want := "event/thing.done/test/r1/service_role/" + user + " event/thing.done/-/-/service_role/" + user + " event/thing.done/-/-/service_role/" + user
	if log != want {
		t.Errorf("the audit log:\n got %s\nwant %s", log, want)
	}
	if _, err := conn.Exec(ctx, `reset role; select set_config('request.jwt.claims', '{"role":"authenticated","sub":"`+user+`"}', false); set role authenticated`); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"select count(*) from better_supabase.audit_events", "select better_supabase.audit_event('thing.done')"} {
		_, err := conn.Exec(ctx, q)
		wantRefused(t, "authenticated: "+q, err, "42501", "")
	}
}

// can_user answers for the member it names, not for the caller, and only
// the service role (and the blocks' own functions) may ask it.
func TestAccessModuleCanUser(t *testing.T) {
	s, db := pgtest.EmptyDB(t)
	conn := pgtest.Conn(t, s, db)
	ctx := context.Background()
	if _, err := blocks.Install(ctx, conn, blocks.AccessModule); err != nil {
		t.Fatal(err)
	}
	const (
		member = "11111111-1111-4111-8111-111111111111"
		other  = "22222222-2222-4222-8222-222222222222"
		tenant = "a0000000-0000-4000-8000-00000000000a"
	)
	if _, err := conn.Exec(ctx, `insert into auth.users (id) values ($1), ($2)`, member, other); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `insert into better_supabase.tenant_permissions (tenant_id, user_id, permission) values ($1, $2, 'workflow.run')`, tenant, member); err != nil {
		t.Fatal(err)
	}
	var holds, otherHolds, otherPerm, otherTenant, otherScope bool
	// Asked as the service role, whose claims name no user at all.
	if err := conn.QueryRow(ctx, `select set_config('request.jwt.claims', '{"role":"service_role"}', true)`).Scan(new(string)); err != nil {
		t.Fatal(err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `set local role service_role`); err != nil {
		t.Fatal(err)
	}
	if err := tx.QueryRow(ctx, `select
		better_supabase.can_user($1, 'tenant', $3, 'workflow.run'),
		better_supabase.can_user($2, 'tenant', $3, 'workflow.run'),
		better_supabase.can_user($1, 'tenant', $3, 'workflow.read'),
		better_supabase.can_user($1, 'tenant', gen_random_uuid(), 'workflow.run'),
		better_supabase.can_user($1, 'platform', $3, 'workflow.run')`, member, other, tenant).
		Scan(&holds, &otherHolds, &otherPerm, &otherTenant, &otherScope); err != nil {
		t.Fatal(err)
	}
	if !holds || otherHolds || otherPerm || otherTenant || otherScope {
		t.Errorf("can_user: member %v, another user %v, another permission %v, another tenant %v, scope platform %v; want true, then false for the rest",
			holds, otherHolds, otherPerm, otherTenant, otherScope)
	}
	tx.Rollback(ctx)
	for _, role := range []string{"authenticated", "anon"} {
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, err = tx.Exec(ctx, "set local role "+role)
		if err == nil {
			_, err = tx.Exec(ctx, "select better_supabase.can_user($1, 'tenant', $2, 'workflow.run')", member, tenant)
		}
		tx.Rollback(ctx)
		if err == nil || !strings.Contains(err.Error(), "42501") {
			t.Errorf("%s asked can_user: %v, want a privilege error (42501)", role, err)
		}
	}
}
