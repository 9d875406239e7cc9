package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/internal/fixtures"
	"github.com/bsadapter/bsadapter/internal/report"
	"github.com/bsadapter/bsadapter/internal/testenv"
)

// A lossy converter's --generate 1000 run (a real Node bridge that drops
// a file's filename, finish steps, a tool call's providerExecuted and the
// key "a" of providerMetadata) is told by cause: one block per cause,
// each short enough for one screen, with its count and its smallest
// message shrunk to what the cause needs; JUnit and GitHub have one
// entry per cause.
func TestCheckFixturesGenerateGroups(t *testing.T) {
	t.Chdir(t.TempDir())
	script := filepath.Join(testenv.RepoRoot(t), "internal", "fixtures", "testdata", "bridges", "toolparts.mjs")
	bridgeCmd := testenv.Node(t) + " " + script + " --fault=lossy"
	run := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		code := Main(append([]string{"check-fixtures", "--bridge", bridgeCmd, "--generate", "1000", "--seed", "1", "--float64", "--shrink-time", "10m"}, args...),
			Stdio{In: strings.NewReader(""), Out: &out, Err: &errb, Env: func(string) (string, bool) { return "", false }})
		return code, out.String()
	}

	code, out := run("--format", "json")
	var rep fixtures.Report
	if code != ExitFailed || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	causes := map[string]*fixtures.Group{}
	for _, g := range rep.Groups {
		causes[g.Cause] = g
		if g.Count == 0 || len(g.Members) == 0 || !g.Example.Shrunk || g.Seed != 1 || !strings.HasPrefix(g.Replay, "--generate ") {
			t.Errorf("group %q: %+v", g.Cause, g)
		}
	}
	want := map[string]string{
		// What each cause's example keeps: one part, with only what the
		// loss needs.
		"/parts/*/filename removed":            `{"id":"m","parts":[{"filename":"","mediaType":"","type":"file","url":""}],"role":"*"}`,
		"[step] /parts/* removed":              `{"id":"m","parts":[{"boundary":"finish","type":"step"}],"role":"assistant"}`,
		"/parts/*/providerExecuted removed":    `{"id":"m","parts":[{"input":null,"providerExecuted":*,"toolCallId":"","toolName":"","type":"tool-call"}],"role":"assistant"}`,
		"/parts/*/providerMetadata/** removed": `"providerMetadata":{"a":null}`,
	}
	if len(rep.Groups) != len(want) {
		t.Errorf("%d groups, want %d: %v", len(rep.Groups), len(want), slices.Collect(mapKeys(causes)))
	}
	for cause, ex := range want {
		g := causes[cause]
		if g == nil {
			t.Errorf("no group %q", cause)
			continue
		}
		if !globMatch(ex, g.Example.Input) && !strings.Contains(g.Example.Input, ex) {
			t.Errorf("%s: example %s, want %s", cause, g.Example.Input, ex)
		}
	}
	if g := causes["/parts/*/providerMetadata/** removed"]; g != nil {
		var m map[string]any
		json.Unmarshal([]byte(g.Example.Input), &m)
		if parts := m["parts"].([]any); len(parts) != 1 || m["metadata"] != nil || m["id"] != "m" {
			t.Errorf("providerMetadata example keeps more than it needs: %s", g.Example.Input)
		}
	}
	if rep.Shrink == nil || rep.Shrink.OutOfTime || rep.Shrink.Examples != len(rep.Groups) || rep.Shrink.BudgetMs != 600000 {
		t.Errorf("shrink %+v", rep.Shrink)
	}

	// JUnit and GitHub: one entry per cause.
	if n := strings.Count(string(mustXML(t, &rep)), `classname="check-fixtures.generated"`); n != len(rep.Groups) {
		t.Errorf("%d JUnit cases for %d causes", n, len(rep.Groups))
	}
	errs := 0
	for _, a := range rep.Annotations() {
		if a.Level == report.LevelError {
			errs++
		}
	}
	if errs != len(rep.Groups) {
		t.Errorf("%d error annotations for %d causes", errs, len(rep.Groups))
	}

	// The text: at most one screen (40 lines) per cause, with its count.
	code, out = run()
	if code != ExitFailed {
		t.Fatalf("text: exit %d", code)
	}
	blocks := strings.Split(out, "\nFAIL ")
	if len(blocks)-1 != len(rep.Groups) {
		t.Fatalf("%d FAIL blocks for %d causes:\n%s", len(blocks)-1, len(rep.Groups), out)
	}
	for _, b := range blocks[1:] {
		if n := strings.Count(b, "\n"); n > 40 {
			t.Errorf("a cause takes %d lines:\n%s", n, b)
		}
	}
	for cause, g := range causes {
		if !strings.Contains(out, cause) || !strings.Contains(out, countOf(g.Count, "message")) {
			t.Errorf("the text lacks %q with its count %d", cause, g.Count)
		}
	}
	if !strings.Contains(out, "shrunk in ") || !strings.Contains(out, "time allowed: 600.0s") || strings.Contains(out, "generated#") && strings.Count(out, "\n") > 40*len(rep.Groups)+30 {
		t.Errorf("text:\n%s", out)
	}
	if strings.Contains(out, "((") || strings.Contains(out, "(from ") {
		t.Errorf("nested parentheses:\n%s", out)
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// globMatch matches s against pattern, where * matches any run of
// characters but a comma.
func globMatch(pattern, s string) bool {
	if pattern == "" {
		return s == ""
	}
	if pattern[0] == '*' {
		for i := 0; i <= len(s); i++ {
			if globMatch(pattern[1:], s[i:]) {
				return true
			}
			if i < len(s) && s[i] == ',' {
				break
			}
		}
		return false
	}
	return s != "" && s[0] == pattern[0] && globMatch(pattern[1:], s[1:])
}

func countOf(n int, one string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + one + "s"
}

func mustXML(t *testing.T, rep *fixtures.Report) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := report.WriteJUnit(&b, rep.JUnit()); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
