//go:build linux

package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// postgres.installTimeout in bsadapter.json bounds the install when
// --pg-install-timeout is left out: a module that never ends stops at the
// file's limit, and the error says which wait ran out, how long it was,
// and names both the key and the flag.
func TestConformInstallTimeoutFromConfig(t *testing.T) {
	needLocalPG(t)
	blocksDir := t.TempDir()
	file := filepath.Join(blocksDir, "sleepy.sql")
	if err := os.WriteFile(file, []byte("-- bsadapter block: sleepy\n-- version: 1\n-- requires: supabase-base\nselect pg_sleep(3600);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	adapter := t.TempDir()
	if err := os.WriteFile(filepath.Join(adapter, "bsadapter.json"), []byte(`{"name": "x", "postgres": {"installTimeout": "15s"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(adapter)
	before := ourRunFolders()
	code, out, errOut := runBounded(t, 3*time.Minute, "conform", "--pg", "local", "--blocks", blocksDir, "--suite", "streams")
	if code != ExitUsage {
		t.Fatalf("exit %d, want %d\n%s%s", code, ExitUsage, out, errOut)
	}
	for _, want := range []string{
		"did not finish within 15s, the time limit for preparing a template",
		"raise --pg-install-timeout or postgres.installTimeout in bsadapter.json (it was 15s)",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if after := ourRunFolders(); !slices.Equal(after, before) {
		t.Errorf("run folders before %v, after %v", before, after)
	}
}

// A wrong value in the postgres section stops conform before any server
// starts, naming the file, the key and an example of a right value.
func TestConformBadWaitInConfig(t *testing.T) {
	adapter := t.TempDir()
	p := filepath.Join(adapter, "bsadapter.json")
	if err := os.WriteFile(p, []byte(`{"name": "x", "postgres": {"startTimeout": "two minutes"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	blocksDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(blocksDir, "tiny.sql"), []byte("-- bsadapter block: tiny\n-- version: 1\n-- requires: supabase-base\nselect 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(adapter)
	before := ourRunFolders()
	code, out, errOut := runBounded(t, 3*time.Minute, "conform", "--pg", "local", "--blocks", blocksDir, "--suite", "streams")
	if code != ExitUsage || !strings.Contains(errOut, p+`: "postgres.startTimeout" must be a positive duration in a string, like "90s" or "2m", not "two minutes"`) {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
	if after := ourRunFolders(); !slices.Equal(after, before) {
		t.Errorf("a server was started: run folders before %v, after %v", before, after)
	}
}
