package scaffold_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform/suites"
	"github.com/bsadapter/bsadapter/internal/conform/suites/registry"
	"github.com/bsadapter/bsadapter/internal/conform/suites/streams"
	"github.com/bsadapter/bsadapter/internal/scaffold"
	"github.com/bsadapter/bsadapter/internal/testenv"
)

// TestEndToEnd scaffolds each preset and placement with the real binary,
// installs the generated package with npm (better-supabase is not on npm,
// so peers are left out), type-checks it, runs its own converter tests,
// and then runs the real 'bsadapter check-fixtures' and 'bsadapter
// conform --store=bridge' against it. One npm install is shared by all
// the adapters: their devDependencies are the same.
func TestEndToEnd(t *testing.T) {
	h := scaffold.NewE2E(t, "the end-to-end run")
	h.Timeout = 5 * time.Minute
	corpus := filepath.Join(testenv.Corpus(t), "langchain")
	work, bin, npm := h.Work, h.Bin, h.Npm

	// The adapters to check: folder, the 'new' arguments, run from where.
	lc := filepath.Join(work, "langchain")
	h.Run(t, work, bin, "new", "langchain")
	h.Install(t, lc)
	modules := filepath.Join(lc, "node_modules")

	// The generic adapter implements every contract: each interface's
	// memory implementation must pass its whole suite over the bridge. It
	// has an install of its own: the world contract adds @workflow/world,
	// whose types the memory World is checked against, to its
	// devDependencies.
	generic := filepath.Join(work, "acme")
	h.Run(t, work, bin, "new", "acme", "--sdk", "@acme/sdk", "--contracts", "chat,streams,workflows,chat-state,credentials,engine,builder,world,embedder,ai-task-runner", "--storage")
	h.Install(t, generic)
	if _, err := os.Stat(filepath.Join(generic, "node_modules", "@workflow", "world", "package.json")); err != nil {
		t.Fatalf("npm install of an adapter with the world contract did not install @workflow/world: %v", err)
	}

	checkout := filepath.Join(work, "checkout")
	pkgDir := filepath.Join(checkout, "packages", "better-supabase")
	os.MkdirAll(pkgDir, 0o755)
	os.WriteFile(filepath.Join(pkgDir, "package.json"), []byte("{\n  \"name\": \"better-supabase\",\n  \"type\": \"module\",\n  \"exports\": {\n    \".\": \"./dist/index.js\"\n  }\n}\n"), 0o644)
	if err := os.Symlink(modules, filepath.Join(checkout, "node_modules")); err != nil {
		t.Fatal(err)
	}
	// The subpath implements every contract too: its bridge's method
	// groups sit in tests/langchain/bridge/.
	h.Run(t, checkout, bin, "new", "langchain", "--contracts", "chat,streams,workflows,chat-state,credentials,engine,builder,world,embedder,ai-task-runner")
	subpath := filepath.Join(pkgDir, "tests", "langchain")

	defaults := []string{"streams", "registry"}
	every := []string{"streams", "registry", "chat-state", "credentials", "engine", "graph-compiler", "builder", "world", "embedder", "ai-task-runner"}
	for _, c := range []struct {
		name, dir   string
		pkg, corpus bool
		suites      []string
	}{
		{"package-langchain", lc, true, true, defaults},
		{"package-generic", generic, true, false, every},
		{"subpath-langchain", subpath, false, true, every},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.pkg {
				// Everything type-checks and every test passes without
				// better-supabase installed (npm does not install the peer);
				// the kits report themselves skipped.
				h.TypeCheck(t, c.dir)
				// The same code compiles under the strictest settings in
				// common use: inside a better-supabase checkout the
				// checkout's tsconfig applies, not the generated one.
				h.TypeCheckStrict(t, c.dir)
				tests, _ := filepath.Glob(filepath.Join(c.dir, "test", "*.test.ts"))
				if len(tests) < 4 {
					t.Fatalf("tests: %v", tests)
				}
				args := []string{"exec", "--no", "--", "tsx", "--test"}
				for _, f := range tests {
					args = append(args, filepath.Join("test", filepath.Base(f)))
				}
				out := h.Run(t, c.dir, npm, args...)
				if !bytes.Contains(out, []byte("# fail 0")) || !bytes.Contains(out, []byte("better-supabase is not installed")) {
					t.Errorf("npm test output:\n%s", out)
				}
				// npm test itself runs the suites that apply over the bridge
				// (test/conform.test.ts), and passes.
				out = h.Run(t, c.dir, npm, "test")
				// Passed, not skipped: a skip adds " # SKIP reason" to the line.
				ran := regexp.MustCompile(`(?m)^ok \d+ - the bridge passes every case of ` + regexp.QuoteMeta(strings.Join(c.suites, ", ")) + `$`)
				if !bytes.Contains(out, []byte("# fail 0")) || !ran.Match(out) {
					t.Errorf("npm test does not show %s:\n%s", ran, out)
				}
				// Without bsadapter (and outside CI) that test is skipped,
				// saying why; under CI=true it fails.
				// PATH holds node only, whatever else the machine has.
				tools := t.TempDir()
				for _, tool := range []string{testenv.Node(t)} {
					if err := os.Symlink(tool, filepath.Join(tools, filepath.Base(tool))); err != nil {
						t.Fatal(err)
					}
				}
				bare := []string{"PATH=" + tools, "HOME=" + os.Getenv("HOME"), "NO_COLOR=1", "npm_config_update_notifier=false"}
				tsx := filepath.Join(c.dir, "node_modules", ".bin", "tsx")
				out = h.RunEnv(t, bare, c.dir, tsx, "--test", "test/conform.test.ts")
				if !bytes.Contains(out, []byte("# SKIP bsadapter is not installed: put it on PATH or set BSADAPTER")) || !bytes.Contains(out, []byte("# fail 0")) {
					t.Errorf("conform.test.ts without bsadapter:\n%s", out)
				}
				ci := exec.Command(tsx, "--test", "test/conform.test.ts")
				ci.Dir, ci.Env = c.dir, append(bare, "CI=true")
				if out, err := ci.CombinedOutput(); err == nil || !bytes.Contains(out, []byte("under CI the conformance suites must run")) {
					t.Errorf("conform.test.ts without bsadapter under CI=true: %v\n%s", err, out)
				}
			}
			if !c.pkg {
				// The generated conformance test runs in the checkout's
				// tests folder as well.
				out := h.Run(t, c.dir, filepath.Join(modules, ".bin", "tsx"), "--test", "conform.test.ts")
				if !bytes.Contains(out, []byte("# fail 0")) || !bytes.Contains(out, []byte("ok 1 - the bridge passes every case of "+strings.Join(c.suites, ", ")+"\n")) {
					t.Errorf("conform.test.ts in the checkout:\n%s", out)
				}
			}
			checkFixtures(t, h.Run(t, c.dir, bin, "check-fixtures", "--format", "json"), 1)
			if c.corpus {
				checkFixtures(t, h.Run(t, c.dir, bin, "check-fixtures", "--format", "json", corpus), 15)
			}
			if c.name == "package-langchain" {
				// Canonical messages from elsewhere keep every part field
				// through toSdk and fromSdk. --float64: a JavaScript bridge
				// reads every number as a float64, which is not the
				// converter's doing.
				for _, seed := range []string{"1", "2"} {
					checkGenerated(t, h.Run(t, c.dir, bin, "check-fixtures", "--format", "json", "--generate", "400", "--seed", seed, "--float64"), 400)
				}
			}
			checkConform(t, h.Run(t, c.dir, bin, "conform", "--store=bridge", "--format", "json"), c.suites)
		})
	}
}

