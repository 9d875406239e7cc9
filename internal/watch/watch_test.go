package watch

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// next waits for a batch that holds want (batches may bring other paths
// first, such as a folder's own entry) and returns every path reported
// until then; the bound is generous, never a measure of speed.
func next(t *testing.T, w *Watcher, want string) Batch {
	t.Helper()
	deadline := time.After(30 * time.Second)
	var all Batch
	for {
		select {
		case b := <-w.Batches():
			all = merge(all, b)
			if slices.Contains(b.Paths, want) {
				return all
			}
		case err := <-w.Errors():
			t.Fatalf("watch error: %v", err)
		case <-deadline:
			t.Fatalf("no batch with %s", want)
		}
	}
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestWatcher(t *testing.T) {
	dir := t.TempDir()
	other := t.TempDir()
	for _, d := range []string{"src", "node_modules/x", ".git"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	single := filepath.Join(other, "bsadapter.json")
	write(t, single, "{}")
	w, err := New(Options{Roots: []string{dir, single}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()

	// A plain write.
	conv := filepath.Join(dir, "src", "converter.ts")
	write(t, conv, "a")
	next(t, w, conv)

	// A save by rename, as editors do: the target is reported, the
	// temporary file too (it is a file of the folder), never a swap file.
	tmp := filepath.Join(dir, "src", ".converter.ts.swp")
	write(t, tmp, "swap")
	write(t, conv+".tmp", "b")
	if err := os.Rename(conv+".tmp", conv); err != nil {
		t.Fatal(err)
	}
	b := next(t, w, conv)
	if slices.Contains(b.Paths, tmp) {
		t.Errorf("swap file reported: %v", b.Paths)
	}

	// A folder made later, with a file in it at once: both the file and
	// a later write to the folder are seen.
	nested := filepath.Join(dir, "fixtures", "deep")
	if err := os.MkdirAll(nested, 0o755); err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(nested, "a.json")
	write(t, f, "{}")
	next(t, w, f)
	write(t, f, "{ }")
	next(t, w, f)

	// node_modules and .git are not watched; a write there and then one
	// that is watched give a batch without the first.
	write(t, filepath.Join(dir, "node_modules", "x", "i.js"), "x")
	write(t, filepath.Join(dir, ".git", "index"), "x")
	write(t, filepath.Join(other, "unrelated.txt"), "x")
	write(t, single, `{"name":"x"}`)
	b = next(t, w, single)
	for _, p := range b.Paths {
		if p != single {
			t.Errorf("reported %s, which is not watched", p)
		}
	}
}

func TestSkip(t *testing.T) {
	for name, want := range map[string]bool{
		"converter.ts": false, "a.json": false, ".env": false,
		".converter.ts.swp": true, "x.swx": true, "4913": true, "a.ts~": true, "#a.ts#": true, ".#a.ts": true,
	} {
		if got := SkipFile(name); got != want {
			t.Errorf("SkipFile(%q) = %v, want %v", name, got, want)
		}
	}
	for name, want := range map[string]bool{"node_modules": true, ".git": true, "src": false, "fixtures": false} {
		if got := SkipDir(name); got != want {
			t.Errorf("SkipDir(%q) = %v, want %v", name, got, want)
		}
	}
}
