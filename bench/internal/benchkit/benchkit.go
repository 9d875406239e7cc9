// Package benchkit holds what the benchmark commands under bench/ share:
// building bsadapter into a scratch folder, running a command and timing
// it (and, on unix, what CPU time and peak memory it used), reading a
// conform JSON report, medians, and the ways the figures are printed. The benches run from the repository's root (their run scripts
// change to it), and so does what here reads a path.
package benchkit

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Done ends the main function of the bench named prog: an error is
// printed after the name on standard error, and the bench exits with
// status 1.
func Done(prog string, err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, prog+":", err)
		os.Exit(1)
	}
}

// Go runs the go command with args in the folder dir ("" for the current
// one), its output going to standard error, where the benches print their
// progress.
func Go(dir string, args ...string) error {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go %s: %w", strings.Join(args, " "), err)
	}
	return nil
}

// BuildInTemp makes a scratch folder (its name starts with prefix) and
// builds the working tree's ./cmd/bsadapter into it. It returns the folder,
// which the caller removes, and the binary's path; on an error it leaves
// nothing behind.
func BuildInTemp(prefix string) (tmp, bin string, err error) {
	tmp, err = os.MkdirTemp("", prefix)
	if err != nil {
		return "", "", err
	}
	bin = filepath.Join(tmp, "bsadapter")
	fmt.Fprintln(os.Stderr, "building bsadapter...")
	if err := Go("", "build", "-o", bin, "./cmd/bsadapter"); err != nil {
		os.RemoveAll(tmp)
		return "", "", err
	}
	return tmp, bin, nil
}

// NodeTool returns the absolute path of the executable name that
// tools/node installs (tools/node/node_modules/.bin/name), or an error
// saying how to install it.
func NodeTool(name string) (string, error) {
	p, err := filepath.Abs(filepath.Join("tools", "node", "node_modules", ".bin", name))
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("%s is missing: run 'npm install --no-save --prefix tools/node' from the repository's root (%v)", name, err)
	}
	return p, nil
}

// Env is the environment the benches give bsadapter: theirs, with CI
// cleared and NO_COLOR set, so that a CI runner's settings change neither
// the output nor the figures.
func Env() []string { return append(os.Environ(), "CI=", "NO_COLOR=1") }

// Run runs name with args in the folder dir ("" for the current one), in
// the environment Env, and returns its standard output and wall time. An
// error names the command and ends with its standard error; the output is
// returned with it (conform exits 1 with a whole report when cases fail:
// see CasesFailed).
func Run(dir, name string, args ...string) ([]byte, time.Duration, error) {
	out, _, wall, err := run(dir, name, args...)
	return out, wall, err
}

// run is Run, returning the standard error too.
func run(dir, name string, args ...string) (stdout, stderr []byte, wall time.Duration, err error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = Env()
	var errb bytes.Buffer
	cmd.Stderr = &errb
	start := time.Now()
	stdout, err = cmd.Output()
	wall = time.Since(start)
	if err != nil {
		err = fmt.Errorf("%s %s: %w\n%s", filepath.Base(name), strings.Join(args, " "), err, errb.Bytes())
	}
	return stdout, errb.Bytes(), wall, err
}

// CasesFailed says whether err is an exit with code 1, bsadapter's exit
// for a run that went through and has failed cases.
func CasesFailed(err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee) && ee.ExitCode() == 1
}

// Report is what the benches read of a conform JSON report.
type Report struct {
	Summary struct {
		Total   int `json:"total"`
		Passed  int `json:"passed"`
		Failed  int `json:"failed"`
		Skipped int `json:"skipped"`
	} `json:"summary"`
	Results []Result `json:"results"`
	// Stderr is what the run printed on its standard error.
	Stderr string `json:"-"`
}

// Result is one case of a Report.
type Result struct {
	ID        string  `json:"id"`
	Suite     string  `json:"suite"`
	Outcome   string  `json:"outcome"`
	ElapsedMs float64 `json:"elapsedMs"`
}

// failures is nil when no case of r failed, else an error naming the
// cases that did.
func (r *Report) failures() error {
	if r.Summary.Failed == 0 {
		return nil
	}
	var ids []string
	for _, c := range r.Results {
		if c.Outcome == "failed" {
			ids = append(ids, c.ID)
		}
	}
	return fmt.Errorf("%d cases failed: %s\n%s", r.Summary.Failed, strings.Join(ids, ", "), r.Stderr)
}

// Conform runs 'bin conform --format json' with args in the folder dir
// ("" for the current one) and returns its report and wall time. Failed
// cases are not an error here: what a bench accepts is its own to say
// (ConformPassing has the common rule).
func Conform(dir, bin string, args ...string) (*Report, time.Duration, error) {
	args = append([]string{"conform", "--format", "json"}, args...)
	out, stderr, wall, err := run(dir, bin, args...)
	if err != nil && !CasesFailed(err) {
		return nil, 0, err
	}
	r := Report{Stderr: string(stderr)}
	if err := json.Unmarshal(out, &r); err != nil {
		return nil, 0, fmt.Errorf("%s %s: the report is not JSON (%v)\n%s", filepath.Base(bin), strings.Join(args, " "), err, stderr)
	}
	return &r, wall, nil
}

// ConformPassing is Conform where a run with a failed case is an error
// that names the failed cases (skipped ones are not).
func ConformPassing(dir, bin string, args ...string) (*Report, time.Duration, error) {
	r, wall, err := Conform(dir, bin, args...)
	if err != nil {
		return nil, 0, err
	}
	if err := r.failures(); err != nil {
		return nil, 0, err
	}
	return r, wall, nil
}

// Median returns the middle of xs once sorted, the upper of the two
// middle ones when their number is even: always one of the figures
// measured. xs is left as it is.
func Median[T cmp.Ordered](xs []T) T {
	return MedianFunc(xs, cmp.Compare[T])
}

// MedianFunc is Median for values that compare, with cmp, as
// slices.SortFunc has them do: the run with the median wall time, say.
func MedianFunc[T any](xs []T, cmp func(a, b T) int) T {
	s := slices.Clone(xs)
	slices.SortFunc(s, cmp)
	return s[len(s)/2]
}

// MedianMean is the median as statistics defines it: the middle figure,
// or the mean of the two middle ones when their number is even.
func MedianMean(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[len(s)/2]
}

// Ms prints d in whole milliseconds: "153 ms".
func Ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }

// Round prints d rounded to the millisecond, as time.Duration does:
// "1.234s", "87ms".
func Round(d time.Duration) string { return d.Round(time.Millisecond).String() }
