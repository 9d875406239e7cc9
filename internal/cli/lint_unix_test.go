//go:build unix

package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// lint run without a folder looks for the nearest bsadapter.json; a named
// pipe there is refused, not opened (opening one waits for a writer for
// ever). Should it be opened, the test lets it through after a minute,
// far more than the run needs, and fails.
func TestLintConfigNamedPipe(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "adapter", "src")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	pipe := filepath.Join(dir, "adapter", "bsadapter.json")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	var out, errb bytes.Buffer
	app := &App{Stdio: Stdio{In: strings.NewReader(""), Out: &out, Err: &errb}, Getwd: func() (string, error) { return sub, nil }}
	done := make(chan error, 1)
	go func() { done <- runLint(context.Background(), &lintOptions{app: app, format: "text"}) }()
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		// Let each blocked open through (a writer that closes at once),
		// until the run ends; then fail.
		for {
			if w, werr := os.OpenFile(pipe, os.O_WRONLY|syscall.O_NONBLOCK, 0); werr == nil {
				w.Close()
			}
			select {
			case <-done:
				t.Fatal("lint opened the named pipe bsadapter.json and waited on it")
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitUsage || !strings.Contains(ee.Err.Error(), "bsadapter.json is a named pipe, not a regular file") || ee.Hint == "" {
		t.Errorf("err = %v, want a usage error naming the pipe", err)
	}
}
