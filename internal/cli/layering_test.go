package cli_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/internal/testenv"
)

const modulePath = "github.com/bsadapter/bsadapter"

// goPackage is the part of 'go list -json' the layering rules read.
type goPackage struct {
	ImportPath string
	Standard   bool
	Imports    []string
	Deps       []string
}

// layering is what internal/cli/doc.go writes down: the layers, top
// first, the test-support packages and the packages nothing imports. Paths
// are relative to the module.
type layering struct {
	layers  [][]string
	support []string
	leaves  []string
}

// The packages that may know about terminals.
var terminalAllowed = []string{"internal/cli", "internal/scaffold/wizard", "internal/termsetup"}

// terminalLibraries are the import paths (and path prefixes, ending in /)
// of libraries that drive or detect terminals.
var terminalLibraries = []string{
	"github.com/charmbracelet/",
	"github.com/mattn/go-isatty",
	"github.com/mattn/go-colorable",
	"github.com/muesli/termenv",
	"github.com/muesli/cancelreader",
	"github.com/erikgeiser/coninput",
	"github.com/xo/terminfo",
	"github.com/fatih/color",
	"github.com/moby/term",
	"github.com/Azure/go-ansiterm",
	"github.com/containerd/console",
	"github.com/pkg/term",
	"github.com/gdamore/tcell",
	"github.com/rivo/tview",
	"golang.org/x/term",
}

// driverLibraries are the database drivers the command tree leaves to
// the packages below it: what needs a connection lives in pgserver.
var driverLibraries = []string{"github.com/jackc/pgx/"}

func isDriver(path string) bool {
	for _, l := range driverLibraries {
		if strings.HasPrefix(path+"/", l) {
			return true
		}
	}
	return false
}

func isTerminalLibrary(path string) bool {
	for _, l := range terminalLibraries {
		if path == strings.TrimSuffix(l, "/") || strings.HasSuffix(l, "/") && strings.HasPrefix(path, l) {
			return true
		}
	}
	return false
}

// readLayering reads the layering from the package documentation in
// doc.go: its three code blocks, in order.
func readLayering(src []byte) (layering, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", src, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		return layering{}, err
	}
	if f.Doc == nil {
		return layering{}, errors.New("doc.go has no package documentation")
	}
	var p comment.Parser
	var codes [][]string
	for _, b := range p.Parse(f.Doc.Text()).Content {
		if c, ok := b.(*comment.Code); ok {
			var lines []string
			for _, l := range strings.Split(strings.TrimSpace(c.Text), "\n") {
				lines = append(lines, strings.TrimSpace(l))
			}
			codes = append(codes, lines)
		}
	}
	if len(codes) != 3 {
		return layering{}, fmt.Errorf("doc.go has %d indented blocks, want 3 (the layers, test support, and what nothing imports)", len(codes))
	}
	var l layering
	for _, line := range codes[0] {
		l.layers = append(l.layers, strings.Fields(line))
	}
	l.support = strings.Fields(strings.Join(codes[1], " "))
	l.leaves = strings.Fields(strings.Join(codes[2], " "))
	return l, nil
}

