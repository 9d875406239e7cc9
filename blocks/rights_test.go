package blocks_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/internal/pgserver/pgtest"
	"github.com/jackc/pgx/v5"
)

// The signatures contracts.md gives, in its own notation.
var wantSignatures = map[string]struct{ args, result string }{
	"better_supabase.stream_open":                   {"stream_id text, owner uuid = null, tenant uuid = null, kind text = 'default', ttl interval = '1 day', wake boolean = true", "boolean"},
	"better_supabase.stream_append":                 {"stream_id text, from_idx integer, chunks text[]", "jsonb"},
	"better_supabase.stream_read":                   {"stream_id text, from_idx integer = 0, max integer = 1000", "jsonb"},
	"better_supabase.stream_status":                 {"stream_id text", "jsonb"},
	"better_supabase.stream_close":                  {"stream_id text", "boolean"},
	"better_supabase.stream_cancel":                 {"stream_id text", "boolean"},
	"better_supabase.purge_streams":                 {"older_than interval = '1 day', batch integer = 1000", "integer"},
	"better_supabase.append_ai_user_message":        {"chat uuid, message jsonb, trigger text = 'submit-message', message_id text = null", "jsonb"},
	"better_supabase.save_ai_assistant_message":     {"chat uuid, message jsonb, parent_id text, status text = 'complete', model text = null, format text = 'canonical', native jsonb = null, run uuid = null", "jsonb"},
	"better_supabase.ai_message_path":               {"chat uuid, leaf text = null, include_native boolean = false", "jsonb"},
	"better_supabase.claim_ai_chat_stream":          {"chat uuid, stream text, model text = null, message_id text = null, engine text = 'ai-sdk', external_run_id text = null", "jsonb"},
	"better_supabase.release_ai_chat_stream":        {"chat uuid, stream text, status text = 'completed', usage jsonb = null, generation_id text = null, error text = null, cost_micro_usd bigint = null", "boolean"},
	"better_supabase.request_ai_chat_stop":          {"chat uuid", "jsonb"},
	"better_supabase.record_workflow_run":           {"engine text, external_id text, definition text, status text, tenant uuid = null, actor uuid = null, attributes jsonb = '{}', error text = null, started_at timestamp with time zone = null, completed_at timestamp with time zone = null", "uuid"},
	"better_supabase.workflow_runs_list":            {"tenant uuid = null, definition text = null, status text = null, max integer = 50, before timestamp with time zone = null", "jsonb"},
	"better_supabase.workflow_run_get":              {"run text", "jsonb"},
	"better_supabase.request_workflow_cancel":       {"run text", "jsonb"},
	"better_supabase.purge_workflow_runs":           {"older_than interval = '30 days', batch integer = 1000", "integer"},
	"better_supabase.create_workflow_schedule":      {"name text, workflow text, cron text, next_run timestamp with time zone, payload jsonb = '{}', timezone text = 'UTC', tenant uuid = null", "jsonb"},
	"better_supabase.workflow_schedules_list":       {"tenant uuid = null", "jsonb"},
	"better_supabase.pause_workflow_schedule":       {"schedule uuid, paused boolean = true", "boolean"},
	"better_supabase.remove_workflow_schedule":      {"schedule uuid", "boolean"},
	"better_supabase.claim_due_workflow_schedules":  {"lease integer = 60, batch integer = 50", "jsonb"},
	"better_supabase.advance_workflow_schedule":     {"schedule uuid, fired timestamp with time zone, next_run timestamp with time zone", "boolean"},
	"better_supabase.acquire_workflow_semaphore":    {"key text, holder text, max integer, ttl interval = '00:05:00'", "boolean"},
	"better_supabase.release_workflow_semaphore":    {"key text, holder text", "boolean"},
	"better_supabase.workflow_admission_active":     {"key text", "integer"},
	"better_supabase.request_workflow_start":        {"key text, workflow text, payload jsonb = '{}', tenant uuid = null, actor uuid = null, concurrency integer = null, debounce interval = null, singleton boolean = false", "jsonb"},
	"better_supabase.claim_workflow_start_requests": {"lease integer = 60, batch integer = 50", "jsonb"},
	"better_supabase.mark_workflow_start_request":   {"request uuid, run text", "boolean"},
	"better_supabase.can":                           {"scope text, scope_id uuid, permission text", "boolean"},
	"better_supabase.tenant_ids_with":               {"permission text", "SETOF uuid"},
	"better_supabase.audit_event":                   {"event_type text, category text = null, outcome text = 'success', source text = null, target_type text = null, record_id text = null, tenant uuid = null, metadata jsonb = '{}', idempotency_key text = null, restricted jsonb = null, actor_id uuid = null, summary text = null, target_label text = null, correlation_id text = null", "text"},
	"better_supabase.tenant_entitlements":           {"tenant uuid", "text[]"},
	"better_supabase.can_user":                      {"member uuid, scope text, scope_id uuid, permission text", "boolean"},
	"better_supabase.enqueue_job":                   {"queue text, payload jsonb = '{}', delay integer = 0, max_attempts integer = 5, dedupe_key text = null, dedupe_running boolean = true", "bigint"},
	"better_supabase.claim_jobs":                    {"queue text, lease integer = 300, batch integer = 1", "TABLE(id bigint, attempts integer, enqueued_at timestamp with time zone, visible_until timestamp with time zone, message jsonb)"},
	"better_supabase.workflow_sdk_mirror_run":       {"", "trigger"},
	"better_supabase.dispatch_workflow_deliveries":  {"batch integer = 20", "integer"},
	"better_supabase.credential_get":                {"provider text, name text", "text"},
	"better_supabase.credential_set":                {"provider text, name text, secret text, description text = null", "uuid"},
	"better_supabase.credential_delete":             {"provider text, name text", "boolean"},
	"vault.create_secret":                           {"new_secret text, new_name text = null, new_description text = '', new_key_id uuid = null", "uuid"},
	"vault.update_secret":                           {"secret_id uuid, new_secret text = null, new_name text = null, new_description text = null, new_key_id uuid = null", "void"},
	"auth.uid":                                      {"", "uuid"},
	"auth.jwt":                                      {"", "jsonb"},
	"auth.role":                                     {"", "text"},
}

