// Command suites-bench measures the wall time of each interface suite
// (the chat-state suite and those after it) over the bridge protocol,
// against the suite's Node.js reference bridge, as a user runs it: the
// built binary, one bridge process per run, every case. It prints the
// median and the slowest of the runs per suite beside the memory
// reference's, and whether each suite meets the goal of 2 s. Run it
// through bench/suites/run.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/bsadapter/bsadapter/bench/internal/benchkit"
	"github.com/bsadapter/bsadapter/internal/conform/suites"
)

// goal is the wall time a suite should stay under over the bridge.
const goal = 2 * time.Second

// bridges is where each suite's Node.js reference bridge lives, named
// after the suite; the suites without one there (streams and registry,
// which memstore.mjs implements together) are not measured here.
const bridges = "internal/conform/bridgestore/testdata/bridges"

// elsewhere are the suites whose reference bridge needs more than a
// path (world.mjs is told which World module to load): another bench
// measures them.
var elsewhere = map[string]string{"world": "bench/world/run"}

// measured returns the suites of the one list that have a reference
// bridge of their own, with its path.
func measured() (names, scripts []string) {
	for _, s := range suites.All {
		if by, ok := elsewhere[s.Name]; ok {
			fmt.Fprintf(os.Stderr, "suites-bench: %s is measured by %s\n", s.Name, by)
			continue
		}
		p := filepath.Join(bridges, s.Name+".mjs")
		if _, err := os.Stat(p); err == nil {
			names, scripts = append(names, s.Name), append(scripts, p)
		}
	}
	return names, scripts
}

func main() {
	runs := flag.Int("runs", 5, "timed runs per suite and store")
	flag.Parse()
	benchkit.Done("suites-bench", run(*runs))
}

func run(runs int) error {
	node, err := exec.LookPath("node")
	if err != nil {
		return fmt.Errorf("node is needed for the bridge runs: %w", err)
	}
	tmp, bin, err := benchkit.BuildInTemp("suites-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "suite\tcases\tbridge median\tbridge max\tmemory median\tgoal %s\n", goal)
	names, scripts := measured()
	if len(names) == 0 {
		return fmt.Errorf("no suite has a reference bridge in %s: run from the repository's root", bridges)
	}
	for i, name := range names {
		script, err := filepath.Abs(scripts[i])
		if err != nil {
			return err
		}
		var bridge, memory []time.Duration
		cases := 0
		for range runs {
			d, n, err := timed(bin, "--store", "bridge", "--bridge", node+" "+script, "--suite", name)
			if err != nil {
				return err
			}
			bridge, cases = append(bridge, d), n
			if d, _, err = timed(bin, "--store", "memory", "--suite", name); err != nil {
				return err
			}
			memory = append(memory, d)
		}
		verdict := "met"
		if benchkit.Median(bridge) >= goal {
			verdict = "MISSED"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\n", name, cases, benchkit.Round(benchkit.Median(bridge)), benchkit.Round(slices.Max(bridge)), benchkit.Round(benchkit.Median(memory)), verdict)
	}
	return tw.Flush()
}

// timed runs bsadapter conform with args once and returns its wall time
// and how many cases passed; a run with a failed or skipped case is an
// error, since its time would not be the suite's.
func timed(bin string, args ...string) (time.Duration, int, error) {
	rep, d, err := benchkit.Conform("", bin, args...)
	if err != nil {
		return 0, 0, err
	}
	if rep.Summary.Passed != rep.Summary.Total {
		return 0, 0, fmt.Errorf("conform %s: %d of %d passed (%d failed, %d skipped)", strings.Join(args, " "), rep.Summary.Passed, rep.Summary.Total, rep.Summary.Failed, rep.Summary.Skipped)
	}
	return d, rep.Summary.Passed, nil
}
