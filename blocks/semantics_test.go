package blocks_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/bsadapter/bsadapter/internal/pgserver/pgtest"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// q runs a query that returns one value as JSON text and decodes it.
func q(t *testing.T, conn *pgx.Conn, sql string, args ...any) any {
	t.Helper()
	var raw *string
	if err := conn.QueryRow(context.Background(), "select to_jsonb(("+sql+"))::text", args...).Scan(&raw); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	if raw == nil {
		return nil
	}
	var v any
	if err := json.Unmarshal([]byte(*raw), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func wantJSON(t *testing.T, got any, want string, what string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, w) {
		g, _ := json.Marshal(got)
		t.Errorf("%s = %s, want %s", what, g, want)
	}
}

// fails runs sql and checks that it fails with SQLSTATE code and hint.
func fails(t *testing.T, conn *pgx.Conn, code, hint, sql string, args ...any) {
	t.Helper()
	_, err := conn.Exec(context.Background(), sql, args...)
	var pgErr *pgconn.PgError
	if !errorsAs(err, &pgErr) || pgErr.Code != code || pgErr.Hint != hint {
		t.Errorf("%s: error %v, want SQLSTATE %s hint %q", sql, err, code, hint)
	}
}

func errorsAs(err error, target **pgconn.PgError) bool {
	pe, ok := err.(*pgconn.PgError)
	if ok {
		*target = pe
	}
	return ok
}

func TestStreamsSemantics(t *testing.T) {
	s, db := pgtest.DB(t)
	c := pgtest.Conn(t, s, db)
	wantJSON(t, q(t, c, "select better_supabase.stream_open('s1')"), "true", "open")
	wantJSON(t, q(t, c, "select better_supabase.stream_open('s1', kind => 'other')"), "false", "open again")
	wantJSON(t, q(t, c, "select kind from better_supabase.streams where id = 's1'"), `"default"`, "kind after a second open")
	wantJSON(t, q(t, c, "select better_supabase.stream_append('s1', 0, array['a','b'])"), `{"next":2,"cancelled":false}`, "append")
	// A retried batch keeps what was written first and adds what is new.
	wantJSON(t, q(t, c, "select better_supabase.stream_append('s1', 0, array['X','Y','c'])"), `{"next":3,"cancelled":false}`, "retry")
	wantJSON(t, q(t, c, "select better_supabase.stream_append('s1', 1, array['b'])"), `{"next":3,"cancelled":false}`, "retry inside")
	fails(t, c, "P0001", "STREAM_GAP", "select better_supabase.stream_append('s1', 5, array['z'])")
	fails(t, c, "P0001", "STREAM_GAP", "select better_supabase.stream_append('s1', -1, array['z'])")
	fails(t, c, "P0002", "STREAM_NOT_FOUND", "select better_supabase.stream_append('nope', 0, array['z'])")
	wantJSON(t, q(t, c, "select better_supabase.stream_read('s1', 1, 1)"), `{"found":true,"chunks":["b"],"next":2,"done":false,"cancelled":false}`, "read one")
	wantJSON(t, q(t, c, "select better_supabase.stream_read('s1', 9)"), `{"found":true,"chunks":[],"next":9,"done":false,"cancelled":false}`, "read past the end")
	wantJSON(t, q(t, c, "select better_supabase.stream_status('s1') - 'expires_at'"), `{"next":3,"closed":false,"cancelled":false,"kind":"default"}`, "status")
	wantJSON(t, q(t, c, "select better_supabase.stream_status('nope')"), `null`, "status of a missing stream")
	wantJSON(t, q(t, c, "select better_supabase.stream_read('nope', -4)"), `{"found":false,"chunks":[],"next":0,"done":true,"cancelled":false}`, "read missing")
	wantJSON(t, q(t, c, "select better_supabase.stream_cancel('s1')"), "true", "cancel")
	wantJSON(t, q(t, c, "select better_supabase.stream_cancel('s1')"), "false", "cancel again")
	wantJSON(t, q(t, c, "select better_supabase.stream_append('s1', 3, array['d'])"), `{"next":4,"cancelled":true}`, "append after cancel")
	wantJSON(t, q(t, c, "select better_supabase.stream_close('s1')"), "true", "close")
	wantJSON(t, q(t, c, "select better_supabase.stream_close('s1')"), "false", "close again")
	wantJSON(t, q(t, c, "select better_supabase.stream_close('nope')"), "false", "close missing")
	// Closed is checked before the gap.
	fails(t, c, "P0001", "STREAM_CLOSED", "select better_supabase.stream_append('s1', 99, array['e'])")
	wantJSON(t, q(t, c, "select better_supabase.stream_read('s1')"), `{"found":true,"chunks":["a","b","c","d"],"next":4,"done":true,"cancelled":true}`, "read closed")
	wantJSON(t, q(t, c, "select better_supabase.stream_read('s1', 0, 3)"), `{"found":true,"chunks":["a","b","c"],"next":3,"done":false,"cancelled":true}`, "read closed, paged")
	wantJSON(t, q(t, c, "select better_supabase.stream_cancel('s1')"), "false", "cancel closed")
	// Large and non-ASCII chunks come back byte for byte.
	big := strings.Repeat("ü€😀", 50000)
	q(t, c, "select better_supabase.stream_open('s2')")
	q(t, c, "select better_supabase.stream_append('s2', 0, $1::text[])", []string{big, "ß"})
	wantJSON(t, q(t, c, "select better_supabase.stream_read('s2') -> 'chunks'"), mustJSON(t, []string{big, "ß"}), "big chunks")
	// Purge: expired streams and streams closed longer than the window.
	q(t, c, "select better_supabase.stream_open('old', ttl => '-1 second')")
	q(t, c, "select better_supabase.stream_open('keep')")
	wantJSON(t, q(t, c, "select better_supabase.purge_streams('1 hour')"), "1", "purge expired")
	wantJSON(t, q(t, c, "select better_supabase.purge_streams('-1 second', 1)"), "1", "purge closed, batch of 1")
	wantJSON(t, q(t, c, "select count(*) from better_supabase.stream_chunks where stream_id = 's1'"), "0", "chunks cascade")
	wantJSON(t, q(t, c, "select array_agg(id order by id) from better_supabase.streams"), `["keep","s2"]`, "what purge kept")
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Concurrent writers of one stream, each appending at the end it last saw:
// every append succeeds, and the stored chunks are exactly 0..n-1.
func TestStreamsConcurrentWriters(t *testing.T) {
	s, db := pgtest.DB(t)
	c := pgtest.Conn(t, s, db)
	q(t, c, "select better_supabase.stream_open('w')")
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := s.Connect(context.Background(), db)
			if err != nil {
				t.Error(err)
				return
			}
			defer conn.Close(context.Background())
			for i := 0; i < 25; i++ {
				var res []byte
				err := conn.QueryRow(context.Background(),
					"select better_supabase.stream_append('w', (select coalesce(max(idx)+1, 0) from better_supabase.stream_chunks where stream_id = 'w'), array['x','y'])").Scan(&res)
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	var n, maxIdx int
	c.QueryRow(context.Background(), "select count(*), max(idx) from better_supabase.stream_chunks where stream_id = 'w'").Scan(&n, &maxIdx)
	// Overlapping batches add only their new part, so the count depends
	// on the interleaving; what must hold is that there is no hole.
	if n < 2 || n != maxIdx+1 {
		t.Errorf("%d chunks, highest index %d: want no hole", n, maxIdx)
	}
}

func TestAIChatSemantics(t *testing.T) {
	s, db := pgtest.DB(t)
	c := pgtest.Conn(t, s, db)
	ctx := context.Background()
	var chat string
	if err := c.QueryRow(ctx, `insert into auth.users (id) values ('`+alice+`');
		`).Scan(); err != nil && err != pgx.ErrNoRows {
		t.Fatal(err)
	}
	chat = newChat(t, c, alice)
	user := func(id, text string) string {
		return `{"id":"` + id + `","role":"user","parts":[{"type":"text","text":"` + text + `"}]}`
	}
	asst := func(id, text string) string {
		return `{"id":"` + id + `","role":"assistant","parts":[{"type":"text","text":"` + text + `"}]}`
	}
	wantJSON(t, q(t, c, "select better_supabase.append_ai_user_message($1, $2)", chat, user("u1", "hi")), `{"message_id":"u1","parent_id":null,"created":true}`, "first user message")
	wantJSON(t, q(t, c, "select better_supabase.append_ai_user_message($1, $2)", chat, user("u1", "hi")), `{"message_id":"u1","parent_id":null,"created":false}`, "same message again")
	wantJSON(t, q(t, c, "select better_supabase.save_ai_assistant_message($1, $2, 'u1', native => '{\"value\":1}')", chat, asst("a1", "hello")), `{"message_id":"a1","parent_id":"u1","created":true}`, "assistant")
	wantJSON(t, q(t, c, "select better_supabase.save_ai_assistant_message($1, $2, null, 'aborted', native => '{\"value\":2}')", chat, asst("a1", "hello!")), `{"message_id":"a1","parent_id":"u1","created":false}`, "assistant upsert keeps the parent")
	wantJSON(t, q(t, c, "select better_supabase.append_ai_user_message($1, $2)", chat, user("u2", "more")), `{"message_id":"u2","parent_id":"a1","created":true}`, "second user message")
	// An edit of u2 becomes a sibling under a fresh id.
	edit := q(t, c, "select better_supabase.append_ai_user_message($1, $2)", chat, user("u2", "more, edited")).(map[string]any)
	if edit["message_id"] == "u2" || edit["parent_id"] != "a1" || edit["created"] != true {
		t.Errorf("edit = %v, want a fresh id under a1", edit)
	}
	path := q(t, c, "select better_supabase.ai_message_path($1)", chat).([]any)
	var ids []string
	for _, m := range path {
		ids = append(ids, m.(map[string]any)["id"].(string))
	}
	if strings.Join(ids, ",") != "u1,a1,"+edit["message_id"].(string) {
		t.Errorf("path = %v", ids)
	}
	last := path[2].(map[string]any)
	if last["sibling_count"] != 2.0 || last["sibling_index"] != 1.0 {
		t.Errorf("edited message: sibling %v of %v, want 1 of 2", last["sibling_index"], last["sibling_count"])
	}
	if a1 := path[1].(map[string]any); a1["native"] != nil || a1["status"] != "aborted" {
		t.Errorf("a1 in the path: native %v (want null unless asked), status %v (want aborted)", a1["native"], a1["status"])
	}
	wantJSON(t, q(t, c, "select better_supabase.ai_message_path($1, 'a1', true) -> 1 -> 'native'", chat), `{"value":2}`, "native when asked, replaced by the upsert")
	// Regenerate stores nothing and moves the leaf to the question whose
	// answer is regenerated (upstream ignores the message passed along).
	wantJSON(t, q(t, c, "select better_supabase.append_ai_user_message($1, $2, 'regenerate-message', 'a1')", chat, user("zz", "ignored")), `{"message_id":"u1","parent_id":"u1","created":false}`, "regenerate")
	wantJSON(t, q(t, c, "select current_leaf_id from better_supabase.ai_chats where id = $1", chat), `"u1"`, "leaf after regenerate")
	fails(t, c, "22023", "AI_MESSAGE_INVALID", "select better_supabase.append_ai_user_message($1, $2)", chat, `{"id":"x","role":"assistant","parts":[]}`)
	fails(t, c, "22023", "AI_MESSAGE_INVALID", "select better_supabase.append_ai_user_message($1, $2)", chat, `{"id":"","role":"user","parts":[]}`)
	fails(t, c, "22023", "AI_MESSAGE_INVALID", "select better_supabase.append_ai_user_message($1, $2)", chat, `{"id":"x","role":"user"}`)
	fails(t, c, "22023", "AI_MESSAGE_INVALID", "select better_supabase.append_ai_user_message($1, $2)", chat, `{"id":"x","role":"user","parts":"text"}`)
	// An unknown part type fails the table's check, as upstream's does.
	fails(t, c, "23514", "", "select better_supabase.append_ai_user_message($1, $2)", chat, `{"id":"x","role":"user","parts":[{"type":"image"}]}`)

	// Runs: one answer streams per chat.
	q(t, c, "select better_supabase.stream_open('st1')")
	q(t, c, "select better_supabase.stream_open('st2')")
	first := q(t, c, "select better_supabase.claim_ai_chat_stream($1, 'st1')", chat).(map[string]any)
	if first["claimed"] != true || first["run_id"] == nil {
		t.Fatalf("claim = %v", first)
	}
	wantJSON(t, q(t, c, "select better_supabase.claim_ai_chat_stream($1, 'st1')", chat), mustJSON(t, first), "claim again")
	wantJSON(t, q(t, c, "select better_supabase.claim_ai_chat_stream($1, 'st2')", chat), `{"claimed":false,"stream_id":"st1","run_id":"`+first["run_id"].(string)+`"}`, "claim while active")
	wantJSON(t, q(t, c, "select better_supabase.request_ai_chat_stop($1)", chat), `{"stream_id":"st1","run_id":"`+first["run_id"].(string)+`"}`, "stop")
	wantJSON(t, q(t, c, "select better_supabase.stream_append('st1', 0, array['x'])"), `{"next":1,"cancelled":true}`, "the writer learns of the stop")
	fails(t, c, "22023", "AI_RUN_INVALID", "select better_supabase.release_ai_chat_stream($1, 'st1', 'done')", chat)
	wantJSON(t, q(t, c, "select better_supabase.release_ai_chat_stream($1, 'st1', 'cancelled', '{\"tokens\":3}')", chat), "true", "release")
	wantJSON(t, q(t, c, "select better_supabase.release_ai_chat_stream($1, 'st1')", chat), "false", "release again")
	wantJSON(t, q(t, c, "select jsonb_build_object('status', status, 'usage', usage) from better_supabase.ai_runs where id = $1::uuid", first["run_id"]), `{"status":"cancelled","usage":{"tokens":3}}`, "run after the second release (the first one's outcome stays)")
	wantJSON(t, q(t, c, "select better_supabase.request_ai_chat_stop($1)", chat), "null", "stop with nothing active")
	second := q(t, c, "select better_supabase.claim_ai_chat_stream($1, 'st2')", chat).(map[string]any)
	if second["claimed"] != true || second["run_id"] == first["run_id"] {
		t.Errorf("claim after release = %v", second)
	}
	// A closed stream no longer holds the chat: the next claim cancels its run.
	q(t, c, "select better_supabase.stream_close('st2')")
	third := q(t, c, "select better_supabase.claim_ai_chat_stream($1, 'st3')", chat).(map[string]any)
	if third["claimed"] != true {
		t.Errorf("claim after the active stream closed = %v", third)
	}
	wantJSON(t, q(t, c, "select status from better_supabase.ai_runs where id = $1::uuid", second["run_id"]), `"cancelled"`, "superseded run")

	// Another user cannot touch alice's chat.
	tx, err := c.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tx.Exec(ctx, "select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)", `{"sub":"`+bob+`","role":"authenticated"}`)
	_, err = tx.Exec(ctx, "select better_supabase.ai_message_path($1)", chat)
	tx.Rollback(ctx)
	var pgErr *pgconn.PgError
	if !errorsAs(err, &pgErr) || pgErr.Hint != "AI_CHAT_NOT_FOUND" {
		t.Errorf("bob reads alice's chat: %v, want AI_CHAT_NOT_FOUND", err)
	}
	asRole(t, c, "authenticated", alice, func(tx pgx.Tx) {
		var n int
		if err := tx.QueryRow(ctx, "select jsonb_array_length(better_supabase.ai_message_path($1))", chat).Scan(&n); err != nil || n != 1 {
			t.Errorf("alice reads her chat: %d messages, %v", n, err)
		}
	})
}

func TestWorkflowsSemantics(t *testing.T) {
	s, db := pgtest.DB(t)
	c := pgtest.Conn(t, s, db)
	// An actor is a user (upstream's foreign key).
	if _, err := c.Exec(context.Background(), "insert into auth.users (id) values ($1)", bob); err != nil {
		t.Fatal(err)
	}
	id := q(t, c, "select better_supabase.record_workflow_run('temporal', 'wf-1', 'order', 'queued', tenant => '"+alice+"', attributes => '{\"a\":1,\"b\":1}')").(string)
	again := q(t, c, "select better_supabase.record_workflow_run('temporal', 'wf-1', 'order-v2', 'failed', tenant => '"+bob+"', actor => '"+bob+"', attributes => '{\"b\":2}', error => repeat('e', 5000), started_at => '2024-01-01Z')").(string)
	if again != id {
		t.Errorf("the same (engine, external id) gave a new id %s (first %s)", again, id)
	}
	q(t, c, "select better_supabase.record_workflow_run('temporal', 'wf-1', 'order-v2', 'running', started_at => '2025-01-01Z')")
	run := q(t, c, "select better_supabase.workflow_run_get('wf-1')").(map[string]any)
	if run["definition"] != "order-v2" || run["status"] != "running" || run["tenant"] != alice || run["actor"] != bob ||
		len(run["error"].(string)) != 4000 || !strings.HasPrefix(run["startedAt"].(string), "2024-01-01") {
		t.Errorf("after three records: %v", run)
	}
	wantJSON(t, run["attributes"], `{"a":1,"b":2}`, "merged attributes")
	fails(t, c, "23514", "", "select better_supabase.record_workflow_run('temporal', 'wf-1', 'order', 'paused')")
	wantJSON(t, q(t, c, "select better_supabase.workflow_run_get($1) ->> 'externalId'", id), `"wf-1"`, "get by id")
	wantJSON(t, q(t, c, "select better_supabase.workflow_run_get('nope')"), "null", "get unknown")
	cancel := q(t, c, "select better_supabase.request_workflow_cancel('wf-1')").(map[string]any)
	if cancel["cancelRequestedAt"] == nil || cancel["status"] != "running" {
		t.Errorf("cancel = %v", cancel)
	}
	wantJSON(t, q(t, c, "select better_supabase.request_workflow_cancel('wf-1') -> 'cancelRequestedAt'"), mustJSON(t, cancel["cancelRequestedAt"]), "second cancel keeps the first time")
	wantJSON(t, q(t, c, "select better_supabase.request_workflow_cancel('nope')"), "null", "cancel unknown")
	q(t, c, "select better_supabase.record_workflow_run('temporal', 'wf-2', 'order', 'completed', completed_at => now() - interval '40 days')")
	q(t, c, "select better_supabase.record_workflow_run('inngest', 'wf-3', 'mail', 'waiting')")
	list := q(t, c, "select better_supabase.workflow_runs_list()").([]any)
	if len(list) != 3 || list[0].(map[string]any)["externalId"] != "wf-3" {
		t.Errorf("list = %v, want 3 runs, newest first", list)
	}
	wantJSON(t, q(t, c, "select jsonb_array_length(better_supabase.workflow_runs_list(max => 0))"), "1", "max clamped to 1")
	wantJSON(t, q(t, c, "select jsonb_array_length(better_supabase.workflow_runs_list(definition => 'order'))"), "1", "filter by definition")
	wantJSON(t, q(t, c, "select better_supabase.purge_workflow_runs()"), "1", "purge")
}

// Where Supabase Realtime's realtime.send exists, appends, close and cancel
// ping the private topic stream:<id>, without the chunks; a stream opened
// with wake => false sends nothing.
func TestStreamsRealtimePing(t *testing.T) {
	s, db := pgtest.DB(t)
	c := pgtest.Conn(t, s, db)
	ctx := context.Background()
	if _, err := c.Exec(ctx, `
		create schema realtime;
		create table realtime.sent (n serial, payload jsonb, event text, topic text, private boolean);
		create function realtime.send(payload jsonb, event text, topic text, private boolean default true)
		returns void language sql as $$ insert into realtime.sent (payload, event, topic, private) values ($1, $2, $3, $4) $$;`); err != nil {
		t.Fatal(err)
	}
	q(t, c, "select better_supabase.stream_open('rt')")
	q(t, c, "select better_supabase.stream_open('quiet', wake => false)")
	q(t, c, "select better_supabase.stream_append('rt', 0, array['secret chunk'])")
	q(t, c, "select better_supabase.stream_append('quiet', 0, array['x'])")
	q(t, c, "select better_supabase.stream_cancel('rt')")
	q(t, c, "select better_supabase.stream_close('rt')")
	q(t, c, "select better_supabase.stream_close('quiet')")
	wantJSON(t, q(t, c, "select jsonb_agg(jsonb_build_array(event, topic, private) order by n) from realtime.sent"),
		`[["append","stream:rt",true],["cancel","stream:rt",true],["close","stream:rt",true]]`, "pings")
	wantJSON(t, q(t, c, "select count(*) from realtime.sent where payload::text like '%secret%'"), "0", "pings carrying chunks")
}

// Where Realtime is there, every status change of a run pings the run's
// topic and, for a tenant's run, the tenant's; a report that keeps the
// status sends nothing.
func TestWorkflowsRealtimePing(t *testing.T) {
	s, db := pgtest.DB(t)
	c := pgtest.Conn(t, s, db)
	ctx := context.Background()
	if _, err := c.Exec(ctx, `
		create schema realtime;
		create table realtime.sent (n serial, payload jsonb, event text, topic text, private boolean);
		create function realtime.send(payload jsonb, event text, topic text, private boolean default true)
		returns void language sql as $$ insert into realtime.sent (payload, event, topic, private) values ($1, $2, $3, $4) $$;`); err != nil {
		t.Fatal(err)
	}
	id := q(t, c, "select better_supabase.record_workflow_run('e', 'x1', 'd', 'queued', tenant => '"+alice+"')").(string)
	q(t, c, "select better_supabase.record_workflow_run('e', 'x1', 'd', 'queued', attributes => '{\"a\":1}')")
	q(t, c, "select better_supabase.record_workflow_run('e', 'x1', 'd', 'running')")
	wantJSON(t, q(t, c, "select jsonb_agg(jsonb_build_array(payload ->> 'status', event, topic, private) order by n) from realtime.sent"),
		`[["queued","status","workflow-run:`+id+`",true],["queued","status","workflow-runs:`+alice+`",true],`+
			`["running","status","workflow-run:`+id+`",true],["running","status","workflow-runs:`+alice+`",true]]`, "pings")
}
