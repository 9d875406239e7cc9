package benchkit

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestMedian(t *testing.T) {
	ms := time.Millisecond
	odd := []time.Duration{9 * ms, 1 * ms, 5 * ms, 7 * ms, 3 * ms}
	before := slices.Clone(odd)
	if got := Median(odd); got != 5*ms {
		t.Errorf("Median(%v) = %v, want 5ms", odd, got)
	}
	if !slices.Equal(odd, before) {
		t.Errorf("Median sorted its argument: %v", odd)
	}
	// An even count gives the upper of the two middle figures: one of
	// the runs, not a mean.
	if got := Median([]time.Duration{4 * ms, 1 * ms, 3 * ms, 2 * ms}); got != 3*ms {
		t.Errorf("Median of 1..4 ms = %v, want 3ms", got)
	}
	if got := Median([]float64{2.5, 0.5, 1.5}); got != 1.5 {
		t.Errorf("Median of floats = %v, want 1.5", got)
	}
	if got := Median([]time.Duration{7 * ms}); got != 7*ms {
		t.Errorf("Median of one = %v, want 7ms", got)
	}
}

func TestMedianMean(t *testing.T) {
	ms := time.Millisecond
	if got := MedianMean([]time.Duration{4 * ms, 1 * ms, 3 * ms, 2 * ms}); got != 2500*time.Microsecond {
		t.Errorf("MedianMean of 1..4 ms = %v, want 2.5ms", got)
	}
	if got := MedianMean([]time.Duration{9 * ms, 1 * ms, 5 * ms}); got != 5*ms {
		t.Errorf("MedianMean of 1, 5, 9 ms = %v, want 5ms", got)
	}
}

func TestMedianFunc(t *testing.T) {
	type run struct {
		wall time.Duration
		name string
	}
	runs := []run{{30, "c"}, {10, "a"}, {50, "e"}, {20, "b"}, {40, "d"}}
	got := MedianFunc(runs, func(a, b run) int { return cmp.Compare(a.wall, b.wall) })
	if got.name != "c" {
		t.Errorf("MedianFunc picked %+v, want the run c", got)
	}
	if runs[0].name != "c" || runs[1].name != "a" {
		t.Errorf("MedianFunc sorted its argument: %v", runs)
	}
}

func TestFormats(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Ms(1530 * time.Millisecond), "1530 ms"},
		{Ms(1499 * time.Microsecond), "1 ms"},
		{Round(1234567 * time.Microsecond), "1.235s"},
		{Round(87400 * time.Microsecond), "87ms"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// script writes an executable shell script into a temporary folder and
// returns its path.
func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fake")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRun(t *testing.T) {
	t.Setenv("CI", "true")
	t.Setenv("NO_COLOR", "")
	bin := script(t, `echo "out $* CI=[$CI] NO_COLOR=[$NO_COLOR] in $(basename "$PWD")"; echo "some trouble" >&2; exit "$1"`)
	dir := filepath.Join(t.TempDir(), "here")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}

	out, wall, err := Run(dir, bin, "0", "x")
	if err != nil {
		t.Fatalf("exit 0: %v", err)
	}
	if want := "out 0 x CI=[] NO_COLOR=[1] in here\n"; string(out) != want {
		t.Errorf("stdout %q, want %q", out, want)
	}
	if wall <= 0 {
		t.Errorf("wall time %v", wall)
	}

	out, _, err = Run(dir, bin, "1")
	if err == nil || !CasesFailed(err) {
		t.Fatalf("exit 1: err %v, CasesFailed false", err)
	}
	if !strings.Contains(err.Error(), "fake 1: exit status 1") || !strings.HasSuffix(err.Error(), "some trouble\n") {
		t.Errorf("the error names neither the command nor its stderr: %q", err)
	}
	if !strings.HasPrefix(string(out), "out 1") {
		t.Errorf("a failed run's stdout is lost: %q", out)
	}

	if _, _, err = Run(dir, bin, "2"); err == nil || CasesFailed(err) {
		t.Errorf("exit 2: err %v, and CasesFailed must be false", err)
	}
	if _, _, err = Run(dir, filepath.Join(dir, "missing")); err == nil || CasesFailed(err) {
		t.Errorf("a missing command: err %v, and CasesFailed must be false", err)
	}
}

// fakeConform stands for bsadapter: it checks its first arguments are
// 'conform --format json' and prints the report of its last argument.
const fakeConform = `[ "$1 $2 $3" = "conform --format json" ] || { echo "bad arguments: $*" >&2; exit 2; }
for last; do :; done
echo "bridge log" >&2
case $last in
ok) echo '{"summary":{"total":2,"passed":1,"failed":0,"skipped":1},"results":[{"id":"s/a","suite":"s","outcome":"passed","elapsedMs":1.5},{"id":"s/b","suite":"s","outcome":"skipped"}]}' ;;
failed) echo '{"summary":{"total":3,"passed":1,"failed":2},"results":[{"id":"s/a","outcome":"failed"},{"id":"s/b","outcome":"passed"},{"id":"s/c","outcome":"failed"}]}'; exit 1 ;;
garbled) echo 'not json'; exit 1 ;;
usage) echo "unknown flag" >&2; exit 2 ;;
esac
`

func TestConform(t *testing.T) {
	bin := script(t, fakeConform)

	r, _, err := ConformPassing("", bin, "--suite", "ok")
	if err != nil {
		t.Fatal(err)
	}
	if r.Summary.Total != 2 || r.Summary.Skipped != 1 || len(r.Results) != 2 {
		t.Errorf("report read as %+v", r)
	}
	if c := r.Results[0]; c.ID != "s/a" || c.Suite != "s" || c.Outcome != "passed" || c.ElapsedMs != 1.5 {
		t.Errorf("first case read as %+v", c)
	}
	if r.Stderr != "bridge log\n" {
		t.Errorf("Stderr %q", r.Stderr)
	}

	// Failed cases: a report for Conform, an error for ConformPassing.
	r, _, err = Conform("", bin, "failed")
	if err != nil {
		t.Fatalf("Conform with failed cases: %v", err)
	}
	if r.Summary.Failed != 2 || len(r.Results) != 3 {
		t.Errorf("report read as %+v", r)
	}
	_, _, err = ConformPassing("", bin, "failed")
	if err == nil {
		t.Fatal("ConformPassing accepted a run with failed cases")
	}
	if want := "2 cases failed: s/a, s/c\nbridge log\n"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}

	if _, _, err = Conform("", bin, "garbled"); err == nil || !strings.Contains(err.Error(), "not JSON") {
		t.Errorf("output that is not JSON: err %v", err)
	}
	if _, _, err = Conform("", bin, "usage"); err == nil || !strings.Contains(err.Error(), "exit status 2") || !strings.Contains(err.Error(), "unknown flag") {
		t.Errorf("exit 2: err %v", err)
	}
}

func TestNodeTool(t *testing.T) {
	root := t.TempDir()
	t.Chdir(root)
	if _, err := NodeTool("tsx"); err == nil || !strings.Contains(err.Error(), "npm install --no-save --prefix tools/node") {
		t.Errorf("a missing tool: err %v", err)
	}
	bin := filepath.Join(root, "tools", "node", "node_modules", ".bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "tsx"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := NodeTool("tsx")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(bin, "tsx"); got != want {
		t.Errorf("NodeTool = %q, want %q", got, want)
	}
}
