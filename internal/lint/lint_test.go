package lint

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/internal/report"
	"github.com/bsadapter/bsadapter/internal/scaffold"
)

func run(t *testing.T, dir string, sdks ...string) *Report {
	t.Helper()
	r, err := Run(context.Background(), Options{Dir: dir, SDKs: sdks})
	if err != nil {
		t.Fatalf("lint %s: %v", dir, err)
	}
	return r
}

func describe(fs []Finding, prefix string) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s%s %s:%d:%d", prefix, f.Rule, f.File, f.Line, f.Column))
	}
	return out
}

func chainOf(f Finding) string {
	var s []string
	for _, l := range f.Chain {
		s = append(s, fmt.Sprintf("%s:%d:%d", l.File, l.Line, l.Column))
	}
	return strings.Join(s, ",")
}

// TestCorpus lints each small adapter under testdata/corpus, each of which
// breaks one rule in one way (or none: type-only and dynamic imports),
// and compares the findings, with their places, to its want file.
func TestCorpus(t *testing.T) {
	dirs, err := filepath.Glob("testdata/corpus/*")
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 10 {
		t.Fatalf("only %d corpus adapters", len(dirs))
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, "want"))
			if err != nil {
				t.Fatal(err)
			}
			var want, wantChains []string
			for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
				if line == "none" {
					continue
				}
				head, chain, _ := strings.Cut(line, " chain=")
				want = append(want, head)
				if chain != "" {
					wantChains = append(wantChains, chain)
				}
			}
			r := run(t, dir)
			got := append(describe(r.Findings, ""), describe(r.Suppressed, "suppressed ")...)
			if !slices.Equal(got, want) {
				t.Errorf("findings:\n  got  %q\n  want %q", got, want)
				for _, f := range r.Findings {
					t.Logf("%s:%d:%d %s: %s", f.File, f.Line, f.Column, f.Rule, f.Message)
				}
			}
			var gotChains []string
			for _, f := range r.Findings {
				if len(f.Chain) > 1 {
					gotChains = append(gotChains, chainOf(f))
				}
			}
			if !slices.Equal(gotChains, wantChains) {
				t.Errorf("chains:\n  got  %q\n  want %q", gotChains, wantChains)
			}
			for _, f := range r.Findings {
				if f.Message == "" || f.Fix == "" {
					t.Errorf("%s at %s:%d has no message or no fix", f.Rule, f.File, f.Line)
				}
				if f.Rule == RuleEagerImport && len(f.Chain) == 0 {
					t.Errorf("an eager import without its chain")
				}
			}
		})
	}
}

// TestSuppressedCarriesReason checks the reason of an ignore comment
// reaches the report.
func TestSuppressedCarriesReason(t *testing.T) {
	r := run(t, "testdata/corpus/ignored")
	if len(r.Suppressed) != 1 || r.Suppressed[0].Reason != "a read-only health probe, not a table of ours" {
		t.Fatalf("suppressed = %+v", r.Suppressed)
	}
}

// TestCheckout lints subpaths of a better-supabase checkout: one that
// follows the rules, one whose export entry has its conditions out of
// order, one that imports another module's internals.
func TestCheckout(t *testing.T) {
	pkg := "testdata/checkout/packages/better-supabase"
	cases := []struct {
		dir  string
		want []string
	}{
		{pkg + "/tests/acme", nil},
		{pkg + "/src/acme", nil},
		{pkg + "/tests/order", []string{"export-entry packages/better-supabase/package.json:21:5"}},
		{pkg + "/tests/reach", []string{"public-exports packages/better-supabase/src/reach/index.ts:2:28"}},
	}
	for _, c := range cases {
		t.Run(c.dir, func(t *testing.T) {
			r := run(t, c.dir)
			if r.Target.Kind != "subpath" || len(r.Target.SDKs) != 1 || r.Target.SDKs[0] != "@acme/sdk" {
				t.Errorf("target = %+v; want a subpath whose SDK is bsadapter.json's only (not the checkout's other peers)", r.Target)
			}
			if got := describe(r.Findings, ""); !slices.Equal(got, c.want) {
				t.Errorf("findings = %q, want %q", got, c.want)
			}
		})
	}
	if _, err := Run(context.Background(), Options{Dir: "testdata/checkout"}); err == nil || !strings.Contains(err.Error(), "not in an adapter's folder") {
		t.Errorf("the checkout's top: err = %v, want one asking for the adapter's folder", err)
	}
}

