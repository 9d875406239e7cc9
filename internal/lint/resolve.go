package lint

import (
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/evanw/esbuild/pkg/api"
)

// resolver finds the file a relative import names, the way esbuild's
// resolver does for a plain file, reading each folder once. esbuild's
// own resolver, as a plugin can call it, starts afresh on every call and
// lists the importer's folder each time: a folder of n modules importing
// one another would cost n listings of n names. Anything it does not
// answer for certain (a folder with an index or a package.json, a query
// suffix, a path in node_modules, a CSS import, a name in another case)
// goes to esbuild's resolver, whose answers are kept per folder and
// specifier.
type resolver struct {
	mu    sync.Mutex
	dirs  map[string]map[string]os.DirEntry // folder -> its entries by name; nil when unreadable
	reals map[string]string                 // path -> real path
	cache map[resolveKey]api.ResolveResult
}

type resolveKey struct {
	dir, spec string
	kind      api.ResolveKind
}

func newResolver() *resolver {
	return &resolver{dirs: map[string]map[string]os.DirEntry{}, reals: map[string]string{}, cache: map[resolveKey]api.ResolveResult{}}
}

// resolveExtensions is esbuild's default extension order, and
// rewrittenExtensions its TypeScript rewrites ("./x.js" names x.ts).
var (
	resolveExtensions   = []string{".tsx", ".ts", ".jsx", ".js", ".css", ".json"}
	rewrittenExtensions = map[string][]string{".js": {".ts", ".tsx"}, ".jsx": {".ts", ".tsx"}, ".mjs": {".mts"}, ".cjs": {".cts"}}
)

// relative resolves a relative specifier to a file's real path; false
// when it cannot tell for certain.
func (r *resolver) relative(dir, spec string, kind api.ResolveKind) (string, bool) {
	switch kind {
	case api.ResolveJSImportStatement, api.ResolveJSRequireCall, api.ResolveJSDynamicImport, api.ResolveJSRequireResolve:
	default:
		return "", false
	}
	if !strings.HasPrefix(spec, "./") && !strings.HasPrefix(spec, "../") || strings.ContainsAny(spec, "?#\\") ||
		strings.HasSuffix(spec, "/") || strings.HasSuffix(spec, "/.") || strings.HasSuffix(spec, "/..") {
		return "", false
	}
	p := filepath.Join(dir, filepath.FromSlash(spec))
	if strings.Contains(filepath.ToSlash(p), "/node_modules/") {
		return "", false // esbuild tries other extensions first there
	}
	folder, base := filepath.Dir(p), filepath.Base(p)
	entries := r.list(folder)
	if entries == nil {
		return "", false
	}
	try := func(name string) (string, bool) {
		e, ok := entries[name]
		if !ok {
			return "", false
		}
		full := filepath.Join(folder, name)
		if e.Type()&os.ModeSymlink != 0 {
			st, err := os.Stat(full)
			if err != nil || st.IsDir() {
				return "", false
			}
		} else if e.IsDir() {
			return "", false
		}
		real, ok := r.real(full)
		return real, ok
	}
	if f, ok := try(base); ok {
		return f, true
	}
	for _, ext := range resolveExtensions {
		if f, ok := try(base + ext); ok {
			return f, true
		}
	}
	if ext := filepath.Ext(base); ext != "" {
		for _, to := range rewrittenExtensions[ext] {
			if f, ok := try(strings.TrimSuffix(base, ext) + to); ok {
				return f, true
			}
		}
	}
	return "", false
}

// list returns a folder's entries by name, read once.
func (r *resolver) list(dir string) map[string]os.DirEntry {
	r.mu.Lock()
	m, ok := r.dirs[dir]
	r.mu.Unlock()
	if ok {
		return m
	}
	if ents, err := os.ReadDir(dir); err == nil {
		m = make(map[string]os.DirEntry, len(ents))
		for _, e := range ents {
			m[e.Name()] = e
		}
	}
	r.mu.Lock()
	r.dirs[dir] = m
	r.mu.Unlock()
	return m
}

// real returns the path with every symbolic link in it followed, as
// esbuild names files; its folder's answer is kept.
func (r *resolver) real(p string) (string, bool) {
	dir := filepath.Dir(p)
	r.mu.Lock()
	rd, ok := r.reals[dir]
	r.mu.Unlock()
	if !ok {
		var err error
		if rd, err = filepath.EvalSymlinks(dir); err != nil {
			rd = ""
		}
		r.mu.Lock()
		r.reals[dir] = rd
		r.mu.Unlock()
	}
	if rd == "" {
		return "", false
	}
	full := filepath.Join(rd, filepath.Base(p))
	if st, err := os.Lstat(full); err != nil {
		return "", false
	} else if st.Mode()&os.ModeSymlink != 0 {
		real, err := filepath.EvalSymlinks(full)
		return real, err == nil
	}
	return full, true
}

// esbuild resolves with esbuild's own resolver; answers are kept per
// folder, specifier and kind, which are all a resolution depends on.
func (r *resolver) esbuild(b api.PluginBuild, a api.OnResolveArgs, marker any) api.ResolveResult {
	k := resolveKey{a.ResolveDir, a.Path, a.Kind}
	r.mu.Lock()
	res, ok := r.cache[k]
	r.mu.Unlock()
	if ok {
		return res
	}
	res = b.Resolve(a.Path, api.ResolveOptions{Importer: a.Importer, Namespace: a.Namespace, ResolveDir: a.ResolveDir, Kind: a.Kind, PluginData: marker, With: a.With})
	r.mu.Lock()
	r.cache[k] = res
	r.mu.Unlock()
	return res
}
