package scaffold

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A failing write is undone through the same roots: the files it made
// are removed, the file it overwrote gets its old content back, and the
// folders it made, the missing ones above the target included, are
// removed; what was there before stays. The failure is one that happens
// for root too: a path that needs a folder where the plan just wrote a
// file.
func TestWriteRollbackUndoesEverything(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "x", "y", "out")
	if err := os.MkdirAll(filepath.Join(base, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(base, "x", "mine.txt"), []byte("mine"), 0o644)
	p := &Plan{Root: dir, Files: []File{
		{Path: "a/b/one.txt", Data: []byte("1")},
		{Path: "two.txt", Data: []byte("2")},
		{Path: "a/b/one.txt/three.txt", Data: []byte("3")},
	}}
	_, err := Write(p, false)
	if err == nil || err.Error() != "cannot write "+filepath.Join(dir, "a", "b", "one.txt", "three.txt")+": not a directory" {
		t.Fatalf("want the write through a file to fail, got %v", err)
	}
	var re *RollbackError
	if errors.As(err, &re) {
		t.Fatalf("everything could be undone, yet: %v", err)
	}
	if _, err := os.Stat(filepath.Join(base, "x", "y")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the folders made above the target are left: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(base, "x", "mine.txt")); err != nil || string(b) != "mine" {
		t.Errorf("a file that was there before: %q %v", b, err)
	}

	// Overwritten with force, then undone: the old content is back.
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "two.txt"), []byte("old"), 0o644)
	if _, err := Write(p, true); err == nil {
		t.Fatal("the forced write through a file succeeded")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "two.txt")); string(b) != "old" {
		t.Errorf("two.txt holds %q after the undo, want its old content", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the undo left %v in the target", entries)
	}
}

// What the undoing cannot take back is reported, not dropped: here a
// folder the write made in which another program put a file meanwhile
// cannot be removed (for root neither), nor the target above it. The
// other program's file is left alone; the write's own files are gone.
func TestWriteRollbackReportsLeftovers(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	p := &Plan{Root: dir, Files: []File{
		{Path: "sub/one.txt", Data: []byte("1")},
		{Path: "sub/one.txt/two.txt", Data: []byte("2")},
	}}
	theirs := filepath.Join(dir, "sub", "theirs.txt")
	_, err := writePlan(p, false, func(rel string) {
		if rel == "sub/one.txt" {
			if err := os.WriteFile(theirs, []byte("theirs"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	})
	var re *RollbackError
	if !errors.As(err, &re) {
		t.Fatalf("want a *RollbackError, got %v", err)
	}
	if re.Err.Error() != "cannot write "+filepath.Join(dir, "sub", "one.txt", "two.txt")+": not a directory" || errors.Unwrap(err) != re.Err {
		t.Errorf("the cause: %v", re.Err)
	}
	want := []string{
		filepath.Join(dir, "sub") + " (cannot remove the folder: directory not empty)",
		dir + " (cannot remove the folder: directory not empty)",
	}
	if strings.Join(re.Leftovers, "\n") != strings.Join(want, "\n") {
		t.Errorf("leftovers\n%s\nwant\n%s", strings.Join(re.Leftovers, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(err.Error(), "undoing the write failed too, so these are left: "+want[0]) {
		t.Errorf("error %q", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "sub", "one.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the write's own file is left: %v", err)
	}
	if b, err := os.ReadFile(theirs); err != nil || string(b) != "theirs" {
		t.Errorf("the other program's file: %q %v", b, err)
	}
}

// The undoing goes through the roots too: a folder of the write swapped
// for a symbolic link to elsewhere in the meantime does not lead the
// removal outside the target (the file there of the same name survives),
// and what could not be removed is reported.
func TestWriteRollbackStaysInTheRoot(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "out")
	outside := filepath.Join(base, "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(outside, "one.txt")
	os.WriteFile(victim, []byte("keep me"), 0o644)
	p := &Plan{Root: dir, Files: []File{
		{Path: "sub/one.txt", Data: []byte("1")},
		{Path: "sub/two.txt", Data: []byte("2")},
	}}
	_, err := writePlan(p, false, func(rel string) {
		if rel != "sub/one.txt" {
			return
		}
		if err := os.RemoveAll(filepath.Join(dir, "sub")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(outside, filepath.Join(dir, "sub")); err != nil {
			t.Skip("no symbolic links here:", err)
		}
	})
	var re *RollbackError
	if !errors.As(err, &re) {
		t.Fatalf("want a *RollbackError, got %v", err)
	}
	if b, err := os.ReadFile(victim); err != nil || string(b) != "keep me" {
		t.Fatalf("the undo reached outside the target: %q %v", b, err)
	}
	if len(re.Leftovers) == 0 || !strings.HasPrefix(re.Leftovers[0], filepath.Join(dir, "sub", "one.txt")+" (cannot remove it: ") {
		t.Errorf("leftovers %q", re.Leftovers)
	}
}

// A target that is a device, not a folder, is named as what it is; a
// folder that takes no new files (procfs) is named with the file that
// could not be made in it, not as a bare "openat NAME".
func TestWriteTargetsThatAreNotFolders(t *testing.T) {
	if _, err := os.Stat("/dev/null"); err != nil {
		t.Skip("no /dev/null")
	}
	p := &Plan{Root: "/dev/null", Files: []File{{Path: ".gitignore", Data: []byte("x")}}}
	_, err := Write(p, false)
	var nf *NotAFolderError
	if !errors.As(err, &nf) || err.Error() != "/dev/null is a character device, not a folder" {
		t.Errorf("/dev/null: %v", err)
	}
	p = &Plan{Root: "/dev/null/sub", Files: p.Files}
	if _, err := Write(p, false); err == nil || err.Error() != "cannot write into /dev/null/sub: /dev/null is a character device, not a folder" {
		t.Errorf("/dev/null/sub: %v", err)
	}
	if fi, err := os.Stat("/proc/self"); err != nil || !fi.IsDir() {
		t.Skip("no /proc")
	}
	p = &Plan{Root: "/proc/self", Files: p.Files}
	_, err = Write(p, false)
	var we *WriteError
	if !errors.As(err, &we) || we.Path != "/proc/self/.gitignore" || !strings.HasPrefix(err.Error(), "cannot create /proc/self/.gitignore: no such file or directory (/proc/self does not take new files") {
		t.Errorf("/proc/self: %v", err)
	}
}
