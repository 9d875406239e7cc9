package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/internal/pgserver/pgtest"
)

// streamFuncRe matches the streams block's public function names, wherever
// the SQL uses them (definitions, grants, parameter qualifiers).
var streamFuncRe = regexp.MustCompile(`\b(stream_(?:open|append|read|status|close|cancel)|purge_streams)\b`)

// wrappers defines the streams contract over the impl_ functions: each
// public function only calls its renamed twin. closeBody replaces
// stream_close's body, so that a test can break the implementation.
func wrappers(closeBody string) string {
	return `
create or replace function better_supabase.stream_open(stream_id text, owner uuid default null, tenant uuid default null,
  kind text default 'default', ttl interval default '1 day', wake boolean default true)
returns boolean language sql security invoker set search_path = '' as $w$
  select better_supabase.impl_stream_open($1, $2, $3, $4, $5, $6) $w$;
create or replace function better_supabase.stream_append(stream_id text, from_idx integer, chunks text[])
returns jsonb language sql security invoker set search_path = '' as $w$
  select better_supabase.impl_stream_append($1, $2, $3) $w$;
create or replace function better_supabase.stream_read(stream_id text, from_idx integer default 0, max integer default 1000)
returns jsonb language sql stable security invoker set search_path = '' as $w$
  select better_supabase.impl_stream_read($1, $2, $3) $w$;
create or replace function better_supabase.stream_status(stream_id text)
returns jsonb language sql stable security invoker set search_path = '' as $w$
  select better_supabase.impl_stream_status($1) $w$;
create or replace function better_supabase.stream_close(stream_id text)
returns boolean language sql security invoker set search_path = '' as $w$
  ` + closeBody + ` $w$;
create or replace function better_supabase.stream_cancel(stream_id text)
returns boolean language sql security invoker set search_path = '' as $w$
  select better_supabase.impl_stream_cancel($1) $w$;
create or replace function better_supabase.purge_streams(older_than interval default '1 day', batch integer default 1000)
returns integer language sql security invoker set search_path = '' as $w$
  select better_supabase.impl_purge_streams($1, $2) $w$;
revoke all on function better_supabase.stream_open(text, uuid, uuid, text, interval, boolean),
  better_supabase.stream_append(text, integer, text[]), better_supabase.stream_read(text, integer, integer),
  better_supabase.stream_status(text), better_supabase.stream_close(text), better_supabase.stream_cancel(text),
  better_supabase.purge_streams(interval, integer)
  from public, anon, authenticated, service_role;
grant execute on function better_supabase.stream_open(text, uuid, uuid, text, interval, boolean),
  better_supabase.stream_append(text, integer, text[]), better_supabase.stream_close(text),
  better_supabase.purge_streams(interval, integer) to service_role;
grant execute on function better_supabase.stream_read(text, integer, integer), better_supabase.stream_status(text),
  better_supabase.stream_cancel(text) to authenticated, service_role;
`
}

// secondStreams writes a second implementation of the streams block into
// a fresh folder: the embedded module with its functions renamed (impl_)
// and wrapped under the contract's names, as a custom-mode module.
func secondStreams(t *testing.T, closeBody string) string {
	t.Helper()
	var sql string
	for _, m := range blocks.List() {
		if m.Name == "streams" {
			sql = m.SQL
		}
	}
	if sql == "" {
		t.Fatal("no embedded streams module")
	}
	sql = streamFuncRe.ReplaceAllString(sql, "impl_$1")
	sql = strings.Replace(sql, "-- requires: supabase-base\n", "-- requires: supabase-base\n-- mode: custom\n", 1)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "streams.sql"), []byte(sql+wrappers(closeBody)), 0o644); err != nil {
		t.Fatal(err)
	}
	// A file without a module header is no module.
	if err := os.WriteFile(filepath.Join(dir, "notes.sql"), []byte("-- scratch\nselect 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func runMain(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, Stdio{
		In: strings.NewReader(""), Out: &out, Err: &errb,
		Env: func(k string) (string, bool) { return "", false },
	})
	return code, out.String(), errb.String()
}