// checkLayering returns every way pkgs (the module's packages and their
// non-test imports) depart from l, and the terminal and testing rules.
func checkLayering(pkgs []goPackage, l layering) []string {
	var problems []string
	const (
		inSupport = -1
		inLeaves  = -2
	)
	where := map[string]int{}
	place := func(name string, at int) {
		if _, dup := where[name]; dup {
			problems = append(problems, fmt.Sprintf("%s is listed twice in internal/cli/doc.go", name))
		}
		where[name] = at
	}
	// A layer entry "DIR/*" stands for every package directly below DIR
	// (the conformance suites: a new suite is a package there, and no list
	// needs it added). Its packages may import each other: they are one
	// family, and Go refuses a cycle among them.
	families := map[string]int{}
	for i, layer := range l.layers {
		for _, name := range layer {
			if dir, ok := strings.CutSuffix(name, "/*"); ok {
				families[dir] = i
				continue
			}
			place(name, i)
		}
	}
	family := func(name string) (string, bool) {
		i := strings.LastIndex(name, "/")
		if i < 0 {
			return "", false
		}
		_, ok := families[name[:i]]
		return name[:i], ok
	}
	lookup := func(name string) (int, bool) {
		if at, ok := where[name]; ok {
			return at, true
		}
		if dir, ok := family(name); ok {
			return families[dir], true
		}
		return 0, false
	}
	sameFamily := func(a, b string) bool {
		fa, oka := family(a)
		fb, okb := family(b)
		_, pa := where[a]
		_, pb := where[b]
		return oka && okb && fa == fb && !pa && !pb
	}
	for _, name := range l.support {
		place(name, inSupport)
	}
	for _, name := range l.leaves {
		place(name, inLeaves)
	}
	describe := func(at int) string {
		switch at {
		case inSupport:
			return "test support"
		case inLeaves:
			return "a benchmark or release check"
		}
		return fmt.Sprintf("layer %d", at+1)
	}

	rel := func(path string) (string, bool) {
		if path == modulePath {
			return ".", true
		}
		r, ok := strings.CutPrefix(path, modulePath+"/")
		return r, ok
	}
	seen := map[string]bool{}
	for _, p := range pkgs {
		name, ours := rel(p.ImportPath)
		if !ours {
			continue
		}
		seen[name] = true
		at, placed := lookup(name)
		if !placed {
			problems = append(problems, fmt.Sprintf("%s is in no list of internal/cli/doc.go: add it to the layer it belongs to (or to test support)", name))
			continue
		}
		for _, imp := range p.Imports {
			if name == "internal/cli" && isDriver(imp) {
				problems = append(problems, fmt.Sprintf("internal/cli imports the database driver %s: what needs it belongs in internal/pgserver", imp))
			}
			if isTerminalLibrary(imp) && !slices.Contains(terminalAllowed, name) {
				problems = append(problems, fmt.Sprintf("%s imports the terminal library %s: only %s may", name, imp, strings.Join(terminalAllowed, " and ")))
			}
			dep, ours := rel(imp)
			if !ours {
				continue
			}
			depAt, placed := lookup(dep)
			switch {
			case !placed:
			case sameFamily(name, dep):
				// Reported once, as a package of its own.
			case depAt == inLeaves:
				problems = append(problems, fmt.Sprintf("%s imports %s, which nothing may import", name, dep))
			case depAt == inSupport && at != inSupport:
				problems = append(problems, fmt.Sprintf("%s imports %s, which is test support: only tests may import it", name, dep))
			case at >= 0 && depAt >= 0 && depAt <= at:
				problems = append(problems, fmt.Sprintf("%s (%s) imports %s (%s), against the direction written in internal/cli/doc.go", name, describe(at), dep, describe(depAt)))
			}
		}
		// Below the command tree, not even a library a package uses may
		// drive the terminal.
		if cli, ok := where["internal/cli"]; ok && at > cli && !slices.Contains(terminalAllowed, name) {
			for _, dep := range p.Deps {
				if isTerminalLibrary(dep) && !slices.Contains(p.Imports, dep) {
					problems = append(problems, fmt.Sprintf("%s depends on the terminal library %s through what it imports: only %s may", name, dep, strings.Join(terminalAllowed, " and ")))
					break
				}
			}
		}
		if name == "cmd/bsadapter" && slices.Contains(p.Deps, "testing") {
			problems = append(problems, "cmd/bsadapter links the testing package: 'go list -deps -f \"{{.ImportPath}}: {{.Imports}}\" ./cmd/bsadapter' shows what imports it")
		}
	}
	for name := range where {
		if !seen[name] {
			problems = append(problems, fmt.Sprintf("internal/cli/doc.go lists %s, which is not a package of the module", name))
		}
	}
	slices.Sort(problems)
	return problems
}

// goList runs 'go list -deps -json ./...' at the module's root.
func goList(t *testing.T) []goPackage {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		testenv.Missing(t, "the go command is not on PATH: %v", err)
	}
	cmd := exec.Command(goTool, "list", "-deps", "-json=ImportPath,Standard,Imports,Deps", "./...")
	cmd.Dir = testenv.RepoRoot(t)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []goPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p goPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// Every import of the module's packages runs down the layers written in
// doc.go; only the command tree and the wizard import terminal libraries;
// the binary does not link testing.
func TestLayering(t *testing.T) {
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	l, err := readLayering(src)
	if err != nil {
		t.Fatal(err)
	}
	pkgs := goList(t)
	var ours int
	for _, p := range pkgs {
		if strings.HasPrefix(p.ImportPath, modulePath+"/") {
			ours++
		}
	}
	if ours < 10 {
		t.Fatalf("go list found only %d packages of the module", ours)
	}
	for _, p := range checkLayering(pkgs, l) {
		t.Error(p)
	}
}

