package scaffold_test

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/internal/scaffold"
	"github.com/bsadapter/bsadapter/internal/testenv"
)

// installStandIn copies testdata/better-supabase, the stand-in for
// better-supabase's public types and kits (written from upstream's record),
// into dir's node_modules, and returns where it went.
func installStandIn(t *testing.T, dir string) string {
	t.Helper()
	dst := filepath.Join(dir, "node_modules", "better-supabase")
	src := filepath.Join("testdata", "better-supabase")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// replaceIn replaces old, which must occur exactly once, in a generated file.
func replaceIn(t *testing.T, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), old); n != 1 {
		t.Fatalf("%s holds %q %d times, not once: the test's mutation no longer applies", path, old, n)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runTsx runs tsx from tools/node in dir.
func runTsx(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, testenv.NodeBin(t, "tsx"), args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// The generated kits test runs better-supabase's testStreamStore when
// better-supabase is installed, fails when the kit fails, and without
// better-supabase (npm does not install the peer) reports the kit as
// skipped with the reason instead of failing 'npm test'.
func TestGeneratedKitsTest(t *testing.T) {
	dir := scaffoldInto(t, scaffold.Options{Name: "acme", SDKs: []string{"@acme/sdk"}, Contracts: []string{"streams"}})

	out, err := runTsx(t, dir, "--test", "test/kits.test.ts")
	if err != nil || !strings.Contains(out, "# skipped 1") || !strings.Contains(out, "better-supabase is not installed") {
		t.Fatalf("without better-supabase: want the kit skipped with the reason, got %v\n%s", err, out)
	}

	pkg := installStandIn(t, dir)
	if out, err := runTsx(t, dir, "--test", "test/kits.test.ts"); err != nil || !strings.Contains(out, "# pass 1") || !strings.Contains(out, "# skipped 0") {
		t.Errorf("with better-supabase: want the kit run and passing, got %v\n%s", err, out)
	}

	// A store that throws where the interface answers an error value fails
	// the kit, which names the check.
	store := filepath.Join(dir, "src", "memory-stream-store.ts")
	orig, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	replaceIn(t, store, "if (s.closedAt !== undefined) return err(", "if (s.closedAt !== undefined) throw new Error(\"closed\"); void (")
	if out, err := runTsx(t, dir, "--test", "test/kits.test.ts"); err == nil || !strings.Contains(out, "failed 1 of 9 checks") || !strings.Contains(out, "a closed stream refuses appends") {
		t.Errorf("a store that throws: want the kit to fail naming the check, got %v\n%s", err, out)
	}
	if err := os.WriteFile(store, orig, 0o644); err != nil {
		t.Fatal(err)
	}

	// better-supabase present but broken is an error, not a skip.
	if err := os.WriteFile(filepath.Join(pkg, "testing.js"), []byte(`import "./not-there.js";`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := runTsx(t, dir, "--test", "test/kits.test.ts"); err == nil || strings.Contains(out, "# skipped 1") {
		t.Errorf("a broken better-supabase: want a failure, got %v\n%s", err, out)
	}
}

// An adapter with every contract passes, unchanged, the stand-ins of
// upstream's testStreamStore, testChatState, testCredentialProvider,
// testGraphCompiler, testBuilderStarter, testEmbedder and testAiTaskRunner,
// each called by the generated kits test as upstream declares it.
func TestKitStandInsPassUnchanged(t *testing.T) {
	dir := scaffoldInto(t, scaffold.Options{Name: "acme", SDKs: []string{"@acme/sdk"}, Contracts: scaffold.AllContracts()})
	installStandIn(t, dir)
	out, err := runTsx(t, dir, "--test", "test/kits.test.ts")
	if err != nil || !strings.Contains(out, "# pass 7") || !strings.Contains(out, "# fail 0") || !strings.Contains(out, "# skipped 0") {
		t.Fatalf("want the seven kits run and passing, got %v\n%s", err, out)
	}
	for _, kit := range []string{"testStreamStore", "testChatState", "testCredentialProvider", "testGraphCompiler", "testBuilderStarter", "testEmbedder", "testAiTaskRunner"} {
		if !regexp.MustCompile(`(?m)^ok \d+ - \w+ passes better-supabase's ` + kit + ` kit$`).MatchString(out) {
			t.Errorf("no passing test names %s:\n%s", kit, out)
		}
	}
}

// The graph kit's stand-in holds a compiler to apiVersion 1: the generated
// compileGraph without it fails that check, and only that one. The other
// builder kit still passes, so the failure is the compiler's.
func TestGraphKitWantsAPIVersion(t *testing.T) {
	dir := scaffoldInto(t, scaffold.Options{Name: "acme", SDKs: []string{"@acme/sdk"}, Contracts: []string{"workflows", "builder"}})
	installStandIn(t, dir)
	replaceIn(t, filepath.Join(dir, "src", "builder.ts"), "  { apiVersion: COMPILER.apiVersion },\n);\n\n/** GraphStepCall", "  {},\n);\n\n/** GraphStepCall")
	out, err := runTsx(t, dir, "--test", "test/kits.test.ts")
	if err == nil || !strings.Contains(out, "GraphCompiler failed 1 of 3 checks") || !strings.Contains(out, "apiVersion is 1: apiVersion is undefined") {
		t.Errorf("a compiler without apiVersion: want the graph kit to fail its apiVersion check, got %v\n%s", err, out)
	}
	if !regexp.MustCompile(`(?m)^not ok \d+ - compileGraph passes better-supabase's testGraphCompiler kit$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^ok \d+ - createBuilderStarter passes better-supabase's testBuilderStarter kit$`).MatchString(out) {
		t.Errorf("want the graph kit alone to fail:\n%s", out)
	}
}

// The embedder and runner kits' stand-ins run the generated MemoryEmbedder
// and createAiTaskRunner for real: an embedder whose vectors hold a NaN
// fails the embedder kit's vector check, and a runner that does not hand
// its signal on (so an aborted run still sends its prompt and resolves)
// fails the runner kit's abort check, each kit alone.
func TestEmbedderAndRunnerKits(t *testing.T) {
	dir := scaffoldInto(t, scaffold.Options{Name: "acme", SDKs: []string{"@acme/sdk"}, Contracts: []string{"embedder", "ai-task-runner"}})
	installStandIn(t, dir)
	embedderOK := regexp.MustCompile(`(?m)^ok \d+ - MemoryEmbedder passes better-supabase's testEmbedder kit$`)
	runnerOK := regexp.MustCompile(`(?m)^ok \d+ - createAiTaskRunner passes better-supabase's testAiTaskRunner kit$`)
	out, err := runTsx(t, dir, "--test", "test/kits.test.ts")
	if err != nil || !strings.Contains(out, "# pass 2") || !strings.Contains(out, "# skipped 0") || !embedderOK.MatchString(out) || !runnerOK.MatchString(out) {
		t.Fatalf("want both kits run and passing, got %v\n%s", err, out)
	}

	mutate := func(path string, edit func()) (string, error) {
		t.Helper()
		orig, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		edit()
		out, runErr := runTsx(t, dir, "--test", "test/kits.test.ts")
		if err := os.WriteFile(path, orig, 0o644); err != nil {
			t.Fatal(err)
		}
		return out, runErr
	}

	// Scaling by zero makes every number NaN or an infinity.
	embedder := filepath.Join(dir, "src", "memory-embedder.ts")
	out, err = mutate(embedder, func() {
		replaceIn(t, embedder, "return v.map((x) => x / norm);", "return v.map((x) => x / (norm - norm));")
	})
	if err == nil || !strings.Contains(out, "failed 1 of 4 checks") || !strings.Contains(out, "returns one finite vector per value, of one length: vector 0 holds") ||
		embedderOK.MatchString(out) || !runnerOK.MatchString(out) {
		t.Errorf("an embedder of NaNs: want the embedder kit alone to fail its vector check, got %v\n%s", err, out)
	}

	runner := filepath.Join(dir, "src", "memory-ai-task-runner.ts")
	out, err = mutate(runner, func() {
		replaceIn(t, runner, "    signal.throwIfAborted();\n    const written = await assistant({", "    const written = await assistant({")
		replaceIn(t, runner, "      prompt: task.prompt,\n      signal,\n", "      prompt: task.prompt,\n      signal: new AbortController().signal,\n")
	})
	if err == nil || !strings.Contains(out, "failed 1 of 3 checks") || !strings.Contains(out, "stops on an aborted signal: a run given an aborted signal resolved") ||
		runnerOK.MatchString(out) || !embedderOK.MatchString(out) {
		t.Errorf("a runner that drops its signal: want the runner kit alone to fail its abort check, got %v\n%s", err, out)
	}
}
