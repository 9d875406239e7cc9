package blocks_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/internal/pgserver/pgtest"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// chatTenant is the tenant the tests' chats belong to.
const chatTenant = "a0000000-0000-4000-8000-00000000000a"

// newChat creates a chat owned by owner through create_ai_chat, as the
// test's superuser (whom the blocks take for the service role), and
// returns its id.
func newChat(t *testing.T, conn *pgx.Conn, owner string) string {
	t.Helper()
	var id string
	if err := conn.QueryRow(context.Background(),
		"select better_supabase.create_ai_chat($1::uuid, jsonb_build_object('owner_id', $2::text)) ->> 'id'", chatTenant, owner).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// A chat's rows are the functions' to write, as upstream has it: a signed-in
// user reads her chat but writes it only through the functions, so she can
// never point it at another user's stream or run (which stop and claim
// act on) or at someone else's tenant. (bsadapter used to let owners
// insert and update their chats except the run columns; upstream grants
// select only, and the probes measure that.)
func TestChatRowsAreWrittenThroughTheFunctions(t *testing.T) {
	s, db := pgtest.DB(t)
	c := pgtest.Conn(t, s, db)
	ctx := context.Background()
	if _, err := c.Exec(ctx, "insert into auth.users (id) values ($1), ($2)", alice, bob); err != nil {
		t.Fatal(err)
	}
	aliceChat, bobChat := newChat(t, c, alice), newChat(t, c, bob)
	q(t, c, "select better_supabase.stream_open('bob-st', $1::uuid)", bob)
	bobRun := q(t, c, "select better_supabase.claim_ai_chat_stream($1, 'bob-st') ->> 'run_id'", bobChat).(string)

	for _, stmt := range []string{
		"update better_supabase.ai_chats set active_stream_id = 'bob-st', active_run_id = $2::uuid where id = $1::uuid",
		"update better_supabase.ai_chats set title = 'mine' where id = $1::uuid and $2::uuid is not null",
		"insert into better_supabase.ai_chats (organization_id, owner_id, active_stream_id, active_run_id) values ('" + chatTenant + "', (select owner_id from better_supabase.ai_chats where id = $1::uuid), 'bob-st', $2::uuid)",
		"delete from better_supabase.ai_chats where id = $1::uuid and $2::uuid is not null",
	} {
		tx, err := c.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		tx.Exec(ctx, "select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)", `{"role":"authenticated","sub":"`+alice+`"}`)
		_, err = tx.Exec(ctx, stmt, aliceChat, bobRun)
		tx.Rollback(ctx)
		if code := pgCode(err); code != "42501" {
			t.Errorf("alice writes her chat's row (%s): error %v, want permission denied (42501)", stmt, err)
		}
	}
	asRole(t, c, "authenticated", alice, func(tx pgx.Tx) {
		var title string
		if err := tx.QueryRow(ctx, "select better_supabase.update_ai_chat($1, '{\"title\":\"mine\"}') ->> 'title'", aliceChat).Scan(&title); err != nil || title != "mine" {
			t.Errorf("alice renames her chat through update_ai_chat: %q, %v", title, err)
		}
		var n int
		if err := tx.QueryRow(ctx, "select count(*) from better_supabase.ai_chats").Scan(&n); err != nil || n != 1 {
			t.Errorf("alice sees %d chats (%v), want her own one", n, err)
		}
	})
	wantJSON(t, q(t, c, "select jsonb_build_object('run', (select status from better_supabase.ai_runs where id = $1::uuid), 'stream', better_supabase.stream_status('bob-st') -> 'cancelled')", bobRun),
		`{"run":"running","stream":false}`, "bob's run and stream after alice's attempts")
}

// Chunk i of the batch goes to index from_idx + i whatever the array's
// subscripts: a SQL caller may pass an array that does not start at 1, or
// one with two dimensions, and must not leave a hole behind a next that
// counts every chunk.
func TestStreamAppendAnyArrayShape(t *testing.T) {
	s, db := pgtest.DB(t)
	c := pgtest.Conn(t, s, db)
	q(t, c, "select better_supabase.stream_open('shape')")
	wantJSON(t, q(t, c, "select better_supabase.stream_append('shape', 0, '[0:1]={a,b}'::text[])"), `{"next":2,"cancelled":false}`, "append [0:1]")
	wantJSON(t, q(t, c, "select better_supabase.stream_append('shape', 1, '[5:7]={B,c,d}'::text[])"), `{"next":4,"cancelled":false}`, "retry [5:7]")
	wantJSON(t, q(t, c, "select better_supabase.stream_append('shape', 4, '{{e,f},{g,h}}'::text[])"), `{"next":8,"cancelled":false}`, "append 2x2")
	wantJSON(t, q(t, c, "select better_supabase.stream_append('shape', 6, '{{G,H},{i,j}}'::text[])"), `{"next":10,"cancelled":false}`, "retry 2x2")
	wantJSON(t, q(t, c, "select jsonb_agg(jsonb_build_array(idx, data) order by idx) from better_supabase.stream_chunks where stream_id = 'shape'"),
		`[[0,"a"],[1,"b"],[2,"c"],[3,"d"],[4,"e"],[5,"f"],[6,"g"],[7,"h"],[8,"i"],[9,"j"]]`, "stored chunks")
}

// supabaseLike gives an empty database what a Supabase one has: the three
// roles, auth.users and Supabase's own auth functions.
func supabaseLike(t *testing.T, conn *pgx.Conn) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), `
		do $$ begin
		  if not exists (select from pg_roles where rolname = 'anon') then create role anon nologin; end if;
		  if not exists (select from pg_roles where rolname = 'authenticated') then create role authenticated nologin; end if;
		  if not exists (select from pg_roles where rolname = 'service_role') then create role service_role nologin bypassrls; end if;
		end $$;
		create schema auth;
		create table auth.users (id uuid primary key);
		create function auth.uid() returns uuid language sql stable as $$ select '00000000-0000-0000-0000-00000000cafe'::uuid $$;
		create function auth.jwt() returns jsonb language sql stable as $$ select '{}'::jsonb $$;
		create function auth.role() returns text language sql stable as $$ select 'supabase' $$;
	`); err != nil {
		t.Fatal(err)
	}
}

