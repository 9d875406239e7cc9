//go:build unix

package blocks_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/bsadapter/bsadapter/blocks"
)

// A .sql file of a modules folder that is not a module's SQL (a device, a
// named pipe, a folder, a huge file) is refused by name before it is read:
// /dev/zero read whole takes all the memory there is, and opening a named
// pipe waits for a writer that never comes.
func TestLoadDirRefusesWhatIsNotAModuleFile(t *testing.T) {
	const module = "-- bsadapter block: x\n-- version: 1\n"
	for _, c := range []struct {
		name string
		make func(t *testing.T, p string)
		want string
	}{
		{"a link to /dev/zero", func(t *testing.T, p string) {
			if err := os.Symlink("/dev/zero", p); err != nil {
				t.Fatal(err)
			}
		}, "is a character device (it links to /dev/zero)"},
		{"a named pipe", func(t *testing.T, p string) {
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skipf("cannot make a named pipe here: %v", err)
			}
		}, "is a named pipe"},
		{"a folder", func(t *testing.T, p string) {
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}, "is a folder"},
		{"a huge file", func(t *testing.T, p string) {
			// Sparse: it takes no room on disk.
			if err := os.WriteFile(p, []byte(module), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(p, blocks.MaxModuleSize+1); err != nil {
				t.Fatal(err)
			}
		}, "is larger than 8 MiB"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"a.sql": module})
			bad := filepath.Join(dir, "b.sql")
			c.make(t, bad)
			_, err := blocks.LoadDir(dir)
			if err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one that names %s and says %q", err, bad, c.want)
			}
		})
	}
	// A link to a module file is a module file.
	dir := writeFiles(t, map[string]string{"real.txt": module})
	if err := os.Symlink(filepath.Join(dir, "real.txt"), filepath.Join(dir, "x.sql")); err != nil {
		t.Fatal(err)
	}
	if _, err := blocks.LoadDir(dir); err != nil {
		t.Errorf("a link to a module file: %v", err)
	}
}
