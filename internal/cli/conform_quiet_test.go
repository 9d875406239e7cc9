//go:build unix

package cli

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// Off a terminal, conform's progress on stderr has a line for each case
// that failed or was skipped, not for each that passed (a log of a hundred
// ok lines hides the few that matter); -v adds them back. The report on
// stdout is the same either way.
func TestConformProgressOffATerminalLeavesOutPasses(t *testing.T) {
	okLine := regexp.MustCompile(`(?m)^ok registry/`)
	for _, tc := range []struct {
		args   []string
		passes bool
	}{
		{[]string{"conform", "--store", "memory", "--suite", "registry"}, false},
		{[]string{"conform", "--store", "memory", "--suite", "registry", "-v"}, true},
	} {
		var out, errb bytes.Buffer
		code := Main(tc.args, Stdio{In: strings.NewReader(""), Out: &out, Err: &errb})
		if code != 0 || !strings.Contains(out.String(), "passed, 0 failed") {
			t.Fatalf("%q: exit %d\nstdout:\n%s\nstderr:\n%s", tc.args, code, out.String(), errb.String())
		}
		if got := okLine.MatchString(errb.String()); got != tc.passes {
			t.Errorf("%q: ok lines on stderr %v, want %v:\n%s", tc.args, got, tc.passes, errb.String())
		}
	}

	// Failures and skips still go by as they happen.
	var out, errb bytes.Buffer
	code := Main([]string{"conform", "--suite", "streams", "--bridge", shBridge(t, `{"streamStore":true}`)}, Stdio{In: strings.NewReader(""), Out: &out, Err: &errb})
	if code != ExitFailed {
		t.Fatalf("exit %d\nstderr:\n%s", code, errb.String())
	}
	for _, want := range []string{"\nFAIL streams/open-true-then-false ", "\nSKIP streams/read-page-missing\n"} {
		if !strings.Contains("\n"+errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb.String())
		}
	}
}