var castRe = regexp.MustCompile(`::[a-z][a-z_. ]*(\[\])?`)

// contractNotation turns pg_get_function_arguments output into the
// notation of contracts.md: "x text DEFAULT NULL::text" -> "x text = null".
func contractNotation(s string) string {
	s = strings.ReplaceAll(s, " DEFAULT ", " = ")
	s = castRe.ReplaceAllString(s, "")
	return strings.ReplaceAll(s, "= NULL", "= null")
}

func TestFunctionSignaturesFromTheCatalog(t *testing.T) {
	// It checks the knowledge and memory modules too, which need pgvector.
	needVector(t)
	s, db := pgtest.DB(t)
	conn := pgtest.Conn(t, s, db)
	rows, err := conn.Query(context.Background(), `
		select n.nspname || '.' || p.proname, pg_get_function_arguments(p.oid), pg_get_function_result(p.oid),
		       coalesce(array_to_string(p.proconfig, ','), '')
		from pg_proc p join pg_namespace n on n.oid = p.pronamespace
		where n.nspname in ('better_supabase', 'auth', 'vault') and p.proname not like '\_%'`)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for rows.Next() {
		var name, args, result, config string
		if err := rows.Scan(&name, &args, &result, &config); err != nil {
			t.Fatal(err)
		}
		want, ok := wantSignatures[name]
		if !ok {
			t.Errorf("%s(%s) is not in the contract", name, args)
			continue
		}
		if found[name] {
			t.Errorf("%s is overloaded", name)
		}
		found[name] = true
		if got := contractNotation(args); got != want.args {
			t.Errorf("%s arguments\n got (%s)\nwant (%s)", name, got, want.args)
		}
		if result != want.result {
			t.Errorf("%s returns %s, want %s", name, result, want.result)
		}
		if !strings.HasPrefix(name, "auth.") && !strings.HasPrefix(config, `search_path=""`) {
			t.Errorf("%s has settings %q, want search_path = ''", name, config)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for name := range wantSignatures {
		if !found[name] {
			t.Errorf("%s is missing", name)
		}
	}
}

func TestRowLevelSecurityOnEveryTable(t *testing.T) {
	s, db := pgtest.DB(t)
	conn := pgtest.Conn(t, s, db)
	rows, err := conn.Query(context.Background(), `
		select c.oid::regclass::text, c.relrowsecurity
		from pg_class c join pg_namespace n on n.oid = c.relnamespace
		where n.nspname in ('better_supabase', 'auth') and c.relkind in ('r', 'p')`)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		var name string
		var rls bool
		if err := rows.Scan(&name, &rls); err != nil {
			t.Fatal(err)
		}
		n++
		if !rls {
			t.Errorf("table %s has row-level security off", name)
		}
	}
	if n < 8 {
		t.Errorf("found %d tables, want at least 8 (the query misses some)", n)
	}
}

// What each role may execute. Everything else must be refused.
var mayExecute = map[string][]string{
	"anon": {"can", "tenant_ids_with", "auth.uid", "auth.jwt", "auth.role"},
	"authenticated": {"can", "tenant_ids_with", "tenant_entitlements",
		"stream_read", "stream_status", "stream_cancel", "append_ai_user_message", "ai_message_path", "request_ai_chat_stop",
		"workflow_runs_list", "workflow_run_get", "request_workflow_cancel",
		"create_workflow_schedule", "workflow_schedules_list", "pause_workflow_schedule", "remove_workflow_schedule",
		"auth.uid", "auth.jwt", "auth.role"},
}

func TestWhoMayExecuteWhat(t *testing.T) {
	// It checks the knowledge and memory modules too, which need pgvector.
	needVector(t)
	s, db := pgtest.DB(t)
	conn := pgtest.Conn(t, s, db)
	checkExecuteRights(t, conn)
	checkVaultUntouchable(t, conn)
}

// checkExecuteRights checks that each role may execute exactly the
// functions mayExecute gives it (the service role: every public one).
func checkExecuteRights(t *testing.T, conn *pgx.Conn) {
	t.Helper()
	for _, role := range []string{"anon", "authenticated", "service_role"} {
		rows, err := conn.Query(context.Background(), `
			select case when n.nspname = 'auth' then 'auth.' else '' end || p.proname,
			       has_function_privilege($1, p.oid, 'EXECUTE')
			from pg_proc p join pg_namespace n on n.oid = p.pronamespace
			where n.nspname in ('better_supabase', 'auth')`, role)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var fn string
			var may bool
			if err := rows.Scan(&fn, &may); err != nil {
				t.Fatal(err)
			}
			want := false
			switch {
			case role == "service_role":
				// A trigger function is for its trigger alone.
				want = (!strings.HasPrefix(fn, "_") && fn != "workflow_sdk_mirror_run") || fn == "_ai_parts_valid" || fn == "_workflow_run_json" || fn == "_workflow_schedule_json" || fn == "_uuid_or_null" || fn == "_stream_ping"
			default:
				for _, f := range mayExecute[role] {
					want = want || f == fn
				}
				want = want || (role == "authenticated" && (fn == "_ai_parts_valid" || fn == "_workflow_run_json" || fn == "_workflow_schedule_json" || fn == "_uuid_or_null"))
			}
			if may != want {
				t.Errorf("%s may execute %s: %v, want %v", role, fn, may, want)
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	}
}

// checkVaultUntouchable checks that no API role may use schema vault,
// execute a function of it or touch a table of it, as on Supabase: the
// credentials block reads Vault through its definer functions only.
func checkVaultUntouchable(t *testing.T, conn *pgx.Conn) {
	t.Helper()
	rows, err := conn.Query(context.Background(), `
		select r.role, 'usage on schema vault'
		from unnest(array['anon', 'authenticated', 'service_role']) r(role)
		where has_schema_privilege(r.role, 'vault', 'USAGE')
		union all
		select r.role, 'execute ' || p.oid::regprocedure::text
		from unnest(array['anon', 'authenticated', 'service_role']) r(role)
		cross join pg_proc p join pg_namespace n on n.oid = p.pronamespace
		where n.nspname = 'vault' and has_function_privilege(r.role, p.oid, 'EXECUTE')
		union all
		select r.role, pr.privilege || ' on ' || c.oid::regclass::text
		from unnest(array['anon', 'authenticated', 'service_role']) r(role)
		cross join pg_class c join pg_namespace n on n.oid = c.relnamespace
		cross join unnest(array['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE']) pr(privilege)
		where n.nspname = 'vault' and c.relkind in ('r', 'v') and has_table_privilege(r.role, c.oid, pr.privilege)`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var role, what string
		if err := rows.Scan(&role, &what); err != nil {
			t.Fatal(err)
		}
		t.Errorf("%s may %s", role, what)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if !exists(t, conn, "select to_regclass('vault.secrets') is not null") {
		t.Error("the vault stand-in is not installed")
	}
}

// asRole runs f in a transaction as role, with the JWT claims PostgREST
// would set: the role, and user sub when sub is not empty.
func asRole(t *testing.T, conn *pgx.Conn, role, sub string, f func(tx pgx.Tx)) {
	t.Helper()
	ctx := context.Background()
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "select set_config('role', $1, true)", role); err != nil {
		t.Fatal(err)
	}
	claims := `{"role":"` + role + `"}`
	if sub != "" {
		claims = `{"sub":"` + sub + `","role":"` + role + `"}`
	}
	if _, err := tx.Exec(ctx, "select set_config('request.jwt.claims', $1, true)", claims); err != nil {
		t.Fatal(err)
	}
	f(tx)
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

const (
	alice = "00000000-0000-4000-8000-00000000a11c"
	bob   = "00000000-0000-4000-8000-000000000b0b"
)

func seedStreams(t *testing.T, conn *pgx.Conn) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), `
		insert into auth.users (id) values ('`+alice+`'), ('`+bob+`');
		select better_supabase.stream_open('alice-1', '`+alice+`');
		select better_supabase.stream_open('bob-1', '`+bob+`');
		select better_supabase.stream_open('nobody-1');
		select better_supabase.stream_append('alice-1', 0, array['a', 'b']);
		select better_supabase.stream_append('bob-1', 0, array['x', 'y', 'z']);
		select better_supabase.stream_append('nobody-1', 0, array['n']);`); err != nil {
		t.Fatal(err)
	}
}

