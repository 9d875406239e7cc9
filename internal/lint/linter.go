package lint

import (
	"context"
	"io/fs"
	"os"
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
}

func (l *linter) add(f Finding) {
	l.mu.Lock()
	l.findings = append(l.findings, f)
	l.mu.Unlock()
}

// rel is p relative to the report's root, with forward slashes.
func (l *linter) rel(p string) string { return relSlash(l.t.root, p) }

// display is p as an error message shows it: relative to the current
// folder when it is below it.
func (l *linter) display(p string) string {
	if wd, err := os.Getwd(); err == nil && within(p, wd) {
		return relSlash(wd, p)
	}
	return p
}

func (l *linter) run(ctx context.Context) error {
	graph, order, bundles, err := l.buildGraph(ctx)
	if err != nil {
		return err
	}
	sort.Strings(order)
	sources, sqlFiles, err := l.sourceFiles(order)
	if err != nil {
		return err
	}
	l.read = len(sources) + len(sqlFiles)

	// Reading the bundle for require calls is one long pass; the rules
	// on the files' text run beside it.
	var requires map[string][]placedRequire
	done := make(chan struct{})
	go func() {
		defer close(done)
		requires = l.bundleRequires(bundles)
	}()
	l.contentRules(sources)
	l.sqlFiles(sqlFiles)
	<-done
	if err := ctx.Err(); err != nil {
		return err
	}

	var own []string
	for _, file := range order {
		if within(file, l.t.pkgDir) && !strings.Contains(filepath.ToSlash(file), "/node_modules/") {
			own = append(own, file)
		}
	}
	// Each file's edges are its own, so files are placed in parallel.
	parallel(own, func(file string) {
		if f := l.file(file); f != nil {
			l.placeRequires(f, graph[file], requires[file])
		}
	})
	l.eagerImports(graph)
	l.publicExports(graph, order)
	l.packageRules()
	if err := l.engineModules(); err != nil {
		return err
	}
	return ctx.Err()
}

// sourceFiles lists the adapter's source: every script in its source
// folders and every file of the package the module graph reached; and
// the .sql files in the source folders.
func (l *linter) sourceFiles(graphFiles []string) (scripts, sqls []string, err error) {
	set := map[string]bool{}
	for _, f := range graphFiles {
		if l.inPackage(f) && isScript(f) {
			set[f] = true
		}
	}
	for _, dir := range l.t.srcDirs {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if p != dir && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
					return filepath.SkipDir
				}
				return nil
			}
			switch {
			case strings.HasSuffix(p, ".sql"):
				sqls = append(sqls, p)
			case isScript(p):
				set[p] = true
			}
			return nil
		})
		if err != nil {
			return nil, nil, usagef("check the folder's permissions", "reading %s: %v", l.display(dir), err)
		}
	}
	scripts = sortedKeys(set)
	sort.Strings(sqls)
	return scripts, sqls, nil
}

// contentRules runs the rules that read a file's text, files in parallel.
func (l *linter) contentRules(files []string) {
	parallel(files, func(p string) {
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
