package scaffold_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/bsadapter/bsadapter/internal/cli"
	"github.com/bsadapter/bsadapter/internal/scaffold"
	"github.com/bsadapter/bsadapter/templates"
)

// TestUpgradeCommand runs 'bsadapter upgrade' (in process, so that a
// registered older template tree stands in for a release) on an adapter
// of that older version with a conflicting edit: --dry-run prints the
// diff and writes nothing; the upgrade writes the markers, lists the file
// and exits 1.
func TestUpgradeCommand(t *testing.T) {
	prev := fstest.MapFS{}
	files, err := templates.Files()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, _ := fs.ReadFile(templates.FS, f)
		if f == "adapter/src/chat.ts.tmpl" {
			b = append([]byte("// An older first line.\n"), b[bytes.IndexByte(b, '\n')+1:]...)
		}
		prev[f] = &fstest.MapFile{Data: b}
	}
	id, err := templates.Register(prev)
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	dir := filepath.Join(work, "acme")
	plan, err := scaffold.RenderVersion(&scaffold.Options{Name: "acme", SDKs: []string{"acme-sdk"}, Contracts: []string{"chat"}, Placement: scaffold.PlacementPackage, Dir: dir}, prev)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := scaffold.Write(plan, false); err != nil {
		t.Fatal(err)
	}
	chat := filepath.Join(dir, "src", "chat.ts")
	b, _ := os.ReadFile(chat)
	edited := append([]byte("// Mine.\n"), b[bytes.IndexByte(b, '\n')+1:]...)
	os.WriteFile(chat, edited, 0o644)

	run := func(args ...string) (int, string, string) {
		t.Chdir(dir)
		var stdout, stderr bytes.Buffer
		code := cli.Main(args, cli.Stdio{In: strings.NewReader(""), Out: &stdout, Err: &stderr, Env: func(string) (string, bool) { return "", false }})
		return code, stdout.String(), stderr.String()
	}
	code, out, errOut := run("upgrade", "--dry-run")
	for _, want := range []string{"would change adapter \"acme\" in . (templates " + id + " -> " + templates.CurrentID() + ")", "  C src/chat.ts (conflicts with your edits)", "+1 <<<<<<< yours (src/chat.ts)", "+3 ||||||| generated (template " + id + ")", "dry run: nothing was written"} {
		if !strings.Contains(out, want) {
			t.Errorf("upgrade --dry-run lacks %q:\n%s", want, out)
		}
	}
	if code != 1 || !strings.Contains(errOut, "1 file(s) would have conflicts: src/chat.ts") {
		t.Errorf("upgrade --dry-run: exit %d, stderr %s", code, errOut)
	}
	if b, _ := os.ReadFile(chat); !bytes.Equal(b, edited) {
		t.Fatal("--dry-run wrote chat.ts")
	}
	code, out, errOut = run("upgrade")
	if code != 1 || !strings.Contains(out, "changed adapter") || !strings.Contains(errOut, "written with markers: src/chat.ts") {
		t.Errorf("upgrade: exit %d\n%s\n%s", code, out, errOut)
	}
	if b, _ := os.ReadFile(chat); !bytes.Contains(b, []byte("<<<<<<< yours (src/chat.ts)\n// Mine.\n||||||| generated (template "+id+")\n// An older first line.\n=======\n")) {
		t.Errorf("chat.ts after upgrade:\n%s", b)
	}
	if code, out, _ = run("upgrade"); code != 0 || !strings.Contains(out, "is up to date") {
		t.Errorf("second upgrade: exit %d\n%s", code, out)
	}
}
