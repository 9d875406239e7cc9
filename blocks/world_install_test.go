package blocks_test

import (
	"context"
	"testing"

	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/internal/pgserver/pgtest"
	"github.com/jackc/pgx/v5"
)

// worldCatalog lists what the World block and its stand-ins made, in the
// schemas the catalog snapshot of the other blocks does not cover: tables
// and sequences with their rights, types, triggers, functions and policies.
// With xmin, an object that was dropped and made again (or altered) shows.
func worldCatalog(t *testing.T, conn *pgx.Conn, withXmin bool) []string {
	t.Helper()
	rows, err := conn.Query(context.Background(), `
		select 'relation ' || c.oid::regclass || ' ' || c.relkind::text || ' rls=' || c.relrowsecurity
		       || ' acl=' || coalesce(c.relacl::text, '') || case when $1 then ' xmin=' || c.xmin else '' end
		from pg_class c join pg_namespace n on n.oid = c.relnamespace
		where n.nspname in ('workflow', 'net') or c.relname = '_standin_jobs'
		union all
		select 'column ' || a.attrelid::regclass || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
		       || ' notnull=' || a.attnotnull || ' default=' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
		from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
		left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
		where n.nspname = 'workflow' and c.relkind = 'r' and a.attnum > 0 and not a.attisdropped
		union all
		select 'type ' || t.oid::regtype || ' ' || (select string_agg(e.enumlabel, ',' order by e.enumsortorder) from pg_enum e where e.enumtypid = t.oid)
		       || case when $1 then ' xmin=' || t.xmin else '' end
		from pg_type t join pg_namespace n on n.oid = t.typnamespace
		where n.nspname = 'workflow' and t.typtype = 'e'
		union all
		select 'trigger ' || tg.tgrelid::regclass || ' ' || tg.tgname || ' ' || md5(pg_get_triggerdef(tg.oid))
		       || case when $1 then ' xmin=' || tg.xmin else '' end
		from pg_trigger tg join pg_class c on c.oid = tg.tgrelid join pg_namespace n on n.oid = c.relnamespace
		where n.nspname = 'workflow' and not tg.tgisinternal
		union all
		select 'function ' || p.oid::regprocedure || ' ' || md5(pg_get_functiondef(p.oid)) || ' acl=' || coalesce(p.proacl::text, '')
		       || case when $1 then ' xmin=' || p.xmin else '' end
		from pg_proc p join pg_namespace n on n.oid = p.pronamespace
		where n.nspname = 'net' or p.proname in ('enqueue_job', 'claim_jobs', 'workflow_sdk_mirror_run', '_workflow_sdk_uuid', 'dispatch_workflow_deliveries')
		union all
		select 'policy ' || schemaname || '.' || tablename || '.' || policyname || ' ' || array_to_string(roles, ',')
		from pg_policies where schemaname = 'net' or tablename = '_standin_jobs'
		union all
		select 'schema ' || n.nspname || ' acl=' || coalesce(n.nspacl::text, '')
		from pg_namespace n where n.nspname in ('workflow', 'net')
		order by 1`, withXmin)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	// 9 tables, 3 enums, a trigger, the functions: a catalog query that
	// misses the module finds far fewer.
	if len(got) < 120 {
		t.Fatalf("the World catalog has only %d lines; the query misses the module", len(got))
	}
	return got
}

// Installing the World block twice changes nothing, not even a catalog
// row; running the printed SQL again over it keeps every object, column
// and right as they were.
func TestWorldInstallTwiceChangesNothing(t *testing.T) {
	s, db := pgtest.EmptyDB(t)
	conn := pgtest.Conn(t, s, db)
	ctx := context.Background()
	rep, err := blocks.Install(ctx, conn, "workflow-sdk-world")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"supabase-base", "access", "vault", "jobs", "pg-net", "workflows", "workflow-sdk-world"} {
		if got := actions(rep)[m]; got != blocks.Installed {
			t.Errorf("first install: %s %q, want installed", m, got)
		}
	}
	before := worldCatalog(t, conn, true)
	rep, err = blocks.Install(ctx, conn, "workflow-sdk-world")
	if err != nil {
		t.Fatal(err)
	}
	for m, got := range actions(rep) {
		if got != blocks.Already {
			t.Errorf("second install: %s %q, want already", m, got)
		}
	}
	if d := diffLines(before, worldCatalog(t, conn, true)); d != "" {
		t.Errorf("the second install changed the catalog:\n%s", d)
	}

	// The printed SQL recreates functions and the trigger (their xmin
	// moves), and nothing else differs.
	shape := worldCatalog(t, conn, false)
	sql, err := blocks.SQL("workflow-sdk-world")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("printed SQL, run %d: %v", i+1, err)
		}
	}
	if d := diffLines(shape, worldCatalog(t, conn, false)); d != "" {
		t.Errorf("the printed SQL changed the catalog:\n%s", d)
	}
	if !exists(t, conn, `select count(*) = 1 from pg_trigger where tgrelid = 'workflow.workflow_runs'::regclass and not tgisinternal`) {
		t.Error("workflow_runs does not have exactly one trigger")
	}
}

