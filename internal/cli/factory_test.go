package cli

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The working directory is read in one place, the workspace provider,
// so that every part of a run sees the same folder.
func TestGetwdOnlyInTheProvider(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || name == "factory.go" {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "Getwd" {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "os" {
					t.Errorf("%s: os.Getwd outside factory.go: ask app.WorkDir or app.Workspace", fset.Position(sel.Pos()))
				}
			}
			return true
		})
	}
}

// The providers work once per run: the working directory is read once
// and bsadapter.json found once, however many commands' steps ask.
func TestWorkspaceIsFoundOnce(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bsadapter.json"), []byte(`{"name":"x","bridge":{"command":["node","b.mjs"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	calls := 0
	app := &App{Getwd: func() (string, error) { calls++; return dir, nil }}
	for range 3 {
		ws, err := app.Workspace("")
		if err != nil || ws.dir != dir || ws.cfg == nil || ws.cfg.Name != "x" {
			t.Fatalf("workspace = %+v, %v", ws, err)
		}
	}
	bc, err := app.Bridge(&bridgeFlag{}, "")
	if err != nil || bc == nil || bc.source != filepath.Join(dir, "bsadapter.json") || bc.dir != dir {
		t.Fatalf("bridge = %+v, %v", bc, err)
	}
	if calls != 1 {
		t.Errorf("the working directory was read %d times", calls)
	}

	// A folder that cannot be read is an environment error, kept too.
	broken := &App{Getwd: func() (string, error) { calls++; return "", errors.New("gone") }}
	calls = 0
	for range 2 {
		var ee *ExitError
		if _, err := broken.Workspace(""); !errors.As(err, &ee) || ee.Code != ExitUsage || err.Error() != "gone" {
			t.Fatalf("err = %v", err)
		}
	}
	if calls != 1 {
		t.Errorf("a failing working directory was read %d times", calls)
	}
}

// --bridge wins over bsadapter.json and runs in the working directory;
// without either there is no bridge.
func TestBridgeResolve(t *testing.T) {
	ws := workspace{dir: "/work"}
	if bc := (&bridgeFlag{}).resolve(ws); bc != nil {
		t.Errorf("no bridge anywhere gave %+v", bc)
	}
	f := &bridgeFlag{set: true, argv: []string{"node", "x.mjs"}}
	if bc := f.resolve(ws); bc == nil || bc.dir != "/work" || bc.source != "--bridge" || bc.commandLine() != "node x.mjs" {
		t.Errorf("--bridge gave %+v", bc)
	}
}
