package lint

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/bsadapter/bsadapter/internal/config"
	"github.com/bsadapter/bsadapter/internal/filekind"
)

// packageDir is the better-supabase package inside a checkout.
const packageDir = "packages/better-supabase"

// packageJSON is the part of a package.json the rules read.
type packageJSON struct {
	Name                 string                     `json:"name"`
	Main                 string                     `json:"main"`
	Module               string                     `json:"module"`
	Exports              json.RawMessage            `json:"exports"`
	Dependencies         map[string]json.RawMessage `json:"dependencies"`
	PeerDependencies     map[string]json.RawMessage `json:"peerDependencies"`
	PeerDependenciesMeta map[string]json.RawMessage `json:"peerDependenciesMeta"`
}

// target is an adapter located on disk, ready to lint.
type target struct {
	kind, name string
	root       string // absolute; findings are relative to it
	pkgDir     string // the folder holding package.json
	pkgPath    string // package.json
	pkgData    []byte
	pkg        packageJSON
	keys       map[string]int // package.json key offsets
	srcDirs    []string       // folders whose every file is the adapter's source
	entries    []string       // absolute entry files
	sdks       []string
	// names an engine's SQL module may be named after
	engineNames []string
	// bsExports are better-supabase's export subpaths ("." , "./streams",
	// ...), nil when its package.json is not at hand.
	bsExports []string
	// bsSources are, inside a checkout, the source files its exports
	// point at (absolute): what another folder of src may import.
	bsSources map[string]bool
}

func readPackage(p string) ([]byte, packageJSON, error) {
	var pkg packageJSON
	data, err := readFile(p)
	if err != nil {
		return nil, pkg, refusalToUsage(err)
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := newLineIndex(string(data)).pos(int(max(se.Offset-1, 0)))
			return nil, pkg, usagef("fix the JSON", "%s:%d:%d: %v", SafeName(p), line, col, err)
		}
		return nil, pkg, usagef("fix the JSON", "%s: %v", SafeName(p), err)
	}
	return data, pkg, nil
}

// findCheckout returns the better-supabase checkout holding dir, if any.
func findCheckout(dir string) (string, bool, error) {
	for d := dir; ; d = filepath.Dir(d) {
		p := filepath.Join(d, filepath.FromSlash(packageDir), "package.json")
		ok, err := regularFile(p)
		if err != nil {
			return "", false, refusalToUsage(err)
		}
		if ok {
			if data, err := readFile(p); err == nil {
				var p struct {
					Name string `json:"name"`
				}
				if json.Unmarshal(data, &p) == nil && p.Name == "better-supabase" {
					return d, true, nil
				}
			}
		}
		if filepath.Dir(d) == d {
			return "", false, nil
		}
	}
}

// checkConfigFiles refuses a named pipe or a device where esbuild reads
// a package's settings (package.json, tsconfig.json) in dir and the
// folders above it: esbuild would wait on it for ever.
func checkConfigFiles(dir string) error {
	for d := dir; ; d = filepath.Dir(d) {
		for _, name := range []string{"package.json", "tsconfig.json", "jsconfig.json"} {
			if _, err := regularFile(filepath.Join(d, name)); err != nil {
				var r *refusedFile
				if errors.As(err, &r) {
					return r.usage()
				}
			}
		}
		if filepath.Dir(d) == d {
			return nil
		}
	}
}

func resolveTarget(opts Options) (*target, error) {
	dir := opts.Dir
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, usagef("pass the adapter's folder", "%s: %v", dir, unwrapPathErr(err))
	}
	// esbuild reports files by their real paths; the folder must be named
	// the same way, or its imports would not be matched to its files.
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	if !st.IsDir() {
		return nil, usagef("pass the adapter's folder", "%s %s", dir, filekind.IsNot(st.Mode(), filekind.Folder))
	}
	co, inCheckout, err := findCheckout(abs)
	if err != nil {
		return nil, err
	}
	var t *target
	if inCheckout {
		t, err = subpathTarget(co, abs, dir)
	} else {
		t, err = packageTarget(abs, dir)
	}
	if err != nil {
		return nil, err
	}
	if err := checkConfigFiles(t.pkgDir); err != nil {
		return nil, err
	}
	t.keys = jsonKeyOffsets(t.pkgData)

	var cfg *config.Config
	if t.kind == "subpath" {
		p := filepath.Join(t.pkgDir, "tests", t.name, config.FileName)
		if cfg, err = loadConfig(p); err != nil {
			return nil, err
		}
	} else {
		// Only the package's own: a bsadapter.json further up belongs
		// to something else.
		if cfg, err = loadConfig(filepath.Join(abs, config.FileName)); err != nil {
			return nil, err
		}
	}
	t.engineNames = []string{t.name}
	if cfg != nil && cfg.Name != "" {
		t.engineNames = append(t.engineNames, cfg.Name)
	}
	switch {
	case len(opts.SDKs) > 0:
		t.sdks = opts.SDKs
	default:
		if cfg != nil && cfg.SDK != "" {
			t.sdks = append(t.sdks, cfg.SDK)
		}
		if t.kind == "package" {
			for name := range t.pkg.PeerDependencies {
				if name != "better-supabase" {
					t.sdks = append(t.sdks, name)
				}
			}
		}
	}
	t.sdks = uniqueSorted(t.sdks)
	if len(t.sdks) == 0 {
		return nil, usagef("pass --sdk PACKAGE, or set \"sdk\" in bsadapter.json", "cannot tell which package is the SDK: no --sdk, no sdk in bsadapter.json and no peer dependency besides better-supabase")
	}
	for _, s := range t.sdks {
		t.engineNames = append(t.engineNames, sdkNames(s)...)
	}
	return t, nil
}