// Default privileges that give the API roles everything new (as some
// projects set them) do not open the World's tables: anon and signed-in
// users get nothing of schema workflow, the service role gets every table
// right and the sequence, and the stand-ins' tables are the service role's
// to read only.
func TestWorldClosedDespiteDefaultPrivileges(t *testing.T) {
	s, db := pgtest.EmptyDB(t)
	conn := pgtest.Conn(t, s, db)
	ctx := context.Background()
	if _, err := blocks.Install(ctx, conn, blocks.BaseModule); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `
		alter default privileges grant all on tables to anon, authenticated, service_role;
		alter default privileges grant all on sequences to anon, authenticated, service_role;
		alter default privileges grant all on functions to anon, authenticated, service_role;
		alter default privileges grant all on schemas to anon, authenticated, service_role;`); err != nil {
		t.Fatal(err)
	}
	if _, err := blocks.Install(ctx, conn, "workflow-sdk-world"); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.Query(ctx, `
		select r.role || ' ' || pr.privilege || ' on ' || c.oid::regclass
		from unnest(array['anon', 'authenticated', 'service_role']) r(role)
		cross join pg_class c join pg_namespace n on n.oid = c.relnamespace
		cross join unnest(array['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER']) pr(privilege)
		where (n.nspname in ('workflow', 'net') or c.relname = '_standin_jobs') and c.relkind in ('r', 'p', 'v')
		  and has_table_privilege(r.role, c.oid, pr.privilege)
		union all
		select r.role || ' ' || pr.privilege || ' on ' || c.oid::regclass
		from unnest(array['anon', 'authenticated', 'service_role']) r(role)
		cross join pg_class c join pg_namespace n on n.oid = c.relnamespace
		cross join unnest(array['USAGE', 'SELECT', 'UPDATE']) pr(privilege)
		where (n.nspname in ('workflow', 'net') or c.relname like '\_standin%') and c.relkind = 'S'
		  and has_sequence_privilege(r.role, c.oid, pr.privilege)
		union all
		select r.role || ' usage on schema ' || s.name
		from unnest(array['anon', 'authenticated', 'service_role']) r(role)
		cross join unnest(array['workflow', 'net']) s(name)
		where has_schema_privilege(r.role, s.name, 'USAGE')
		union all
		select r.role || ' execute ' || p.oid::regprocedure
		from unnest(array['anon', 'authenticated', 'service_role']) r(role)
		cross join pg_proc p join pg_namespace n on n.oid = p.pronamespace
		where (n.nspname = 'net' or p.proname in ('enqueue_job', 'claim_jobs', 'workflow_sdk_mirror_run', '_workflow_sdk_uuid', 'dispatch_workflow_deliveries'))
		  and has_function_privilege(r.role, p.oid, 'EXECUTE')`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, g := range got {
		have[g] = true
	}
	want := map[string]bool{
		"service_role usage on schema workflow":                                                     true,
		"service_role usage on schema net":                                                          true,
		"service_role SELECT on net._standin_requests":                                              true,
		"service_role SELECT on better_supabase._standin_jobs":                                      true,
		"service_role execute net.http_post(text,jsonb,jsonb,jsonb,integer)":                        true,
		"service_role execute better_supabase.enqueue_job(text,jsonb,integer,integer,text,boolean)": true,
		"service_role execute better_supabase.claim_jobs(text,integer,integer)":                     true,
		"service_role execute better_supabase.dispatch_workflow_deliveries(integer)":                true,
		"service_role USAGE on workflow.workflow_invocations_sequence_seq":                          true,
		"service_role SELECT on workflow.workflow_invocations_sequence_seq":                         true,
	}
	for _, table := range []string{"workflow_runs", "workflow_steps", "workflow_events", "workflow_event_slots", "workflow_hooks",
		"workflow_invocations", "workflow_snapshots", "workflow_stream_chunks", "workflow_waits"} {
		for _, p := range []string{"SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER"} {
			want["service_role "+p+" on workflow."+table] = true
		}
	}
	for g := range have {
		if !want[g] {
			t.Errorf("unexpected right: %s", g)
		}
	}
	for w := range want {
		if !have[w] {
			t.Errorf("missing right: %s", w)
		}
	}

	// And in practice: a signed-in user reads no World table, calls
	// neither the dispatcher nor the stand-ins.
	user := "11111111-1111-4111-8111-111111111111"
	for _, q := range []string{
		"select count(*) from workflow.workflow_runs",
		"select better_supabase.dispatch_workflow_deliveries()",
		"select better_supabase.enqueue_job('workflow_deliveries', '{}')",
		"select net.http_post('https://example.com')",
		"select count(*) from better_supabase._standin_jobs",
	} {
		for _, role := range []string{"anon", "authenticated"} {
			if err := worldAs(ctx, conn, role, map[bool]string{true: user}[role == "authenticated"], q); pgCode(err) != "42501" {
				t.Errorf("%s: %s: %v, want 42501", role, q, err)
			}
		}
	}
}

