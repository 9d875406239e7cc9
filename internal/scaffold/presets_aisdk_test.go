package scaffold_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
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

// A preset whose name is a better-supabase subpath (ai-sdk, chat-sdk) is
// a standalone package of its own name, and refused only inside a
// checkout, where it would be that subpath.
func TestPresetNameThatIsASubpath(t *testing.T) {
	for _, name := range []string{"ai-sdk", "chat-sdk"} {
		o := &scaffold.Options{Name: name, Placement: scaffold.PlacementPackage, Dir: t.TempDir()}
		if err := o.Complete(); err != nil {
			t.Fatalf("new %s as a package: %v", name, err)
		}
		if o.Preset != name || o.PackageName != scaffold.PackagePrefix+name {
			t.Errorf("new %s: preset %q, package %q", name, o.Preset, o.PackageName)
		}
		o = &scaffold.Options{Name: name, Placement: scaffold.PlacementSubpath, Dir: t.TempDir()}
		var oe *scaffold.OptionError
		if err := o.Complete(); !errors.As(err, &oe) || !strings.Contains(err.Error(), "already a better-supabase subpath") || !strings.Contains(oe.Fix, name+"-adapter") {
			t.Errorf("new %s as a subpath: %v; want it refused with a fix", name, err)
		}
	}
	// A reserved name that is no preset stays refused everywhere.
	if err := scaffold.ValidateName("ai-chat"); err == nil {
		t.Error("ai-chat accepted")
	}
}

// aiPreset is one of the AI SDK and Chat SDK presets as the end-to-end
// test checks it.
type aiPreset struct {
	name   string // the preset, and the adapter's name
	corpus string // its folder of the SDK message corpus
	// messages is how many messages the corpus folder holds.
	messages int
	// refusals are the only reasons toSdk may refuse a generated message
	// for: what the SDK cannot hold (the preset's docs page lists them).
	refusals []string
	// mutant is a one-line change of the generated converters that drops
	// a field the corpus carries, and fails the corpus files that hold it.
	mutant       [2]string
	mutantFailed []string
}

var aiPresets = []aiPreset{
	{
		name: "ai-sdk", corpus: "ai-sdk-v5-uimessage", messages: 24,
		refusals: []string{
			"a UI message has no tool role",
			"a step finish part has no UI part",
			"a step-start UI part has no stepId or providerMetadata",
			"a tool-result must directly follow its tool-call",
			"UI part has no providerMetadata",
		},
		// A tool part's providerExecuted, which files 06 and 18 hold.
		mutant:       [2]string{`...(typeof part["providerExecuted"] === "boolean" ? { providerExecuted: part["providerExecuted"] } : {}),`, ``},
		mutantFailed: []string{"06-assistant-provider-executed-tools.json", "18-assistant-tool-output-error-provider-executed.json"},
	},
	{
		name: "ai-sdk-model", corpus: "ai-sdk-v5-modelmessage", messages: 25,
		refusals: []string{
			"a tool model message cannot hold a",
			"a system model message's content is one string",
		},
		// A file part's filename, which files 08 and 11 hold.
		mutant:       [2]string{`...(part["filename"] !== undefined ? { filename: str(part["filename"], where, "filename") } : {}),`, ``},
		mutantFailed: []string{"08-user-file-with-filename-url-data.json", "11-assistant-file-data-url.json"},
	},
	{
		name: "chat-sdk", corpus: "vercel-chat-sdk", messages: 12,
		refusals: []string{
			"a Chat SDK message has one text",
			"a Chat SDK message's text comes before its attachments",
		},
		// isMention, which the Slack messages (files 01 to 10) hold.
		mutant: [2]string{`if (!PART_FIELDS.includes(k) && k !== "raw") kept[k] = v;`, `if (!PART_FIELDS.includes(k) && k !== "raw" && k !== "isMention") kept[k] = v;`},
		mutantFailed: []string{
			"01-slack-channel-message-with-bot-mention.json", "02-slack-app-mention-event.json", "03-slack-bot-reply-in-thread-italic.json",
			"04-slack-user-thread-reply-minimal.json", "05-slack-bot-placeholder-message.json", "06-slack-edited-message-first-edit.json",
			"07-slack-edited-message-second-edit.json", "08-slack-dm-with-app-context.json", "09-slack-system-user-archived-channel.json",
			"10-slack-message-with-pasted-table-attachment.json",
		},
	},
}