func TestAnonCanExecuteNothingItShouldNot(t *testing.T) {
	s, db := pgtest.DB(t)
	conn := pgtest.Conn(t, s, db)
	seedStreams(t, conn)
	ctx := context.Background()
	for _, call := range []string{
		"select better_supabase.stream_open('anon-1')",
		"select better_supabase.stream_append('alice-1', 2, array['c'])",
		"select better_supabase.stream_close('alice-1')",
		"select better_supabase.stream_cancel('alice-1')",
		"select better_supabase.purge_streams()",
		"select better_supabase.record_workflow_run('e', 'x', 'd', 'running')",
		"select better_supabase.request_workflow_cancel('x')",
		"select better_supabase.purge_workflow_runs()",
		"select better_supabase.append_ai_user_message(gen_random_uuid(), '{}')",
		"select better_supabase.claim_ai_chat_stream(gen_random_uuid(), 's')",
		"select count(*) from better_supabase.ai_chats",
		"select count(*) from better_supabase.modules",
	} {
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		tx.Exec(ctx, "set local role anon")
		_, err = tx.Exec(ctx, call)
		tx.Rollback(ctx)
		if code := pgCode(err); code != "42501" {
			t.Errorf("as anon, %s: error %v, want permission denied (42501)", call, err)
		}
	}
	// As upstream measures it, anon may not even read streams.
	for _, call := range []string{
		"select count(*) from better_supabase.streams",
		"select count(*) from better_supabase.stream_chunks",
		"select better_supabase.stream_read('alice-1')",
		"select better_supabase.stream_status('nobody-1')",
	} {
		asRole(t, conn, "anon", "", func(tx pgx.Tx) {
			_, err := tx.Exec(ctx, "savepoint s; "+call)
			if code := pgCode(err); code != "42501" {
				t.Errorf("as anon, %s: error %v, want permission denied (42501)", call, err)
			}
			tx.Exec(ctx, "rollback to savepoint s")
		})
	}
}