// TestGeneratedAdaptersLintClean renders what 'bsadapter new' writes, for
// both presets and both placements, and lints it.
func TestGeneratedAdaptersLintClean(t *testing.T) {
	cases := []struct {
		name string
		o    scaffold.Options
	}{
		{"langchain", scaffold.Options{Name: "langchain"}},
		{"generic all", scaffold.Options{Name: "acme", SDKs: []string{"@acme/sdk", "acme-extra"}, Builder: true, Storage: "acme-state"}},
		{"generic chat only", scaffold.Options{Name: "chatty", SDKs: []string{"chatty-sdk"}, Contracts: []string{"chat"}}},
		{"generic workflows", scaffold.Options{Name: "temporal", SDKs: []string{"@temporalio/client"}, Contracts: []string{"workflows"}, Builder: true, Storage: "temporal-state"}},
		{"langchain subpath", scaffold.Options{Name: "langchain", Placement: scaffold.PlacementSubpath}},
		{"generic subpath", scaffold.Options{Name: "acme", SDKs: []string{"@acme/sdk"}, Placement: scaffold.PlacementSubpath, Builder: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			o := c.o
			if len(o.Contracts) == 0 {
				o.Contracts = scaffold.AllContracts()
			}
			if o.Placement == scaffold.PlacementSubpath {
				copyCheckoutSkeleton(t, dir)
				o.Dir = dir
			} else {
				o.Placement = scaffold.PlacementPackage
				o.Dir = filepath.Join(dir, o.Name)
			}
			p, err := scaffold.Render(&o)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := scaffold.Write(p, false); err != nil {
				t.Fatal(err)
			}
			target := o.Dir
			if o.Placement == scaffold.PlacementSubpath {
				target = filepath.Join(dir, "packages/better-supabase/tests", o.Name)
			}
			r := run(t, target)
			for _, f := range r.Findings {
				t.Errorf("%s:%d:%d %s: %s (%s)", f.File, f.Line, f.Column, f.Rule, f.Message, f.Evidence)
			}
			if len(r.Suppressed) > 0 {
				t.Errorf("the generated code silences findings: %+v", r.Suppressed)
			}
			if r.Files < 3 {
				t.Errorf("read only %d files", r.Files)
			}
			want := o.SDKs
			if len(want) == 0 {
				want = []string{"@langchain/core"}
			}
			if o.Placement == scaffold.PlacementSubpath {
				want = want[:1] // bsadapter.json names the first
			}
			if !slices.Equal(r.Target.SDKs, uniqueSorted(slices.Clone(want))) {
				t.Errorf("SDKs = %v, want %v", r.Target.SDKs, want)
			}
		})
	}
}