// Tables an earlier World made (here: the runs and hooks as
// world-postgres's first migrations laid them out, with a row each) get
// the columns later versions added; their rows stay.
func TestWorldUpgradesAnEarlierWorldsTables(t *testing.T) {
	s, db := pgtest.EmptyDB(t)
	conn := pgtest.Conn(t, s, db)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, `
		create schema workflow;
		create type workflow.status as enum ('pending', 'running', 'completed', 'failed', 'cancelled');
		create table workflow.workflow_runs (id varchar primary key, output jsonb, deployment_id varchar not null,
			status workflow.status not null, name varchar not null, execution_context jsonb, input jsonb, error text,
			created_at timestamp not null default now(), updated_at timestamp not null default now(),
			completed_at timestamp, started_at timestamp);
		create table workflow.workflow_hooks (run_id varchar not null, hook_id varchar primary key, token varchar not null,
			owner_id varchar not null, project_id varchar not null, environment varchar not null,
			created_at timestamp not null default now(), metadata jsonb);
		insert into workflow.workflow_runs (id, deployment_id, status, name) values ('wrun_old', 'dpl', 'completed', 'wf');
		insert into workflow.workflow_hooks (run_id, hook_id, token, owner_id, project_id, environment) values ('wrun_old', 'hook_old', 't', 'o', 'p', 'e');`); err != nil {
		t.Fatal(err)
	}
	if _, err := blocks.Install(ctx, conn, "workflow-sdk-world"); err != nil {
		t.Fatal(err)
	}
	var attrs, webhook, system string
	var n int
	if err := conn.QueryRow(ctx, `select r.attributes::text, h.is_webhook::text, h.is_system::text,
		(select count(*) from information_schema.columns where table_schema = 'workflow' and table_name = 'workflow_runs')
		from workflow.workflow_runs r, workflow.workflow_hooks h`).Scan(&attrs, &webhook, &system, &n); err != nil {
		t.Fatal(err)
	}
	if attrs != "{}" || webhook != "true" || system != "false" || n != 22 {
		t.Errorf("old rows: attributes %s, is_webhook %s, is_system %s; runs columns %d; want {}, true, false, 22", attrs, webhook, system, n)
	}
	// The old run was never reported; a new report of it is mirrored.
	if _, err := conn.Exec(ctx, `update workflow.workflow_runs set status = 'failed', error_code = 'E_OLD' where id = 'wrun_old'`); err != nil {
		t.Fatal(err)
	}
	if !exists(t, conn, `select coalesce(better_supabase.workflow_run_get('wrun_old') ->> 'error' = 'E_OLD', false)`) {
		t.Error("the upgraded table's run was not mirrored with its error code")
	}
}