func TestAuthenticatedUserSeesOnlyOwnStreams(t *testing.T) {
	s, db := pgtest.DB(t)
	conn := pgtest.Conn(t, s, db)
	seedStreams(t, conn)
	ctx := context.Background()
	asRole(t, conn, "authenticated", alice, func(tx pgx.Tx) {
		var ids string
		if err := tx.QueryRow(ctx, "select string_agg(id, ',' order by id) from better_supabase.streams").Scan(&ids); err != nil {
			t.Fatal(err)
		}
		if ids != "alice-1" {
			t.Errorf("alice sees streams %q, want only alice-1", ids)
		}
		var chunks int
		tx.QueryRow(ctx, "select count(*) from better_supabase.stream_chunks").Scan(&chunks)
		if chunks != 2 {
			t.Errorf("alice sees %d chunks, want her 2", chunks)
		}
		var own, other, otherStatus string
		if err := tx.QueryRow(ctx, `select better_supabase.stream_read('alice-1')::text, better_supabase.stream_read('bob-1', 1)::text,
			coalesce(better_supabase.stream_status('bob-1')::text, 'null')`).Scan(&own, &other, &otherStatus); err != nil {
			t.Fatal(err)
		}
		if own != `{"done": false, "next": 2, "found": true, "chunks": ["a", "b"], "cancelled": false}` {
			t.Errorf("alice reads her stream: %s", own)
		}
		if other != `{"done": true, "next": 1, "found": false, "chunks": [], "cancelled": false}` || otherStatus != "null" {
			t.Errorf("alice reads bob's stream: %s, status %s; want it invisible", other, otherStatus)
		}
		var cancelOther, cancelNobody, cancelOwn bool
		if err := tx.QueryRow(ctx, `select better_supabase.stream_cancel('bob-1'), better_supabase.stream_cancel('nobody-1'), better_supabase.stream_cancel('alice-1')`).Scan(&cancelOther, &cancelNobody, &cancelOwn); err != nil {
			t.Fatal(err)
		}
		if cancelOther || cancelNobody || !cancelOwn {
			t.Errorf("alice cancels bob's: %v, an ownerless one: %v, her own: %v; want false, false, true", cancelOther, cancelNobody, cancelOwn)
		}
	})
	var bobCancelled bool
	conn.QueryRow(ctx, "select cancel_requested_at is not null from better_supabase.streams where id = 'bob-1'").Scan(&bobCancelled)
	if bobCancelled {
		t.Error("bob's stream was cancelled by alice")
	}
	// The service role sees everything, whatever the claims say.
	asRole(t, conn, "service_role", alice, func(tx pgx.Tx) {
		var n int
		tx.QueryRow(ctx, "select count(*) from better_supabase.streams").Scan(&n)
		if n != 3 {
			t.Errorf("service_role sees %d streams, want 3", n)
		}
		var ok bool
		if err := tx.QueryRow(ctx, "select better_supabase.stream_cancel('bob-1')").Scan(&ok); err != nil || !ok {
			t.Errorf("service_role cancels bob's stream: %v, %v", ok, err)
		}
	})
}
