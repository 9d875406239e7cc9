package scaffold_test

import (
	"context"
	"os"
	"testing"

	"github.com/bsadapter/bsadapter/internal/pgserver/pgtest"
	"github.com/bsadapter/bsadapter/internal/scaffold"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// The generated engine module installs on a real PostgreSQL with the
// blocks, twice without change, and its save function records the run in
// the workflows block's registry; anon and authenticated cannot call it.
func TestStorageModuleOnPostgres(t *testing.T) {
	o := scaffold.Options{Name: "flowy", SDKs: []string{"flowy"}, Contracts: []string{"workflows"}, Storage: "flowy-world", Placement: scaffold.PlacementPackage, Dir: t.TempDir()}
	plan, err := scaffold.Render(&o)
	if err != nil {
		t.Fatal(err)
	}
	var sql string
	for _, f := range plan.Files {
		if f.Path == "sql/flowy-world.sql" {
			sql = string(f.Data)
		}
	}
	if sql == "" {
		t.Fatal("no sql/flowy-world.sql in the plan")
	}
	srv, db := pgtest.DB(t)
	conn := pgtest.Conn(t, srv, db)
	ctx := context.Background()
	for i := range 2 {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("install %d: %v", i+1, err)
		}
	}
	var id, regID, status, engine string
	if err := conn.QueryRow(ctx, `select better_supabase.flowy_world_save_run('run-1', 'nightly', 'running', '{"step": 1}')::text`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, `select better_supabase.flowy_world_save_run('run-1', 'nightly', 'completed', '{"step": 2}')::text`).Scan(&regID); err != nil {
		t.Fatal(err)
	}
	if regID != id {
		t.Errorf("the second save recorded another run: %s vs %s", regID, id)
	}
	if err := conn.QueryRow(ctx, `select r->>'status', r->>'engine' from better_supabase.workflow_run_get('run-1') r`).Scan(&status, &engine); err != nil {
		t.Fatal(err)
	}
	if status != "completed" || engine != "flowy" {
		t.Errorf("registry has status %q engine %q", status, engine)
	}
	var step int
	if err := conn.QueryRow(ctx, `select (state->>'step')::int from better_supabase.flowy_world_runs where run_id = 'run-1'`).Scan(&step); err != nil || step != 2 {
		t.Errorf("engine state step %d (%v)", step, err)
	}
	if _, err := conn.Exec(ctx, `select better_supabase.flowy_world_save_run('run-2', 'nightly', 'paused')`); err == nil {
		t.Error("an unknown status was recorded")
	}
	for _, role := range []string{"anon", "authenticated"} {
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, "set local role "+role); err != nil {
			t.Fatal(err)
		}
		_, err = tx.Exec(ctx, `select better_supabase.flowy_world_save_run('run-3', 'nightly', 'running')`)
		tx.Rollback(ctx)
		if err == nil {
			t.Errorf("%s may call the engine's save function", role)
		}
	}
}
