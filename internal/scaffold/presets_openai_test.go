package scaffold_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/internal/testenv"
)

// presetCase is a converter preset checked end to end against its corpus
// folder, with a mutant of its converters that drops one field the corpus
// carries.
type presetCase struct {
	preset, corpus string
	// mutant replaces from with to in the generated src/converters.ts.
	from, to string
	// holds reports whether a corpus message holds the field the mutant
	// drops: exactly those messages must fail.
	holds func(msg map[string]any) bool
}

var sdkPresetCases = []presetCase{
	{
		preset: "openai-chat", corpus: "openai-chat",
		// The completion's annotations (url citations) are no longer kept.
		from: "    fields[k] = v;\n", to: "    if (k !== \"annotations\") fields[k] = v;\n",
		holds: func(m map[string]any) bool { _, ok := m["annotations"]; return ok },
	},
	{
		preset: "openai-responses", corpus: "openai-responses",
		// A text's annotations (url citations) are no longer kept.
		from: "const { text, ...more } = rest;\n      if (typeof text !== \"string\") fail(`${where}: a ${type} part",
		to:   "const { text, annotations: _a, ...more } = rest;\n      if (typeof text !== \"string\") fail(`${where}: a ${type} part",
		holds: func(m map[string]any) bool {
			parts, _ := m["content"].([]any)
			return slices.ContainsFunc(parts, func(p any) bool { _, ok := p.(map[string]any)["annotations"]; return ok })
		},
	},
	{
		preset: "anthropic", corpus: "anthropic",
		// A thinking block's signature is no longer kept.
		from: `return { type: "reasoning", text: thinking, ...pmOf(more) };`,
		to:   `return { type: "reasoning", text: thinking, ...pmOf(Object.fromEntries(Object.entries(more).filter(([k]) => k !== "signature"))) };`,
		holds: func(m map[string]any) bool {
			blocks, _ := m["content"].([]any)
			return slices.ContainsFunc(blocks, func(b any) bool {
				o, _ := b.(map[string]any)
				_, ok := o["signature"]
				return o["type"] == "thinking" && ok
			})
		},
	},
}

