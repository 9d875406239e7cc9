package scaffold

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/bsadapter/bsadapter/templates"
)

// previousTemplates stands in for an older release's templates: the
// current tree with some first lines worded otherwise (converters,
// index.ts, chat.ts, the README, the docs page) and without one template
// that the current release added (the kits test). Upgrading from it
// changes those files, creates the kits test and leaves the rest alone.
func previousTemplates(t *testing.T) (fs.FS, string) {
	t.Helper()
	prev := fstest.MapFS{}
	files, err := templates.Files()
	if err != nil {
		t.Fatal(err)
	}
	firstLine := map[string]string{
		"presets/generic/converters.ts.tmpl": "// Converters (first wording) between [% .SDK %] messages and better-supabase's canonical\n",
		"adapter/src/index.ts.tmpl":          "// [% .Name %]: a better-supabase adapter (first wording).\n",
		"adapter/src/chat.ts.tmpl":           "// The chat flow (first wording) of the [% .Name %] adapter (contracts section 4): append the\n",
		"package/README.md.tmpl":             "# [% .Name %] (first wording)\n",
		"docs/adapter.md.tmpl":               "",
	}
	for _, f := range files {
		if f == "adapter/test/kits.test.ts.tmpl" {
			continue
		}
		b, err := fs.ReadFile(templates.FS, f)
		if err != nil {
			t.Fatal(err)
		}
		if l, ok := firstLine[f]; ok {
			if l == "" {
				b = append(b, []byte("\n(first wording)\n")...)
			} else {
				b = append([]byte(l), b[bytes.IndexByte(b, '\n')+1:]...)
			}
		}
		prev[f] = &fstest.MapFile{Data: b, Mode: 0o644}
	}
	id, err := templates.Register(prev)
	if err != nil {
		t.Fatal(err)
	}
	return prev, id
}

// writeVersion generates the adapter o from the template tree fsys
// (version id) as new did in that version: its files and its record.
func writeVersion(t *testing.T, o *Options, fsys fs.FS, id string) {
	t.Helper()
	if err := o.Complete(); err != nil {
		t.Fatal(err)
	}
	files, err := renderFiles(o, fsys)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := newRecord(o, id, files)
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, File{Path: RecordFile, Data: rec})
	if _, err := Write(&Plan{Root: o.Dir, Files: files}, false); err != nil {
		t.Fatal(err)
	}
}

