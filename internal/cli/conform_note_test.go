package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Inside an adapter (a bsadapter.json that names a bridge), conform with
// the default store says first that it checks the blocks, not the
// adapter, and how to check the adapter. A store named on the command
// line, or a folder that is no adapter, gets no note.
func TestConformNotesWhatItChecksInAnAdapter(t *testing.T) {
	adapter := t.TempDir()
	if err := os.WriteFile(filepath.Join(adapter, "bsadapter.json"), []byte(`{"name":"toy","format":"toy-v1","bridge":{"command":["node","bridge.mjs"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	plain := t.TempDir()
	if err := os.WriteFile(filepath.Join(plain, "bsadapter.json"), []byte(`{"name":"toy","format":"toy-v1"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// Nothing listens on port 1: the run stops at once, after the note.
	dsn := "postgres://u@127.0.0.1:1/db?sslmode=disable&connect_timeout=5"
	note := "note: checking the embedded blocks (store pg, the default), not this adapter: " + filepath.Join(adapter, "bsadapter.json") +
		" names its bridge; run 'bsadapter conform --store=bridge' to check the adapter\n"
	for _, tc := range []struct {
		dir  string
		args []string
		note bool
	}{
		{adapter, []string{"conform", "--suite", "registry", "--dsn", dsn}, true},
		{adapter, []string{"conform", "--suite", "registry", "--dsn", dsn, "--store", "pg"}, false},
		{adapter, []string{"conform", "--suite", "registry", "--store", "memory"}, false},
		{adapter, []string{"conform", "--list"}, false},
		{plain, []string{"conform", "--suite", "registry", "--dsn", dsn}, false},
	} {
		t.Run(strings.Join(tc.args[1:], " "), func(t *testing.T) {
			t.Chdir(tc.dir)
			var out, errb bytes.Buffer
			Main(tc.args, Stdio{In: strings.NewReader(""), Out: &out, Err: &errb})
			got := errb.String()
			if tc.note && !strings.HasPrefix(got, note) {
				t.Errorf("stderr does not start with the note:\n%s", got)
			}
			if !tc.note && strings.Contains(got, "note:") {
				t.Errorf("a note where none belongs:\n%s", got)
			}
		})
	}
}
