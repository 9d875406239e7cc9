package lint

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

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

// locKey names an import for matching esbuild's resolve calls to its
// metafile.
type locKey struct{ importer, spec, kind string }

type loc struct {
	line, col int // line 1-based, col 0-based bytes as esbuild gives it
	text      string
}

const locMarker = "bsadapter-lint\x00"

// buildGraph bundles from the entry points with every package external
// and returns every file esbuild read with its imports.
func (l *linter) buildGraph(ctx context.Context) (map[string][]edge, []string, []api.OutputFile, error) {
	var mu sync.Mutex
	locs := map[locKey]loc{}
	kinds := map[api.ResolveKind]string{
		api.ResolveJSImportStatement: "import-statement",
		api.ResolveJSRequireCall:     "require-call",
		api.ResolveJSDynamicImport:   "dynamic-import",
		api.ResolveJSRequireResolve:  "require-resolve",
		api.ResolveCSSImportRule:     "import-rule",
		api.ResolveCSSURLToken:       "url-token",
	}
	// The plugin resolves nothing; it only asks esbuild where each import
	// is written (a warning gets the import's location attached) and
	// learns which imports survive TypeScript's type-only elision: esbuild
	// does not resolve those.
	recorder := api.Plugin{Name: "bsadapter-lint", Setup: func(b api.PluginBuild) {
		b.OnResolve(api.OnResolveOptions{Filter: ".*"}, func(a api.OnResolveArgs) (api.OnResolveResult, error) {
			k, ok := kinds[a.Kind]
			if !ok || a.Importer == "" {
				return api.OnResolveResult{}, nil
			}
			return api.OnResolveResult{Warnings: []api.Message{{Text: locMarker + a.Importer + "\x00" + a.Path + "\x00" + k}}}, nil
		})
	}}
	res := api.Build(api.BuildOptions{
		EntryPoints:   l.t.entries,
		AbsWorkingDir: l.t.pkgDir,
		Bundle:        true,
		Write:         false,
		Metafile:      true,
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
		// The bundle and its source map tell which require calls run at
		// a module's top level (see bundleRequires); nothing may be
		// dropped from it for that.
		Sourcemap:      api.SourceMapExternal,
		SourcesContent: api.SourcesContentExclude,
		TreeShaking:    api.TreeShakingFalse,
	})
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, err
	}
	if len(res.Errors) > 0 {
		var msgs []string
		for i, e := range res.Errors {
			if i == 5 {
				msgs = append(msgs, fmt.Sprintf("and %d more", len(res.Errors)-5))
				break
			}
			m := e.Text
			if e.Location != nil {
				m = fmt.Sprintf("%s:%d:%d: %s", l.display(filepath.Join(l.t.pkgDir, e.Location.File)), e.Location.Line, e.Location.Column+1, e.Text)
			}
			msgs = append(msgs, m)
		}
		return nil, nil, nil, usagef("fix the source so that it compiles; lint reads the module graph the way a bundler does", "cannot read the module graph: %s", strings.Join(msgs, "; "))
	}
	for _, w := range res.Warnings {
		rest, ok := strings.CutPrefix(w.Text, locMarker)
		if !ok || w.Location == nil {
			continue
		}
		parts := strings.Split(rest, "\x00")
		if len(parts) != 3 {
			continue
		}
		k := locKey{parts[0], parts[1], parts[2]}
		mu.Lock()
		if _, dup := locs[k]; !dup {
			locs[k] = loc{line: w.Location.Line, col: w.Location.Column, text: w.Location.LineText}
		}
		mu.Unlock()
	}

	var meta struct {
		Inputs map[string]struct {
			Imports []struct {
				Path     string `json:"path"`
				Kind     string `json:"kind"`
				External bool   `json:"external"`
				Original string `json:"original"`
			} `json:"imports"`
		} `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(res.Metafile), &meta); err != nil {
		return nil, nil, nil, fmt.Errorf("esbuild's metafile: %w", err)
	}
	// Every file esbuild resolved an import for must be one of the
	// metafile's inputs. If the two name files differently, imports would
	// look type-only and the SDK would pass unseen: refuse to answer.
	inputs := map[string]bool{}
	for in := range meta.Inputs {
		inputs[l.abs(in)] = true
	}
	for k := range locs {
		if !inputs[filepath.Clean(k.importer)] {
			return nil, nil, nil, fmt.Errorf("esbuild named the importing file %s, which its metafile does not list; a symbolic link in the path? Run lint on the folder's real path", k.importer)
		}
	}
	graph := map[string][]edge{}
	var order []string
	for in, v := range meta.Inputs {
		from := l.abs(in)
		order = append(order, from)
		for _, im := range v.Imports {
			e := edge{from: from, kind: im.Kind, external: im.External, spec: im.Path}
			if im.Original != "" {
				e.spec = im.Original
			}
			if !e.external {
				e.to = l.abs(im.Path)
			}
			lc, seen := locs[locKey{from, e.spec, e.kind}]
			e.kept = seen || e.kind != "import-statement"
			if seen {
				e.line, e.col = lc.line, lc.col+1
				if f := l.file(from); f != nil && lc.line >= 1 && lc.line <= len(f.li.starts) {
					_, e.col = f.li.pos(f.li.starts[lc.line-1] + lc.col)
				}
				e.reexport = strings.HasPrefix(strings.TrimSpace(lc.text), "export")
			}
			switch e.kind {
			case "import-statement":
				e.eager = e.kept
			case "require-call":
				e.eager = true // until the file's scan shows it is in a function
			}
			graph[from] = append(graph[from], e)
		}
	}
	return graph, order, res.OutputFiles, nil
}

// bundleRequires reads the require calls in the bundles esbuild wrote (in
// memory) and places each in its source through the bundle's source map.
// The bundle is plain JavaScript as esbuild prints it, which findRequires
// reads; a second parse of every file is not needed.
func (l *linter) bundleRequires(outputs []api.OutputFile) map[string][]placedRequire {
	maps := map[string][]byte{}
	for _, o := range outputs {
		if strings.HasSuffix(o.Path, ".map") {
			maps[strings.TrimSuffix(o.Path, ".map")] = o.Contents
		}
	}
	type key struct {
		file      string
		line, col int
	}
	seen := map[key]int{}
	placed := map[string][]placedRequire{}
	for _, o := range outputs {
		data, ok := maps[o.Path]
		if !ok {
			continue
		}
		sm, err := parseSourceMap(data)
		if err != nil {
			continue
		}
		code := string(o.Contents)
		idx := newLineIndex(code)
		for _, c := range findRequires(lex(code).toks) {
			gl, gc := idx.pos(c.off)
			seg, ok := sm.segment(gl-1, gc-1)
			if !ok || seg.source < 0 || seg.source >= len(sm.sources) {
				continue
			}
			file := filepath.Clean(filepath.Join(filepath.Dir(o.Path), filepath.FromSlash(sm.sources[seg.source])))
			f := l.file(file)
			if f == nil {
				continue
			}
			line, col := f.li.pos(f.li.offset(seg.srcLine, seg.srcCol))
			k := key{file, line, col}
			if i, dup := seen[k]; dup {
				// The same module in two entries' bundles: eager in
				// either is eager.
				placed[file][i].eager = placed[file][i].eager || c.eager
				continue
			}
			seen[k] = len(placed[file])
			placed[file] = append(placed[file], placedRequire{c.path, line, col, c.eager, c.awaited})
		}
	}
	return placed
}

// abs turns a metafile path (relative to the working folder) into an
// absolute one.
func (l *linter) abs(p string) string {
	if ns, rest, ok := strings.Cut(p, ":"); ok && len(ns) > 1 && !filepath.IsAbs(p) {
		p = rest // a namespace prefix such as "file:"
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(l.t.pkgDir, filepath.FromSlash(p))
}

// placeRequires decides, for a file's require calls, which run at once,
// from the calls found in the bundle or, failing that, in the file read
// on its own.
func (l *linter) placeRequires(f *sourceFile, edges []edge, fromBundle []placedRequire) {
	bySpec := map[string][]placedRequire{}
	awaited := map[string]placedRequire{}
	add := func(c placedRequire) {
		if !c.awaited {
			bySpec[c.path] = append(bySpec[c.path], c)
		} else if _, seen := awaited[c.path]; c.eager && !seen {
			awaited[c.path] = c
		}
	}
	for _, c := range fromBundle {
		add(c)
	}
	// A package keeps its require("...") and import("...") in the
	// bundle; a local file does not (esbuild links it in), so the calls
	// of a file that loads a local module that way are found by reading
	// the file on its own.
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
		inBundle := map[string]bool{}
		for spec := range bySpec {
			inBundle[spec] = true
		}
		for _, c := range calls {
			if c.awaited || !inBundle[c.path] {
				add(c)
			}
		}
	}
	for i := range edges {
		e := &edges[i]
		if e.kind == "dynamic-import" {
			// import() is lazy, unless the module awaits it at top level.
			if !e.external {
				scan()
			}
			if c, ok := awaited[e.spec]; ok {
				e.eager, e.awaited = true, true
				e.line, e.col = c.line, c.col
			}
			continue
		}
		if e.kind != "require-call" {
			continue
		}
		if len(bySpec[e.spec]) == 0 {
			scan()
		}
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

// eagerImports walks the eager imports from the entry points and reports
// each eager import of the SDK with the chain that reaches it.
func (l *linter) eagerImports(graph map[string][]edge) {
	type via struct {
		parent string
		e      edge
	}
	reached := map[string]*via{}
	queue := []string{}
	for _, e := range l.t.entries {
		if _, ok := reached[e]; !ok {
			reached[e] = nil
			queue = append(queue, e)
		}
	}
	for len(queue) > 0 {
		file := queue[0]
		queue = queue[1:]
		for _, e := range graph[file] {
			if !e.eager {
				continue
			}
			if !e.external {
				if _, ok := reached[e.to]; !ok && e.to != "" {
					reached[e.to] = &via{file, e}
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
			// that leads on.
			chain := []Link{l.link(e)}
			for f := file; reached[f] != nil; f = reached[f].parent {
				chain = append([]Link{l.link(reached[f].e)}, chain...)
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
			if len(chain) > 1 {
				msg += fmt.Sprintf(" (reached from %s through %s)", chain[0].File, count(len(chain)-1, "import"))
			}
			l.add(Finding{Rule: RuleEagerImport, File: l.rel(file), Line: e.line, Column: e.col, Message: msg, Chain: chain, Evidence: l.lineOf(file, e.line), Fix: fix})
		}
	}
}

func (l *linter) link(e edge) Link {
	line, col := e.line, e.col
	if line == 0 {
		line, col = l.findSpec(e.from, e.spec)
	}
	return Link{File: l.rel(e.from), Line: line, Column: col, Import: e.spec}
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
	f.Evidence = l.lineOf(file, f.Line)
	l.add(f)
}

// findSpec finds where a file writes a module specifier, for an import
// esbuild gave no place for; 1:1 when it is not found.
func (l *linter) findSpec(file, spec string) (int, int) {
	if sf := l.file(file); sf != nil {
		for _, t := range sf.lex().toks {
			if t.kind == tokString && t.text == spec {
				return sf.li.pos(t.off)
			}
		}
	}
	return 1, 1
}

func (l *linter) lineOf(file string, line int) string {
	if sf := l.file(file); sf != nil {
		return strings.TrimSpace(sf.li.lineText(line))
	}
	return ""
}

// sourceFile is one file the rules read.
type sourceFile struct {
	abs  string
	src  string
	li   *lineIndex
	once sync.Once
	lx   *lexed
}

func (f *sourceFile) lex() *lexed {
	f.once.Do(func() { f.lx = lex(f.src) })
	return f.lx
}

// file reads a file once; nil when it cannot be read.
func (l *linter) file(p string) *sourceFile {
	l.mu.Lock()
	defer l.mu.Unlock()
	if f, ok := l.files[p]; ok {
		return f
	}
	data, err := os.ReadFile(p)
	if err != nil {
		l.files[p] = nil
		return nil
	}
	f := &sourceFile{abs: p, src: string(data), li: newLineIndex(string(data))}
	l.files[p] = f
	return f
}
