package cli

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func envOf(kv ...string) func(string) (string, bool) {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestColorPolicy(t *testing.T) {
	cases := []struct {
		env  []string
		tty  bool
		want bool
	}{
		{nil, true, true},
		{nil, false, false},
		{[]string{"TERM", "dumb"}, true, false},
		{[]string{"NO_COLOR", "1"}, true, false},
		{[]string{"NO_COLOR", ""}, true, true}, // an empty NO_COLOR does not count
		{[]string{"CLICOLOR", "0"}, true, false},
		{[]string{"CLICOLOR_FORCE", "1"}, false, true},
		{[]string{"CLICOLOR_FORCE", "0"}, false, false},
		{[]string{"CLICOLOR_FORCE", "1", "CLICOLOR", "0"}, false, true},
		{[]string{"CLICOLOR_FORCE", "1", "NO_COLOR", "1"}, true, false},
	}
	for _, c := range cases {
		s := Stdio{Env: envOf(c.env...)}
		if got := s.Color(c.tty); got != c.want {
			t.Errorf("Color(tty=%v) with %v = %v, want %v", c.tty, c.env, got, c.want)
		}
	}
}

func TestInteractive(t *testing.T) {
	cases := []struct {
		env         []string
		inTTY, oTTY bool
		want        bool
	}{
		{nil, true, true, true},
		{nil, false, true, false},
		{nil, true, false, false},
		{[]string{"CI", "true"}, true, true, false},
		{[]string{"CI", "false"}, true, true, true},
	}
	for _, c := range cases {
		s := Stdio{Env: envOf(c.env...), InTTY: c.inTTY, OutTTY: c.oTTY}
		if got := s.Interactive(); got != c.want {
			t.Errorf("Interactive(%v, in=%v out=%v) = %v, want %v", c.env, c.inTTY, c.oTTY, got, c.want)
		}
	}
}

func TestBuildPrefersLdflags(t *testing.T) {
	old := [3]string{version, commit, date}
	t.Cleanup(func() { version, commit, date = old[0], old[1], old[2] })
	version, commit, date = "v1.2.3", "abc123", "2026-01-02T03:04:05Z"
	b := Build()
	if b.Version != "v1.2.3" || b.Commit != "abc123" || b.Date != "2026-01-02T03:04:05Z" {
		t.Fatalf("Build() = %+v", b)
	}
	version, commit, date = "", "", ""
	b = Build()
	if b.Version == "" || b.Commit == "" || b.Date == "" {
		t.Fatalf("Build() without ldflags left a field empty: %+v", b)
	}
}

func TestMainPrintsErrorsOnce(t *testing.T) {
	var out, errb bytes.Buffer
	code := Main([]string{"schema", "nope"}, Stdio{Out: &out, Err: &errb, In: strings.NewReader("")})
	if code != ExitUsage {
		t.Fatalf("exit code %d, want %d", code, ExitUsage)
	}
	if n := strings.Count(errb.String(), "bsadapter:"); n != 1 {
		t.Fatalf("error printed %d times:\n%s", n, errb.String())
	}
	if out.Len() != 0 {
		t.Fatalf("stdout not empty: %q", out.String())
	}
}

func TestExitErrorUnwrap(t *testing.T) {
	base := errors.New("boom")
	err := envErr(base, "fix it")
	if !errors.Is(err, base) {
		t.Fatal("envErr does not wrap its cause")
	}
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitUsage || ee.Hint != "fix it" {
		t.Fatalf("envErr = %#v", err)
	}
	if envErr(nil, "x") != nil {
		t.Fatal("envErr(nil) is not nil")
	}
	if f := failed(""); !f.(*ExitError).Quiet || f.(*ExitError).Code != ExitFailed {
		t.Fatalf("failed(\"\") = %#v", f)
	}
}

// Every --format is checked before the command runs, with one message, and
// completes to the formats of its command.
func TestFormatFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"version", "--format", "xml"}, `--format "xml" is not one of text, json`},
		{[]string{"conform", "--store", "memory", "--format", "yaml"}, `--format "yaml" is not one of text, json, junit, github`},
		{[]string{"check-fixtures", "--format", "tap", "nope"}, `--format "tap" is not one of text, json, junit, github`},
		{[]string{"blocks", "list", "--format", "csv"}, `--format "csv" is not one of text, json`},
	} {
		var out, errb bytes.Buffer
		code := Main(tc.args, Stdio{In: strings.NewReader(""), Out: &out, Err: &errb})
		if code != ExitUsage || !strings.Contains(errb.String(), "bsadapter: "+tc.want+"\n") || out.Len() != 0 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", tc.args, code, out.String(), errb.String())
		}
	}
	var out bytes.Buffer
	Main([]string{"__complete", "conform", "--format", ""}, Stdio{In: strings.NewReader(""), Out: &out, Err: &bytes.Buffer{}})
	if got := out.String(); !strings.HasPrefix(got, "text\njson\njunit\ngithub\n:4\n") {
		t.Errorf("completion of conform --format:\n%s", got)
	}
}
