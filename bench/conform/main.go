// Command conform-bench measures bsadapter conform: the wall time of a
// whole run with every suite against pg started from nothing (warm
// template cache), against an already running server (--dsn) and against
// memory; the slowest cases; and the store throughput of conform --bench
// for memory, pg and a Node.js bridge. It prints the figures and a
// side-by-side comparison. Run it through bench/conform/run.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/bsadapter/bsadapter/bench/internal/benchkit"
	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/internal/pgserver"
)

func main() {
	runs := flag.Int("runs", 5, "timed runs per setup")
	flag.Parse()
	benchkit.Done("conform-bench", run(*runs))
}

func run(runs int) error {
	ctx := context.Background()
	tmp, bin, err := benchkit.BuildInTemp("conform-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	// Warm the template cache (the first run on a machine runs initdb and
	// installs the blocks once).
	if _, _, err := benchkit.ConformPassing("", bin, "--run", "streams/open-true-then-false$"); err != nil {
		return fmt.Errorf("warm-up run: %w", err)
	}

	fmt.Fprintln(os.Stderr, "starting a server for the --dsn runs...")
	srv, err := pgserver.Start(ctx, pgserver.Options{Strategy: "local", Template: blocks.Template{}})
	if err != nil {
		return err
	}
	defer srv.Close()
	dsn := srv.ConnString("postgres")

	type setup struct {
		name string
		args []string
	}
	setups := []setup{
		{"pg from nothing (server start included)", nil},
		{"pg, already running server (--dsn)", []string{"--dsn", dsn}},
		{"memory", []string{"--store", "memory"}},
	}
	type timing struct {
		name          string
		min, med, max time.Duration
		cases         int
	}
	var timings []timing
	var slowest []benchkit.Result
	for _, s := range setups {
		var walls []time.Duration
		var rep *benchkit.Report
		for i := range runs {
			fmt.Fprintf(os.Stderr, "%s: run %d/%d\n", s.name, i+1, runs)
			r, wall, err := benchkit.ConformPassing("", bin, s.args...)
			if err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
			walls = append(walls, wall)
			rep = r
		}
		timings = append(timings, timing{s.name, slices.Min(walls), benchkit.Median(walls), slices.Max(walls), len(rep.Results)})
		if slowest == nil {
			slowest = slices.Clone(rep.Results)
		}
	}

	fmt.Printf("bsadapter conform, every suite, wall time of the whole command (%d runs each)\n\n", runs)
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "setup\tcases\tmin\tmedian\tmax\tvs memory\n")
	mem := timings[len(timings)-1].med
	for _, t := range timings {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%.1fx\n", t.name, t.cases, benchkit.Ms(t.min), benchkit.Ms(t.med), benchkit.Ms(t.max), float64(t.med)/float64(mem))
	}
	tw.Flush()
	goal := "MET"
	if timings[0].med >= 2*time.Second {
		goal = "MISSED"
	}
	fmt.Printf("\ngoal: the whole pg run, server start included, under 2 s: median %s, %s\n", benchkit.Ms(timings[0].med), goal)

	slices.SortFunc(slowest, func(a, b benchkit.Result) int { return int(b.ElapsedMs*1000) - int(a.ElapsedMs*1000) })
	fmt.Printf("\nslowest cases (pg from nothing, last run)\n\n")
	tw = tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	for _, r := range slowest[:min(8, len(slowest))] {
		fmt.Fprintf(tw, "%s\t%.1f ms\n", r.ID, r.ElapsedMs)
	}
	tw.Flush()

	fmt.Printf("\nbsadapter conform --bench: StreamStore throughput and latency (64-byte chunks, reads of %d chunks)\n\n", 100)
	node, _ := exec.LookPath("node")
	benches := []setup{{"memory", []string{"--store", "memory"}}, {"pg (local)", nil}}
	if node != "" {
		benches = append(benches, setup{"bridge (node memstore.mjs)", []string{"--bridge", node + " internal/conform/bridgestore/testdata/bridges/memstore.mjs"}})
	}
	tw = tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "store\twriters\tappends/s\tappend p50\tappend p99\tread chunks/s\tread p50\tread p99\t\n")
	for _, b := range benches {
		fmt.Fprintf(os.Stderr, "bench: %s\n", b.name)
		out, _, err := benchkit.Run("", bin, append([]string{"conform", "--bench", "--format", "json"}, b.args...)...)
		if err != nil {
			return fmt.Errorf("bench %s: %w", b.name, err)
		}
		var doc struct {
			Results []struct {
				Writers                  int
				AppendsPerSec            float64
				AppendP50Ns, AppendP99Ns int64
				ReadChunksPerSec         float64
				ReadP50Ns, ReadP99Ns     int64
			}
		}
		if err := json.Unmarshal(out, &doc); err != nil {
			return err
		}
		for _, r := range doc.Results {
			fmt.Fprintf(tw, "%s\t%d\t%.0f\t%s\t%s\t%.0f\t%s\t%s\t\n", b.name, r.Writers, r.AppendsPerSec, us(r.AppendP50Ns), us(r.AppendP99Ns), r.ReadChunksPerSec, us(r.ReadP50Ns), us(r.ReadP99Ns))
		}
	}
	return tw.Flush()
}

func us(ns int64) string {
	if ns >= 1_000_000 {
		return fmt.Sprintf("%.2f ms", float64(ns)/1e6)
	}
	if ns < 10_000 {
		return fmt.Sprintf("%.1f µs", float64(ns)/1e3)
	}
	return fmt.Sprintf("%.0f µs", float64(ns)/1e3)
}
