package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestHeartbeat: off a terminal, check-fixtures and conform say every
// heartbeatEvery how far they are; on one they do not. The heartbeat's
// ticks are the test's: one is due before the run starts, so the outcome
// does not depend on how long the run takes, on any machine.
func TestHeartbeat(t *testing.T) {
	old := heartbeatTicks
	heartbeatTicks = func(time.Duration) (<-chan time.Time, func()) {
		due := make(chan time.Time, 1)
		due <- time.Now()
		return due, func() {}
	}
	defer func() { heartbeatTicks = old }()

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "one.jsonl"), []byte(`{"id":"m","role":"user","parts":[{"type":"text","text":"hi"}]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := func(string) (string, bool) { return "", false }
	for _, tc := range []struct {
		args []string
		line *regexp.Regexp
	}{
		{[]string{"conform", "--store", "memory", "--suite", "streams"}, regexp.MustCompile(`(?m)^conform: \d+ of \d+ cases done, \d+ running, \d+s so far$`)},
		{[]string{"check-fixtures", "--no-bridge", dir}, regexp.MustCompile(`(?m)^check-fixtures: \d+ messages checked, \d+s so far$`)},
	} {
		for _, tty := range []bool{false, true} {
			var out, errb bytes.Buffer
			code := Main(tc.args, Stdio{In: strings.NewReader(""), Out: &out, Err: &errb, ErrTTY: tty, Env: func(k string) (string, bool) {
				if k == "TERM" {
					return "dumb", true // no live view
				}
				return env(k)
			}})
			if code != 0 {
				t.Fatalf("%v: exit %d:\n%s", tc.args, code, errb.String())
			}
			if got := tc.line.MatchString(errb.String()); got == tty {
				t.Errorf("%v, stderr a terminal %v: progress line %v; stderr:\n%s", tc.args, tty, got, errb.String())
			}
		}
	}
}

// A tick that is due when the run stops is written: whether the heartbeat
// goroutine ran before stop or not does not change what it writes.
func TestHeartbeatDueTickIsWritten(t *testing.T) {
	old := heartbeatTicks
	defer func() { heartbeatTicks = old }()
	heartbeatTicks = func(time.Duration) (<-chan time.Time, func()) {
		due := make(chan time.Time, 1)
		due <- time.Now()
		return due, func() {}
	}
	app := &App{Stdio: Stdio{ErrTTY: false}}
	line := regexp.MustCompile(`^run: busy, \d+s so far\n$`)
	for i := 0; i < 200; i++ {
		var b bytes.Buffer
		stop := heartbeat(app, &b, "run", func() string { return "busy" })
		stop()
		if !line.MatchString(b.String()) {
			t.Fatalf("round %d: wrote %q", i, b.String())
		}
	}
}
