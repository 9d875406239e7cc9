package blocks_test

import (
	"context"
	"testing"

	"github.com/bsadapter/bsadapter/internal/pgserver/pgtest"
	"github.com/jackc/pgx/v5"
)

// newChat inserts a chat owned by owner (as the test's superuser) and
// returns its id.
func newChat(t *testing.T, conn *pgx.Conn, owner string) string {
	t.Helper()
	var id string
	if err := conn.QueryRow(context.Background(),
		"insert into better_supabase.ai_chats (owner_id) values ($1) returning id::text", owner).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// The run columns of a chat are the server's: an owner may not point her
// chat at another user's stream or run, and where a chat points at them
// anyway (rows written by hand), stop and claim leave the other chat's run
// and stream alone.
func TestChatRunColumnsStayInTheChat(t *testing.T) {
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
		"insert into better_supabase.ai_chats (owner_id, active_stream_id, active_run_id) values ((select owner_id from better_supabase.ai_chats where id = $1::uuid), 'bob-st', $2::uuid)",
	} {
		tx, err := c.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		tx.Exec(ctx, "select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)", `{"sub":"`+alice+`"}`)
		_, err = tx.Exec(ctx, stmt, aliceChat, bobRun)
		tx.Rollback(ctx)
		if code := pgCode(err); code != "42501" {
			t.Errorf("alice writes her chat's run columns (%s): error %v, want permission denied (42501)", stmt, err)
		}
	}
	asRole(t, c, "authenticated", alice, func(tx pgx.Tx) {
		tag, err := tx.Exec(ctx, "update better_supabase.ai_chats set title = 'mine', metadata = '{\"pinned\":true}' where id = $1::uuid", aliceChat)
		if err != nil || tag.RowsAffected() != 1 {
			t.Errorf("alice renames her chat: %v, %d rows", err, tag.RowsAffected())
		}
		var id string
		if err := tx.QueryRow(ctx, "insert into better_supabase.ai_chats (owner_id, title) values ($1, 'new') returning id::text", alice).Scan(&id); err != nil {
			t.Errorf("alice creates a chat: %v", err)
		}
	})

	bobIntact := func(what string) {
		t.Helper()
		wantJSON(t, q(t, c, "select jsonb_build_object('run', (select status from better_supabase.ai_runs where id = $1::uuid), 'stream', better_supabase.stream_status('bob-st') -> 'cancelled')", bobRun),
			`{"run":"running","stream":false}`, what)
	}
	// Rows that point alice's chat at bob's stream and run anyway.
	if _, err := c.Exec(ctx, "update better_supabase.ai_chats set active_stream_id = 'bob-st', active_run_id = $2::uuid where id = $1::uuid", aliceChat, bobRun); err != nil {
		t.Fatal(err)
	}
	asRole(t, c, "authenticated", alice, func(tx pgx.Tx) {
		var got *string
		if err := tx.QueryRow(ctx, "select better_supabase.request_ai_chat_stop($1)::text", aliceChat).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != nil {
			t.Errorf("alice stops her chat pointing at bob's stream: %s, want null", *got)
		}
	})
	bobIntact("bob's run and stream after alice's stop")
	// A closed stream does not hold the chat, so the claim supersedes the
	// active run: only when it is this chat's.
	q(t, c, "select better_supabase.stream_open('closed-st')")
	q(t, c, "select better_supabase.stream_close('closed-st')")
	if _, err := c.Exec(ctx, "update better_supabase.ai_chats set active_stream_id = 'closed-st' where id = $1::uuid", aliceChat); err != nil {
		t.Fatal(err)
	}
	claim := q(t, c, "select better_supabase.claim_ai_chat_stream($1, 'alice-st')", aliceChat).(map[string]any)
	if claim["claimed"] != true || claim["run_id"] == bobRun {
		t.Errorf("claim for alice's chat = %v, want a new run", claim)
	}
	bobIntact("bob's run and stream after a claim for alice's chat")
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
