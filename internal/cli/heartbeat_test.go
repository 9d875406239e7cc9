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
// heartbeatEvery how far they are; on one they do not.
func TestHeartbeat(t *testing.T) {
	old := heartbeatEvery
	heartbeatEvery = time.Millisecond
	defer func() { heartbeatEvery = old }()

	dir := t.TempDir()
	var b strings.Builder
	for i := 0; i < 3000; i++ {
		b.WriteString(`{"id":"m","role":"user","parts":[{"type":"text","text":"hi"}]}` + "\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "many.jsonl"), []byte(b.String()), 0o644); err != nil {
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
