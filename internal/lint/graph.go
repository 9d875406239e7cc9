package lint

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/evanw/esbuild/pkg/api"
)

// edge is one import of one file, as esbuild saw it.
type edge struct {
	from     string // absolute importer
	spec     string // the specifier as written
	kind     string // esbuild's import kind
	external bool
	to       string // absolute file for an internal import
	// kept is false for an import TypeScript drops (its names are used
	// as types only); it does not run.
	kept      bool
	eager     bool // runs while the importer is evaluated
	awaited   bool // a dynamic import awaited at top level
	reexport  bool
	line, col int // 1-based; 0 when unknown
}

// locKey names an import for matching its place (from a warning) to its
// resolution.
type locKey struct{ importer, spec, kind string }

type loc struct {
	line, col int // line 1-based, col 0-based bytes as esbuild gives it
	text      string
}

// Markers of the messages the plugin gives esbuild: an import's place,
// the end of the scan, a file refused, an interruption.
const (
	locMarker     = "bsadapter-lint\x00"
	stopMarker    = "bsadapter-lint-stop\x00"
	refusedMarker = "bsadapter-lint-refused\x00"
	stopEntry     = "bsadapter-lint-stop"
	stopNamespace = "bsadapter-lint"
)

// Test hooks: testHookLoad is called for each file esbuild is about to
// read, testHookBuilt when esbuild is done (which may be after lint
// returned, on an interruption).
var (
	testHookLoad  func(path string)
	testHookBuilt func()
)

// innerResolve marks the plugin's own calls to esbuild's resolver, which
// the plugin lets through.
type innerResolve struct{}