// TestSDKPresets scaffolds each SDK preset with its defaults, installs it
// with npm, and checks that it type-checks against the SDK's published
// types under the strictest settings, that npm test passes, that the
// converters take every message of the preset's corpus folder through the
// native round trip with no ignore rule, and that generated canonical
// messages keep their parts (refusals aside) on three seeds. A mutant that
// drops one field fails exactly the corpus messages that hold it.
func TestSDKPresets(t *testing.T) {
	if testing.Short() && !testenv.InCI() {
		t.Skip("-short: the preset run installs node packages (never skipped under CI)")
	}
	testenv.Node(t)
	npm, err := exec.LookPath("npm")
	if err != nil {
		testenv.Missing(t, "npm is not on PATH (install Node.js 20 or newer)")
	}
	corpus := testenv.Corpus(t)
	work := t.TempDir()
	bin := filepath.Join(work, "bsadapter")
	build := exec.Command("go", "build", "-o", bin, "github.com/bsadapter/bsadapter/cmd/bsadapter")
	build.Dir = testenv.RepoRoot(t)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	env := append(os.Environ(), "NO_COLOR=1", "npm_config_update_notifier=false", "npm_config_fund=false", "npm_config_audit=false", "BSADAPTER="+bin)
	run := func(t *testing.T, dir string, ok func(error) bool, name string, args ...string) []byte {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir, cmd.Env = dir, env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); !ok(err) {
			t.Fatalf("%s %s (in %s): %v\nstdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), dir, err, stdout.Bytes(), stderr.Bytes())
		}
		return stdout.Bytes()
	}
	succeeds := func(err error) bool { return err == nil }
	// check-fixtures exits 1 when a message fails: the mutants' runs.
	checked := func(err error) bool {
		ee, isExit := err.(*exec.ExitError)
		return err == nil || isExit && ee.ExitCode() == 1
	}

	// One npm install per preset (each pins its own SDK), made before the
	// subtests, which share it.
	dirs := map[string]string{}
	for _, c := range sdkPresetCases {
		run(t, work, succeeds, bin, "new", c.preset, "--preset", c.preset, "--yes")
		dir := filepath.Join(work, c.preset)
		run(t, dir, succeeds, npm, "install", "--legacy-peer-deps", "--no-audit", "--no-fund", "--prefer-offline")
		dirs[c.preset] = dir
	}

	for _, c := range sdkPresetCases {
		dir := dirs[c.preset]
		folder := filepath.Join(corpus, c.corpus)
		t.Run(c.preset, func(t *testing.T) {
			pkg, err := os.ReadFile(filepath.Join(dir, "package.json"))
			if err != nil {
				t.Fatal(err)
			}
			var manifest struct{ DevDependencies, PeerDependencies map[string]string }
			if err := json.Unmarshal(pkg, &manifest); err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"openai-chat": "openai", "openai-responses": "openai", "anthropic": "@anthropic-ai/sdk"}[c.preset]
			version := map[string]string{"openai": "7.60.0", "@anthropic-ai/sdk": "1.17.0"}[want]
			if manifest.DevDependencies[want] != version || manifest.PeerDependencies[want] != "*" {
				t.Errorf("package.json: %s should be a peer and a devDependency pinned at %s: %s", want, version, pkg)
			}
			// The converters import the SDK's own types: the type check is
			// against what npm installed, under the strictest settings.
			strict := `{"extends": "./tsconfig.json", "compilerOptions": {"exactOptionalPropertyTypes": true, "noImplicitOverride": true,
  "noPropertyAccessFromIndexSignature": true, "verbatimModuleSyntax": true, "isolatedModules": true, "noImplicitReturns": true,
  "noFallthroughCasesInSwitch": true, "noUnusedLocals": true, "noUnusedParameters": true}}`
			if err := os.WriteFile(filepath.Join(dir, "tsconfig.strict.json"), []byte(strict), 0o644); err != nil {
				t.Fatal(err)
			}
			run(t, dir, succeeds, npm, "run", "typecheck")
			run(t, dir, succeeds, npm, "exec", "--no", "--", "tsc", "--noEmit", "-p", "tsconfig.strict.json")
			if out := run(t, dir, succeeds, npm, "test"); !bytes.Contains(out, []byte("# fail 0")) {
				t.Errorf("npm test:\n%s", out)
			}
			cfg, err := os.ReadFile(filepath.Join(dir, "bsadapter.json"))
			if err != nil || bytes.Contains(cfg, []byte("ignore")) {
				t.Errorf("bsadapter.json must carry no ignore rule (%v):\n%s", err, cfg)
			}
			// The preset's own fixtures (a conversation among them, through
			// the history methods) and the whole corpus folder.
			checkFixtures(t, run(t, dir, succeeds, bin, "check-fixtures", "--format", "json"), 3)
			out := run(t, dir, succeeds, bin, "check-fixtures", "--format", "json", folder)
			checkFixtures(t, out, countFiles(t, folder))
			for _, seed := range []string{"1", "2", "3"} {
				checkPresetGenerated(t, run(t, dir, succeeds, bin, "check-fixtures", "--format", "json", "--generate", "1000", "--seed", seed, "--float64"), 1000)
			}

			// The mutant fails exactly the messages that hold its field.
			src := filepath.Join(dir, "src", "converters.ts")
			orig, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Count(orig, []byte(c.from)) != 1 {
				t.Fatalf("the mutant's line %q is not in %s exactly once", c.from, src)
			}
			t.Cleanup(func() { os.WriteFile(src, orig, 0o644) })
			if err := os.WriteFile(src, bytes.Replace(orig, []byte(c.from), []byte(c.to), 1), 0o644); err != nil {
				t.Fatal(err)
			}
			failed := failedMessages(t, run(t, dir, checked, bin, "check-fixtures", "--format", "json", folder))
			expected := corpusMessagesThat(t, folder, c.holds)
			if len(expected) == 0 {
				t.Fatalf("no message of %s holds the mutant's field", folder)
			}
			if !slices.Equal(failed, expected) {
				t.Errorf("the mutant failed %v; the messages holding the field are %v", failed, expected)
			}
		})
	}

	// The LangChain preset's two shapes from outside the corpus: an
	// AIMessageChunk whose reasoning summary is only in
	// response_metadata.output, and a nameless continuation chunk whose
	// tool call has id null. Both failed before (a hollow conversion; an
	// id "" invented on the way back).
	t.Run("langchain-outside-shapes", func(t *testing.T) {
		run(t, work, succeeds, bin, "new", "langchain", "--yes")
		lc := filepath.Join(work, "langchain")
		// The bridge needs tsx only: the openai-chat install has it.
		if err := os.Symlink(filepath.Join(dirs["openai-chat"], "node_modules"), filepath.Join(lc, "node_modules")); err != nil {
			t.Fatal(err)
		}
		out := run(t, lc, succeeds, bin, "check-fixtures", "--format", "json",
			filepath.Join("fixtures", "07-ai-chunk-reasoning-in-response-output.json"), filepath.Join("fixtures", "08-ai-chunk-nameless-continuation.json"))
		checkFixtures(t, out, 2)
		var r struct {
			Coverage []struct {
				Type  string
				Count int
			}
		}
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for _, c := range r.Coverage {
			got[c.Type] = c.Count
		}
		if got["reasoning"] != 2 || got["tool-call"] != 1 {
			t.Errorf("coverage %v: want the 2 reasoning summaries and the 1 tool call as parts", got)
		}
	})
}