// TestAIPresetsEndToEnd scaffolds the ai-sdk, ai-sdk-model and chat-sdk
// presets with the real binary ('bsadapter new X --preset X --yes'),
// installs them with npm (the SDK itself among the devDependencies, so
// that the type check reads its published types), type-checks them under
// the strictest settings, runs npm test, and runs the real check-fixtures
// on the preset's corpus folder (with the native round trip, no ignore
// rule) and with --generate 1000 --float64 on seeds 1, 2 and 3. A mutant
// of each preset that drops one field fails exactly the corpus files that
// hold it. ai-sdk and ai-sdk-model have the same devDependencies and
// share one install.
func TestAIPresetsEndToEnd(t *testing.T) {
	if testing.Short() && !testenv.InCI() {
		t.Skip("-short: the end-to-end run installs node packages (never skipped under CI)")
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
	// run runs a command and answers its stdout; fail says whether a
	// non-zero exit fails the test (check-fixtures exits 1 on a failure,
	// which the mutant wants).
	run := func(t *testing.T, fail bool, dir, name string, args ...string) []byte {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir, cmd.Env = dir, env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil && fail {
			t.Fatalf("%s %s (in %s): %v\nstdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), dir, err, stdout.Bytes(), stderr.Bytes())
		}
		return stdout.Bytes()
	}

	devDeps := map[string]string{}
	for _, p := range aiPresets {
		run(t, true, work, bin, "new", p.name, "--preset", p.name, "--yes")
		dir := filepath.Join(work, p.name)
		var pkg struct {
			DevDependencies  map[string]string
			PeerDependencies map[string]string
		}
		data, err := os.ReadFile(filepath.Join(dir, "package.json"))
		if err != nil || json.Unmarshal(data, &pkg) != nil {
			t.Fatalf("%s/package.json: %v\n%s", p.name, err, data)
		}
		sdk := scaffold.PresetSDKs[p.name][0]
		if pkg.PeerDependencies[sdk] != "*" || pkg.DevDependencies[sdk] != scaffold.PresetSDKVersions[p.name][sdk] {
			t.Errorf("%s/package.json: peer %s %q, dev %q", p.name, sdk, pkg.PeerDependencies[sdk], pkg.DevDependencies[sdk])
		}
		deps, _ := json.Marshal(pkg.DevDependencies)
		if shared, ok := devDeps[string(deps)]; ok {
			// Same devDependencies: the same install serves.
			if err := os.Symlink(filepath.Join(work, shared, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
				t.Fatal(err)
			}
			continue
		}
		devDeps[string(deps)] = p.name
		run(t, true, dir, npm, "install", "--legacy-peer-deps", "--no-audit", "--no-fund", "--prefer-offline")
	}

	for _, p := range aiPresets {
		t.Run(p.name, func(t *testing.T) {
			dir := filepath.Join(work, p.name)
			// The AI SDK's version is the one asked for.
			if p.name != "chat-sdk" {
				v, err := os.ReadFile(filepath.Join(dir, "node_modules", "ai", "package.json"))
				if err != nil || !regexp.MustCompile(`"version": "5\.`).Match(v) {
					t.Fatalf("node_modules/ai is not AI SDK 5: %v", err)
				}
			}
			run(t, true, dir, npm, "run", "typecheck")
			strict := `{"extends": "./tsconfig.json", "compilerOptions": {"exactOptionalPropertyTypes": true, "noImplicitOverride": true,
  "noPropertyAccessFromIndexSignature": true, "verbatimModuleSyntax": true, "isolatedModules": true, "noImplicitReturns": true,
  "noFallthroughCasesInSwitch": true, "noUnusedLocals": true, "noUnusedParameters": true}}`
			if err := os.WriteFile(filepath.Join(dir, "tsconfig.strict.json"), []byte(strict), 0o644); err != nil {
				t.Fatal(err)
			}
			run(t, true, dir, npm, "exec", "--no", "--", "tsc", "--noEmit", "-p", "tsconfig.strict.json")
			// The converters are typed against the SDK's own message type.
			src, _ := os.ReadFile(filepath.Join(dir, "src", "converters.ts"))
			sdk := scaffold.PresetSDKs[p.name][0]
			if !bytes.Contains(src, []byte(`from "`+sdk+`";`)) {
				t.Errorf("src/converters.ts imports no type from %s", sdk)
			}
			if out := run(t, true, dir, npm, "test"); !bytes.Contains(out, []byte("# fail 0")) || !bytes.Contains(out, []byte("round-trips")) {
				t.Errorf("npm test:\n%s", out)
			}
			// The sample fixtures and the corpus folder pass with the
			// native round trip and no ignore rule.
			checkFixtures(t, run(t, true, dir, bin, "check-fixtures", "--format", "json"), 2)
			folder := filepath.Join(corpus, p.corpus)
			out := run(t, true, dir, bin, "check-fixtures", "--format", "json", folder)
			checkFixtures(t, out, 1)
			var r struct{ Summary struct{ Messages int } }
			if json.Unmarshal(out, &r) != nil || r.Summary.Messages != p.messages {
				t.Errorf("check-fixtures %s: %d messages, want %d", p.corpus, r.Summary.Messages, p.messages)
			}
			if cfg, _ := os.ReadFile(filepath.Join(dir, "bsadapter.json")); bytes.Contains(cfg, []byte(`"ignore"`)) {
				t.Errorf("bsadapter.json has an ignore rule:\n%s", cfg)
			}
			for _, seed := range []string{"1", "2", "3"} {
				checkGeneratedPreset(t, p, run(t, true, dir, bin, "check-fixtures", "--format", "json", "--generate", "1000", "--seed", seed, "--float64"), 1000)
			}

			// The mutant: one line of the converters changed.
			conv := filepath.Join(dir, "src", "converters.ts")
			if bytes.Count(src, []byte(p.mutant[0])) != 1 {
				t.Fatalf("the mutant's line %q is not in src/converters.ts once", p.mutant[0])
			}
			if err := os.WriteFile(conv, bytes.Replace(src, []byte(p.mutant[0]), []byte(p.mutant[1]), 1), 0o644); err != nil {
				t.Fatal(err)
			}
			defer os.WriteFile(conv, src, 0o644)
			var m struct {
				Summary struct{ Failed int }
				Results []struct{ File, Status string }
			}
			out = run(t, false, dir, bin, "check-fixtures", "--format", "json", folder)
			if err := json.Unmarshal(out, &m); err != nil {
				t.Fatalf("check-fixtures of the mutant: %v\n%s", err, out)
			}
			var failed []string
			for _, res := range m.Results {
				if res.Status == "failed" {
					failed = append(failed, filepath.Base(res.File))
				}
			}
			slices.Sort(failed)
			failed = slices.Compact(failed)
			if !slices.Equal(failed, p.mutantFailed) {
				t.Errorf("the mutant failed %v; want exactly %v", failed, p.mutantFailed)
			}
		})
	}
}

// checkGeneratedPreset checks a --generate run through a preset: no
// message fails, the round trip changes nothing (a warning would be a
// changed id, role or metadata), and toSdk refuses only for the reasons
// the preset lists.
func checkGeneratedPreset(t *testing.T, p aiPreset, out []byte, n int) {
	t.Helper()
	var r struct {
		Summary   struct{ Messages, Passed, Failed, FileErrors, Refused, Warnings int }
		Results   []struct{ Name, Status string }
		Refusals  []struct{ Reason string }
		Generated struct{ Parts []string }
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("check-fixtures --generate: %v\n%s", err, out)
	}
	s := r.Summary
	if s.Messages != n || s.Passed != n || s.Failed != 0 || s.FileErrors != 0 || s.Warnings != s.Refused || len(r.Results) != 0 {
		t.Errorf("check-fixtures --generate: %+v, results %+v", s, r.Results)
	}
	if s.Refused >= n*3/4 {
		t.Errorf("check-fixtures --generate: %d of %d refused", s.Refused, n)
	}
	for _, ref := range r.Refusals {
		known := false
		for _, why := range p.refusals {
			known = known || strings.Contains(ref.Reason, why)
		}
		if !known {
			t.Errorf("toSdk refused for a reason the preset does not list: %s", ref.Reason)
		}
	}
}