// authSnapshot is what supabase-base could change in Supabase's auth
// schema: its tables' row-level security, grants and policies, and its
// functions' definitions and grants.
func authSnapshot(t *testing.T, conn *pgx.Conn) []string {
	t.Helper()
	rows, err := conn.Query(context.Background(), `
		select 'relation ' || c.oid::regclass || ' rls=' || c.relrowsecurity || ' acl=' || coalesce(c.relacl::text, '')
		from pg_class c where c.relnamespace = 'auth'::regnamespace
		union all
		select 'function ' || p.oid::regprocedure || ' ' || md5(pg_get_functiondef(p.oid)) || ' acl=' || coalesce(p.proacl::text, '')
		from pg_proc p where p.pronamespace = 'auth'::regnamespace
		union all
		select 'policy ' || tablename || '.' || policyname from pg_policies where schemaname = 'auth'
		union all
		select 'schema acl=' || coalesce(nspacl::text, '') from pg_namespace where nspname = 'auth'
		order by 1`)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// The printed SQL, like Install, leaves a Supabase database's own pieces
// alone: supabase-base is for databases that lack them (contracts.md 7).
// On hosted Supabase the migration role does not own auth.users, so
// touching it would fail the whole migration.
func TestPrintedSQLSkipsTheBaseOnSupabase(t *testing.T) {
	s, db := pgtest.EmptyDB(t)
	conn := pgtest.Conn(t, s, db)
	ctx := context.Background()
	supabaseLike(t, conn)
	before := authSnapshot(t, conn)
	sql, err := blocks.SQL("streams")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatalf("running the printed SQL on a Supabase database: %v", err)
	}
	if diff := diffLines(before, authSnapshot(t, conn)); diff != "" {
		t.Errorf("the printed SQL changed Supabase's auth schema:\n%s", diff)
	}
	if exists(t, conn, "select exists (select from better_supabase.modules where name = 'supabase-base')") {
		t.Error("supabase-base is recorded as installed on a Supabase database (Install records nothing there)")
	}
	if !exists(t, conn, "select exists (select from better_supabase.modules where name = 'streams')") ||
		!exists(t, conn, "select to_regprocedure('better_supabase.stream_read(text, integer, integer)') is not null") {
		t.Error("streams was not installed")
	}
	rep, err := blocks.Install(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(rep); got["supabase-base"] != blocks.Skipped || got["streams"] != blocks.Already {
		t.Errorf("Install after the printed SQL: %v, want supabase-base skipped and streams already", got)
	}
}

// The printed SQL refuses, as Install does, to put a module's functions
// over a newer version of them.
func TestPrintedSQLRefusesANewerVersion(t *testing.T) {
	s, db := pgtest.EmptyDB(t)
	conn := pgtest.Conn(t, s, db)
	ctx := context.Background()
	if _, err := blocks.Install(ctx, conn, "streams"); err != nil {
		t.Fatal(err)
	}
	const newer = "create or replace function better_supabase.stream_close(stream_id text) returns boolean language sql security definer set search_path = '' as $$ select true $$"
	if _, err := conn.Exec(ctx, newer+"; update better_supabase.modules set version = 2 where name = 'streams'"); err != nil {
		t.Fatal(err)
	}
	var before string
	conn.QueryRow(ctx, "select pg_get_functiondef('better_supabase.stream_close'::regproc)").Scan(&before)
	sql, err := blocks.SQL("streams")
	if err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(ctx, sql)
	if err == nil || !strings.Contains(err.Error(), "streams version 2, newer than the version 1") {
		t.Errorf("the printed SQL over streams version 2: error %v, want it refused", err)
	}
	conn2 := pgtest.Conn(t, s, db)
	var after string
	conn2.QueryRow(ctx, "select pg_get_functiondef('better_supabase.stream_close'::regproc)").Scan(&after)
	if after != before {
		t.Errorf("the printed SQL replaced the newer stream_close:\n%s", after)
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && !strings.Contains(pgErr.Hint, "upgrade bsadapter") {
		t.Errorf("hint %q, want it to say to upgrade bsadapter", pgErr.Hint)
	}
}

// An answer never takes a user message's id: saving one under it is
// refused rather than rewriting the question. (The other way round, a user
// message under an answer's id, is upstream's edit: stored under a fresh
// id beside the answer, so nothing is overwritten either; bsadapter used to
// refuse it, the probes measure the edit.)
func TestChatAnswerNeverTakesAQuestionsID(t *testing.T) {
	s, db := pgtest.DB(t)
	c := pgtest.Conn(t, s, db)
	if _, err := c.Exec(context.Background(), "insert into auth.users (id) values ($1)", alice); err != nil {
		t.Fatal(err)
	}
	chat := newChat(t, c, alice)
	q(t, c, "select better_supabase.append_ai_user_message($1, $2)", chat, `{"id":"u1","role":"user","parts":[{"type":"text","text":"question"}]}`)
	q(t, c, "select better_supabase.save_ai_assistant_message($1, $2, 'u1')", chat, `{"id":"a1","role":"assistant","parts":[{"type":"text","text":"answer"}]}`)
	fails(t, c, "22023", "AI_MESSAGE_INVALID", "select better_supabase.save_ai_assistant_message($1, $2, 'a1')", chat, `{"id":"u1","role":"assistant","parts":[{"type":"text","text":"not the question"}]}`)
	edit := q(t, c, "select better_supabase.append_ai_user_message($1, $2)", chat, `{"id":"a1","role":"user","parts":[{"type":"text","text":"other"}]}`).(map[string]any)
	if edit["message_id"] == "a1" || edit["parent_id"] != "u1" || edit["created"] != true {
		t.Errorf("a user message under the answer's id = %v, want a fresh id beside the answer (parent u1)", edit)
	}
	wantJSON(t, q(t, c, "select jsonb_agg(jsonb_build_array(id = 'u1' or id = 'a1', role, parts -> 0 ->> 'text') order by seq) from better_supabase.ai_messages where chat_id = $1::uuid", chat),
		`[[true,"user","question"],[true,"assistant","answer"],[false,"user","other"]]`, "messages")
	// Regenerate stores nothing, so it may name the answer to regenerate.
	wantJSON(t, q(t, c, "select better_supabase.append_ai_user_message($1, $2, 'regenerate-message', 'a1')", chat, `{"id":"u1","role":"user","parts":[{"type":"text","text":"question"}]}`),
		`{"message_id":"u1","parent_id":"u1","created":false}`, "regenerate naming the answer")
}

// A repeated cancel request changes nothing: the first request's time is
// kept, and so is updated_at, which says when the run last changed.
// A second cancel request keeps the first request's time; as upstream
// measures it, it still touches the run (updatedAt moves).
func TestWorkflowCancelRequestedTwiceKeepsTheFirstTime(t *testing.T) {
	s, db := pgtest.DB(t)
	c := pgtest.Conn(t, s, db)
	q(t, c, "select better_supabase.record_workflow_run('temporal', 'wf-c', 'order', 'running')")
	first := q(t, c, "select better_supabase.request_workflow_cancel('wf-c')").(map[string]any)
	if first["cancelRequestedAt"] == nil || first["status"] != "running" {
		t.Fatalf("first cancel request = %v", first)
	}
	// A new transaction, so that now() has moved on.
	second := q(t, c, "select better_supabase.request_workflow_cancel('wf-c')").(map[string]any)
	if second["cancelRequestedAt"] != first["cancelRequestedAt"] || second["status"] != "running" {
		t.Errorf("second cancel request = %v, want the first request's time %v and the status kept", second, first["cancelRequestedAt"])
	}
	moved := q(t, c, "select ($1::jsonb ->> 'updatedAt')::timestamptz > ($2::jsonb ->> 'updatedAt')::timestamptz", mustJSON(t, second), mustJSON(t, first))
	if moved != true {
		t.Errorf("updatedAt after the second request: %v, then %v; want it moved on", first["updatedAt"], second["updatedAt"])
	}
}

// Rights come from the blocks alone: a database whose default privileges
// grant every new function and table to anon and authenticated (ALTER
// DEFAULT PRIVILEGES without IN SCHEMA) must not hand them the service
// role's functions, table writes or TRUNCATE, which row-level security
// does not stop.
func TestRightsDespiteDefaultPrivileges(t *testing.T) {
	// It checks the knowledge and memory modules too, which need pgvector.
	needVector(t)
	// With the base installed first, and on a Supabase database, where the
	// registry's own helper is created after the default privileges.
	for _, name := range []string{"base first", "supabase"} {
		t.Run(name, func(t *testing.T) {
			s, db := pgtest.EmptyDB(t)
			conn := pgtest.Conn(t, s, db)
			ctx := context.Background()
			if name == "supabase" {
				supabaseLike(t, conn)
			} else if _, err := blocks.Install(ctx, conn, blocks.BaseModule); err != nil {
				t.Fatal(err)
			}
			if _, err := conn.Exec(ctx, `
				alter default privileges grant all on functions to anon, authenticated, service_role;
				alter default privileges grant all on tables to anon, authenticated;`); err != nil {
				t.Fatal(err)
			}
			if _, err := blocks.Install(ctx, conn); err != nil {
				t.Fatal(err)
			}
			checkGrants(t, conn)
		})
	}
}

func checkGrants(t *testing.T, conn *pgx.Conn) {
	t.Helper()
	checkExecuteRights(t, conn)
	checkVaultUntouchable(t, conn)
	for _, c := range []struct{ role, table, privilege string }{
		{"anon", "better_supabase.streams", "TRUNCATE"},
		{"anon", "better_supabase.stream_chunks", "INSERT"},
		{"authenticated", "better_supabase.streams", "UPDATE"},
		{"authenticated", "better_supabase.ai_messages", "TRUNCATE"},
		{"authenticated", "better_supabase.ai_runs", "UPDATE"},
		{"authenticated", "better_supabase.ai_chats", "TRUNCATE"},
		{"anon", "better_supabase.ai_chats", "SELECT"},
		{"authenticated", "better_supabase.workflow_runs", "DELETE"},
		{"anon", "better_supabase.modules", "TRUNCATE"},
		{"authenticated", "better_supabase.modules", "UPDATE"},
		{"authenticated", "better_supabase.audit_events", "SELECT"},
		{"service_role", "better_supabase.audit_events", "INSERT"},
	} {
		if exists(t, conn, "select has_table_privilege($1, $2, $3)", c.role, c.table, c.privilege) {
			t.Errorf("%s has %s on %s", c.role, c.privilege, c.table)
		}
	}
	if exists(t, conn, "select has_column_privilege('authenticated', 'better_supabase.ai_chats', 'active_run_id', 'UPDATE')") {
		t.Error("authenticated may update ai_chats.active_run_id")
	}
}
