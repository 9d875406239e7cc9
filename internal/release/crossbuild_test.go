package release

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/internal/testenv"
)

// TestEveryPlatformDefinesWhatItUses is the cheap half of the cross
// builds: for every package of the module and every platform the release
// ships (without cgo, as the release builds), the files that platform
// compiles must define every package-level name they use that some other
// platform's files define. That is the usual way a Linux-only change
// breaks the Windows or macOS build (a helper written in a _linux.go file
// and called from a shared one), found in milliseconds instead of three
// cold cross compilations. scripts/release-check still builds all six
// targets for real, which also catches a missing symbol of the standard
// library on one platform.
func TestEveryPlatformDefinesWhatItUses(t *testing.T) {
	root := testenv.RepoRoot(t)
	dirs := goPackageDirs(t, root)
	if len(dirs) < 10 {
		t.Fatalf("found only %d package folders under %s; the walk is broken", len(dirs), root)
	}
	checked := 0
	for _, dir := range dirs {
		rel, _ := filepath.Rel(root, dir)
		for _, p := range Platforms {
			missing, files := undefinedOn(t, dir, p[0], p[1])
			if files == 0 {
				continue
			}
			checked++
			for _, m := range missing {
				t.Errorf("%s on %s/%s: %s is used but defined only for other platforms (add it to a file built there, or narrow the caller's build constraint)", rel, p[0], p[1], m)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no package was checked")
	}
}

// TestUndefinedOnFindsAPlatformGap makes sure the check above can fail: a
// package whose shared file calls a function defined only for Linux.
func TestUndefinedOnFindsAPlatformGap(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.go", "package x\n\nfunc Use() int { return helper() + shared }\n")
	write("b_linux.go", "package x\n\nfunc helper() int { return 1 }\n")
	write("c.go", "package x\n\nvar shared = 2\n")
	if missing, _ := undefinedOn(t, dir, "linux", "amd64"); len(missing) != 0 {
		t.Errorf("linux: want nothing missing, got %v", missing)
	}
	missing, _ := undefinedOn(t, dir, "windows", "amd64")
	if !slices.Equal(missing, []string{"helper (used in a.go)"}) {
		t.Errorf("windows: want helper missing, got %v", missing)
	}
	write("b_other.go", "//go:build !linux\n\npackage x\n\nfunc helper() int { return 0 }\n")
	if missing, _ := undefinedOn(t, dir, "windows", "amd64"); len(missing) != 0 {
		t.Errorf("windows with b_other.go: want nothing missing, got %v", missing)
	}
}

// goPackageDirs lists the folders under root holding .go files, leaving
// out testdata, node_modules and hidden folders as the go command does.
func goPackageDirs(t *testing.T, root string) []string {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") {
			seen[filepath.Dir(path)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	dirs := make([]string, 0, len(seen))
	for d := range seen {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	return dirs
}

// undefinedOn returns the package-level names that dir's files for
// goos/goarch use (test files included) without defining them, among the
// names that the package's files for any platform define, and how many
// files that platform compiles.
func undefinedOn(t *testing.T, dir, goos, goarch string) ([]string, int) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := build.Default
	ctx.GOOS, ctx.GOARCH, ctx.CgoEnabled = goos, goarch, false
	fset := token.NewFileSet()
	// Package clauses split a folder into the package and its _test
	// package; each is checked on its own.
	definedAnywhere := map[string]map[string]bool{}
	definedHere := map[string]map[string]bool{}
	type use struct{ pkg, name, file string }
	var uses []use
	files := 0
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("%s: %v", filepath.Join(dir, name), err)
		}
		pkg := f.Name.Name
		if definedAnywhere[pkg] == nil {
			definedAnywhere[pkg], definedHere[pkg] = map[string]bool{}, map[string]bool{}
		}
		decls := topLevelNames(f)
		for _, n := range decls {
			definedAnywhere[pkg][n] = true
		}
		match, err := ctx.MatchFile(dir, name)
		if err != nil {
			t.Fatalf("%s: %v", filepath.Join(dir, name), err)
		}
		if !match {
			continue
		}
		files++
		for _, n := range decls {
			definedHere[pkg][n] = true
		}
		// A second parse with resolution: what a file cannot resolve on
		// its own is a package-level name, a universe name or an import.
		rf, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range rf.Unresolved {
			uses = append(uses, use{pkg, id.Name, name})
		}
	}
	var missing []string
	reported := map[string]bool{}
	for _, u := range uses {
		if definedAnywhere[u.pkg][u.name] && !definedHere[u.pkg][u.name] && !reported[u.name] {
			reported[u.name] = true
			missing = append(missing, u.name+" (used in "+u.file+")")
		}
	}
	sort.Strings(missing)
	return missing, files
}

// topLevelNames lists what a file declares at package level (methods are
// reached through their type and left out).
func topLevelNames(f *ast.File) []string {
	var names []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				names = append(names, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					names = append(names, s.Name.Name)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						names = append(names, n.Name)
					}
				}
			}
		}
	}
	return names
}
