// Command shard-bench measures what splitting bsadapter conform in parts
// (--shard K/N) costs and gains on one machine: the wall time of a whole
// run, of its N parts one after the other (each starts its own store: what
// a part pays in a CI job of its own, minus the job's start), and of the N
// parts at once (a matrix whose jobs share one machine). Each round also
// merges the parts with merge-reports and checks that the merged run has
// the whole run's cases and outcomes. Run it through bench/shard/run.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/bsadapter/bsadapter/bench/internal/benchkit"
)

func main() {
	runs := flag.Int("runs", 3, "timed rounds")
	parts := flag.Int("parts", 4, "number of parts (N of --shard K/N)")
	store := flag.String("store", "pg", "the --store of the runs")
	flag.Parse()
	benchkit.Done("shard-bench", run(*runs, *parts, *store))
}

func run(runs, parts int, store string) error {
	tmp, bin, err := benchkit.BuildInTemp("shard-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	conform := func(out string, args ...string) error {
		stdout, _, err := benchkit.Run("", bin, append([]string{"conform", "--store", store, "--format", "json"}, args...)...)
		if err != nil && !benchkit.CasesFailed(err) { // failed cases: still a report
			return err
		}
		return os.WriteFile(out, stdout, 0o644)
	}
	// Warm the template cache, as a CI job with the action's cache does.
	if err := conform(filepath.Join(tmp, "warm.json"), "--run", "streams/open-true-then-false$"); err != nil {
		return fmt.Errorf("warm-up run: %w", err)
	}

	partFiles := make([]string, parts)
	for k := range partFiles {
		partFiles[k] = filepath.Join(tmp, fmt.Sprintf("part-%d.json", k+1))
	}
	shard := func(k int) error { return conform(partFiles[k], "--shard", fmt.Sprintf("%d/%d", k+1, parts)) }
	var whole, serial, parallel []time.Duration
	var slowestPart []time.Duration
	for r := 1; r <= runs; r++ {
		fmt.Fprintf(os.Stderr, "round %d of %d: whole run...\n", r, runs)
		t0 := time.Now()
		if err := conform(filepath.Join(tmp, "whole.json")); err != nil {
			return err
		}
		whole = append(whole, time.Since(t0))

		fmt.Fprintf(os.Stderr, "round %d of %d: %d parts one after the other...\n", r, runs, parts)
		t0 = time.Now()
		var slowest time.Duration
		for k := range parts {
			p0 := time.Now()
			if err := shard(k); err != nil {
				return err
			}
			slowest = max(slowest, time.Since(p0))
		}
		serial = append(serial, time.Since(t0))
		slowestPart = append(slowestPart, slowest)

		fmt.Fprintf(os.Stderr, "round %d of %d: %d parts at once...\n", r, runs, parts)
		t0 = time.Now()
		errs := make([]error, parts)
		var wg sync.WaitGroup
		for k := range parts {
			wg.Add(1)
			go func() { defer wg.Done(); errs[k] = shard(k) }()
		}
		wg.Wait()
		parallel = append(parallel, time.Since(t0))
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
		if err := sameRun(bin, filepath.Join(tmp, "whole.json"), partFiles); err != nil {
			return err
		}
	}

	var w benchkit.Report
	data, _ := os.ReadFile(filepath.Join(tmp, "whole.json"))
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	fmt.Printf("conform --store %s, %d cases, %d parts; median of %d rounds (2 CPUs shared with other work)\n\n", store, w.Summary.Total, parts, runs)
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "setup\twall time\tvs whole\t\n")
	wm := benchkit.Median(whole)
	for _, row := range []struct {
		name string
		d    time.Duration
	}{
		{"1 whole run", wm},
		{fmt.Sprintf("%d parts, one after the other", parts), benchkit.Median(serial)},
		{"  their slowest part", benchkit.Median(slowestPart)},
		{fmt.Sprintf("%d parts at once", parts), benchkit.Median(parallel)},
	} {
		fmt.Fprintf(tw, "%s\t%.2fs\t%.2fx\t\n", row.name, row.d.Seconds(), row.d.Seconds()/wm.Seconds())
	}
	return tw.Flush()
}

// sameRun merges the parts and checks the merged run has the whole run's
// cases, in its order; an outcome that differs is noted.
func sameRun(bin, whole string, parts []string) error {
	out, _, err := benchkit.Run("", bin, append([]string{"merge-reports", "--format", "json"}, parts...)...)
	if err != nil && !benchkit.CasesFailed(err) {
		return err
	}
	var m, w benchkit.Report
	data, _ := os.ReadFile(whole)
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	if err := json.Unmarshal(out, &m); err != nil {
		return err
	}
	if len(m.Results) != len(w.Results) {
		return fmt.Errorf("the merged run has %d cases, the whole run %d", len(m.Results), len(w.Results))
	}
	for i := range m.Results {
		if m.Results[i].ID != w.Results[i].ID {
			return fmt.Errorf("case %d: merged %s, whole %s", i, m.Results[i].ID, w.Results[i].ID)
		}
		if m.Results[i].Outcome != w.Results[i].Outcome {
			// Two runs of a store may differ (a case that timed out on
			// a loaded machine): said, not fatal.
			fmt.Fprintf(os.Stderr, "note: %s %s in the parts, %s in the whole run\n", m.Results[i].ID, m.Results[i].Outcome, w.Results[i].Outcome)
		}
	}
	return nil
}