// The checks catch what they are for: a graph with one of each fault
// gets one problem for each.
func TestLayeringCatchesFaults(t *testing.T) {
	l := layering{
		layers:  [][]string{{"cmd/bsadapter"}, {"internal/cli"}, {"internal/conform/memstore", "internal/conform/pgstore"}, {"internal/conform/suites/*"}, {"internal/conform"}, {"internal/pgserver", "blocks"}},
		support: []string{"internal/testenv"},
		leaves:  []string{"bench/conform"},
	}
	m := func(rel string) string { return modulePath + "/" + rel }
	pkgs := []goPackage{
		{ImportPath: m("cmd/bsadapter"), Imports: []string{m("internal/cli")}, Deps: []string{"fmt", "testing"}},
		{ImportPath: m("internal/cli"), Imports: []string{m("internal/conform/memstore"), "github.com/charmbracelet/bubbletea", "github.com/jackc/pgx/v5"}},
		{ImportPath: m("internal/conform/memstore"), Imports: []string{m("internal/conform/pgstore"), m("internal/testenv")}},
		{ImportPath: m("internal/conform/pgstore"), Imports: []string{m("internal/conform"), m("internal/pgserver"), m("internal/conform/suites/b")}},
		// A family's packages may import each other, not the layers above.
		{ImportPath: m("internal/conform/suites/a"), Imports: []string{m("internal/conform/suites/b"), m("internal/conform")}},
		{ImportPath: m("internal/conform/suites/b"), Imports: []string{m("internal/conform/pgstore")}},
		{ImportPath: m("internal/conform/suites/b/deeper")},
		{ImportPath: m("internal/conform"), Imports: []string{m("internal/cli"), "golang.org/x/term"}},
		{ImportPath: m("internal/pgserver"), Imports: []string{m("blocks"), m("bench/conform")}, Deps: []string{"github.com/moby/term"}},
		{ImportPath: m("blocks"), Imports: []string{"github.com/mattn/go-isatty"}},
		{ImportPath: m("internal/testenv"), Imports: []string{"testing", m("internal/conform")}},
		{ImportPath: m("bench/conform"), Imports: []string{m("internal/pgserver")}},
		{ImportPath: m("internal/unplaced")},
		{ImportPath: "fmt", Standard: true},
	}
	got := checkLayering(pkgs, l)
	want := []string{
		"cmd/bsadapter links the testing package",
		"internal/conform/memstore (layer 3) imports internal/conform/pgstore (layer 3)",
		"internal/conform/memstore imports internal/testenv, which is test support",
		"internal/conform (layer 5) imports internal/cli (layer 2)",
		"internal/conform/suites/b (layer 4) imports internal/conform/pgstore (layer 3)",
		"internal/conform/suites/b/deeper is in no list",
		"internal/conform imports the terminal library golang.org/x/term",
		"internal/pgserver (layer 6) imports blocks (layer 6)",
		"internal/pgserver imports bench/conform, which nothing may import",
		"internal/pgserver depends on the terminal library github.com/moby/term",
		"blocks imports the terminal library github.com/mattn/go-isatty",
		"internal/unplaced is in no list",
		"internal/cli imports the database driver github.com/jackc/pgx/v5",
	}
	for _, w := range want {
		if !slices.ContainsFunc(got, func(p string) bool { return strings.HasPrefix(p, w) }) {
			t.Errorf("no problem starting %q among:\n%s", w, strings.Join(got, "\n"))
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d problems, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}

	// The doc's lists are read as written, and a doc without them is
	// refused rather than read as an empty rule.
	doc := []byte("// Package x.\n//\n//\ta b\n//\tc\n//\n// Support:\n//\n//\tt\n//\n// Leaves:\n//\n//\tz\npackage x\n")
	l, err := readLayering(doc)
	if err != nil || !slices.Equal(l.layers[0], []string{"a", "b"}) || !slices.Equal(l.layers[1], []string{"c"}) || !slices.Equal(l.support, []string{"t"}) || !slices.Equal(l.leaves, []string{"z"}) {
		t.Errorf("read %+v, %v", l, err)
	}
	if _, err := readLayering([]byte("// Package x has no lists.\npackage x\n")); err == nil {
		t.Error("a doc without the lists was accepted")
	}
}