// tree reads every file under dir, by slash path.
func tree(t *testing.T, dir string, skip ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && slicesContains(skip, d.Name()) {
			return filepath.SkipDir
		}
		if d.IsDir() || slicesContains(skip, d.Name()) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		r, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(r)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sameTree(t *testing.T, got, want map[string]string) {
	t.Helper()
	for p, w := range want {
		g, ok := got[p]
		if !ok {
			t.Errorf("%s is missing", p)
		} else if g != w {
			t.Errorf("%s differs:\n%s", p, strings.Join(Edit{Before: []byte(w), After: []byte(g)}.Diff(), "\n"))
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s is extra", p)
		}
	}
}

func generate(t *testing.T, o *Options) {
	t.Helper()
	p, err := Render(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Write(p, false); err != nil {
		t.Fatal(err)
	}
}

func acme(dir string, contracts ...string) *Options {
	return &Options{Name: "acme", SDKs: []string{"@acme/sdk"}, Contracts: contracts, Placement: PlacementPackage, Dir: dir}
}

// TestAddEqualsNew: add brings an adapter to exactly what new generates
// for the longer contract list, record included.
func TestAddEqualsNew(t *testing.T) {
	work := t.TempDir()
	got, want := filepath.Join(work, "got"), filepath.Join(work, "want")
	generate(t, acme(got, "chat", "streams"))
	generate(t, acme(want, "chat", "streams", "credentials", "chat-state"))
	a, err := OpenAdapter(got)
	if err != nil {
		t.Fatal(err)
	}
	u, err := PlanAdd(a, []string{"credentials", "chat-state", "chat"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(u.Added, ",") != "credentials,chat-state" || strings.Join(u.Present, ",") != "chat" {
		t.Errorf("added %v, present %v", u.Added, u.Present)
	}
	kinds := map[ChangeKind]int{}
	for _, c := range u.Changes {
		kinds[c.Kind]++
	}
	if kinds[Create] != 4 || kinds[Replace] == 0 || kinds[Merge]+kinds[Conflict] != 0 {
		t.Errorf("changes %v", kinds)
	}
	// The plan wrote nothing.
	if _, err := os.Stat(filepath.Join(got, "src", "memory-credentials.ts")); err == nil {
		t.Fatal("planning wrote a file")
	}
	if _, err := Apply(u); err != nil {
		t.Fatal(err)
	}
	sameTree(t, tree(t, got), tree(t, want))

	// Added again: nothing to do.
	a, _ = OpenAdapter(got)
	u, err = PlanAdd(a, []string{"credentials"})
	if err != nil || !u.Empty() {
		t.Fatalf("second add: %v, %+v", err, u)
	}
}

// TestAddKeepsAuthorsEdits: a shared file the author changed gets the
// new lines merged in; a file the contract brings that the author made
// already stops the add before anything is written.
func TestAddKeepsAuthorsEdits(t *testing.T) {
	dir := t.TempDir()
	generate(t, acme(dir, "chat", "streams"))
	index := filepath.Join(dir, "src", "index.ts")
	b, _ := os.ReadFile(index)
	os.WriteFile(index, append(b, "export const MINE = 1;\n"...), 0o644)
	a, _ := OpenAdapter(dir)
	u, err := PlanAdd(a, []string{"credentials"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range u.Changes {
		if c.Path == "src/index.ts" && c.Kind != Merge {
			t.Errorf("index.ts: %s, want a clean merge", c.Kind)
		}
	}
	if _, err := Apply(u); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(index)
	if !bytes.Contains(b, []byte("export const MINE = 1;\n")) || !bytes.Contains(b, []byte("MemoryCredentialProvider")) || bytes.Contains(b, []byte("<<<<<<<")) {
		t.Errorf("index.ts after add:\n%s", b)
	}

	os.WriteFile(filepath.Join(dir, "src", "memory-chat-state.ts"), []byte("// mine\n"), 0o644)
	a, _ = OpenAdapter(dir)
	_, err = PlanAdd(a, []string{"chat-state"})
	var ex *ExistsError
	if !errors.As(err, &ex) || !strings.Contains(err.Error(), "src/memory-chat-state.ts") {
		t.Fatalf("add over a file of the author's: %v", err)
	}

	var oe *OptionError
	if _, err := PlanAdd(a, []string{"engine"}); !errors.As(err, &oe) || oe.Fix != "add both: bsadapter add workflows engine" {
		t.Errorf("engine without workflows: %v", err)
	}
	if _, err := PlanAdd(a, []string{"nope"}); !errors.As(err, &oe) || !strings.Contains(err.Error(), "chat, streams") {
		t.Errorf("unknown contract: %v", err)
	}
	if _, err := PlanAdd(a, []string{"workflows", "engine"}); err != nil {
		t.Errorf("engine with workflows: %v", err)
	}
}

var conflictBlock = regexp.MustCompile(`(?s)<<<<<<< [^\n]*\n.*?\n=======\n(.*?)>>>>>>> [^\n]*\n`)

// resolveTakingTemplate resolves every conflict in a file by taking the
// template's side, as an author might.
func resolveTakingTemplate(t *testing.T, file string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := conflictBlock.ReplaceAll(b, []byte("$1"))
	if bytes.Contains(out, []byte("<<<<<<<")) || bytes.Equal(out, b) {
		t.Fatalf("%s: conflicts not resolved:\n%s", file, out)
	}
	os.WriteFile(file, out, 0o644)
}

// authorEdits changes three files of a generated acme adapter as its
// author would: a function at the end of converters.ts and an export at the
// end of index.ts (clean against previousTemplates), chat.ts's first line
// (which the templates changed too: a conflict); and deletes the docs
// page.
func authorEdits(t *testing.T, dir string) {
	t.Helper()
	appendTo := func(rel, s string) {
		f := filepath.Join(dir, filepath.FromSlash(rel))
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(f, append(b, s...), 0o644)
	}
	appendTo("src/converters.ts", "\n// Mine: a constant the templates know nothing of.\nexport const AUTHOR_NOTE = \"kept\";\n")
	appendTo("src/index.ts", "export const AUTHOR_EXPORT = 1;\n")
	chat := filepath.Join(dir, "src", "chat.ts")
	b, _ := os.ReadFile(chat)
	os.WriteFile(chat, append([]byte("// The chat flow, as the author describes it.\n"), b[bytes.IndexByte(b, '\n')+1:]...), 0o644)
	os.Remove(filepath.Join(dir, "docs", "acme.md"))
}

// TestUpgradeFromPrevious: the author's clean edits are kept, the
// conflicting one is written with markers and listed, unchanged files
// are replaced, the deleted one stays deleted, the new template's file
// is created, and a second upgrade finds nothing to do.
func TestUpgradeFromPrevious(t *testing.T) {
	prev, id := previousTemplates(t)
	dir := t.TempDir()
	writeVersion(t, acme(dir, "chat", "streams"), prev, id)
	authorEdits(t, dir)
	u := planUpgrade(t, dir)
	kinds := map[string]ChangeKind{}
	for _, c := range u.Changes {
		kinds[c.Path] = c.Kind
	}
	want := map[string]ChangeKind{"src/converters.ts": Merge, "src/index.ts": Merge, "src/chat.ts": Conflict, "README.md": Replace, "docs/acme.md": KeptDeleted, "test/kits.test.ts": Create}
	for p, k := range want {
		if kinds[p] != k {
			t.Errorf("%s: %q, want %q", p, kinds[p], k)
		}
	}
	if len(kinds) != len(want) {
		t.Errorf("changes %v, want %v", kinds, want)
	}
	if c := u.Conflicts(); len(c) != 1 || c[0] != "src/chat.ts" {
		t.Errorf("conflicts %v", c)
	}
	if _, err := Apply(u); err != nil {
		t.Fatal(err)
	}
	fresh := t.TempDir()
	generate(t, acme(fresh, "chat", "streams"))
	now := tree(t, fresh)
	got := tree(t, dir)
	for _, p := range []string{"src/converters.ts", "src/index.ts"} {
		if !strings.HasPrefix(got[p], strings.SplitAfter(now[p], "\n")[0]) || !strings.Contains(got[p], "AUTHOR_") {
			t.Errorf("%s lost the template's change or the author's:\n%s", p, got[p])
		}
	}
	if got["README.md"] != now["README.md"] || got["test/kits.test.ts"] != now["test/kits.test.ts"] {
		t.Error("README.md or test/kits.test.ts is not the current template's")
	}
	if _, ok := got["docs/acme.md"]; ok {
		t.Error("the deleted docs page came back")
	}
	chat := got["src/chat.ts"]
	for _, s := range []string{"<<<<<<< yours (src/chat.ts)\n// The chat flow, as the author describes it.\n", "||||||| generated (template " + id + ")\n", ">>>>>>> template " + templates.CurrentID() + "\n"} {
		if !strings.Contains(chat, s) {
			t.Errorf("chat.ts lacks %q:\n%s", s, chat)
		}
	}
	if got[RecordFile] != now[RecordFile] {
		t.Error("the record is not the current templates' record")
	}
	resolveTakingTemplate(t, filepath.Join(dir, "src", "chat.ts"))
	if b, _ := os.ReadFile(filepath.Join(dir, "src", "chat.ts")); string(b) != now["src/chat.ts"] {
		t.Error("chat.ts resolved to the template's side is not the template's file")
	}
	a, _ := OpenAdapter(dir)
	u, err := PlanUpgrade(a)
	if err != nil || !u.Empty() {
		t.Fatalf("second upgrade: %v %+v", err, u)
	}
}

// TestUpgradeUntouched: an adapter nobody edited becomes exactly what
// new generates now.
func TestUpgradeUntouched(t *testing.T) {
	prev, id := previousTemplates(t)
	dir, fresh := t.TempDir(), t.TempDir()
	writeVersion(t, acme(dir, "chat", "streams"), prev, id)
	generate(t, acme(fresh, "chat", "streams"))
	applyUpgrade(t, dir)
	sameTree(t, tree(t, dir), tree(t, fresh))
}

// applyUpgrade upgrades the adapter in dir in place (open it, plan its
// upgrade, apply the plan), failing the test at any error, and answers
// the plan.
func applyUpgrade(t *testing.T, dir string) *Update {
	t.Helper()
	u := planUpgrade(t, dir)
	if _, err := Apply(u); err != nil {
		t.Fatal(err)
	}
	return u
}

// planUpgrade opens the adapter in dir and plans its upgrade, failing the
// test at any error.
func planUpgrade(t *testing.T, dir string) *Update {
	t.Helper()
	a, err := OpenAdapter(dir)
	if err != nil {
		t.Fatal(err)
	}
	u, err := PlanUpgrade(a)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestLivingBadInputs(t *testing.T) {
	empty := t.TempDir()
	var na *NotAdapterError
	if _, err := OpenAdapter(empty); !errors.As(err, &na) || !strings.Contains(err.Error(), "not an adapter folder") {
		t.Errorf("empty folder: %v", err)
	}
	if _, err := OpenAdapter(filepath.Join(empty, "nope")); !errors.As(err, &na) {
		t.Errorf("missing folder: %v", err)
	}
	os.WriteFile(filepath.Join(empty, "bsadapter.json"), []byte("{}"), 0o644)
	if _, err := OpenAdapter(empty); !errors.As(err, &na) || !strings.Contains(err.Error(), "no "+RecordFile) {
		t.Errorf("adapter without a record: %v", err)
	}

	dir := t.TempDir()
	generate(t, acme(dir, "chat", "streams"))
	recFile := filepath.Join(dir, RecordFile)
	good, _ := os.ReadFile(recFile)
	edit := func(from, to string) {
		t.Helper()
		if !bytes.Contains(good, []byte(from)) {
			t.Fatalf("record lacks %q", from)
		}
		os.WriteFile(recFile, bytes.Replace(good, []byte(from), []byte(to), 1), 0o644)
	}
	var re *RecordError
	cur := templates.CurrentID()

	edit(`"templates": "`+cur+`"`, `"templates": "dev"`)
	if _, err := OpenAdapter(dir); !errors.As(err, &re) || !strings.Contains(err.Error(), `"templates" is "dev"`) || !strings.Contains(err.Error(), recFile) {
		t.Errorf("dirty version: %v", err)
	}
	edit(`"templates": "`+cur+`"`, `"templates": "t-0123456789abcdef"`)
	a, err := OpenAdapter(dir)
	if err != nil {
		t.Fatal(err)
	}
	var uv *templates.UnknownVersionError
	if _, err := PlanUpgrade(a); !errors.As(err, &uv) || !strings.Contains(err.Error(), "t-0123456789abcdef") {
		t.Errorf("unknown version: %v", err)
	}
	var nu *NeedsUpgradeError
	if _, err := PlanAdd(a, []string{"credentials"}); !errors.As(err, &nu) {
		t.Errorf("add on an older version: %v", err)
	}
	edit(`"answers": {`, `"answers": {,`)
	if _, err := OpenAdapter(dir); !errors.As(err, &re) || !regexp.MustCompile(`line \d+, column \d+`).MatchString(err.Error()) {
		t.Errorf("broken JSON: %v", err)
	}
	edit(`"preset": "generic"`, `"preset": "nope"`)
	if _, err := OpenAdapter(dir); !errors.As(err, &re) || !strings.Contains(err.Error(), "--preset") {
		t.Errorf("bad answer: %v", err)
	}
	// A hash that does not match what the version renders: no guessing.
	h := Hash([]byte(tree(t, dir)["src/chat.ts"]))
	edit(h, Hash([]byte("something else")))
	a, err = OpenAdapter(dir)
	if err != nil {
		t.Fatal(err)
	}
	var bm *BaseMismatchError
	if _, err := PlanUpgrade(a); !errors.As(err, &bm) || bm.Path != "src/chat.ts" {
		t.Errorf("edited hash: %v", err)
	}
	os.WriteFile(recFile, good, 0o644)

	if os.Geteuid() != 0 {
		chat := filepath.Join(dir, "src", "chat.ts")
		os.Chmod(chat, 0)
		defer os.Chmod(chat, 0o644)
		a, err := OpenAdapter(dir)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := PlanUpgrade(a); !errors.As(err, &re) || re.File != chat || !strings.Contains(err.Error(), "cannot be read") {
			t.Errorf("unreadable file: %v", err)
		}
	}
}
