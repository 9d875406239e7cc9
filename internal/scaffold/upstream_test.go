package scaffold_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/internal/scaffold"
	"github.com/bsadapter/bsadapter/internal/testenv"
)

// nodeTypes returns the folder of Node's type declarations that tools/node
// installs (@types/node): tools/node has TypeScript, and the generated code
// uses Node's types. No test fetches anything: scripts/test installs them
// with the other node packages.
func nodeTypes(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(testenv.NodeModules(t), "@types")
	if _, err := os.Stat(filepath.Join(dir, "node", "package.json")); err != nil {
		testenv.Missing(t, "@types/node is not installed in tools/node: run 'npm install --no-save --prefix tools/node' (scripts/test does it)")
	}
	return dir
}

var tscError = regexp.MustCompile(`(?m)^(\S+)\(\d+,\d+\): error TS\d+`)

// The generated code type-checks against declarations written from
// better-supabase's source (testdata/better-supabase, with the checks of
// testdata/upstream/upstream.check.ts): its StreamStore, CredentialProvider,
// results and DbError are upstream's both ways, a real AiChat fits its chat
// client, its workflow starter is a WorkflowStarter and its runs client
// is upstream's Workflows.runs for the calls it makes, its Embedder and
// AiTaskRunner are upstream's, and its kits test
// declares every kit as upstream does. A signature that drifts, however
// consistently the adapter drifts with it, fails, in the check file only.
func TestGeneratedTypesMatchUpstream(t *testing.T) {
	if testing.Short() && !testenv.InCI() {
		t.Skip("-short: the type check runs tsc seven times (never skipped under CI)")
	}
	tsc := testenv.NodeBin(t, "tsc")
	types := nodeTypes(t)
	check, err := os.ReadFile(filepath.Join("testdata", "upstream", "upstream.check.ts"))
	if err != nil {
		t.Fatal(err)
	}

	// adapter scaffolds an adapter with every contract, beside the
	// stand-in and the check file; nominal keeps upstream's AsyncResult a
	// class TypeScript compares by name (its #private line), else the
	// stand-in's AsyncResult is compared by its members.
	adapter := func(t *testing.T, nominal bool) string {
		dir := scaffoldInto(t, scaffold.Options{Name: "acme", SDKs: []string{"@acme/sdk"}, Contracts: scaffold.AllContracts()})
		pkg := installStandIn(t, dir)
		if !nominal {
			replaceIn(t, filepath.Join(pkg, "index.d.ts"), "  #private;\n", "")
		}
		if err := os.Symlink(types, filepath.Join(dir, "node_modules", "@types")); err != nil {
			t.Fatal(err)
		}
		// The memory World's types are @workflow/world's, which declares
		// them with zod's.
		for _, pkg := range []string{"@workflow", "zod"} {
			if err := os.Symlink(filepath.Join(testenv.NodeModules(t), pkg), filepath.Join(dir, "node_modules", pkg)); err != nil {
				t.Fatal(err)
			}
		}
		// The strictest settings in common use, as in TestEndToEnd:
		// exactOptionalPropertyTypes among them matters here, since
		// upstream's optional fields take no undefined.
		for name, data := range map[string][]byte{"tsconfig.upstream.json": []byte(scaffold.StrictTSConfig), "test/upstream.check.ts": check} {
			if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	typecheck := func(t *testing.T, dir string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, tsc, "--noEmit", "-p", "tsconfig.upstream.json")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	// failsInCheckOnly wants tsc to fail, with errors in the check file
	// alone (the adapter is consistent with itself) that mention want.
	failsInCheckOnly := func(t *testing.T, dir string, want ...string) {
		out, err := typecheck(t, dir)
		if err == nil {
			t.Fatalf("tsc passed; want it to fail in test/upstream.check.ts")
		}
		var files []string
		for _, m := range tscError.FindAllStringSubmatch(out, -1) {
			files = append(files, m[1])
		}
		if len(files) == 0 || slices.ContainsFunc(files, func(f string) bool { return f != "test/upstream.check.ts" }) {
			t.Errorf("want errors in test/upstream.check.ts only, got them in %v:\n%s", files, out)
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("tsc's errors do not mention %q:\n%s", w, out)
			}
		}
	}

	t.Run("as generated", func(t *testing.T) {
		t.Parallel()
		if out, err := typecheck(t, adapter(t, false)); err != nil {
			t.Errorf("tsc: %v\n%s", err, out)
		}
	})
	t.Run("nominal AsyncResult needs upstream's class", func(t *testing.T) {
		t.Parallel()
		// As generated, the adapter's own AsyncResult is not upstream's
		// class, which TypeScript compares by name: the stores fit at run
		// time and member by member, but not upstream's nominal type.
		failsInCheckOnly(t, adapter(t, true), "Property '#private' is missing")
	})
	t.Run("with better-supabase's AsyncResult", func(t *testing.T) {
		t.Parallel()
		// The one-line swap src/result.ts describes makes the adapter fit
		// upstream's declarations exactly.
		dir := adapter(t, true)
		swap := `export { AsyncResult, DbException, dbError, err, ok, toDbError } from "better-supabase";` + "\n"
		if err := os.WriteFile(filepath.Join(dir, "src", "result.ts"), []byte(swap), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := typecheck(t, dir); err != nil {
			t.Errorf("tsc: %v\n%s", err, out)
		}
	})
	t.Run("a method that answers a Promise", func(t *testing.T) {
		t.Parallel()
		// status answers a Promise in the adapter's StreamStore type, its
		// store and its bridge alike: only upstream's record can tell.
		dir := adapter(t, false)
		replaceIn(t, filepath.Join(dir, "src", "types.ts"), "status(id: string): AsyncResult<StreamStatus | undefined>;", "status(id: string): Promise<StreamStatus | undefined>;")
		replaceIn(t, filepath.Join(dir, "src", "memory-stream-store.ts"), "  status(id: string): AsyncResult<StreamStatus | undefined> {",
			"  status(id: string): Promise<StreamStatus | undefined> {\n    return this.statusNow(id).then((r) => (r.ok ? r.data : undefined));\n  }\n\n  private statusNow(id: string): AsyncResult<StreamStatus | undefined> {")
		replaceIn(t, filepath.Join(dir, "bsadapter.bridge.ts"), "await unwrap(streams.status(id))", "await streams.status(id)")
		failsInCheckOnly(t, dir, "The types returned by 'status(...)' are incompatible", "Promise<StreamStatus | undefined>")
	})
	t.Run("a runs client whose record answers a Promise", func(t *testing.T) {
		t.Parallel()
		// record answers a Promise in the adapter's WorkflowRuns, the
		// memory registry, the starter, the engine adapter and the bridge
		// alike, each caller awaiting it without orThrow: only upstream's
		// record can tell.
		dir := adapter(t, false)
		replaceIn(t, filepath.Join(dir, "src", "types.ts"), "record(run: WorkflowRunRecord<Time>): AsyncResult<string>;", "record(run: WorkflowRunRecord<Time>): Promise<string>;")
		replaceIn(t, filepath.Join(dir, "src", "memory-run-registry.ts"), "  record(run: RunRecord): AsyncResult<string> {",
			"  record(run: RunRecord): Promise<string> {\n    return this.recordNow(run).orThrow();\n  }\n\n  private recordNow(run: RunRecord): AsyncResult<string> {")
		replaceEachIn(t, filepath.Join(dir, "src", "workflows.ts"), "\n    .orThrow();", ";", 2)
		replaceIn(t, filepath.Join(dir, "src", "engine.ts"), "\n      .orThrow();", ";")
		replaceIn(t, filepath.Join(dir, "bsadapter.bridge.ts"), "await unwrap(registry.record(", "await (registry.record(")
		failsInCheckOnly(t, dir, "The types returned by 'record(...)' are incompatible", "'AsyncResult<string>' is missing the following properties from type 'Promise<string>'")
	})
	t.Run("a kit called with a factory", func(t *testing.T) {
		t.Parallel()
		// The kits test declares and calls testStreamStore with a factory,
		// as it once did; upstream's kit takes the store.
		dir := adapter(t, false)
		kits := filepath.Join(dir, "test", "kits.test.ts")
		replaceIn(t, kits, "testStreamStore: (store: StreamStore,", "testStreamStore: (make: () => StreamStore,")
		replaceIn(t, kits, "kits!.testStreamStore(new MemoryStreamStore())", "kits!.testStreamStore(() => new MemoryStreamStore())")
		failsInCheckOnly(t, dir, "Types of property 'testStreamStore' are incompatible")
	})
	t.Run("a runner kit given the adapter's task", func(t *testing.T) {
		t.Parallel()
		// The kits test declares testAiTaskRunner with the adapter's AiTask
		// and AiTaskRun, which hold only the fields the runner reads; the
		// call still compiles, but upstream's kit takes the task and the
		// run whole.
		dir := adapter(t, false)
		replaceIn(t, filepath.Join(dir, "test", "kits.test.ts"), "options: { readonly task: KitAiTask; readonly run: KitAiTaskRun }",
			"options: { readonly task: AiTask; readonly run: AiTaskRun }")
		failsInCheckOnly(t, dir, "Types of property 'testAiTaskRunner' are incompatible")
	})
}

// The generated chat flow, run against a fake of the ai-chat block's client
// shaped like upstream's AiChat (testdata/upstream/chat-turn.test.ts),
// stores the user's message and the answer under it with the native
// message and the run id, asking path for the message it just stored.
func TestChatFlowAgainstAFakeAiChat(t *testing.T) {
	dir := scaffoldInto(t, scaffold.Options{Name: "acme", SDKs: []string{"@acme/sdk"}, Contracts: []string{"chat"}})
	script, err := os.ReadFile(filepath.Join("testdata", "upstream", "chat-turn.test.ts"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "test", "chat-turn.test.ts"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runTsx(t, dir, "--test", "test/chat-turn.test.ts")
	if err != nil || !strings.Contains(out, "# pass 4") || !strings.Contains(out, "# fail 0") {
		t.Fatalf("want the four chat turn tests to pass, got %v\n%s", err, out)
	}

	// A flow that reads the chat's leaf rather than the message it stored
	// fails the fake's check.
	replaceIn(t, filepath.Join(dir, "src", "chat.ts"), "{ leafId: appended.messageId, native: true }", "{ native: true }")
	if out, err := runTsx(t, dir, "--test", "test/chat-turn.test.ts"); err == nil || !strings.Contains(out, "path did not ask for the message just stored") {
		t.Errorf("a flow without leafId: want the test to fail, got %v\n%s", err, out)
	}
}

// replaceEachIn replaces old, which must occur exactly n times, in a
// generated file.
func replaceEachIn(t *testing.T, path, old, new string, n int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(data), old); got != n {
		t.Fatalf("%s holds %q %d times, not %d: the test's mutation no longer applies", path, old, got, n)
	}
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(data), old, new)), 0o644); err != nil {
		t.Fatal(err)
	}
}
