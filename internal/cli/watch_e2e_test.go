//go:build linux

package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/internal/bridge/bridgetest"
	"github.com/bsadapter/bsadapter/internal/testenv"
)

// roundBound is how long a test waits for a round: a generous bound on
// a loaded machine (a bridge's start with tsx can take seconds there),
// never a measure of speed.
const roundBound = 3 * time.Minute

// seenRound is one round as the plain output shows it.
type seenRound struct {
	n       int
	why     string
	outcome string // passed or failed
	summary string
	bridge  string
	body    string
}

var (
	roundHead = regexp.MustCompile(`^── round (\d+): (.*)$`)
	roundTail = regexp.MustCompile(`^round (\d+) (passed|failed) in \S+: (.*?)(?: \(bridge ([^)]*)\))?$`)
)

// roundReader reads the rounds of a watch session's stdout.
type roundReader struct {
	rounds chan seenRound
	mu     sync.Mutex
	all    strings.Builder
}

func newRoundReader(r io.Reader) *roundReader {
	rr := &roundReader{rounds: make(chan seenRound, 64)}
	go func() {
		defer close(rr.rounds)
		sc := bufio.NewScanner(r)
		var cur seenRound
		var body strings.Builder
		for sc.Scan() {
			line := sc.Text()
			rr.mu.Lock()
			rr.all.WriteString(line + "\n")
			rr.mu.Unlock()
			if m := roundHead.FindStringSubmatch(line); m != nil {
				fmt.Sscan(m[1], &cur.n)
				cur.why = m[2]
				body.Reset()
				continue
			}
			if m := roundTail.FindStringSubmatch(line); m != nil {
				cur.outcome, cur.summary, cur.bridge, cur.body = m[2], m[3], m[4], body.String()
				rr.rounds <- cur
				cur = seenRound{}
				continue
			}
			body.WriteString(line + "\n")
		}
	}()
	return rr
}

func (rr *roundReader) output() string {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	return rr.all.String()
}

// until waits for a round that match accepts, checking every round on
// the way with each (a round the edit's first half started, say).
func (rr *roundReader) until(t *testing.T, what string, each func(seenRound), match func(seenRound) bool) seenRound {
	t.Helper()
	deadline := time.After(roundBound)
	for {
		select {
		case r, ok := <-rr.rounds:
			if !ok {
				t.Fatalf("the watch session ended before %s; its output:\n%s", what, rr.output())
			}
			if each != nil {
				each(r)
			}
			if match(r) {
				return r
			}
		case <-deadline:
			t.Fatalf("no round %s within %s; the output so far:\n%s", what, roundBound, rr.output())
		}
	}
}

// save writes a file as editors do: a temporary file beside it, renamed
// over it.
func save(t *testing.T, path, content string) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// bridgePids reads the pids the test bridge wrote, one line a start: its
// own and its parent's (tsx's launcher).
func bridgePids(t *testing.T, path string) [][2]int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var out [][2]int
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var p [2]int
		if _, err := fmt.Sscan(l, &p[0], &p[1]); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// copyDir copies the test adapter into dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A scripted watch session over a real Node bridge (tsx running
