package pgstore

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/internal/conform/suites/chatstate"
	"github.com/bsadapter/bsadapter/internal/pgserver/pgtest"
)

// A suite whose module was left out, because the server lacks an
// extension it needs, says so with the way to get it; the other suites
// are unaffected.
func TestSuiteOfALeftOutModuleSaysWhy(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"chat-sdk-state.sql": "-- bsadapter block: chat-sdk-state\n-- version: 1\n-- requires: supabase-base\n-- needs-extension: bsadapter_no_such_extension\n" +
			"create or replace function better_supabase.chat_state_acquire_lock(prefix text, thread_id text, token text, ttl_ms integer) returns jsonb language sql as $$ select null::jsonb $$;\n",
		"streams.sql": "-- bsadapter block: streams\n-- version: 1\n-- requires: supabase-base\n" +
			"create or replace function better_supabase.stream_append(stream_id text, from_idx integer, chunks text[]) returns jsonb language sql as $$ select null::jsonb $$;\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	set, err := blocks.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := NewOf(ctx, pgtest.Server(t), set)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	p := st.(*pgStore)
	_, err = p.ChatState(ctx)
	if err == nil || !strings.Contains(err.Error(), "module chat-sdk-state was left out: the server lacks extension bsadapter_no_such_extension") {
		t.Errorf("%s: %v, want the left-out module and why", chatstate.Suite.Name, err)
	}
	if err := p.missing["streams"]; err != nil {
		t.Errorf("streams: %v, want it runnable", err)
	}
	// The run's report names the module, whatever suites ran.
	left := p.ModulesLeftOut()
	if len(left) != 1 || left[0].Module != "chat-sdk-state" || !strings.Contains(left[0].Reason, "bsadapter_no_such_extension") {
		t.Errorf("ModulesLeftOut() = %+v, want chat-sdk-state with its reason", left)
	}
}
