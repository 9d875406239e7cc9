// Command conform-bench measures bsadapter conform: the wall time of a
// whole run with every suite against pg started from nothing (warm
// template cache), against an already running server (--dsn) and against
// memory; the slowest cases; and the store throughput of conform --bench
// for memory, pg and a Node.js bridge. It prints the figures and a
// side-by-side comparison. Run it through bench/conform/run.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/internal/pgserver"
)

func main() {
	runs := flag.Int("runs", 5, "timed runs per setup")
	flag.Parse()
	if err := run(*runs); err != nil {
		fmt.Fprintln(os.Stderr, "conform-bench:", err)
		os.Exit(1)
	}
}

func run(runs int) error {
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "conform-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "bsadapter")
	fmt.Fprintln(os.Stderr, "building bsadapter...")
	build := exec.Command("go", "build", "-o", bin, "./cmd/bsadapter")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("build: %w", err)
	}

	// Warm the template cache (the first run on a machine runs initdb and
	// installs the blocks once).
	if _, err := conform(bin, "--run", "streams/open-true-then-false$"); err != nil {
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
	var slowest []result
	for _, s := range setups {
		var walls []time.Duration
		var rep *report
		for i := range runs {
			fmt.Fprintf(os.Stderr, "%s: run %d/%d\n", s.name, i+1, runs)
			start := time.Now()
			r, err := conform(bin, append([]string{"--format", "json"}, s.args...)...)
			if err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
			walls = append(walls, time.Since(start))
			rep = r
		}
		slices.Sort(walls)
		timings = append(timings, timing{s.name, walls[0], walls[len(walls)/2], walls[len(walls)-1], len(rep.Results)})
		if slowest == nil {
			slowest = slices.Clone(rep.Results)
		}
	}

	fmt.Printf("bsadapter conform, every suite, wall time of the whole command (%d runs each)\n\n", runs)
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "setup\tcases\tmin\tmedian\tmax\tvs memory\n")
	mem := timings[len(timings)-1].med
	for _, t := range timings {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%.1fx\n", t.name, t.cases, ms(t.min), ms(t.med), ms(t.max), float64(t.med)/float64(mem))
	}
	tw.Flush()
	goal := "MET"
	if timings[0].med >= 2*time.Second {
		goal = "MISSED"
	}
	fmt.Printf("\ngoal: the whole pg run, server start included, under 2 s: median %s, %s\n", ms(timings[0].med), goal)

	slices.SortFunc(slowest, func(a, b result) int { return int(b.ElapsedMs*1000) - int(a.ElapsedMs*1000) })
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
		out, err := bsadapter(bin, append([]string{"conform", "--bench", "--format", "json"}, b.args...)...)
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

type result struct {
	ID        string  `json:"id"`
	Outcome   string  `json:"outcome"`
	ElapsedMs float64 `json:"elapsedMs"`
}

type report struct {
	Results []result `json:"results"`
	Summary struct{ Failed int }
}

func conform(bin string, args ...string) (*report, error) {
	out, err := bsadapter(bin, append([]string{"conform"}, args...)...)
	if err != nil {
		return nil, err
	}
	var r report
	if len(args) > 0 && slices.Contains(args, "json") {
		if err := json.Unmarshal(out, &r); err != nil {
			return nil, err
		}
		if r.Summary.Failed > 0 {
			return nil, fmt.Errorf("%d cases failed", r.Summary.Failed)
		}
	}
	return &r, nil
}

func bsadapter(bin string, args ...string) ([]byte, error) {
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Env = append(os.Environ(), "CI=", "NO_COLOR=1")
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w\n%s", bin, strings.Join(args, " "), err, stderr.String())
	}
	return out, nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }

func us(ns int64) string {
	if ns >= 1_000_000 {
		return fmt.Sprintf("%.2f ms", float64(ns)/1e6)
	}
	if ns < 10_000 {
		return fmt.Sprintf("%.1f µs", float64(ns)/1e3)
	}
	return fmt.Sprintf("%.0f µs", float64(ns)/1e3)
}
