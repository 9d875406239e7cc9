package blocks_test

import (
	"context"
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
