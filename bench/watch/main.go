// Command watch-bench measures check-fixtures --watch on a real Node
// bridge (internal/cli/testdata/watch, run with tsx): the time from saving
// a fixture file (a save by rename, as editors do) to the line that ends
// its round on stdout, and the same from saving the converter, which
// restarts the bridge and re-runs every fixture. It prints each series'
// median and slowest run against the goals. Run it through bench/watch/run.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/bsadapter/bsadapter/bench/internal/benchkit"
)

// Goals of the two series.
const (
	fixtureGoal   = 300 * time.Millisecond
	converterGoal = 1500 * time.Millisecond
	// bound is how long one round may take before the bench gives up.
	bound = 3 * time.Minute
)

var roundEnd = regexp.MustCompile(`^round (\d+) (passed|failed) in (\S+): (.*)$`)

func main() {
	runs := flag.Int("runs", 9, "saves per series")
	flag.Parse()
	benchkit.Done("watch-bench", run(*runs))
}

func run(runs int) error {
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	tsx, err := benchkit.NodeTool("tsx")
	if err != nil {
		return err
	}
	tmp, bin, err := benchkit.BuildInTemp("watch-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "adapter")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(root, "internal", "cli", "testdata", "watch"))); err != nil {
		return err
	}
	cfg := fmt.Sprintf(`{"name":"tinychat","bridge":{"command":[%q,"bridge.ts"]},"fixtures":"fixtures"}`, tsx)
	if err := os.WriteFile(filepath.Join(dir, "bsadapter.json"), []byte(cfg), 0o644); err != nil {
		return err
	}
	// A corpus of some size: 20 files of 25 messages.
	for i := range 20 {
		var b strings.Builder
		for j := range 25 {
			fmt.Fprintf(&b, `{"id":"m%d-%d","who":"me","say":"message %d of file %d"}`+"\n", i, j, j, i)
		}
		if err := os.WriteFile(filepath.Join(dir, "fixtures", fmt.Sprintf("f%02d.jsonl", i)), []byte(b.String()), 0o644); err != nil {
			return err
		}
	}

	cmd := exec.Command(bin, "check-fixtures", "--watch")
	cmd.Dir = dir
	cmd.Env = benchkit.Env()
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGINT)
		cmd.Wait()
	}()
	ends := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if roundEnd.MatchString(sc.Text()) {
				ends <- sc.Text()
			}
		}
		close(ends)
	}()
	wait := func() (string, error) {
		select {
		case l, ok := <-ends:
			if !ok {
				return "", io.ErrUnexpectedEOF
			}
			return l, nil
		case <-time.After(bound):
			return "", fmt.Errorf("no round within %s", bound)
		}
	}
	if _, err := wait(); err != nil {
		return fmt.Errorf("first round: %w", err)
	}

	// bare holds the bridge's own start, without bsadapter, measured
	// right before each converter save: the floor under that series on a
	// machine whose load changes from minute to minute.
	var bare []time.Duration
	series := func(path string, content func(i int) string, want string, floor bool) ([]time.Duration, error) {
		var took []time.Duration
		for i := range runs {
			if floor {
				d, err := bareStart(tsx, dir)
				if err != nil {
					return nil, fmt.Errorf("bare bridge start: %w", err)
				}
				bare = append(bare, d)
			}
			// A pause between saves, so that each is a round of its own.
			time.Sleep(300 * time.Millisecond)
			tmpFile := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
			if err := os.WriteFile(tmpFile, []byte(content(i)), 0o644); err != nil {
				return nil, err
			}
			start := time.Now()
			if err := os.Rename(tmpFile, path); err != nil {
				return nil, err
			}
			line, err := wait()
			if err != nil {
				return nil, err
			}
			took = append(took, time.Since(start))
			if !strings.Contains(line, want) {
				return nil, fmt.Errorf("unexpected round: %s", line)
			}
		}
		return took, nil
	}
	fix := filepath.Join(dir, "fixtures", "f07.jsonl")
	fixture, err := series(fix, func(i int) string {
		return fmt.Sprintf(`{"id":"x%d","who":"bot","say":"edit %d"}`+"\n", i, i)
	}, "1 message in 1 file: 1 passed", false)
	if err != nil {
		return fmt.Errorf("fixture saves: %w", err)
	}
	conv := filepath.Join(dir, "converter.ts")
	orig, err := os.ReadFile(conv)
	if err != nil {
		return err
	}
	converter, err := series(conv, func(i int) string {
		return string(orig) + fmt.Sprintf("\n// edit %d\n", i)
	}, "passed", true)
	if err != nil {
		return fmt.Errorf("converter saves: %w", err)
	}
	over := make([]time.Duration, len(converter))
	for i := range converter {
		over[i] = converter[i] - bare[i]
	}
	report("fixture saved → its result", fixture, fixtureGoal)
	report("converter saved → all re-run on a restarted bridge", converter, converterGoal)
	report("the bridge alone: tsx started → initialize answered", bare, 0)
	report("converter series less the bridge's own start", over, 0)
	return nil
}

// bareStart runs the bridge by itself and times its answer to
// initialize.
func bareStart(tsx, dir string) (time.Duration, error) {
	cmd := exec.Command(tsx, "bridge.ts")
	cmd.Dir = dir
	in, err := cmd.StdinPipe()
	if err != nil {
		return 0, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer cmd.Wait()
	defer in.Close()
	if _, err := io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`+"\n"); err != nil {
		return 0, err
	}
	if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

func report(what string, took []time.Duration, goal time.Duration) {
	med := benchkit.Median(took)
	line := fmt.Sprintf("%-52s median %7s  slowest %7s  (%d runs", what, benchkit.Round(med), benchkit.Round(slices.Max(took)), len(took))
	if goal > 0 {
		verdict := "within"
		if med > goal {
			verdict = "over"
		}
		line += fmt.Sprintf("; goal %s: %s", goal, verdict)
	}
	fmt.Println(line + ")")
}
