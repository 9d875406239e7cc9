package blocks_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/blocks"
)

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A better-supabase checkout's schema folder: module headers are
// recognised, other files left out, and the modules load in file order
// after the embedded base and access stand-in.
func TestLoadDirUpstreamHeaders(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"010_extensions.sql":                   "create extension if not exists pgcrypto;\n",
		"900_better_supabase_42_workflows.sql": "-- better-supabase module: workflows (0.5.1)\n-- @bs-module workflows@1 managed\ncreate or replace function \"better_supabase\".\"workflow_run_get\"(run text) returns jsonb language sql as $$ select null::jsonb $$;\n",
		"900_better_supabase_40_streams.sql":   "-- @bs-module streams@1 managed\ncreate or replace function \"better_supabase\".\"stream_open\"(stream_id text) returns boolean language sql as $$ select true $$;\n",
		"900_better_supabase_47_ai_chat.sql":   "-- @bs-module ai-chat@2 custom\n",
	})
	set, err := blocks.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if set.IsEmbedded() || !strings.HasSuffix(set.Source(), filepath.Base(dir)) {
		t.Errorf("source %q", set.Source())
	}
	var got []string
	for _, m := range set.List() {
		got = append(got, m.Name+"@"+m.Version+" "+m.Mode+" <"+strings.Join(m.Requires, ",")+">")
	}
	want := []string{
		"supabase-base@1 managed <>",
		"access@3 custom <supabase-base>",
		"streams@1 managed <supabase-base,access>",
		"workflows@1 managed <supabase-base,access,streams>",
		"ai-chat@2 custom <supabase-base,access,workflows>",
	}
	if !slices.Equal(got, want) {
		t.Errorf("modules\n got %q\nwant %q", got, want)
	}
	mods, err := set.Resolve("streams")
	if err != nil || len(mods) != 3 || mods[2].Functions[0] != "better_supabase.stream_open" {
		t.Errorf("Resolve(streams) = %v, %v", mods, err)
	}
	if _, err := set.Resolve("nope"); err == nil || !strings.Contains(err.Error(), "ai-chat") {
		t.Errorf("an unknown module: %v, want the folder's modules named", err)
	}
	if set.Hash() == blocks.Embedded().Hash() {
		t.Error("the folder's set hashes as the embedded one")
	}
}

func TestLoadDirErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"no module", map[string]string{"a.sql": "select 1;\n"}, "has no module"},
		{"twice", map[string]string{"a.sql": "-- @bs-module streams@1 managed\n", "b.sql": "-- bsadapter block: streams\n-- version: 1\n"}, "both define module streams"},
		{"version", map[string]string{"a.sql": "-- bsadapter block: x\n-- version: one\n"}, `version "one"`},
		{"mode", map[string]string{"a.sql": "-- bsadapter block: x\n-- version: 1\n-- mode: mine\n"}, `mode "mine"`},
		{"requires", map[string]string{"a.sql": "-- bsadapter block: x\n-- version: 1\n-- requires: y\n"}, "requires y"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := blocks.LoadDir(writeFiles(t, c.files))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want it to say %q", err, c.want)
			}
		})
	}
	if _, err := blocks.LoadDir(filepath.Join(t.TempDir(), "missing")); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("a missing folder: %v", err)
	}
}
