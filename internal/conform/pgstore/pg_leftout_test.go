package pgstore

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/conformtest"
	"github.com/bsadapter/bsadapter/internal/conform/suites"
	"github.com/bsadapter/bsadapter/internal/conform/suites/aicache"
	"github.com/bsadapter/bsadapter/internal/conform/suites/chatstate"
	"github.com/bsadapter/bsadapter/internal/conform/suites/knowledge"
	"github.com/bsadapter/bsadapter/internal/conform/suites/memory"
	"github.com/bsadapter/bsadapter/internal/pgserver/pgtest"
)

// A suite whose module was left out, because the server lacks an
// extension it needs, says so with the way to get it; the other suites
// are unaffected.
func TestSuiteOfALeftOutModuleSaysWhy(t *testing.T) {
	ctx := context.Background()
	st := storeOf(t, map[string]string{
		"chat-sdk-state": "-- bsadapter block: chat-sdk-state\n-- version: 1\n-- requires: supabase-base\n-- needs-extension: bsadapter_no_such_extension\n" +
			"create or replace function better_supabase.chat_state_acquire_lock(prefix text, thread_id text, token text, ttl_ms integer) returns jsonb language sql as $$ select null::jsonb $$;\n",
		"streams": "-- bsadapter block: streams\n-- version: 1\n-- requires: supabase-base\n" +
			"create or replace function better_supabase.stream_append(stream_id text, from_idx integer, chunks text[]) returns jsonb language sql as $$ select null::jsonb $$;\n",
	})
	p := st.(*pgStore)
	_, err := p.ChatState(ctx)
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

// On a server without pgvector, the knowledge and memory suites are left
// out of a run with their modules, saying why and how to get it, while
// ai-cache, which needs no extension, runs: nothing of them fails and
// nothing is skipped unsaid.
func TestVectorSuitesLeftOutWithoutPgvector(t *testing.T) {
	mods, err := blocks.Embedded().Resolve("ai-cache", "knowledge", "memory")
	if err != nil {
		t.Fatal(err)
	}
	const header = "-- needs-extension: vector >= 0.8\n"
	files := map[string]string{}
	for _, m := range mods {
		sql := m.SQL
		if m.Name == blocks.VectorSearchModule {
			if !strings.Contains(sql, header) {
				t.Fatalf("%s no longer says %q; update this test", m.File, header)
			}
			sql = strings.Replace(sql, header, "-- needs-extension: bsadapter_no_such_extension\n", 1)
		}
		files[m.Name] = sql
	}
	ctx := context.Background()
	st := storeOf(t, files)
	cases, err := conform.Select(suites.Cases(), conform.Options{Suites: []string{aicache.Suite.Name, knowledge.Suite.Name, memory.Suite.Name}})
	if err != nil {
		t.Fatal(err)
	}
	kept, left := conform.Implemented(st, cases)
	var names []string
	for _, l := range left {
		names = append(names, l.Suite)
		if want := "module " + l.Suite + " was left out, as module vector-search was: the server lacks extension bsadapter_no_such_extension"; !strings.HasPrefix(l.Reason, want) {
			t.Errorf("%s left out for %q, want it to say %q", l.Suite, l.Reason, want)
		}
	}
	if !slices.Equal(names, []string{knowledge.Suite.Name, memory.Suite.Name}) {
		t.Errorf("left out %v, want knowledge and memory", names)
	}
	rep := conform.Run(ctx, st, kept, conform.Options{Parallel: 4})
	if rep.Count(conform.Pass) != len(kept) || len(kept) == 0 {
		t.Errorf("%d of the %d ai-cache cases passed:\n%s", rep.Count(conform.Pass), len(kept), conformtest.Failures(rep))
	}
}

// storeOf is the pg store over the modules given (name to SQL) in place of
// the embedded ones, on the test server; it is closed when the test ends.
func storeOf(t *testing.T, modules map[string]string) conform.Store {
	t.Helper()
	dir := t.TempDir()
	for name, sql := range modules {
		if err := os.WriteFile(filepath.Join(dir, name+".sql"), []byte(sql), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	set, err := blocks.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := NewOf(context.Background(), pgtest.Server(t), set)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
