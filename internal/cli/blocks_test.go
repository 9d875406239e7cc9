package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/internal/pgserver/pgtest"
)

func runBlocks(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(append([]string{"blocks"}, args...), Stdio{
		In: strings.NewReader(""), Out: &out, Err: &errb,
		Env: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
	})
	return code, out.String(), errb.String()
}

// blocks install against a real server: fresh, again, as JSON, and a
// module that fails.
func TestBlocksInstallCommand(t *testing.T) {
	// It installs the knowledge and memory modules too, which need pgvector.
	pgtest.NeedVector(t)
	s, db := pgtest.EmptyDB(t)
	dsn := s.ConnString(db)

	code, out, errOut := runBlocks(t, nil, "install", "--dsn", dsn, "streams")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if out != "supabase-base 1: installed\nstreams 1: installed\n" {
		t.Errorf("first install printed:\n%s", out)
	}
	if !strings.Contains(errOut, "installed into database "+db) {
		t.Errorf("stderr: %s", errOut)
	}

	// BSADAPTER_DSN works as well as --dsn; what is there already is said so.
	code, out, errOut = runBlocks(t, map[string]string{"BSADAPTER_DSN": dsn}, "install")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	want := "supabase-base 1: already installed\naccess 3: installed\nai-cache 1: installed\nstreams 1: already installed\nai-chat 2: installed\nai-files 1: installed\nchat-sdk-state 1: installed\nvault 1: installed\ncredentials 1: installed\njobs 1: installed\nvector-search 1: installed\nknowledge 1: installed\nmemory 2: installed\npg-net 1: installed\nworkflows 1: installed\nworkflow-builder 1: installed\nworkflow-sdk-world 1: installed\n"
	if out != want {
		t.Errorf("second install printed:\n%s\nwant:\n%s", out, want)
	}

	code, out, errOut = runBlocks(t, nil, "install", "--dsn", dsn, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	var doc struct {
		SchemaVersion int    `json:"schemaVersion"`
		Database      string `json:"database"`
		Modules       []struct {
			Name, Version, Action string
		} `json:"modules"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if doc.SchemaVersion != 1 || doc.Database != db || len(doc.Modules) != len(blocks.List()) {
		t.Errorf("JSON: %+v", doc)
	}
	for _, m := range doc.Modules {
		if m.Action != "already" {
			t.Errorf("third install: %s %s", m.Name, m.Action)
		}
	}
	if errOut != "" {
		t.Errorf("JSON run wrote on stderr: %s", errOut)
	}
}

func TestBlocksInstallCommandFailure(t *testing.T) {
	s, db := pgtest.EmptyDB(t)
	conn := pgtest.Conn(t, s, db)
	if _, err := conn.Exec(context.Background(), "create schema better_supabase; create table better_supabase.workflow_runs (id integer)"); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runBlocks(t, nil, "install", "--dsn", s.ConnString(db))
	if code != ExitUsage {
		t.Errorf("exit %d, want %d", code, ExitUsage)
	}
	if !strings.Contains(out, "ai-chat 2: installed") || strings.Contains(out, "workflows") {
		t.Errorf("stdout:\n%s", out)
	}
	if !strings.Contains(errOut, "bsadapter: blocks: install workflows: ") || !strings.Contains(errOut, "hint: nothing of the failed module was kept") {
		t.Errorf("stderr:\n%s", errOut)
	}
}
