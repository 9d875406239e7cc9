package scaffold_test

import (
	"bytes"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/internal/cli"
	"github.com/bsadapter/bsadapter/internal/scaffold"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the golden files from the current output")

// TestGolden runs one scenario per testdata/golden/*.txtar. A scenario has
// the command line (-- cmd --), optional files present before it runs
// (setup/PATH), the expected exit code, stdout and stderr ($WORK stands
// for the folder it runs in), and the expected tree after it: either
// every file with its content (tree/PATH) or just the paths (-- files --).
func TestGolden(t *testing.T) {
	paths, err := filepath.Glob("testdata/golden/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no golden scenarios: %v", err)
	}
	for _, p := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(p), ".txtar"), func(t *testing.T) { runGolden(t, p) })
	}
}

func runGolden(t *testing.T, path string) {
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string][]byte{}
	work := t.TempDir()
	withContents := false
	for _, f := range ar.Files {
		sections[f.Name] = f.Data
		if rel, ok := strings.CutPrefix(f.Name, "setup/"); ok {
			dst := filepath.Join(work, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(dst, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if strings.HasPrefix(f.Name, "tree/") {
			withContents = true
		}
	}
	args := strings.Fields(string(sections["cmd"]))
	if len(args) == 0 {
		t.Fatalf("%s has no -- cmd -- section", path)
	}
	t.Chdir(work)
	var stdout, stderr bytes.Buffer
	code := cli.Main(args, cli.Stdio{In: strings.NewReader(""), Out: &stdout, Err: &stderr, Env: func(string) (string, bool) { return "", false }})

	clean := func(b []byte) []byte { return bytes.ReplaceAll(b, []byte(work), []byte("$WORK")) }
	got := &txtar.Archive{Comment: ar.Comment}
	add := func(name string, data []byte) { got.Files = append(got.Files, txtar.File{Name: name, Data: data}) }
	add("cmd", sections["cmd"])
	for _, f := range ar.Files {
		if strings.HasPrefix(f.Name, "setup/") {
			add(f.Name, f.Data)
		}
	}
	add("exit", []byte(strconv.Itoa(code)+"\n"))
	add("stdout", clean(stdout.Bytes()))
	add("stderr", clean(stderr.Bytes()))

	var files []string
	err = filepath.WalkDir(work, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(work, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	if withContents {
		for _, f := range files {
			data, err := os.ReadFile(filepath.Join(work, filepath.FromSlash(f)))
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(f, "/"+scaffold.RecordFile) || f == scaffold.RecordFile {
				data = normalizeRecord(data)
			}
			add("tree/"+f, data)
		}
	} else {
		add("files", []byte(strings.Join(files, "\n")+"\n"))
	}

	if *update {
		if err := os.WriteFile(filepath.Join(testRoot, path), txtar.Format(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want := map[string][]byte{}
	for _, f := range ar.Files {
		want[f.Name] = f.Data
	}
	seen := map[string]bool{}
	for _, f := range got.Files {
		seen[f.Name] = true
		w, ok := want[f.Name]
		if !ok {
			t.Errorf("%s: unexpected %s:\n%s", path, f.Name, f.Data)
			continue
		}
		if !bytes.Equal(w, f.Data) {
			t.Errorf("%s: %s differs\n--- want\n%s\n--- got\n%s", path, f.Name, w, f.Data)
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("%s: missing %s (the file was not written)", path, name)
		}
	}
	if t.Failed() {
		t.Log("run 'go test ./internal/scaffold -run TestGolden -update' to accept the new output after reviewing it")
	}
}

var (
	versionRe = regexp.MustCompile(`"t-[0-9a-f]{16}"`)
	hashRe    = regexp.MustCompile(`"sha256:[0-9a-f]{64}"`)
)

// normalizeRecord blanks the template version and the file hashes of a
// record: they change with every template edit, and what they say is
// checked by the add and upgrade tests, not by a golden file.
func normalizeRecord(b []byte) []byte {
	b = versionRe.ReplaceAll(b, []byte(`"TEMPLATE-VERSION"`))
	return hashRe.ReplaceAll(b, []byte(`"HASH"`))
}

// testRoot is the package folder, captured before any test changes the
// working folder.
var testRoot = func() string {
	wd, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	return wd
}()
