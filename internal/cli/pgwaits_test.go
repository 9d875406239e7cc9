//go:build linux

package cli

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/internal/pgserver"
	"github.com/bsadapter/bsadapter/internal/pgserver/pgtest"
	"github.com/bsadapter/bsadapter/internal/testenv"
)

// needLocalPG skips (or fails, in CI) a test that starts a local server.
func needLocalPG(t *testing.T) {
	t.Helper()
	if c := pgserver.Which(t.Context(), pgserver.Options{Strategy: "local"}); c.Strategy != "local" {
		testenv.Missing(t, "PostgreSQL is not installed (%s); install it (apt-get install postgresql)", strings.Join(c.Tried, "; "))
	}
}

// runBounded runs bsadapter with args and fails the test when it has not
// ended after limit, far longer than any bound of the run itself.
func runBounded(t *testing.T, limit time.Duration, args ...string) (int, string, string) {
	t.Helper()
	type result struct {
		code     int
		out, err string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errOut := runMain(t, args...)
		done <- result{code, out, errOut}
	}()
	select {
	case r := <-done:
		return r.code, r.out, r.err
	case <-time.After(limit):
		t.Fatalf("bsadapter %s still runs after %s: a wait without a bound", strings.Join(args, " "), limit)
		return 0, "", ""
	}
}

// ourRunFolders lists the run folders of local servers this process
// started.
func ourRunFolders() []string {
	var found []string
	for _, base := range []string{"/dev/shm", os.Getenv("XDG_RUNTIME_DIR"), os.TempDir(), "/tmp"} {
		if base == "" {
			continue
		}
		m, _ := filepath.Glob(filepath.Join(base, "bsadapter-pg-"+strconv.Itoa(os.Getpid())+"-*"))
		found = append(found, m...)
	}
	slices.Sort(found)
	return slices.Compact(found)
}

func TestPGTimeoutFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"conform", "--pg-start-timeout", "0s"}, "--pg-start-timeout must be positive"},
		{[]string{"conform", "--pg-install-timeout", "-1s"}, "--pg-install-timeout must be positive"},
		{[]string{"doctor", "--pg-start-timeout", "0s"}, "--pg-start-timeout must be positive"},
		{[]string{"conform", "--store", "memory", "--pg-start-timeout", "5m"}, "--pg-start-timeout applies only to --store pg"},
	} {
		code, _, errOut := runMain(t, c.args...)
		if code != ExitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

// A module of a --blocks folder that never ends: the install stops at
// its time limit, a line names the module while it runs, the hint names
// the flag, and the server and its run folder go. The limit leaves the
// modules before it (the embedded supabase-base and access, a second on
// an idle machine) ample time.
func TestConformBlocksModuleThatHangs(t *testing.T) {
	needLocalPG(t)
	old := heartbeatEvery
	heartbeatEvery = 200 * time.Millisecond
	defer func() { heartbeatEvery = old }()
	dir := t.TempDir()
	file := filepath.Join(dir, "sleepy.sql")
	if err := os.WriteFile(file, []byte("-- bsadapter block: sleepy\n-- version: 1\n-- requires: supabase-base\nselect pg_sleep(3600);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := ourRunFolders()
	code, out, errOut := runBounded(t, 3*time.Minute, "conform", "--pg", "local", "--blocks", dir, "--suite", "streams", "--pg-install-timeout", "15s")
	if code != ExitUsage {
		t.Fatalf("exit %d, want %d\n%s%s", code, ExitUsage, out, errOut)
	}
	for _, want := range []string{
		"bsadapter: installing module sleepy of the blocks (" + file + "): ",
		"did not finish within 15s, the time limit for preparing a template",
		"raise --pg-install-timeout or postgres.installTimeout in bsadapter.json (it was 15s)",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if after := ourRunFolders(); !slices.Equal(after, before) {
		t.Errorf("run folders before %v, after %v", before, after)
	}
}

// An error in a module of a --blocks folder points at the folder, not at
// the embedded blocks.
func TestConformBlocksErrorPointsAtTheFolder(t *testing.T) {
	s := pgtest.Server(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "broken.sql"), []byte("-- bsadapter block: broken\n-- version: 1\n-- requires: supabase-base\ncreate table x (;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runMain(t, "conform", "--dsn", s.ConnString("postgres"), "--blocks", dir, "--suite", "streams")
	if code != ExitUsage || !strings.Contains(errOut, "broken.sql line 4") || !strings.Contains(errOut, "hint: the error names the module and its file: fix it in "+dir) {
		t.Errorf("exit %d:\n%s", code, errOut)
	}
	if strings.Contains(errOut, "to check the embedded blocks\n") && !strings.Contains(errOut, "drop --blocks") {
		t.Errorf("the hint points at the embedded blocks:\n%s", errOut)
	}
}

// Without a cache folder, --pg npm says to set one, not to install
// PostgreSQL or to pass a folder.
func TestNoCacheFolderHint(t *testing.T) {
	if pgserver.NPMPackage() == "" {
		t.Skip("no pinned package for this platform")
	}
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	code, _, errOut := runMain(t, "conform", "--pg", "npm", "--suite", "streams")
	if code != ExitUsage || !strings.Contains(errOut, "set XDG_CACHE_HOME (or HOME) to a writable folder") ||
		strings.Contains(errOut, "install PostgreSQL") || strings.Contains(errOut, "pass a cache folder") {
		t.Errorf("exit %d:\n%s", code, errOut)
	}
}

// doctor connects to the --dsn server and says what failed; it starts the
// local server conform would start and says how long that took.
func TestDoctorChecksPostgreSQL(t *testing.T) {
	t.Chdir(t.TempDir())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	code, out, errOut := runMain(t, "doctor", "--dsn", fmt.Sprintf("postgres://u:p@127.0.0.1:%d/db?sslmode=disable", port))
	if code != ExitFailed || !strings.Contains(out, fmt.Sprintf("fail postgresql: 'conform' would use dsn from postgres://u@127.0.0.1:%d/db: nothing listens at 127.0.0.1:%d", port, port)) {
		t.Errorf("a closed port: exit %d\n%s%s", code, out, errOut)
	}

	s := pgtest.Server(t)
	code, out, errOut = runMain(t, "doctor", "--dsn", s.ConnString("postgres"))
	if !strings.Contains(out, "ok   postgresql: ") || !strings.Contains(out, "answers as role postgres (connected in ") {
		t.Errorf("a running server: exit %d\n%s%s", code, out, errOut)
	}

	needLocalPG(t)
	code, out, errOut = runMain(t, "doctor", "--pg", "local")
	if !strings.Contains(out, "ok   postgresql: 'conform' would use local") || !strings.Contains(out, "; it started in ") {
		t.Errorf("doctor --pg local: exit %d\n%s%s", code, out, errOut)
	}
}