// conform --blocks DIR runs the suites against the folder's modules, and
// says so; a broken implementation there fails where the embedded one
// would pass.
func TestConformAgainstAnotherImplementation(t *testing.T) {
	s := pgtest.Server(t)
	dsn := s.ConnString("postgres")
	good := secondStreams(t, "select better_supabase.impl_stream_close($1)")

	code, out, errOut := runMain(t, "blocks", "list", "--blocks", good, "--format", "json")
	if code != 0 {
		t.Fatalf("blocks list: exit %d\n%s%s", code, out, errOut)
	}
	var list struct {
		Source  string
		Modules []struct {
			Name, Mode, File string
			Functions        []string
		}
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range list.Modules {
		names = append(names, m.Name+":"+m.Mode)
		if m.Name == "streams" && !strings.Contains(strings.Join(m.Functions, ","), "better_supabase.impl_stream_open") {
			t.Errorf("streams functions %v, want the renamed ones too", m.Functions)
		}
	}
	if list.Source != good || strings.Join(names, ",") != "supabase-base:managed,access:custom,streams:custom" {
		t.Errorf("blocks list --blocks: source %q, modules %v", list.Source, names)
	}

	code, out, errOut = runMain(t, "conform", "--dsn", dsn, "--blocks", good, "--suite", "streams", "--format", "json")
	if code != 0 {
		t.Fatalf("conform against the second implementation: exit %d\n%s%s", code, out, errOut)
	}
	var rep struct {
		Store   string
		Summary struct{ Total, Passed int }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Store != "pg (dsn, blocks from "+good+")" || rep.Summary.Total == 0 || rep.Summary.Passed != rep.Summary.Total {
		t.Errorf("report: store %q, %d of %d passed", rep.Store, rep.Summary.Passed, rep.Summary.Total)
	}

	// The same folder with a stream_close that never closes.
	bad := secondStreams(t, "select true")
	code, out, _ = runMain(t, "conform", "--dsn", dsn, "--blocks", bad, "--suite", "streams", "--run", "streams/close-", "--format", "json")
	var broken struct{ Summary struct{ Total, Failed int } }
	if err := json.Unmarshal([]byte(out), &broken); err != nil || code != 1 || broken.Summary.Failed == 0 {
		t.Errorf("conform against a broken implementation: exit %d, %+v, want 1 with failed cases (%v)\n%s", code, broken.Summary, err, out)
	}

	// blocks sql prints the folder's modules.
	code, out, _ = runMain(t, "blocks", "sql", "--blocks", good, "streams")
	if code != 0 || !strings.Contains(out, "impl_stream_append") || !strings.Contains(out, "-- Modules from "+good) {
		t.Errorf("blocks sql --blocks: exit %d\n%.300s", code, out)
	}
}

// blocks install --blocks DIR installs the folder's modules; bsadapter.json
// may name the folder instead.
func TestBlocksInstallFromAFolder(t *testing.T) {
	s, db := pgtest.EmptyDB(t)
	good := secondStreams(t, "select better_supabase.impl_stream_close($1)")
	adapter := t.TempDir()
	rel, err := filepath.Rel(adapter, good)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(adapter, "bsadapter.json"), []byte(`{"name": "x", "blocks": "`+filepath.ToSlash(rel)+`"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(adapter)
	code, out, errOut := runMain(t, "blocks", "install", "--dsn", s.ConnString(db))
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if out != "supabase-base 1: installed\naccess 3: installed\nstreams 1: installed\n" || !strings.Contains(errOut, "from "+good) {
		t.Errorf("install printed:\n%s%s", out, errOut)
	}
	conn := pgtest.Conn(t, s, db)
	var impl bool
	var mode string
	if err := conn.QueryRow(t.Context(), `select to_regproc('better_supabase.impl_stream_open') is not null,
		(select mode from better_supabase.modules where name = 'streams')`).Scan(&impl, &mode); err != nil {
		t.Fatal(err)
	}
	if !impl || mode != "custom" {
		t.Errorf("after install: impl_stream_open there %v, streams mode %q; want true, custom", impl, mode)
	}

	// A folder without modules is a usage error naming it.
	empty := t.TempDir()
	code, _, errOut = runMain(t, "blocks", "install", "--dsn", s.ConnString(db), "--blocks", empty)
	if code != 2 || !strings.Contains(errOut, empty) || !strings.Contains(errOut, "@bs-module") {
		t.Errorf("an empty folder: exit %d\n%s", code, errOut)
	}
}
