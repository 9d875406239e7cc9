//go:build linux

package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/internal/bridge/bridgetest"
)

// TestCheckFixturesHelperProcess is not a test: the interrupt test runs
// this test binary again with BSADAPTER_HELPER=1, and then it behaves as
// the bsadapter binary, through the same Main, in a process of its own
// that can receive a real SIGINT.
func TestCheckFixturesHelperProcess(t *testing.T) {
	if os.Getenv("BSADAPTER_HELPER") != "1" {
		t.Skip("helper process only")
	}
	args := strings.Split(os.Getenv("BSADAPTER_HELPER_ARGS"), "\x1f")
	os.Exit(Main(args, OSStdio()))
}

// Ctrl-C during check-fixtures exits 130, and the bridge and the process
// it started are gone afterwards.
func TestCheckFixturesInterruptKillsBridge(t *testing.T) {
	dir := t.TempDir()
	bridgeBin := filepath.Join(dir, "gobridge")
	if out, err := exec.Command("go", "build", "-o", bridgeBin, "../bridge/testdata/gobridge").CombinedOutput(); err != nil {
		t.Fatalf("building the Go test bridge: %v\n%s", err, out)
	}
	fix := filepath.Join(dir, "fixtures")
	os.MkdirAll(fix, 0o755)
	os.WriteFile(filepath.Join(fix, "a.jsonl"), []byte(`{"uid":"a","from":"bot","blocks":[]}`+"\n"), 0o644)
	pidFile := filepath.Join(dir, "pids")

	cmd := exec.Command(os.Args[0], "-test.run=^TestCheckFixturesHelperProcess$")
	cmd.Dir = dir
	args := []string{"check-fixtures", "--bridge", fmt.Sprintf("%s -spawn -fault=hang -pidfile=%s", bridgeBin, pidFile), "fixtures"}
	cmd.Env = append(os.Environ(), "BSADAPTER_HELPER=1", "BSADAPTER_HELPER_ARGS="+strings.Join(args, "\x1f"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var bridgePid, childPid int
	for i := 0; i < 1000 && childPid == 0; i++ {
		if b, err := os.ReadFile(pidFile); err == nil {
			fmt.Sscan(string(b), &bridgePid, &childPid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if childPid == 0 {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the bridge never started:\n%s", stderr.String())
	}
	// The bridge hangs on the first message: the run is in flight.
	time.Sleep(100 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != ExitInterrupted {
		t.Errorf("exit: %v, want %d\n%s", err, ExitInterrupted, stderr.String())
	}
	if !strings.Contains(stderr.String(), "bsadapter: interrupted") {
		t.Errorf("stderr: %s", stderr.String())
	}
	for _, pid := range []int{bridgePid, childPid} {
		gone := false
		for i := 0; i < 300 && !gone; i++ {
			gone = !bridgetest.Alive(pid)
			time.Sleep(10 * time.Millisecond)
		}
		if !gone {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("process %d outlived bsadapter after Ctrl-C", pid)
		}
	}
}

// A named pipe as the bridge folder's package.json is refused before the
// bridge starts, naming the file: Node would wait on it while starting a
// .js bridge, until the start timeout, with nothing on stderr.
func TestCheckFixturesPackageJSONPipe(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "bridge.js"), []byte("process.stdin.resume();\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.json"), []byte(`{"uid":"a","from":"bot","blocks":[]}`), 0o644)
	if err := syscall.Mkfifo(filepath.Join(dir, "package.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	var out, errb bytes.Buffer
	code := Main([]string{"check-fixtures", "--bridge", "node bridge.js", "--start-timeout", "20s", "a.json"},
		Stdio{In: strings.NewReader(""), Out: &out, Err: &errb, Env: func(string) (string, bool) { return "", false }})
	want := filepath.Join(dir, "package.json") + " is a named pipe, not a regular file"
	if code != ExitUsage || !strings.Contains(errb.String(), want) {
		t.Errorf("exit %d, want %d and %q:\n%s%s", code, ExitUsage, want, out.String(), errb.String())
	}
}