func checkFixtures(t *testing.T, out []byte, atLeast int) {
	t.Helper()
	var r struct {
		SchemaVersion int
		Summary       struct{ Files, Messages, Passed, Failed, Warnings, FileErrors int }
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("check-fixtures --format json: %v\n%s", err, out)
	}
	// The native round trip is on: the SDK message toSdk gives back is
	// the fixture, and no message warns.
	s := r.Summary
	if r.SchemaVersion != 1 || s.Failed != 0 || s.Warnings != 0 || s.FileErrors != 0 || s.Passed != s.Messages || s.Files < atLeast || s.Messages < atLeast {
		t.Errorf("check-fixtures: %+v", r)
	}
}

// checkGenerated checks a --generate run of n messages: none fails, most
// are converted rather than refused (a refusal, the converter saying the
// SDK cannot hold a part, is only a warning), and the message's metadata
// comes back too, with only the converter's own (metadata.langchain) added.
func checkGenerated(t *testing.T, out []byte, n int) {
	t.Helper()
	var r struct {
		Generated struct{ Parts []string }
		Summary   struct{ Messages, Passed, Failed, FileErrors, Refused int }
		Results   []struct {
			Name, Status string
			Warnings     []struct{ Pointer, Op, After string }
		}
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("check-fixtures --generate --format json: %v\n%s", err, out)
	}
	s := r.Summary
	if s.Messages != n || s.Failed != 0 || s.FileErrors != 0 || s.Passed != n || len(r.Generated.Parts) < 6 {
		t.Errorf("check-fixtures --generate: %+v, parts %v", s, r.Generated.Parts)
	}
	// A generated run lists only what failed or warned; the refusals are
	// counted.
	converted := s.Messages - s.Refused
	for _, m := range r.Results {
		if m.Status == "failed" {
			t.Errorf("%s failed", m.Name)
		}
		for _, w := range m.Warnings {
			own := w.Op == "added" && (w.Pointer == "/metadata/langchain" || w.Pointer == "/metadata" && strings.HasPrefix(w.After, `{"langchain":`))
			if !own {
				t.Errorf("%s: the round trip changed %s (%s)", m.Name, w.Pointer, w.Op)
			}
		}
	}
	// LangChain keeps one tool result per tool message and none in an ai
	// message, and the protocol maps one message to one: the generated
	// calls paired with their results in one message, and tool messages
	// with several results, are refused (about seven in ten). What is
	// left must still be enough to mean something.
	if converted < n/4 {
		t.Errorf("check-fixtures --generate: only %d of %d messages were converted, not refused", converted, n)
	}
}

