package scaffold_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/internal/scaffold"
	"github.com/bsadapter/bsadapter/internal/testenv"
)

// presetE2E is a converter preset as testPresetsEndToEnd checks it, end
// to end against its folder of the SDK message corpus.
type presetE2E struct {
	preset string // the preset, and the adapter's name
	corpus string // its folder of the SDK message corpus
	// sdk is the SDK package: package.json has it as a peer of any
	// version ("*") and as a devDependency pinned at version.
	sdk, version string
	// installed, when set, is a pattern the package.json of the SDK that
	// npm installed must match: the version asked for.
	installed string
	// types is the module src/converters.ts imports the SDK's message
	// types from.
	types string
	// fixtures is how many fixture files the preset brings, at least.
	fixtures int
	// messages, when set, is how many messages the corpus folder holds.
	messages int
	// generated checks a check-fixtures --generate run of n messages.
	generated func(t *testing.T, c presetE2E, out []byte, n int)
	// refusals are the only reasons toSdk may refuse a generated message
	// for, when generated checks them: what the SDK cannot hold (the
	// preset's docs page lists them).
	refusals []string
	// mutant is a one-line change of the generated src/converters.ts
	// (from, to) that drops a field the corpus carries.
	mutant [2]string
	// With holds set, the mutant fails exactly the corpus messages for
	// which holds is true (and there is one at least); without, exactly
	// the corpus files mutantFailed.
	holds        func(msg map[string]any) bool
	mutantFailed []string
}

// testPresetsEndToEnd scaffolds each preset with the real binary
// ('bsadapter new P --preset P --yes'), checks that its package.json pins
// the SDK, and installs it with npm (the SDK among the devDependencies,
// so that the type check reads its published types; presets with the same
// devDependencies share one install). Then, in a subtest of each preset's
// name, it checks that the adapter type-checks, also under the strictest
// settings, with the converters typed against the SDK's own message type;
// that npm test passes, round trips included; that bsadapter.json carries
// no ignore rule; that the real check-fixtures passes the preset's own
// fixtures and the whole corpus folder with the native round trip; that
// --generate 1000 --float64 runs on seeds 1, 2 and 3 pass; and that the
// mutant fails exactly what holds its field. It answers each preset's
// folder.
func testPresetsEndToEnd(t *testing.T, h *scaffold.E2E, presets []presetE2E) map[string]string {
	t.Helper()
	corpus := testenv.Corpus(t)
	dirs := map[string]string{}
	installed := map[string]string{} // devDependencies, as JSON: the folder installed with them
	for _, c := range presets {
		h.Run(t, h.Work, h.Bin, "new", c.preset, "--preset", c.preset, "--yes")
		dir := filepath.Join(h.Work, c.preset)
		dirs[c.preset] = dir
		var pkg struct{ DevDependencies, PeerDependencies map[string]string }
		data, err := os.ReadFile(filepath.Join(dir, "package.json"))
		if err != nil || json.Unmarshal(data, &pkg) != nil {
			t.Fatalf("%s/package.json: %v\n%s", c.preset, err, data)
		}
		if pkg.PeerDependencies[c.sdk] != "*" || pkg.DevDependencies[c.sdk] != c.version {
			t.Errorf("%s/package.json: %s should be a peer and a devDependency pinned at %s: peer %q, dev %q", c.preset, c.sdk, c.version, pkg.PeerDependencies[c.sdk], pkg.DevDependencies[c.sdk])
		}
		deps, _ := json.Marshal(pkg.DevDependencies)
		if shared, ok := installed[string(deps)]; ok {
			// Same devDependencies: the same install serves.
			if err := os.Symlink(filepath.Join(shared, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
				t.Fatal(err)
			}
			continue
		}
		installed[string(deps)] = dir
		h.Install(t, dir)
	}

	for _, c := range presets {
		dir, folder := dirs[c.preset], filepath.Join(corpus, c.corpus)
		t.Run(c.preset, func(t *testing.T) {
			if c.installed != "" {
				v, err := os.ReadFile(filepath.Join(dir, "node_modules", c.sdk, "package.json"))
				if err != nil || !regexp.MustCompile(c.installed).Match(v) {
					t.Fatalf("node_modules/%s is not the version asked for (%s): %v", c.sdk, c.installed, err)
				}
			}
			h.TypeCheck(t, dir)
			h.TypeCheckStrict(t, dir)
			// The converters are typed against the SDK's own message type.
			conv := filepath.Join(dir, "src", "converters.ts")
			src, err := os.ReadFile(conv)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(src, []byte(`from "`+c.types+`";`)) {
				t.Errorf("src/converters.ts imports no type from %s", c.types)
			}
			if out := h.Run(t, dir, h.Npm, "test"); !bytes.Contains(out, []byte("# fail 0")) || !bytes.Contains(out, []byte("round-trips")) {
				t.Errorf("npm test:\n%s", out)
			}
			cfg, err := os.ReadFile(filepath.Join(dir, "bsadapter.json"))
			if err != nil || bytes.Contains(cfg, []byte("ignore")) {
				t.Errorf("bsadapter.json must carry no ignore rule (%v):\n%s", err, cfg)
			}
			// The preset's own fixtures and the whole corpus folder pass
			// with the native round trip.
			checkFixtures(t, h.Run(t, dir, h.Bin, "check-fixtures", "--format", "json"), c.fixtures)
			out := h.Run(t, dir, h.Bin, "check-fixtures", "--format", "json", folder)
			checkFixtures(t, out, countFiles(t, folder))
			if c.messages != 0 {
				var r struct{ Summary struct{ Messages int } }
				if json.Unmarshal(out, &r) != nil || r.Summary.Messages != c.messages {
					t.Errorf("check-fixtures %s: %d messages, want %d", c.corpus, r.Summary.Messages, c.messages)
				}
			}
			for _, seed := range []string{"1", "2", "3"} {
				c.generated(t, c, h.Run(t, dir, h.Bin, "check-fixtures", "--format", "json", "--generate", "1000", "--seed", seed, "--float64"), 1000)
			}

			// The mutant: one line of the converters changed.
			from, to := []byte(c.mutant[0]), []byte(c.mutant[1])
			if bytes.Count(src, from) != 1 {
				t.Fatalf("the mutant's line %q is not in %s exactly once", from, conv)
			}
			t.Cleanup(func() { os.WriteFile(conv, src, 0o644) })
			if err := os.WriteFile(conv, bytes.Replace(src, from, to, 1), 0o644); err != nil {
				t.Fatal(err)
			}
			// check-fixtures exits 1 when a message fails.
			out, _ = h.RunExit(t, dir, []int{0, 1}, h.Bin, "check-fixtures", "--format", "json", folder)
			failed := failedMessages(t, out)
			if c.holds != nil {
				expected := corpusMessagesThat(t, folder, c.holds)
				if len(expected) == 0 {
					t.Fatalf("no message of %s holds the mutant's field", folder)
				}
				if !slices.Equal(failed, expected) {
					t.Errorf("the mutant failed %v; the messages holding the field are %v", failed, expected)
				}
				return
			}
			var files []string
			for _, m := range failed {
				files = append(files, m[:strings.LastIndex(m, "#")])
			}
			slices.Sort(files)
			files = slices.Compact(files)
			if !slices.Equal(files, c.mutantFailed) {
				t.Errorf("the mutant failed %v; want exactly %v", files, c.mutantFailed)
			}
		})
	}
	return dirs
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