// copyCheckoutSkeleton writes a minimal better-supabase checkout: its
// package.json with one export, in upstream's shape.
func copyCheckoutSkeleton(t *testing.T, dir string) {
	t.Helper()
	pkg := filepath.Join(dir, "packages/better-supabase")
	if err := os.MkdirAll(filepath.Join(pkg, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	data := `{
  "name": "better-supabase",
  "type": "module",
  "exports": {
    ".": {
      "@better-supabase/source": "./src/index.ts",
      "types": "./dist/index.d.ts",
      "default": "./dist/index.js"
    }
  },
  "peerDependencies": {
    "react": "*"
  }
}
`
	if err := os.WriteFile(filepath.Join(pkg, "package.json"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestUsageErrors checks what cannot be linted is refused, saying why.
func TestUsageErrors(t *testing.T) {
	empty := t.TempDir()
	noSDK := t.TempDir()
	os.WriteFile(filepath.Join(noSDK, "package.json"), []byte(`{"name":"x","main":"index.js"}`), 0o644)
	os.WriteFile(filepath.Join(noSDK, "index.js"), []byte(`export const x = 1;`), 0o644)
	noEntry := t.TempDir()
	os.WriteFile(filepath.Join(noEntry, "package.json"), []byte(`{"name":"x","exports":"./dist/index.js","peerDependencies":{"s":"*"}}`), 0o644)
	badJSON := t.TempDir()
	os.WriteFile(filepath.Join(badJSON, "package.json"), []byte("{\n  \"name\": \"x\",\n}"), 0o644)
	syntax := t.TempDir()
	os.WriteFile(filepath.Join(syntax, "package.json"), []byte(`{"name":"x","main":"index.ts","peerDependencies":{"s":"*"}}`), 0o644)
	os.WriteFile(filepath.Join(syntax, "index.ts"), []byte("export const x = ;\n"), 0o644)
	for _, c := range []struct {
		dir, want string
	}{
		{empty, "has no package.json"},
		{filepath.Join(empty, "missing"), "no such file"},
		{noSDK, "cannot tell which package is the SDK"},
		{noEntry, "the entry point ./dist/index.js"},
		{badJSON, "package.json:3:1"},
		{syntax, "index.ts:1:18"},
	} {
		_, err := Run(context.Background(), Options{Dir: c.dir})
		var ue *UsageError
		if err == nil || !strings.Contains(err.Error(), c.want) || !asUsage(err, &ue) || ue.Fix == "" {
			t.Errorf("%s: err = %v, want a usage error with a fix containing %q", c.dir, err, c.want)
		}
	}
}

func asUsage(err error, ue **UsageError) bool {
	u, ok := err.(*UsageError)
	*ue = u
	return ok
}

// TestOutputs checks the JSON document and the GitHub annotations of a
// report with a finding.
func TestOutputs(t *testing.T) {
	r := run(t, "testdata/corpus/eager-three-deep")
	var b bytes.Buffer
	if err := report.WriteJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		SchemaVersion int       `json:"schemaVersion"`
		OK            bool      `json:"ok"`
		Root          string    `json:"root"`
		Findings      []Finding `json:"findings"`
		Suppressed    []Finding `json:"suppressed"`
		Target        Target    `json:"target"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.SchemaVersion != 1 || doc.OK || doc.Root != r.Root || len(doc.Findings) != 1 || len(doc.Findings[0].Chain) != 4 || doc.Target.Entries[0] != "src/index.ts" || doc.Suppressed == nil {
		t.Errorf("json = %s", b.String())
	}
	b.Reset()
	abs, _ := filepath.Abs("testdata")
	if err := report.WriteGitHub(&b, r.Annotations(), abs); err != nil {
		t.Fatal(err)
	}
	want := "::error file=corpus/eager-three-deep/src/blocks.ts,line=2,col=23,title=bsadapter lint sdk-eager-import::"
	if !strings.HasPrefix(b.String(), want) || !strings.Contains(b.String(), "%0Achain: src/index.ts:2 -> src/convert.ts:1 -> ") ||
		!strings.HasSuffix(b.String(), "::notice title=bsadapter lint::1 finding in 4 files\n") {
		t.Errorf("github =\n%s\nwant it to start with %s", b.String(), want)
	}

	clean := run(t, "testdata/corpus/type-only-imports")
	b.Reset()
	report.WriteJSON(&b, clean)
	if !strings.Contains(b.String(), `"findings": []`) || !strings.Contains(b.String(), `"ok": true`) {
		t.Errorf("a clean report's JSON = %s", b.String())
	}
}

// TestSymlinkedFolder lints an adapter through a symbolic link to its
// folder: esbuild names files by their real paths, and a mismatch would
// make every import look type-only.
func TestSymlinkedFolder(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.CopyFS(real, os.DirFS("testdata/corpus/eager-three-deep")); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	r := run(t, link)
	if got := describe(r.Findings, ""); len(got) != 1 || got[0] != "sdk-eager-import src/blocks.ts:2:23" {
		t.Errorf("through a link: %q", got)
	}
}