// Skips allowed only for what the bridge protocol cannot express: the
// generated stores have every optional capability of version 2, so only
// chat is left.
var protocolLimits = []string{"no chat methods"}

// interfaceSuites are the suites of interfaces a generated bridge may not
// offer: their cases are then skipped naming the capability they need.
var interfaceSuites = map[string]string{
	"chat-state": "capabilities.chatState", "credentials": "capabilities.credentials", "engine": "capabilities.workflowEngine",
	"graph-compiler": "capabilities.graphCompiler", "builder": "capabilities.builderRuntime",
	"world": "capabilities.world", "embedder": "capabilities.embedder", "ai-task-runner": "capabilities.aiTaskRunner",
}

// checkConform checks a whole conform run over a generated bridge: nothing
// failed, every case of each suite the adapter offers passed (no skip),
// and the other suites were skipped only for what they need.
func checkConform(t *testing.T, out []byte, offered []string) {
	t.Helper()
	var r struct {
		SchemaVersion int
		Summary       struct{ Total, Passed, Failed, Skipped int }
		Results       []struct{ ID, Suite, Outcome, Reason string }
		NotApplicable []struct{ ID, Suite string } `json:"notApplicable"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("conform --format json: %v\n%s", err, out)
	}
	// A case a run did not hold the store to checks a block rule the
	// generated store does not keep (the credentials block's audit events,
	// say): it counts as the suite's, and only a block rule's case may be
	// one.
	blockCase := map[string]bool{}
	for _, c := range suites.Cases() {
		blockCase[c.ID] = !c.Block.IsZero()
	}
	notHeld := map[string]int{}
	for _, n := range r.NotApplicable {
		notHeld[n.Suite]++
		if !blockCase[n.ID] {
			t.Errorf("%s was not applicable, but it checks no block rule", n.ID)
		}
	}
	if r.SchemaVersion != 2 || r.Summary.Failed != 0 || r.Summary.Passed == 0 {
		t.Errorf("conform summary: %+v", r.Summary)
	}
	passed := map[string]int{}
	for _, c := range r.Results {
		switch c.Outcome {
		case "passed":
			passed[c.Suite]++
		case "skipped":
			// The generated store is complete: it runs every streams and
			// registry case.
			if strings.HasPrefix(c.ID, "streams/") || strings.HasPrefix(c.ID, "registry/") {
				t.Errorf("%s skipped: %s", c.ID, c.Reason)
				continue
			}
			allowed := false
			for _, l := range protocolLimits {
				allowed = allowed || strings.Contains(c.Reason, l)
			}
			if want, ok := interfaceSuites[c.Suite]; ok {
				allowed = strings.Contains(c.Reason, want)
			}
			if slices.Contains(offered, c.Suite) {
				allowed = false
			}
			if !allowed {
				t.Errorf("%s skipped: %s", c.ID, c.Reason)
			}
		default:
			t.Errorf("%s: %s %s", c.ID, c.Outcome, c.Reason)
		}
	}
	want := map[string]int{}
	for _, c := range suites.Cases() {
		want[c.Suite]++
	}
	// Every case of streams, of registry and of each suite the adapter
	// offers passed.
	for _, suite := range append([]string{streams.Suite.Name, registry.Suite.Name}, offered...) {
		if passed[suite]+notHeld[suite] != want[suite] || passed[suite] == 0 {
			t.Errorf("%d %s cases passed and %d did not apply, want all %d", passed[suite], suite, notHeld[suite], want[suite])
		}
	}
}
