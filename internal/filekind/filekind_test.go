package filekind

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestOf(t *testing.T) {
	for _, c := range []struct {
		mode fs.FileMode
		want string
	}{
		{0o644, "a file"},
		{fs.ModeDir | 0o755, "a folder"},
		{fs.ModeSymlink | 0o777, "a symbolic link"},
		{fs.ModeNamedPipe | 0o600, "a named pipe"},
		{fs.ModeDevice | fs.ModeCharDevice | 0o666, "a character device"},
		{fs.ModeDevice | 0o660, "a block device"},
		{fs.ModeSocket | 0o755, "a socket"},
		{fs.ModeIrregular, "a special file"},
	} {
		if got := Of(c.mode); got != c.want {
			t.Errorf("Of(%s) = %q, want %q", c.mode, got, c.want)
		}
	}
	if got := IsNot(fs.ModeNamedPipe, Regular); got != "is a named pipe, not a regular file" {
		t.Errorf("IsNot = %q", got)
	}
	if got := IsNot(0o644, "a folder"); got != "is a file, not a folder" {
		t.Errorf("IsNot = %q", got)
	}
}

// The modes the system gives name what the entries are.
func TestOfRealEntries(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "l")
	if err := os.Symlink(file, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	check := func(p string, lstat bool, want string) {
		t.Helper()
		st, err := os.Stat(p)
		if lstat {
			st, err = os.Lstat(p)
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := Of(st.Mode()); got != want {
			t.Errorf("%s: %q, want %q", p, got, want)
		}
	}
	check(file, false, File)
	check(dir, false, Folder)
	check(link, true, Symlink)
	check(link, false, File)
	if runtime.GOOS != "windows" {
		check(os.DevNull, false, CharDevice)
	}
}
