package blocks

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/bsadapter/bsadapter/internal/filekind"
)

// upstreamRe is the header of a better-supabase module file:
// "-- @bs-module NAME@VERSION MODE" (mode managed or custom).
var upstreamRe = regexp.MustCompile(`(?m)^--[ \t]*@bs-module[ \t]+([a-z0-9][a-z0-9_-]*)@([0-9]+)(?:[ \t]+([a-z]+))?[ \t]*$`)

// LoadDir reads the modules of another implementation from the .sql files
// of dir (not its subfolders): files with bsadapter's header ("--
// bsadapter block: NAME", "-- version: N", "-- requires: ...", "-- mode:
// ...") or better-supabase's ("-- @bs-module NAME@VERSION MODE", as in a
// checkout's supabase/schemas/). Other .sql files are left out. The
// embedded supabase-base and access modules are added when dir has none of
// that name, so the folder's modules install on plain PostgreSQL.
//
// A better-supabase file names no dependencies: each such module requires
// supabase-base, access and the better-supabase module of the file before
// it (the files load in name order, as upstream's do).
func LoadDir(dir string) (*Set, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("blocks: the modules folder %s: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("blocks: %s is not a folder (give the folder that holds the modules' .sql files)", dir)
	}
	paths, err := filepath.Glob(filepath.Join(abs, "*.sql"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	byName := map[string]Module{}
	prevUpstream := ""
	for _, p := range paths {
		b, err := readModuleFile(p)
		if err != nil {
			return nil, err
		}
		m, ok, err := parseDirModule(p, string(b), prevUpstream)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if other, dup := byName[m.Name]; dup {
			return nil, fmt.Errorf("blocks: %s and %s both define module %s: keep one of them in %s", other.File, p, m.Name, dir)
		}
		if upstreamRe.MatchString(m.SQL) {
			prevUpstream = m.Name
		}
		byName[m.Name] = m
	}
	if len(byName) == 0 {
		return nil, fmt.Errorf("blocks: %s has no module: no .sql file starts with a '-- bsadapter block: NAME' or '-- @bs-module NAME@VERSION MODE' header", dir)
	}
	for _, name := range []string{BaseModule, AccessModule} {
		if _, ok := byName[name]; ok {
			continue
		}
		for _, m := range embedded.modules {
			if m.Name == name {
				byName[name] = m
			}
		}
	}
	mods, err := dependencyOrder(byName)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, dir)
	}
	return &Set{modules: mods, registry: embedded.registry, source: abs}, nil
}

// MaxModuleSize is the largest .sql file LoadDir reads. The largest
// embedded module is about a hundred KiB; a file many times that size is
// not a module (a device, a dump), and reading it whole could take all the
// memory there is.
const MaxModuleSize = 8 << 20

// readModuleFile reads one .sql file of a modules folder: a regular file
// (or a link to one) of at most MaxModuleSize bytes. Anything else is
// refused before it is read: a named pipe would block the open until a
// writer comes, and a device such as /dev/zero never ends.
func readModuleFile(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("blocks: %s: %w", path, unwrapPath(err))
	}
	if err := checkModuleFile(path, st); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("blocks: %s: %w", path, unwrapPath(err))
	}
	defer f.Close()
	// Replaced by something else since the look above?
	if st, err = f.Stat(); err != nil {
		return nil, fmt.Errorf("blocks: %s: %w", path, unwrapPath(err))
	}
	if err := checkModuleFile(path, st); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxModuleSize+1))
	if err != nil {
		return nil, fmt.Errorf("blocks: %s: %w", path, unwrapPath(err))
	}
	if len(b) > MaxModuleSize {
		return nil, tooBig(path)
	}
	return b, nil
}

// checkModuleFile refuses what is not a regular file of a module's size.
func checkModuleFile(path string, st os.FileInfo) error {
	mode := st.Mode()
	if !mode.IsRegular() {
		what := filekind.Of(mode)
		if target, err := os.Readlink(path); err == nil {
			what += " (it links to " + target + ")"
		}
		return fmt.Errorf("blocks: %s is %s, not a module's SQL file: remove it from the folder, or rename it so that it does not end in .sql", path, what)
	}
	if st.Size() > MaxModuleSize {
		return tooBig(path)
	}
	return nil
}

func tooBig(path string) error {
	return fmt.Errorf("blocks: %s is larger than %d MiB, far more than a module's SQL: remove it from the folder, or rename it so that it does not end in .sql", path, MaxModuleSize>>20)
}

// unwrapPath drops the *fs.PathError around err: the messages name the
// file themselves.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// parseDirModule reads one file's header, bsadapter's or
// better-supabase's; ok is false for a file with neither.
func parseDirModule(path, sql, prevUpstream string) (m Module, ok bool, err error) {
	h := upstreamRe.FindStringSubmatch(sql)
	if h == nil {
		return parseHeader(path, sql)
	}
	m = Module{SQL: sql, File: path, Name: h[1], Version: h[2], Mode: "managed", Requires: []string{BaseModule, AccessModule}}
	if h[3] != "" {
		m.Mode = h[3]
	}
	if prevUpstream != "" {
		m.Requires = append(m.Requires, prevUpstream)
	}
	m.Functions = publicFunctions(sql)
	return m, true, checkHeader(m)
}

// parseHeader reads bsadapter's module header ("-- bsadapter block:
// NAME", "-- version: N", "-- requires: A, B", "-- mode: managed|custom")
// and finds the functions the module defines; ok is false when sql names
// no module. It is the one reader of that header, for the embedded
// modules and for a folder of others alike.
func parseHeader(path, sql string) (m Module, ok bool, err error) {
	m = Module{SQL: sql, File: path, Mode: "managed", Requires: []string{}}
	for _, at := range headerRe.FindAllStringSubmatchIndex(sql, -1) {
		if at[0] > 0 && sql[at[0]-1] != '\n' {
			continue
		}
		key, v := sql[at[2]:at[3]], strings.TrimSpace(sql[at[4]:at[5]])
		switch key {
		case "bsadapter block":
			m.Name = v
		case "version":
			m.Version = v
		case "mode":
			m.Mode = v
		case "requires":
			m.Requires = append(m.Requires, strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' })...)
		case "needs-extension":
			exts, err := parseExtensions(v)
			if err != nil {
				return m, true, fmt.Errorf("blocks: %s: %v", path, err)
			}
			m.Extensions = append(m.Extensions, exts...)
		}
	}
	if m.Name == "" {
		return m, false, nil
	}
	m.Functions = publicFunctions(sql)
	return m, true, checkHeader(m)
}

// checkHeader checks a module's version and mode.
func checkHeader(m Module) error {
	if n, err := strconv.Atoi(m.Version); err != nil || n < 1 {
		return fmt.Errorf("blocks: %s: module %s has version %q; give a positive integer (-- version: 1)", m.File, m.Name, m.Version)
	}
	if m.Mode != "managed" && m.Mode != "custom" {
		return fmt.Errorf("blocks: %s: module %s has mode %q; use managed or custom", m.File, m.Name, m.Mode)
	}
	return nil
}
