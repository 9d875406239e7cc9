// Command bridge-bench measures the whole conform --store=bridge run on the
// Node store that bsadapter new generates: its wall time with the short-TTL
// cases (the store's real TTLs of seconds, --real-ttls), without them, and
// with the cases moving the store's clock, side by side. Run it through
// bench/bridge/run.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/bsadapter/bsadapter/bench/internal/benchkit"
	"github.com/bsadapter/bsadapter/internal/scaffold"
)

// timedCases are the cases that wait for real TTLs and windows when the
// store's clock is not moved.
const timedCases = `^(streams/(ttl-expired-gone|ttl-expired-purged|ttl-unexpired-kept|purge-closed-window|open-expired-unchanged)|registry/purge-terminal-past-window)$`

// goal is the wall time the whole run should stay under.
const goal = 3 * time.Second

func main() {
	runs := flag.Int("runs", 5, "timed runs per setup")
	flag.Parse()
	benchkit.Done("bridge-bench", run(*runs))
}

type setup struct {
	name string
	args []string
}

func run(runs int) error {
	tsx, err := benchkit.NodeTool("tsx")
	if err != nil {
		return err
	}
	tmp, bin, err := benchkit.BuildInTemp("bridge-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "acme")
	o := scaffold.Options{Name: "acme", SDKs: []string{"acme"}, Contracts: []string{"streams", "workflows"}, Builder: true,
		Placement: scaffold.PlacementPackage, Dir: dir}
	plan, err := scaffold.Render(&o)
	if err != nil {
		return err
	}
	if _, err := scaffold.Write(plan, false); err != nil {
		return err
	}
	bridgeCmd := tsx + " bsadapter.bridge.ts"
	setups := []setup{
		{"real TTLs, with the short-TTL cases", []string{"--real-ttls"}},
		{"real TTLs, without the short-TTL cases", []string{"--real-ttls", "--skip", timedCases}},
		{"moved clock, every case", nil},
	}
	type result struct {
		times   []time.Duration
		cases   int
		skipped int
	}
	results := make([]result, len(setups))
	for i, s := range setups {
		fmt.Fprintf(os.Stderr, "%s: %d runs...\n", s.name, runs)
		for range runs {
			doc, wall, err := benchkit.ConformPassing(dir, bin, append([]string{"--store=bridge", "--bridge", bridgeCmd}, s.args...)...)
			if err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
			skipped := 0
			for _, r := range doc.Results {
				if r.Outcome == "skipped" && (r.Suite == "streams" || r.Suite == "registry") {
					skipped++
					fmt.Fprintf(os.Stderr, "  skipped: %s\n", r.ID)
				}
			}
			results[i].times = append(results[i].times, wall)
			results[i].cases, results[i].skipped = doc.Summary.Total, skipped
		}
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "whole bridge run (Node template store)\tcases\tstreams+registry skipped\tmedian wall\tmin\tmax\tunder %s\n", goal)
	for i, s := range setups {
		r := results[i]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.2fs\t%.2fs\t%.2fs\t%v\n", s.name, r.cases, r.skipped, benchkit.Median(r.times).Seconds(),
			slices.Min(r.times).Seconds(), slices.Max(r.times).Seconds(), benchkit.Median(r.times) < goal)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	with, without := benchkit.Median(results[0].times), benchkit.Median(results[1].times)
	fmt.Printf("\nthe short-TTL cases add %.2fs to the run (%.2fs with them, %.2fs without)\n", (with - without).Seconds(), with.Seconds(), without.Seconds())
	return nil
}