// checkPresetGenerated checks a --generate run through an SDK preset: no
// message fails, and a message that was converted (not refused) changed
// nothing but its id (these SDKs' request messages have none: the stored
// row keeps it) and the preset's own metadata.
func checkPresetGenerated(t *testing.T, out []byte, n int) {
	t.Helper()
	var r struct {
		Summary struct{ Messages, Passed, Failed, FileErrors, Refused int }
		Results []struct {
			Name, Status string
			Warnings     []struct{ Pointer, Op string }
		}
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("check-fixtures --generate --format json: %v\n%s", err, out)
	}
	s := r.Summary
	if s.Messages != n || s.Failed != 0 || s.FileErrors != 0 || s.Passed != n || s.Refused == n {
		t.Errorf("check-fixtures --generate: %+v", s)
	}
	for _, m := range r.Results {
		if m.Status == "failed" {
			t.Errorf("%s failed", m.Name)
		}
		for _, w := range m.Warnings {
			if w.Pointer != "/id" {
				t.Errorf("%s: the round trip changed %s (%s)", m.Name, w.Pointer, w.Op)
			}
		}
	}
}

// failedMessages lists the failed messages of a check-fixtures JSON report
// as FILE#INDEX, FILE the file's base name, sorted.
func failedMessages(t *testing.T, out []byte) []string {
	t.Helper()
	var r struct {
		Results []struct {
			File, Status string
			Index        int
		}
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("check-fixtures --format json: %v\n%s", err, out)
	}
	var failed []string
	for _, m := range r.Results {
		if m.Status == "failed" {
			failed = append(failed, fmt.Sprintf("%s#%d", filepath.Base(m.File), m.Index))
		}
	}
	slices.Sort(failed)
	return failed
}

// corpusMessagesThat lists the messages of the corpus folder (a file is a
// message or an array of them) for which holds is true, as FILE#INDEX.
func corpusMessagesThat(t *testing.T, folder string, holds func(map[string]any) bool) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(folder, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		msgs, isArray := v.([]any)
		if !isArray {
			msgs = []any{v}
		}
		for i, m := range msgs {
			if o, ok := m.(map[string]any); ok && holds(o) {
				out = append(out, fmt.Sprintf("%s#%d", filepath.Base(f), i))
			}
		}
	}
	slices.Sort(out)
	return out
}

func countFiles(t *testing.T, folder string) int {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(folder, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files in %s (%v)", folder, err)
	}
	return len(files)
}