// loadConfig loads a bsadapter.json, nil when there is none. It looks
// first: config.Load would wait for ever on a named pipe.
func loadConfig(p string) (*config.Config, error) {
	ok, err := regularFile(p)
	if err != nil {
		return nil, refusalToUsage(err)
	}
	if !ok {
		return nil, nil
	}
	cfg, err := config.Load(p)
	if err != nil {
		return nil, usagef("fix bsadapter.json", "%v", err)
	}
	return cfg, nil
}

func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func uniqueSorted(s []string) []string {
	sort.Strings(s)
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// sdkNames are the words of an SDK's package name an engine module may
// be named after: "@temporalio/client" gives temporalio and client.
func sdkNames(sdk string) []string {
	sdk = strings.TrimPrefix(sdk, "@")
	return strings.Split(sdk, "/")
}

var subpathDirRe = regexp.MustCompile(`^` + packageDir + `/(src|tests)/([^/]+)(/|$)`)

func subpathTarget(checkout, abs, dir string) (*target, error) {
	rel, _ := filepath.Rel(checkout, abs)
	rel = filepath.ToSlash(rel)
	m := subpathDirRe.FindStringSubmatch(rel + "/")
	if m == nil {
		return nil, usagef("pass "+packageDir+"/src/NAME or "+packageDir+"/tests/NAME (or run from there)",
			"%s is inside a better-supabase checkout (%s) but not in an adapter's folder", dir, checkout)
	}
	t := &target{kind: "subpath", name: m[2], root: checkout, pkgDir: filepath.Join(checkout, filepath.FromSlash(packageDir))}
	t.pkgPath = filepath.Join(t.pkgDir, "package.json")
	var err error
	if t.pkgData, t.pkg, err = readPackage(t.pkgPath); err != nil {
		return nil, err
	}
	src := filepath.Join(t.pkgDir, "src", t.name)
	if st, err := os.Stat(src); err != nil || !st.IsDir() {
		return nil, usagef("scaffold it with 'bsadapter new "+t.name+"' or pass the right folder", "the subpath %s has no source folder %s", t.name, filepath.Join(packageDir, "src", t.name))
	}
	t.srcDirs = []string{src}

	// The entry is what the export entry's source condition names; an
	// entry that is missing or malformed is reported by export-entry, and
	// the module graph still starts from src/NAME/index.ts.
	exports := exportsMap(t.pkg.Exports)
	t.bsExports = sortedKeys(exports)
	t.bsSources = map[string]bool{}
	for _, raw := range exports {
		var cond map[string]json.RawMessage
		if json.Unmarshal(raw, &cond) == nil {
			var s string
			if json.Unmarshal(cond["@better-supabase/source"], &s) == nil && s != "" {
				t.bsSources[filepath.Join(t.pkgDir, filepath.FromSlash(s))] = true
			}
		}
	}
	entry := filepath.Join(src, "index.ts")
	if raw, ok := exports["./"+t.name]; ok {
		var cond map[string]json.RawMessage
		var s string
		if json.Unmarshal(raw, &cond) == nil && json.Unmarshal(cond["@better-supabase/source"], &s) == nil && s != "" {
			if p := filepath.Join(t.pkgDir, filepath.FromSlash(s)); fileExists(p) {
				entry = p
			}
		}
	}
	real, err := entryFile(entry)
	if err != nil {
		return nil, err
	}
	if real == "" {
		return nil, usagef("add src/"+t.name+"/index.ts, the subpath's public surface", "the subpath %s has no entry point %s", t.name, relSlash(checkout, entry))
	}
	t.entries = []string{real}
	return t, nil
}

func packageTarget(abs, dir string) (*target, error) {
	t := &target{kind: "package", root: abs, pkgDir: abs, pkgPath: filepath.Join(abs, "package.json")}
	if ok, err := regularFile(t.pkgPath); err != nil {
		return nil, refusalToUsage(err)
	} else if !ok {
		return nil, usagef("run it in the adapter's folder, or pass the folder that holds its package.json", "%s has no package.json", dir)
	}
	var err error
	if t.pkgData, t.pkg, err = readPackage(t.pkgPath); err != nil {
		return nil, err
	}
	t.name = t.pkg.Name
	if t.name == "" {
		t.name = filepath.Base(abs)
	}
	if i := strings.LastIndexByte(t.name, '/'); i >= 0 {
		t.name = t.name[i+1:]
	}
	out, rootDir, err := buildDirs(abs)
	if err != nil {
		return nil, err
	}

	var targets []string
	if len(t.pkg.Exports) > 0 {
		targets = exportTargets(t.pkg.Exports)
	}
	if len(targets) == 0 {
		for _, s := range []string{t.pkg.Main, t.pkg.Module} {
			if s != "" {
				targets = append(targets, s)
			}
		}
	}
	if len(targets) == 0 {
		targets = []string{"index.js"}
	}
	seen := map[string]bool{}
	// The folders the entries live in (src, lib, ...) hold the adapter's
	// source; an entry at the top only brings the files it imports. An
	// entry that is a link counts where the link is.
	dirs := map[string]bool{}
	for _, tg := range targets {
		p, ok := sourceFor(abs, tg, out, rootDir)
		if !ok {
			return nil, usagef("build the package, or fix exports/main in package.json", "the entry point %s in package.json has no file: neither %s nor a source file for it exists", SafeText(clip(tg)), SafeText(clip(path.Clean(tg))))
		}
		rel, _ := filepath.Rel(abs, p)
		if first, _, ok := strings.Cut(filepath.ToSlash(rel), "/"); ok && first != "node_modules" && first != ".." {
			dirs[filepath.Join(abs, first)] = true
		}
		real, err := entryFile(p)
		if err != nil {
			return nil, err
		}
		if !seen[real] {
			seen[real] = true
			t.entries = append(t.entries, real)
		}
	}
	t.srcDirs = sortedKeys(dirs)

	if p, ok := findUp(abs, filepath.Join("node_modules", "better-supabase", "package.json")); ok {
		if _, err := regularFile(p); err != nil {
			return nil, refusalToUsage(err)
		}
		if _, bs, err := readPackage(p); err == nil {
			t.bsExports = sortedKeys(exportsMap(bs.Exports))
		}
	}
	return t, nil
}

func findUp(dir, rel string) (string, bool) {
	for d := dir; ; d = filepath.Dir(d) {
		if p := filepath.Join(d, rel); fileExists(p) {
			return p, true
		}
		if filepath.Dir(d) == d {
			return "", false
		}
	}
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// entryFile returns the real path of an entry point, its symbolic links
// followed as esbuild and Node follow them, wherever they lead (a link
// out of the package leads to the file that runs); "" when there is no
// file. A link loop or a dangling link is an error that names it.
func entryFile(p string) (string, error) {
	if lst, err := os.Lstat(p); err != nil {
		return "", nil
	} else if lst.Mode()&os.ModeSymlink == 0 {
		if lst.IsDir() {
			return "", nil
		}
		real, err := filepath.EvalSymlinks(p) // a linked folder above it
		if err != nil {
			return p, nil
		}
		return real, nil
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		if _, serr := os.Stat(p); isLoop(serr) {
			return "", usagef("point the link at the entry's source file", "the entry point %s is a symbolic link loop", SafeName(displayPath(p)))
		}
		target, _ := os.Readlink(p)
		return "", usagef("point the link at the entry's source file, or remove it", "the entry point %s is a symbolic link to %s, which does not exist", SafeName(displayPath(p)), SafeName(target))
	}
	if st, err := os.Stat(real); err != nil || st.IsDir() {
		return "", usagef("point the link at the entry's source file", "the entry point %s is a symbolic link to the folder %s, not to a file", SafeName(displayPath(p)), SafeName(displayPath(real)))
	}
	return real, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// exportsMap returns a package's exports as subpath -> conditions; the
// shorthand forms (a string, or conditions without subpaths) are ".".
func exportsMap(raw json.RawMessage) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(raw)) == 0 {
		return out
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		out["."] = raw
		return out
	}
	for k := range m {
		if !strings.HasPrefix(k, ".") {
			out["."] = raw
			return out
		}
	}
	return m
}

// exportTargets lists the files the exports point at for running code:
// every condition but "types", no declaration files, no patterns.
func exportTargets(raw json.RawMessage) []string {
	var out []string
	var walk func(json.RawMessage)
	walk = func(v json.RawMessage) {
		var s string
		if json.Unmarshal(v, &s) == nil {
			if !strings.Contains(s, "*") && !strings.HasSuffix(s, ".d.ts") && !strings.HasSuffix(s, ".json") && isScript(s) {
				out = append(out, s)
			}
			return
		}
		var arr []json.RawMessage
		if json.Unmarshal(v, &arr) == nil {
			for _, a := range arr {
				walk(a)
			}
			return
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(v, &m) == nil {
			for _, k := range orderedKeys(v) {
				if k != "types" {
					walk(m[k])
				}
			}
		}
	}
	for _, cond := range exportsMap(raw) {
		walk(cond)
	}
	sort.Strings(out)
	return out
}

var scriptExts = []string{".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"}

func isScript(p string) bool {
	for _, e := range scriptExts {
		if strings.HasSuffix(p, e) {
			return !strings.HasSuffix(p, ".d.ts") && !strings.HasSuffix(p, ".d.mts") && !strings.HasSuffix(p, ".d.cts")
		}
	}
	return false
}

// buildDirs reads outDir and rootDir from tsconfig.build.json or
// tsconfig.json (dist and src when neither says).
func buildDirs(dir string) (out, root string, err error) {
	out, root = "dist", "src"
	for _, name := range []string{"tsconfig.build.json", "tsconfig.json"} {
		data, err := readFile(filepath.Join(dir, name))
		var r *refusedFile
		if errors.As(err, &r) {
			return "", "", r.usage()
		}
		if err != nil {
			continue
		}
		var tc struct {
			CompilerOptions struct {
				OutDir  string `json:"outDir"`
				RootDir string `json:"rootDir"`
			} `json:"compilerOptions"`
		}
		if json.Unmarshal(stripJSONC(data), &tc) != nil {
			continue
		}
		if tc.CompilerOptions.OutDir != "" {
			out = path.Clean(tc.CompilerOptions.OutDir)
		}
		if tc.CompilerOptions.RootDir != "" && path.Clean(tc.CompilerOptions.RootDir) != "." {
			root = path.Clean(tc.CompilerOptions.RootDir)
		}
		return out, root, nil
	}
	return out, root, nil
}

// stripJSONC removes // and /* */ comments and trailing commas, which
// tsconfig files allow.
func stripJSONC(data []byte) []byte {
	var b bytes.Buffer
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(data) && data[j] != '"' {
				if data[j] == '\\' {
					j++
				}
				j++
			}
			b.Write(data[i:min(j+1, len(data))])
			i = j
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			b.WriteByte('\n')
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			end := bytes.Index(data[i+2:], []byte("*/"))
			if end < 0 {
				i = len(data)
			} else {
				i += end + 3
			}
		default:
			b.WriteByte(c)
		}
	}
	return regexp.MustCompile(`,(\s*[}\]])`).ReplaceAll(b.Bytes(), []byte("$1"))
}

