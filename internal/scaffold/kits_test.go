package scaffold_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/internal/scaffold"
	"github.com/bsadapter/bsadapter/internal/testenv"
)

// The generated kits test runs better-supabase's testStreamStore when
// better-supabase is installed, fails when the kit fails, and without
// better-supabase (npm does not install the peer) reports the kit as
// skipped with the reason instead of failing 'npm test'.
func TestGeneratedKitsTest(t *testing.T) {
	tsx := testenv.NodeBin(t, "tsx")
	dir := scaffoldInto(t, scaffold.Options{Name: "acme", SDKs: []string{"@acme/sdk"}, Contracts: []string{"streams"}})
	run := func(env ...string) (string, error) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, tsx, "--test", "test/kits.test.ts")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	out, err := run()
	if err != nil || !strings.Contains(out, "# skipped 1") || !strings.Contains(out, "better-supabase is not installed") {
		t.Fatalf("without better-supabase: want the kit skipped with the reason, got %v\n%s", err, out)
	}

	// A stand-in better-supabase whose kit drives the generated store.
	pkg := filepath.Join(dir, "node_modules", "better-supabase")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(pkg, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("package.json", `{"name": "better-supabase", "type": "module", "exports": {"./testing": "./testing.js"}}`)
	write("testing.js", `export async function testStreamStore(make) {
  const store = make();
  if ((await store.open("s1")) !== true) throw new Error("first open must create the stream");
  if ((await store.open("s1")) !== false) throw new Error("second open must not");
  if (process.env.KIT_FAILS) throw new Error("the kit found a problem");
}
`)
	if out, err := run(); err != nil || !strings.Contains(out, "# pass 1") || !strings.Contains(out, "# skipped 0") {
		t.Errorf("with better-supabase: want the kit run and passing, got %v\n%s", err, out)
	}
	if out, err := run("KIT_FAILS=1"); err == nil || !strings.Contains(out, "the kit found a problem") {
		t.Errorf("a failing kit: want the test to fail, got %v\n%s", err, out)
	}

	// better-supabase present but broken is an error, not a skip.
	write("testing.js", `import "./not-there.js";`+"\n")
	if out, err := run(); err == nil || strings.Contains(out, "# skipped 1") {
		t.Errorf("a broken better-supabase: want a failure, got %v\n%s", err, out)
	}
}
