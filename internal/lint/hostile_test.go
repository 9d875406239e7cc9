package lint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
)

// writePackage writes a package whose SDK is @acme/sdk and whose entry is
// src/index.ts, with the files given (paths relative to it).
func writePackage(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	all := map[string]string{
		"package.json": `{"name":"acme-adapter","type":"module",` +
			`"exports":{".":{"types":"./dist/index.d.ts","default":"./dist/index.js"}},` +
			`"peerDependencies":{"better-supabase":"*","@acme/sdk":"*"},` +
			`"peerDependenciesMeta":{"@acme/sdk":{"optional":true}}}`,
	}
	for k, v := range files {
		all[k] = v
	}
	for name, data := range all {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// deepChain writes a package whose entry leads through a chain of n
// modules, each of which imports the SDK, re-exports everything of the
// next (export * from) and one name of it under another (export { } from).
func deepChain(t *testing.T, dir string, n int) {
	t.Helper()
	files := map[string]string{"src/index.ts": "export * from \"./c0.js\";\n"}
	for i := range n {
		s := fmt.Sprintf("import { Client } from \"@acme/sdk\";\nexport * from \"./c%d.js\";\nexport { v%d as w%d } from \"./c%d.js\";\nexport const v%d = String(Client);\n", i+1, i+1, i, i+1, i)
		if i == n-1 {
			s = fmt.Sprintf("import { Client } from \"@acme/sdk\";\nexport const v%d = String(Client);\n", i)
		}
		files[fmt.Sprintf("src/c%d.ts", i)] = s
	}
	writePackage(t, dir, files)
}

// TestDeepImportChain lints a chain of 5,000 modules, each of which loads
// the SDK: 5,000 findings, each with the chain that reaches it. Reading
// the graph must not link the re-exports along the chain, and each
// finding's chain must not be built link by link from the start (both
// cost the depth of the chain for each module). Memory is the measure:
// the bytes the run allocates, within a bound per module ten times what
// it takes.
func TestDeepImportChain(t *testing.T) {
	const n = 5000
	dir := t.TempDir()
	deepChain(t, dir, n)

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r, err := Run(context.Background(), Options{Dir: dir})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	const perModule = 400 << 10 // about 36 KiB are needed
	if allocated > n*perModule {
		t.Errorf("linting a chain of %d modules allocated %d MiB, more than %d KiB a module: the work grows faster than the chain", n, allocated>>20, perModule>>10)
	}

	if r.Files != n+1 || len(r.Findings) != n {
		t.Fatalf("read %d files with %d findings, want %d files and %d findings", r.Files, len(r.Findings), n+1, n)
	}
	links := 0
	var deepest Finding
	for _, f := range r.Findings {
		if f.Rule != RuleEagerImport {
			t.Fatalf("unexpected finding %s at %s:%d", f.Rule, f.File, f.Line)
		}
		links += len(f.Chain)
		if f.File == fmt.Sprintf("src/c%d.ts", n-1) {
			deepest = f
		}
	}
	if links > n*2*chainEnds {
		t.Errorf("the findings hold %d chain links, more than %d a finding", links, 2*chainEnds)
	}
	// The deepest: its chain starts at the entry, keeps the first and last
	// ten imports, and says how many it left out.
	c := deepest.Chain
	if len(c) != 2*chainEnds || deepest.ChainOmitted != n+1-2*chainEnds {
		t.Fatalf("the deepest finding's chain has %d links, %d left out; want %d and %d", len(c), deepest.ChainOmitted, 2*chainEnds, n+1-2*chainEnds)
	}
	want := []string{"src/index.ts:1 ./c0.js", "src/c0.ts:2 ./c1.js", "src/c8.ts:2 ./c9.js"}
	got := []string{fmtLink(c[0]), fmtLink(c[1]), fmtLink(c[chainEnds-1])}
	wantTail := []string{fmt.Sprintf("src/c%d.ts:2 ./c%d.js", n-10, n-9), fmt.Sprintf("src/c%d.ts:2 ./c%d.js", n-2, n-1), fmt.Sprintf("src/c%d.ts:1 @acme/sdk", n-1)}
	gotTail := []string{fmtLink(c[chainEnds]), fmtLink(c[len(c)-2]), fmtLink(c[len(c)-1])}
	if strings.Join(got, ",") != strings.Join(want, ",") || strings.Join(gotTail, ",") != strings.Join(wantTail, ",") {
		t.Errorf("chain head %q tail %q, want %q and %q", got, gotTail, want, wantTail)
	}
	if !strings.Contains(deepest.Message, fmt.Sprintf("through %d imports", n)) {
		t.Errorf("message %q does not count the %d imports", deepest.Message, n)
	}
	// A short chain is whole.
	for _, f := range r.Findings {
		if f.File == "src/c3.ts" && (len(f.Chain) != 5 || f.ChainOmitted != 0) {
			t.Errorf("src/c3.ts: chain of %d links, %d left out; want 5 and 0", len(f.Chain), f.ChainOmitted)
		}
	}
}

func fmtLink(l Link) string { return fmt.Sprintf("%s:%d %s", l.File, l.Line, l.Import) }

// TestCancelStopsTheScan cancels a lint while esbuild reads a long chain
// of modules: the run ends with the context's error, and esbuild is not
// handed the rest of the chain.
func TestCancelStopsTheScan(t *testing.T) {
	const n = 2000
	dir := t.TempDir()
	deepChain(t, dir, n)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var loads atomic.Int64
	testHookLoad = func(string) {
		if loads.Add(1) == 20 {
			cancel()
		}
	}
	built := make(chan struct{})
	testHookBuilt = func() { close(built) }
	defer func() { testHookLoad, testHookBuilt = nil, nil }()
	_, err := Run(ctx, Options{Dir: dir})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the context's", err)
	}
	// lint returns at once; esbuild, left behind, must end soon after
	// without reading on. Files being read when the context ended may
	// still come; the chain has no more than a few in flight at once.
	<-built
	if got := loads.Load(); got > 200 {
		t.Errorf("esbuild was handed %d of the %d files; the run was cancelled at the 20th", got, n+1)
	}
}

// TestSymlinkedEntry lints a package whose entry point is a symbolic
// link to a file that loads the SDK: the link is followed, as Node
// follows it. A loop or a dangling link is an error naming it.
func TestSymlinkedEntry(t *testing.T) {
	dir := t.TempDir()
	writePackage(t, dir, map[string]string{
		"src/eager.ts": "import { Client } from \"@acme/sdk\";\nexport const c = String(Client);\n",
	})
	if err := os.Symlink("eager.ts", filepath.Join(dir, "src/index.ts")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	r := run(t, dir)
	if got := describe(r.Findings, ""); len(got) != 1 || got[0] != "sdk-eager-import src/eager.ts:1:24" {
		t.Errorf("findings = %q, want the eager import of the linked file", got)
	}

	for _, c := range []struct{ target, want string }{
		{"index.ts", "src/index.ts is a symbolic link loop"},
		{"nowhere.ts", "src/index.ts is a symbolic link to nowhere.ts, which does not exist"},
	} {
		dir := t.TempDir()
		writePackage(t, dir, nil)
		os.MkdirAll(filepath.Join(dir, "src"), 0o755)
		os.Symlink(c.target, filepath.Join(dir, "src/index.ts"))
		_, err := Run(context.Background(), Options{Dir: dir})
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(ue.Msg, c.want) || ue.Fix == "" {
			t.Errorf("an entry linked to %s: err = %v, want a usage error with %q", c.target, err, c.want)
		}
	}
}

// TestLongLine lints one line of 1.8 MB of minified code: a position on
// it costs a bounded count, not its distance from the line's start, and
// a finding's excerpt is the part of the line around it.
func TestLongLine(t *testing.T) {
	var b strings.Builder
	b.WriteString(`import{Client as C}from"@acme/sdk";`)
	for i := 0; b.Len() < 1_800_000; i++ {
		if i%500 == 499 {
			fmt.Fprintf(&b, `var q%d="DELETE FROM better_supabase.ai_chats WHERE id=%d";`, i, i)
			continue
		}
		fmt.Fprintf(&b, `var a%d="text value %d here",b%d=function(x){return x+a%d};`, i, i, i, i)
	}
	b.WriteString(`export const z=C;`)
	src := b.String()
	dir := t.TempDir()
	writePackage(t, dir, map[string]string{"src/index.ts": src})

	counted.Store(0)
	r := run(t, dir)
	if len(r.Findings) < 50 {
		t.Fatalf("%d findings, want the eager import and the SQL statements", len(r.Findings))
	}
	for _, f := range r.Findings {
		if len(f.Evidence) > excerptMax+10 {
			t.Fatalf("%s at %d:%d shows %d bytes of the line", f.Rule, f.Line, f.Column, len(f.Evidence))
		}
		if f.Rule == RuleSQLStatement && !strings.Contains(f.Evidence, "DELETE FROM") {
			t.Errorf("excerpt %q does not show the statement", f.Evidence)
		}
	}
	last := r.Findings[len(r.Findings)-1]
	if want := strings.LastIndex(src, `"DELETE`) + 1; last.Line != 1 || last.Column != want {
		t.Errorf("last finding at %d:%d, want 1:%d", last.Line, last.Column, want)
	}
	// Counting the characters before each position from the line's start
	// would count about 60,000 strings times half the line.
	if n := counted.Load(); n > 20*int64(len(src)) {
		t.Errorf("placing the findings counted %d MB of a %d MB line", n>>20, len(src)>>20)
	}
}

// TestFileTooBig refuses a file larger than MaxFileSize, naming it.
func TestFileTooBig(t *testing.T) {
	dir := t.TempDir()
	big := "export const x = 1;\n" + strings.Repeat("// padding\n", MaxFileSize/11+1)
	for _, c := range []struct{ name, index string }{
		{"src/big.ts", "export { x } from \"./big.js\";\n"}, // imported: esbuild is not handed it
		{"src/big.ts", "export const y = 1;\n"},             // in the source folder only
	} {
		writePackage(t, dir, map[string]string{c.name: big, "src/index.ts": c.index})
		_, err := Run(context.Background(), Options{Dir: dir})
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(ue.Msg, "big.ts is ") || !strings.Contains(ue.Msg, "MiB, more than the 4 MiB lint reads") {
			t.Errorf("%s (index %q): err = %v, want a usage error naming it", c.name, c.index, err)
		}
	}
}

// TestNestedStoredObjects reports a token field in nested stored objects
// once, and looks at each object once: looking at each nested one again
// cost the depth of the nesting for each of its tokens.
func TestNestedStoredObjects(t *testing.T) {
	const depth = 3000
	src := "export const x = " + strings.Repeat("{ data: ", depth) + "{ token: \"t\" }" + strings.Repeat(" }", depth) + ";\n"
	dir := t.TempDir()
	writePackage(t, dir, map[string]string{"src/index.ts": src})
	r := run(t, dir)
	if got := describe(r.Findings, ""); len(got) != 1 || !strings.HasPrefix(got[0], "token-option src/index.ts:1:") {
		t.Errorf("findings = %d (%.3q), want the token once", len(got), got)
	}
}

// TestNestedFunctionRequires reads require calls in functions nested
// deep: which are eager is settled without copying the functions around
// each call.
func TestNestedFunctionRequires(t *testing.T) {
	const depth = 5000
	var b strings.Builder
	for range depth {
		b.WriteString("function f() { require(\"a\");\n")
	}
	b.WriteString(strings.Repeat("}\n", depth))
	b.WriteString(";\n(() => { require(\"b\"); })();\n")
	toks := lex(b.String()).toks

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	calls := findRequires(toks)
	runtime.ReadMemStats(&after)
	if len(calls) != depth+1 || calls[0].eager || !calls[depth].eager {
		t.Fatalf("%d calls, first eager %v, last eager %v; want %d, false, true", len(calls), calls[0].eager, calls[depth].eager, depth+1)
	}
	if a := after.TotalAlloc - before.TotalAlloc; a > depth*(4<<10) {
		t.Errorf("reading %d nested functions allocated %d KiB", depth, a>>10)
	}
}
