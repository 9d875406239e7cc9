package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/internal/pgserver/pgtest"
)

// blocks install on a server that lacks an extension a module needs: the
// module and the one requiring it are printed as left out, with why and
// how to get it; the rest installs; the command succeeds and says on
// stderr how many were left out.
func TestBlocksInstallLeavesOutAModuleWithoutItsExtension(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"needy.sql": "-- bsadapter block: needy\n-- version: 1\n-- requires: supabase-base\n-- needs-extension: bsadapter_no_such_extension\n" +
			"create table better_supabase.needy_items (id int);\n",
		"after.sql": "-- bsadapter block: after\n-- version: 1\n-- requires: needy\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, db := pgtest.EmptyDB(t)
	code, out, errOut := runBlocks(t, nil, "install", "--dsn", s.ConnString(db), "--blocks", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"supabase-base 1: installed\n",
		"needy 1: left out: the server lacks extension bsadapter_no_such_extension; to get it, use a server that offers the extension bsadapter_no_such_extension (--dsn",
		"after 1: left out: it requires module needy, which was left out\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "2 module(s) left out: the server lacks what they need") {
		t.Errorf("stderr: %s", errOut)
	}
	code, out, _ = runBlocks(t, nil, "install", "--dsn", s.ConnString(db), "--blocks", dir, "--format", "json")
	if code != 0 || !strings.Contains(out, `"action": "left out"`) || !strings.Contains(out, `"reason": "it requires module needy, which was left out"`) {
		t.Errorf("exit %d, JSON:\n%s", code, out)
	}
}
