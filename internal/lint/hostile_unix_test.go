//go:build unix

package lint

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestNamedPipesRefused puts a named pipe where lint, or esbuild for it,
// reads a file: opening one waits for a writer for ever. Each is refused
// with an error that names it, before anything opens it.
//
// Should lint open a pipe, the test opens the pipe's other end after a
// minute (a bound a slow machine meets many times over: the lint takes
// well under a second), which lets the read end, and fails.
func TestNamedPipesRefused(t *testing.T) {
	for _, c := range []struct {
		pipe  string
		files map[string]string
	}{
		{"package.json", nil},
		{"bsadapter.json", nil},
		{"tsconfig.json", nil},
		{"src/result.ts", map[string]string{"src/index.ts": "export { r } from \"./result.js\";\n"}}, // imported
		{"src/extra.ts", nil},         // in the source folder only
		{"src/sub/package.json", nil}, // esbuild reads it for the folder's module type
		{"src/schema.sql", nil},       // a SQL file in the source folder
		{"sql/x-state.sql", nil},      // an engine module
		{"src/data.json", map[string]string{"src/index.ts": "import d from \"./data.json\";\nexport const x = d;\n"}},
	} {
		t.Run(c.pipe, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{"src/index.ts": "export const x = 1;\n"}
			for k, v := range c.files {
				files[k] = v
			}
			writePackage(t, dir, files)
			p := filepath.Join(dir, filepath.FromSlash(c.pipe))
			os.Remove(p)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skipf("no named pipes here: %v", err)
			}
			done := make(chan error, 1)
			go func() {
				_, err := Run(context.Background(), Options{Dir: dir})
				done <- err
			}()
			err, ok := waitOrRelease(done, p)
			if !ok {
				t.Fatalf("lint opened the named pipe %s and waited on it", c.pipe)
			}
			var ue *UsageError
			want := c.pipe + " is a named pipe, not a regular file"
			if !errors.As(err, &ue) || !strings.Contains(ue.Msg, want) || ue.Fix == "" {
				t.Errorf("err = %v, want a usage error with %q", err, want)
			}
		})
	}
}

// waitOrRelease waits for a lint run's error; after a minute it lets each
// open of the pipe through (a writer that closes at once) until the run
// ends, and reports false.
func waitOrRelease(done <-chan error, pipe string) (error, bool) {
	select {
	case err := <-done:
		return err, true
	case <-time.After(time.Minute):
	}
	for {
		if w, err := os.OpenFile(pipe, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		select {
		case <-done:
			return nil, false
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// A device given as the adapter's folder is called what it is.
func TestDeviceAsFolder(t *testing.T) {
	_, err := Run(context.Background(), Options{Dir: "/dev/null"})
	var ue *UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "/dev/null is a character device, not a folder") {
		t.Fatalf("lint /dev/null: %v", err)
	}
}