// buildGraph has esbuild read the module graph from the entry points,
// every package external, and returns every file it read with its
// imports, in no order.
//
// esbuild only scans: it parses each file (TypeScript's elision of
// type-only imports included) and resolves its imports, and the plugin
// records what each import resolved to. It does not link: linking binds
// every re-export along its chain (export * from, export { x } from),
// which for a chain of n modules costs n times n, and lint needs none of
// it. A deliberate error ends the build after the scan; the entry named
// stopEntry carries it.
func (l *linter) buildGraph(ctx context.Context) (map[string][]edge, []string, error) {
	var (
		mu      sync.Mutex
		locs    = map[locKey]loc{}
		found   = map[string][]edge{} // importer -> its resolved imports
		loaded  = map[string]bool{}
		refused []*refusedFile
		res     = newResolver()
	)
	kinds := map[api.ResolveKind]string{
		api.ResolveJSImportStatement: "import-statement",
		api.ResolveJSRequireCall:     "require-call",
		api.ResolveJSDynamicImport:   "dynamic-import",
		api.ResolveJSRequireResolve:  "require-resolve",
		api.ResolveCSSImportRule:     "import-rule",
		api.ResolveCSSURLToken:       "url-token",
	}
	interrupted := []api.Message{{Text: stopMarker + "interrupted"}}
	// The plugin resolves every import itself (see resolver), records
	// where it is written (a warning gets the import's location
	// attached) and what it resolved to, and looks at each file before
	// esbuild reads it. Imports TypeScript elides (their names are used
	// as types only) are never resolved, so never recorded.
	recorder := api.Plugin{Name: "bsadapter-lint", Setup: func(b api.PluginBuild) {
		b.OnResolve(api.OnResolveOptions{Filter: "^" + stopEntry + "$"}, func(a api.OnResolveArgs) (api.OnResolveResult, error) {
			if a.Importer != "" {
				return api.OnResolveResult{}, nil
			}
			return api.OnResolveResult{Path: "stop", Namespace: stopNamespace}, nil
		})
		b.OnLoad(api.OnLoadOptions{Filter: ".*", Namespace: stopNamespace}, func(api.OnLoadArgs) (api.OnLoadResult, error) {
			return api.OnLoadResult{Errors: []api.Message{{Text: stopMarker}}}, nil
		})
		b.OnResolve(api.OnResolveOptions{Filter: ".*"}, func(a api.OnResolveArgs) (api.OnResolveResult, error) {
			if _, inner := a.PluginData.(innerResolve); inner || a.Importer == "" {
				return api.OnResolveResult{}, nil
			}
			if ctx.Err() != nil {
				return api.OnResolveResult{Errors: interrupted}, nil
			}
			k, ok := kinds[a.Kind]
			if !ok {
				return api.OnResolveResult{}, nil
			}
			where := []api.Message{{Text: locMarker + a.Importer + "\x00" + a.Path + "\x00" + k}}
			e := edge{from: filepath.Clean(a.Importer), spec: a.Path, kind: k, kept: true}
			out := api.OnResolveResult{Warnings: where}
			if to, ok := res.relative(a.ResolveDir, a.Path, a.Kind); ok {
				e.to = to
				out.Path = to
			} else {
				r := res.esbuild(b, a, innerResolve{})
				if len(r.Errors) > 0 {
					return api.OnResolveResult{Errors: r.Errors, Warnings: where}, nil
				}
				out.Path, out.Namespace, out.External, out.Suffix, out.PluginData = r.Path, r.Namespace, r.External, r.Suffix, r.PluginData
				switch {
				case r.External || r.Path == "":
					e.external = true
					out.External = true
					if out.Path == "" {
						out.Path = a.Path
					}
				case r.Namespace == "file" || r.Namespace == "":
					e.to = filepath.Clean(r.Path)
				default:
					e.external = true // a virtual module of another plugin
				}
			}
			mu.Lock()
			found[e.from] = append(found[e.from], e)
			mu.Unlock()
			return out, nil
		})
		// Look before esbuild reads: a named pipe would block it for
		// ever, a device never end, a huge file cost its size many times.
		b.OnLoad(api.OnLoadOptions{Filter: ".*", Namespace: "file"}, func(a api.OnLoadArgs) (api.OnLoadResult, error) {
			if testHookLoad != nil {
				testHookLoad(a.Path)
			}
			if ctx.Err() != nil {
				return api.OnLoadResult{Errors: interrupted}, nil
			}
			p := filepath.Clean(a.Path)
			st, err := statFile(p)
			var r *refusedFile
			if err == nil {
				r = checkFile(p, st)
			} else {
				errors.As(err, &r)
			}
			mu.Lock()
			defer mu.Unlock()
			if r != nil {
				refused = append(refused, r)
				return api.OnLoadResult{Errors: []api.Message{{Text: refusedMarker + r.why}}}, nil
			}
			loaded[p] = true
			return api.OnLoadResult{}, nil
		})
	}}
	opts := api.BuildOptions{
		EntryPoints:   append(slices.Clone(l.t.entries), stopEntry),
		AbsWorkingDir: l.t.pkgDir,
		Bundle:        true,
		Write:         false,
		Packages:      api.PackagesExternal,
		Platform:      api.PlatformNode,
		Format:        api.FormatESModule,
		Outdir:        filepath.Join(l.t.pkgDir, ".bsadapter-lint-out"),
		LogLevel:      api.LogLevelSilent,
		LogLimit:      0,
		Loader: map[string]api.Loader{
			".sql": api.LoaderText, ".md": api.LoaderText, ".txt": api.LoaderText,
			// Assets import nothing; their contents do not matter here.
			".node": api.LoaderEmpty, ".wasm": api.LoaderEmpty, ".svg": api.LoaderEmpty, ".png": api.LoaderEmpty,
			".jpg": api.LoaderEmpty, ".jpeg": api.LoaderEmpty, ".gif": api.LoaderEmpty, ".webp": api.LoaderEmpty,
			".woff": api.LoaderEmpty, ".woff2": api.LoaderEmpty, ".ttf": api.LoaderEmpty, ".html": api.LoaderEmpty,
		},
		Plugins: []api.Plugin{recorder},
	}
	// esbuild cannot be stopped from outside, but once ctx ends every
	// callback fails at once and the scan ends; a read that blocks in
	// esbuild itself is left behind, and lint returns all the same.
	done := make(chan api.BuildResult, 1)
	go func() {
		r := api.Build(opts)
		if testHookBuilt != nil {
			testHookBuilt()
		}
		done <- r
	}()
	var out api.BuildResult
	select {
	case out = <-done:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if len(refused) > 0 {
		slices.SortFunc(refused, func(a, b *refusedFile) int { return strings.Compare(a.path, b.path) })
		return nil, nil, refused[0].usage()
	}
	var msgs []string
	for _, e := range out.Errors {
		if strings.HasPrefix(e.Text, stopMarker) || strings.HasPrefix(e.Text, refusedMarker) {
			continue
		}
		if len(msgs) == 5 {
			msgs = append(msgs, "and more")
			break
		}
		m := SafeText(clip(e.Text))
		if e.Location != nil {
			m = fmt.Sprintf("%s:%d:%d: %s", SafeName(displayPath(l.abs(e.Location.File))), e.Location.Line, e.Location.Column+1, m)
		}
		msgs = append(msgs, m)
	}
	if len(msgs) > 0 {
		return nil, nil, usagef("fix the source so that it compiles; lint reads the module graph the way a bundler does", "cannot read the module graph: %s", strings.Join(msgs, "; "))
	}
	for _, w := range out.Warnings {
		rest, ok := strings.CutPrefix(w.Text, locMarker)
		if !ok || w.Location == nil {
			continue
		}
		parts := strings.Split(rest, "\x00")
		if len(parts) != 3 {
			continue
		}
		k := locKey{filepath.Clean(parts[0]), parts[1], parts[2]}
		if _, dup := locs[k]; !dup {
			locs[k] = loc{line: w.Location.Line, col: w.Location.Column, text: w.Location.LineText}
		}
	}

	// Every file an import was resolved in must be one esbuild read; if
	// the two named files differently, imports would go unseen.
	for from := range found {
		if !loaded[from] {
			return nil, nil, fmt.Errorf("esbuild named the importing file %s, which it did not read; a symbolic link in the path? Run lint on the folder's real path", SafeName(from))
		}
	}
	graph := map[string][]edge{}
	order := make([]string, 0, len(loaded))
	for from := range loaded {
		order = append(order, from)
		edges := found[from]
		for i := range edges {
			e := &edges[i]
			if lc, seen := locs[locKey{from, e.spec, e.kind}]; seen {
				e.line, e.col = lc.line, lc.col+1
				if f := l.file(from); f != nil && lc.line >= 1 && lc.line <= len(f.li.starts) {
					_, e.col = f.li.pos(f.li.starts[lc.line-1] + lc.col)
				}
				e.reexport = strings.HasPrefix(strings.TrimSpace(lc.text), "export")
			}
			switch e.kind {
			case "import-statement":
				e.eager = true
			case "require-call":
				e.eager = true // until the file's scan shows it is in a function
			}
		}
		// In the order the file writes them.
		slices.SortStableFunc(edges, func(a, b edge) int {
			if c := cmp.Compare(a.line, b.line); c != 0 {
				return c
			}
			if c := cmp.Compare(a.col, b.col); c != 0 {
				return c
			}
			return cmp.Compare(a.spec+"\x00"+a.kind, b.spec+"\x00"+b.kind)
		})
		graph[from] = edges
	}
	return graph, order, nil
}

// addElided adds to a file's edges the static imports TypeScript elides
// (their names are used as types only): they do not run, but where they
// point still matters (an import of better-supabase's internals). esbuild
// never resolves them; the file's tokens show them.
func (l *linter) addElided(graph map[string][]edge, file string) {
	f := l.file(file)
	if f == nil || !isScript(file) {
		return
	}
	have := map[string]bool{}
	for _, e := range graph[file] {
		if e.kind == "import-statement" {
			have[e.spec] = true
		}
	}
	for _, s := range staticImports(f.lex().toks) {
		if have[s.text] {
			continue
		}
		have[s.text] = true
		line, col := f.li.pos(s.off)
		graph[file] = append(graph[file], edge{from: file, spec: s.text, kind: "import-statement", external: true, line: line, col: col})
	}
}

// staticImports returns the specifiers of a file's import and export
// ... from statements but "import type" and "export type" ones, which
// TypeScript removes whole.
func staticImports(toks []token) []token {
	var out []token
	for i, t := range toks {
		if t.kind != tokString || i == 0 || toks[i-1].kind != tokIdent || toks[i-1].text != "from" {
			continue
		}
		// Back to the statement's keyword, no further than the statement
		// before (each token is passed over once).
		j := i - 2
		for j >= 0 {
			u := toks[j]
			if u.kind == tokString || u.kind == tokPunct && u.text == ";" || u.kind == tokIdent && (u.text == "import" || u.text == "export" || u.text == "from") {
				break
			}
			j--
		}
		if j < 0 || toks[j].kind != tokIdent || toks[j].text != "import" && toks[j].text != "export" || j > 0 && toks[j-1].text == "." {
			continue
		}
		if j+2 < i && toks[j+1].kind == tokIdent && toks[j+1].text == "type" && !(toks[j+2].kind == tokIdent && toks[j+2].text == "from") && toks[j+2].text != "," {
			continue // import type { X } from, export type * from
		}
		out = append(out, t)
	}
	return out
}

// clip shortens text from the adapter's files that goes into a message.
func clip(s string) string {
	if len(s) <= 300 {
		return s
	}
	i := 300
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "..."
}

// abs turns a path esbuild gives in a message (relative to the working
// folder) into an absolute one.
func (l *linter) abs(p string) string {
	if ns, rest, ok := strings.Cut(p, ":"); ok && len(ns) > 1 && !filepath.IsAbs(p) {
		p = rest // a namespace prefix such as "file:"
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(l.t.pkgDir, filepath.FromSlash(p))
}

// placeRequires decides, for a file's require calls and import()s, which
// run at once: it reads the file on its own (see scanRequires) when it
// has any.
func (l *linter) placeRequires(f *sourceFile, edges []edge) {
	bySpec := map[string][]placedRequire{}
	awaited := map[string]placedRequire{}
	scanned := false
	scan := func() {
		if scanned {
			return
		}
		scanned = true
		calls, ok := scanRequires(f)
		if !ok {
			return
		}
		for _, c := range calls {
			if !c.awaited {
				bySpec[c.path] = append(bySpec[c.path], c)
			} else if _, seen := awaited[c.path]; c.eager && !seen {
				awaited[c.path] = c
			}
		}
	}
	for i := range edges {
		e := &edges[i]
		if e.kind == "dynamic-import" {
			// import() is lazy, unless the module awaits it at top level.
			scan()
			if c, ok := awaited[e.spec]; ok {
				e.eager, e.awaited = true, true
				e.line, e.col = c.line, c.col
			}
			continue
		}
		if e.kind != "require-call" {
			continue
		}
		scan()
		places := bySpec[e.spec]
		if len(places) == 0 {
			continue // not found again: stay eager, the safe answer
		}
		e.eager = false
		e.line, e.col = places[0].line, places[0].col
		for _, p := range places {
			if p.eager {
				e.eager = true
				e.line, e.col = p.line, p.col
				break
			}
		}
	}
}

// placedRequire is a require call at its place in the source.
type placedRequire struct {
	path      string
	line, col int // 1-based, columns in code points
	eager     bool
	awaited   bool // an await import(), not a require
}

// scanRequires finds a file's require calls: esbuild strips the types
// (keeping a source map), findRequires reads the plain JavaScript, and
// the map gives each call's place in the source. It reports false when
// esbuild cannot read the file.
func scanRequires(f *sourceFile) ([]placedRequire, bool) {
	res := api.Transform(f.src, api.TransformOptions{
		Loader:     loaderFor(f.abs),
		Sourcemap:  api.SourceMapExternal,
		Sourcefile: f.abs,
		Target:     api.ESNext,
		LogLevel:   api.LogLevelSilent,
	})
	if len(res.Errors) > 0 {
		return nil, false
	}
	sm, err := parseSourceMap(res.Map)
	if err != nil {
		return nil, false
	}
	out := string(res.Code)
	outIdx := newLineIndex(out)
	var placed []placedRequire
	for _, c := range findRequires(lex(out).toks) {
		gl, gc := outIdx.pos(c.off)
		sl, sc, ok := sm.original(gl-1, gc-1)
		if !ok {
			continue
		}
		line, col := f.li.pos(f.li.offset(sl, sc))
		placed = append(placed, placedRequire{c.path, line, col, c.eager, c.awaited})
	}
	return placed, true
}

func loaderFor(p string) api.Loader {
	switch filepath.Ext(p) {
	case ".ts", ".mts", ".cts":
		return api.LoaderTS
	case ".tsx":
		return api.LoaderTSX
	case ".jsx":
		return api.LoaderJSX
	default:
		return api.LoaderJS
	}
}

// isSDK reports whether spec imports one of the SDK packages.
func (l *linter) isSDK(spec string) (string, bool) {
	for _, s := range l.t.sdks {
		if spec == s || strings.HasPrefix(spec, s+"/") {
			return s, true
		}
	}
	return "", false
}

// chainEnds is how many links an eager import's chain keeps at each end
// when it is longer than twice that: the entry's imports and the SDK's
// importers. Chains of every finding at full length would cost the depth
// of the graph times the number of findings (a chain of n modules that
// each import the SDK would print n*n/2 links).
const chainEnds = 10

// eagerImports walks the eager imports from the entry points and reports
// each eager import of the SDK with the chain that reaches it.
func (l *linter) eagerImports(graph map[string][]edge) {
	// via is how the walk first reached a file: from parent by e, depth
	// imports from an entry; head holds the first links of that path,
	// shared with the files reached through it.
	type via struct {
		parent string
		e      edge
		depth  int
		head   []Link
	}
	reached := map[string]*via{}
	queue := []string{}
	for _, e := range l.t.entries {
		if _, ok := reached[e]; !ok {
			reached[e] = &via{}
			queue = append(queue, e)
		}
	}
	for len(queue) > 0 {
		file := queue[0]
		queue = queue[1:]
		here := reached[file]
		for _, e := range graph[file] {
			if !e.eager {
				continue
			}
			if !e.external {
				if _, ok := reached[e.to]; !ok && e.to != "" {
					v := &via{parent: file, e: e, depth: here.depth + 1, head: here.head}
					if here.depth < chainEnds {
						v.head = append(slices.Clone(here.head), l.link(e))
					}
					reached[e.to] = v
					queue = append(queue, e.to)
				}
				continue
			}
			sdk, ok := l.isSDK(e.spec)
			if !ok {
				continue
			}
			if e.line == 0 {
				e.line, e.col = l.findSpec(file, e.spec)
			}
			// The chain from the entry: each file and the import in it
			// that leads on, the middle of a long one left out.
			total := here.depth + 1
			keep := total
			if total > 2*chainEnds {
				keep = chainEnds
			}
			tail := make([]Link, keep)
			tail[keep-1] = l.link(e)
			f := file
			for i := keep - 2; i >= 0; i-- {
				v := reached[f]
				tail[i] = l.link(v.e)
				f = v.parent
			}
			chain, omitted := tail, 0
			if total > 2*chainEnds {
				chain = append(slices.Clone(here.head[:chainEnds]), tail...)
				omitted = total - 2*chainEnds
			}
			how := "a static import"
			fix := fmt.Sprintf("type it structurally (import type from %q), or load it when first needed: const sdk = await import(%q)", e.spec, e.spec)
			switch {
			case e.kind == "require-call":
				how = "a require at module top level"
				fix = fmt.Sprintf("move require(%q) into the function that needs it, or use await import(%q) there", e.spec, e.spec)
			case e.awaited:
				how = "an import() awaited at module top level"
				fix = fmt.Sprintf("move await import(%q) into the function that needs the SDK", e.spec)
			case e.reexport:
				how = "a re-export"
				fix = fmt.Sprintf("do not re-export %q from the adapter; re-export types only (export type { ... } from %q)", e.spec, e.spec)
			}
			msg := fmt.Sprintf("%s of %s loads the SDK %s as soon as the adapter is imported", how, e.spec, sdk)
			if total > 1 {
				msg += fmt.Sprintf(" (reached from %s through %s)", chain[0].File, count(total-1, "import"))
			}
			l.add(Finding{Rule: RuleEagerImport, File: l.rel(file), Line: e.line, Column: e.col, Message: msg, Chain: chain, ChainOmitted: omitted, Evidence: l.lineOf(file, e.line, e.col), Fix: fix})
		}
	}
}

func (l *linter) link(e edge) Link {
	line, col := e.line, e.col
	if line == 0 {
		line, col = l.findSpec(e.from, e.spec)
	}
	return Link{File: l.rel(e.from), Line: line, Column: col, Import: clip(e.spec)}
}

// publicExports reports imports of better-supabase that are not among its
// package exports, and (inside a checkout) imports into another folder of
// its src that are not an export's source file.
func (l *linter) publicExports(graph map[string][]edge, order []string) {
	for _, file := range order {
		if !l.inPackage(file) {
			continue
		}
		for _, e := range graph[file] {
			if e.external {
				sub, ok := bsSubpath(e.spec)
				if !ok || l.isPublic(sub) {
					continue
				}
				fix := "import it from a public subpath"
				if len(l.t.bsExports) > 0 {
					fix += " (" + strings.Join(trimDots(l.t.bsExports), ", ") + ")"
				}
				l.addAt(file, e, Finding{Rule: RulePublicExport,
					Message: fmt.Sprintf("%s is not a public export of better-supabase (not in its package exports)", e.spec),
					Fix:     fix})
				continue
			}
			if l.t.kind == "subpath" {
				src := filepath.Join(l.t.pkgDir, "src")
				own := l.t.srcDirs[0]
				if within(e.to, src) && !within(e.to, own) && !l.t.bsSources[e.to] {
					l.addAt(file, e, Finding{Rule: RulePublicExport,
						Message: fmt.Sprintf("%s reaches into %s, which is not the source of any export of better-supabase", e.spec, l.rel(e.to)),
						Fix:     "import the module's public entry (its src/<module>/index.ts, which an export entry names) instead of its internals"})
				}
			} else if strings.Contains(filepath.ToSlash(e.to), "/node_modules/better-supabase/") {
				l.addAt(file, e, Finding{Rule: RulePublicExport,
					Message: fmt.Sprintf("%s reaches into better-supabase's files", e.spec),
					Fix:     "import better-supabase by its package name and a public subpath"})
			}
		}
	}
}

func trimDots(s []string) []string {
	out := make([]string, 0, len(s))
	for _, v := range s {
		if v == "." {
			out = append(out, "better-supabase")
		} else {
			out = append(out, "better-supabase/"+strings.TrimPrefix(v, "./"))
		}
	}
	return out
}

// bsSubpath returns the export subpath an import of better-supabase asks
// for ("." or "./streams").
func bsSubpath(spec string) (string, bool) {
	if spec == "better-supabase" {
		return ".", true
	}
	if rest, ok := strings.CutPrefix(spec, "better-supabase/"); ok {
		return "./" + rest, true
	}
	return "", false
}

// isPublic reports whether sub is in better-supabase's exports. Without
// its package.json at hand it accepts what looks like an export (a few
// lowercase path segments) and refuses paths into build or source
// folders and paths to files.
func (l *linter) isPublic(sub string) bool {
	if l.t.bsExports != nil {
		for _, k := range l.t.bsExports {
			if k == sub {
				return true
			}
			if pre, post, ok := strings.Cut(k, "*"); ok && strings.HasPrefix(sub, pre) && strings.HasSuffix(sub, post) && len(sub) >= len(pre)+len(post) {
				return true
			}
		}
		return false
	}
	if sub == "." {
		return true
	}
	segs := strings.Split(strings.TrimPrefix(sub, "./"), "/")
	for _, s := range segs {
		switch s {
		case "dist", "src", "lib", "esm", "cjs", "build", "internal", "node_modules", "":
			return false
		}
		if strings.Contains(s, ".") && s != "package.json" && !(len(segs) == 2 && segs[0] == "schemas" && strings.HasSuffix(s, ".json")) {
			return false
		}
	}
	return len(segs) <= 2
}

func within(p, dir string) bool {
	r, err := filepath.Rel(dir, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && !filepath.IsAbs(r)
}

// inPackage reports whether file is the adapter's own (not a dependency's).
func (l *linter) inPackage(file string) bool {
	if !within(file, l.t.pkgDir) || strings.Contains(filepath.ToSlash(file), "/node_modules/") {
		return false
	}
	if l.t.kind == "subpath" {
		return within(file, l.t.srcDirs[0])
	}
	return true
}

// addAt adds a finding placed at an import, found again by its specifier
// when esbuild gave no place (an import only used as a type).
func (l *linter) addAt(file string, e edge, f Finding) {
	f.File = l.rel(file)
	f.Line, f.Column = e.line, e.col
	if e.line == 0 {
		f.Line, f.Column = l.findSpec(file, e.spec)
	}
	f.Evidence = l.lineOf(file, f.Line, f.Column)
	l.add(f)
}

// findSpec finds where a file writes a module specifier, for an import
// esbuild gave no place for; 1:1 when it is not found.
func (l *linter) findSpec(file, spec string) (int, int) {
	if sf := l.file(file); sf != nil {
		if off, ok := sf.specs()[spec]; ok {
			return sf.li.pos(off)
		}
	}
	return 1, 1
}

// lineOf returns the excerpt of a file's line that shows a finding.
func (l *linter) lineOf(file string, line, col int) string {
	if sf := l.file(file); sf != nil {
		return sf.li.excerpt(line, col)
	}
	return ""
}

// sourceFile is one file the rules read.
type sourceFile struct {
	abs       string
	src       string
	li        *lineIndex
	once      sync.Once
	lx        *lexed
	specsOnce sync.Once
	specAt    map[string]int
}

func (f *sourceFile) lex() *lexed {
	f.once.Do(func() { f.lx = lex(f.src) })
	return f.lx
}

// specs maps each string written in the file to the offset of its first
// occurrence, for finding an import's specifier again.
func (f *sourceFile) specs() map[string]int {
	f.specsOnce.Do(func() {
		f.specAt = map[string]int{}
		for _, t := range f.lex().toks {
			if _, seen := f.specAt[t.text]; t.kind == tokString && !seen {
				f.specAt[t.text] = t.off
			}
		}
	})
	return f.specAt
}

// file reads a file once; nil when it cannot be read. A file it will not
// read (a named pipe, one too big) is also kept in l.refused, and the
// run fails on it.
func (l *linter) file(p string) *sourceFile {
	l.mu.Lock()
	f, ok := l.files[p]
	l.mu.Unlock()
	if ok {
		return f
	}
	data, err := readFile(p)
	l.mu.Lock()
	defer l.mu.Unlock()
	if f, ok := l.files[p]; ok {
		return f // read meanwhile by another goroutine
	}
	if err != nil {
		var r *refusedFile
		if errors.As(err, &r) {
			l.refused = append(l.refused, r)
		}
		l.files[p] = nil
		return nil
	}
	src := string(data)
	f = &sourceFile{abs: p, src: src, li: newLineIndex(src)}
	l.files[p] = f
	return f
}