// testdata/watch/bridge.ts): a fixture edit re-runs that file alone on
// the same bridge process; a converter edit restarts the bridge and
// re-runs everything; a syntax error in the converter is a failed round,
// and the next good edit recovers; SIGINT leaves no process behind.
func TestWatchSession(t *testing.T) {
	tsx := testenv.NodeBin(t, "tsx")
	dir := t.TempDir()
	copyDir(t, "testdata/watch", dir)
	pidFile := filepath.Join(t.TempDir(), "pids")
	cfg := fmt.Sprintf(`{"name":"tinychat","bridge":{"command":[%q,"bridge.ts","--pids=%s"]},"fixtures":"fixtures"}`, tsx, pidFile)
	if err := os.WriteFile(filepath.Join(dir, "bsadapter.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}

	ws := startWatch(t, dir, "check-fixtures", "--watch")
	rr := ws.rr

	// The first round runs everything on a new bridge.
	r := rr.until(t, "for the first run", nil, func(r seenRound) bool { return true })
	if r.outcome != "passed" || r.summary != "3 messages in 2 files: 3 passed, 0 failed" || r.bridge != "started" {
		t.Fatalf("first round: %+v", r)
	}
	first := bridgePids(t, pidFile)
	if len(first) != 1 {
		t.Fatalf("bridge starts after the first round: %v", first)
	}

	// A fixture edit (a message the converter refuses) re-runs that file
	// alone, on the same bridge.
	b := filepath.Join(dir, "fixtures", "b.jsonl")
	save(t, b, `{"id":"b1","who":"me","say":"how are you?"}`+"\n"+`{"id":"b2","who":"stranger","say":"who?"}`+"\n")
	onlyB := func(r seenRound) {
		if !strings.Contains(r.why, "fixtures/b.jsonl changed") || strings.Contains(r.why, "restarted") || r.bridge != "kept" {
			t.Errorf("a fixture edit gave round %+v, want fixtures/b.jsonl re-run on the kept bridge", r)
		}
	}
	r = rr.until(t, "after the fixture edit", onlyB, func(r seenRound) bool { return r.outcome == "failed" })
	if r.summary != "2 messages in 1 file: 1 passed, 1 failed" {
		t.Errorf("fixture round: %+v", r)
	}
	if !strings.Contains(r.body, `unknown tinychat sender \"stranger\"`) && !strings.Contains(r.body, `unknown tinychat sender "stranger"`) {
		t.Errorf("the failure's reason is not shown:\n%s", r.body)
	}
	if !strings.Contains(r.body, "the other 1 fixture files passed when they last ran") {
		t.Errorf("the files not re-run are not accounted for:\n%s", r.body)
	}
	if got := bridgePids(t, pidFile); !slices.Equal(got, first) {
		t.Errorf("the bridge was restarted for a fixture edit: pids %v, then %v", first, got)
	}

	// A converter edit (it now knows the stranger) restarts the bridge
	// and re-runs everything.
	conv := filepath.Join(dir, "converter.ts")
	orig, err := os.ReadFile(conv)
	if err != nil {
		t.Fatal(err)
	}
	fixed := strings.Replace(string(orig), `me: "user",`, `me: "user", stranger: "system",`, 1)
	if fixed == string(orig) {
		t.Fatal("testdata/watch/converter.ts changed: the edit does not apply")
	}
	save(t, conv, fixed)
	r = rr.until(t, "after the converter edit", nil, func(r seenRound) bool { return r.summary == "4 messages in 2 files: 4 passed, 0 failed" })
	if r.outcome != "passed" || r.bridge != "started" || !strings.Contains(r.why, "converter.ts changed: bridge restarted, everything re-run") {
		t.Errorf("converter round: %+v", r)
	}
	second := bridgePids(t, pidFile)
	if len(second) < 2 || second[len(second)-1] == first[0] {
		t.Errorf("the bridge was not restarted for a converter edit: pids %v, then %v", first, second)
	}

	// A syntax error: the bridge cannot start, the round fails, the
	// watcher goes on.
	save(t, conv, fixed+"\nexport function broken( {\n")
	r = rr.until(t, "after the syntax error", nil, func(r seenRound) bool { return r.outcome == "failed" })
	if r.bridge != "did not start" || !strings.Contains(r.body, "converter.ts") {
		t.Errorf("syntax-error round: %+v\n%s", r, r.body)
	}

	// The next good edit recovers.
	save(t, conv, fixed)
	r = rr.until(t, "after the fix", nil, func(r seenRound) bool { return r.outcome == "passed" })
	if r.summary != "4 messages in 2 files: 4 passed, 0 failed" || r.bridge != "started" {
		t.Errorf("recovery round: %+v", r)
	}

	// SIGINT: the session ends (exit 130), and no bridge process is left.
	pids := bridgePids(t, pidFile)
	if code := ws.interrupt(t); code != ExitInterrupted {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, ExitInterrupted, ws.stderr.String())
	}
	if len(pids) < 3 {
		t.Errorf("bridge starts: %v, want at least 3", pids)
	}
	for _, p := range pids {
		for _, pid := range p {
			// Reaped by now, unless a process escaped; the wait is a
			// bound for a loaded machine.
			gone := false
			for i := 0; i < 3000 && !gone; i++ {
				if gone = !bridgetest.Alive(pid); !gone {
					time.Sleep(10 * time.Millisecond)
				}
			}
			if !gone {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Errorf("process %d (of a bridge) outlived the watch session", pid)
			}
		}
	}
}

// conform --store=bridge --watch over a real Node store
// (bridgestore's memstore.mjs): the first round runs the cases on a new
// bridge; an edit of bsadapter.json (the bridge command without its bug)
// is read again, restarts the bridge and re-runs the cases; SIGINT ends
// the session with no bridge left.
func TestConformWatchSession(t *testing.T) {
	node := testenv.Node(t)
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "conform", "bridgestore", "testdata", "bridges", "memstore.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "store.mjs"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, "bsadapter.json")
	cfg := func(flags ...string) string {
		argv := append([]string{node, "store.mjs"}, flags...)
		var quoted []string
		for _, a := range argv {
			quoted = append(quoted, fmt.Sprintf("%q", a))
		}
		return `{"name":"memstore","bridge":{"command":[` + strings.Join(quoted, ",") + `]}}`
	}
	if err := os.WriteFile(cfgPath, []byte(cfg("--bug=gaps")), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := startWatch(t, dir, "conform", "--store=bridge", "--watch", "--suite", "streams", "--run", "^streams/append")
	rr := ws.rr
	r := rr.until(t, "for the first run", nil, func(seenRound) bool { return true })
	if r.outcome != "failed" || r.bridge != "started" || !strings.Contains(r.body, "FAIL streams/append") {
		t.Fatalf("first round (a store with a bug): %+v\n%s", r, r.body)
	}
	save(t, cfgPath, cfg())
	r = rr.until(t, "after the bsadapter.json edit", nil, func(r seenRound) bool { return r.outcome == "passed" })
	if r.bridge != "started" || !strings.Contains(r.why, "bsadapter.json changed: bridge restarted") {
		t.Errorf("round after the bsadapter.json edit: %+v", r)
	}
	// The bridge runs in dir (as does the session itself).
	if len(procsIn(dir)) < 2 {
		t.Fatalf("no bridge process found running in %s", dir)
	}
	if code := ws.interrupt(t); code != ExitInterrupted {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, ExitInterrupted, ws.stderr.String())
	}
	var left []int
	for i := 0; i < 3000; i++ {
		if left = procsIn(dir); len(left) == 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, pid := range left {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("process %d, running in the adapter's folder, outlived the watch session", pid)
	}
}

// watchSession is bsadapter --watch running as a child process (this
// test binary as bsadapter), its rounds read from its output.
type watchSession struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer
	rr     *roundReader
	wait   func() <-chan error
}

// startWatch starts bsadapter ARGS in dir; the session is killed at the
// end of the test unless it was interrupted.
func startWatch(t *testing.T, dir string, args ...string) *watchSession {
	t.Helper()
	ws := &watchSession{cmd: exec.Command(os.Args[0], "-test.run=^TestCheckFixturesHelperProcess$")}
	ws.cmd.Dir = dir
	ws.cmd.Env = append(os.Environ(), "BSADAPTER_HELPER=1", "BSADAPTER_HELPER_ARGS="+strings.Join(args, "\x1f"), "NO_COLOR=1", "CI=")
	ws.cmd.Stderr = &ws.stderr
	stdout, err := ws.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait closes stdout once the process ends: it is called only when
	// the session is to end, never while its rounds are read.
	ws.wait = sync.OnceValue(func() <-chan error {
		done := make(chan error, 1)
		go func() { done <- ws.cmd.Wait() }()
		return done
	})
	t.Cleanup(func() {
		if ws.cmd.ProcessState == nil {
			ws.cmd.Process.Kill()
			<-ws.wait()
		}
	})
	ws.rr = newRoundReader(stdout)
	return ws
}

// interrupt sends SIGINT and returns the session's exit code; a session
// that does not end within a round's bound fails the test.
func (ws *watchSession) interrupt(t *testing.T) int {
	t.Helper()
	if err := ws.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-ws.wait():
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("the watch session: %v", err)
		}
		return ws.cmd.ProcessState.ExitCode()
	case <-time.After(roundBound):
		t.Fatalf("the watch session did not end after SIGINT; stderr:\n%s", ws.stderr.String())
	}
	return -1
}

// procsIn lists the live processes whose working folder is dir.
func procsIn(dir string) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil {
			continue
		}
		if cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd")); err == nil && cwd == dir && bridgetest.Alive(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}
