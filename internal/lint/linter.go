package lint

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
)

// linter holds one run's state.
type linter struct {
	t        *target
	mu       sync.Mutex
	files    map[string]*sourceFile
	findings []Finding
	ignores  []*directive
	read     int
	// refused are the files l.file would not read (named pipes, files
	// too big); the run fails on them.
	refused []*refusedFile
}

func (l *linter) add(f Finding) {
	l.mu.Lock()
	l.findings = append(l.findings, f)
	l.mu.Unlock()
}

// rel is p relative to the report's root, with forward slashes.
func (l *linter) rel(p string) string { return relSlash(l.t.root, p) }

// display is p as an error message shows it: relative to the current
// folder when it is below it, quoted when it holds characters that do
// not print.
func (l *linter) display(p string) string { return SafeName(displayPath(p)) }

// failure is the run's error once a phase is over: an interruption, or
// the first file (by path) that was refused.
func (l *linter) failure(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.refused) == 0 {
		return nil
	}
	first := l.refused[0]
	for _, r := range l.refused[1:] {
		if r.path < first.path {
			first = r
		}
	}
	return first.usage()
}

func (l *linter) run(ctx context.Context) error {
	// The source folders are walked first: a named pipe or a device
	// there is refused before anything (esbuild included) opens it.
	walked, sqlFiles, err := l.walkSources(ctx)
	if err != nil {
		return err
	}
	graph, order, err := l.buildGraph(ctx)
	if err != nil {
		return err
	}
	sort.Strings(order)
	sources := l.sourceFiles(order, walked)
	l.read = len(sources) + len(sqlFiles)

	l.contentRules(ctx, sources)
	l.sqlFiles(sqlFiles)
	if err := l.failure(ctx); err != nil {
		return err
	}

	var own []string
	for _, file := range order {
		if within(file, l.t.pkgDir) && !strings.Contains(filepath.ToSlash(file), "/node_modules/") {
			own = append(own, file)
		}
	}
	for _, file := range own {
		if l.inPackage(file) {
			l.addElided(graph, file)
		}
	}
	// Each file's edges are its own, so files are placed in parallel.
	parallel(own, func(file string) {
		if ctx.Err() != nil {
			return
		}
		if f := l.file(file); f != nil {
			l.placeRequires(f, graph[file])
		}
	})
	if err := l.failure(ctx); err != nil {
		return err
	}
	l.eagerImports(graph)
	l.publicExports(graph, order)
	l.packageRules()
	if err := l.engineModules(ctx); err != nil {
		return err
	}
	return l.failure(ctx)
}

// walkSources lists the scripts and the .sql files in the adapter's
// source folders, and refuses what in them is not a file or a folder.
func (l *linter) walkSources(ctx context.Context) (scripts, sqls []string, err error) {
	for _, dir := range l.t.srcDirs {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			if d.IsDir() {
				if p != dir && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() {
				// A link, a named pipe, a device: look at what it is.
				st, err := statFile(p)
				if errors.Is(err, fs.ErrNotExist) {
					return nil // a dangling link names nothing to read
				}
				if err != nil {
					return err
				}
				if st.IsDir() {
					return nil // a linked folder is not walked
				}
				if r := checkFile(p, st); r != nil && !st.Mode().IsRegular() {
					return r
				}
			}
			switch {
			case strings.HasSuffix(p, ".sql"):
				sqls = append(sqls, p)
			case isScript(p):
				scripts = append(scripts, p)
			}
			return nil
		})
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			var r *refusedFile
			if errors.As(err, &r) {
				return nil, nil, r.usage()
			}
			return nil, nil, usagef("check the folder's permissions", "reading %s: %v", l.display(dir), err)
		}
	}
	sort.Strings(sqls)
	return scripts, sqls, nil
}

// sourceFiles lists the adapter's source: every script in its source
// folders and every script of the package the module graph reached.
func (l *linter) sourceFiles(graphFiles, walked []string) []string {
	set := map[string]bool{}
	for _, f := range graphFiles {
		if l.inPackage(f) && isScript(f) {
			set[f] = true
		}
	}
	for _, f := range walked {
		set[f] = true
	}
	return sortedKeys(set)
}

// contentRules runs the rules that read a file's text, files in parallel.
func (l *linter) contentRules(ctx context.Context, files []string) {
	parallel(files, func(p string) {
		if ctx.Err() != nil {
			return
		}
		f := l.file(p)
		if f == nil {
			return
		}
		lx := f.lex()
		l.collectIgnores(f, lx.comments, "//")
		l.sqlInStrings(f, lx.toks)
		l.tokenOptions(f, lx.toks)
		l.credentialRefs(f, lx.toks)
	})
}

// parallel calls fn for every item, on as many goroutines as there are
// CPUs to run them.
func parallel(items []string, fn func(string)) {
	work := make(chan string)
	var wg sync.WaitGroup
	for range max(1, min(runtime.GOMAXPROCS(0), len(items))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range work {
				fn(it)
			}
		}()
	}
	for _, it := range items {
		work <- it
	}
	close(work)
	wg.Wait()
}

func (l *linter) report() *Report {
	r := &Report{SchemaVersion: SchemaVersion, Root: l.t.root, Target: Target{Kind: l.t.kind, Name: l.t.name, SDKs: l.t.sdks}, Files: l.read}
	for _, e := range l.t.entries {
		r.Target.Entries = append(r.Target.Entries, l.rel(e))
	}
	kept, suppressed, unused := l.applyIgnores(l.findings)
	sortFindings(kept)
	sortFindings(suppressed)
	r.Findings = append([]Finding{}, kept...)
	r.Suppressed = append([]Finding{}, suppressed...)
	r.UnusedIgnores = unused
	r.OK = len(r.Findings) == 0
	return r
}