// sourceFor finds the file to start from for an entry target: the
// TypeScript source a built file comes from (dist/x.js -> src/x.ts), else
// the target itself when it exists.
func sourceFor(pkgDir, tg, outDir, rootDir string) (string, bool) {
	clean := path.Clean(strings.TrimPrefix(tg, "./"))
	if strings.HasPrefix(clean, "../") || path.IsAbs(clean) {
		return "", false
	}
	var cands []string
	if rest, ok := strings.CutPrefix(clean, outDir+"/"); ok {
		base := path.Join(rootDir, rest)
		stem := strings.TrimSuffix(base, path.Ext(base))
		switch path.Ext(base) {
		case ".mjs":
			cands = append(cands, stem+".mts")
		case ".cjs":
			cands = append(cands, stem+".cts")
		default:
			cands = append(cands, stem+".ts", stem+".tsx")
		}
		cands = append(cands, base)
	}
	cands = append(cands, clean)
	for _, c := range cands {
		p := filepath.Join(pkgDir, filepath.FromSlash(c))
		// A link counts even when it leads nowhere: entryFile says so.
		if st, err := os.Lstat(p); err == nil && (st.Mode()&os.ModeSymlink != 0 || !st.IsDir()) {
			return p, true
		}
	}
	return "", false
}

func relSlash(root, p string) string {
	r, err := filepath.Rel(root, p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(r)
}
