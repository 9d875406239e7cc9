// Command blocks-bench compares two versions of bsadapter (by default the
// main branch and HEAD) on what the embedded blocks cost: the time to
// install every block into a fresh database, the warm path (from the cached
// template to a connection on a database with every block), and the wall
// time of a whole pg conform run, from nothing and against a running
// server. It prints the figures side by side with the goals. Run it through
// bench/blocks/run.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/bsadapter/bsadapter/bench/internal/benchkit"
	"github.com/bsadapter/bsadapter/internal/pgserver"
)

func main() {
	before := flag.String("before", "main", "git revision measured first")
	after := flag.String("after", "HEAD", "git revision measured second")
	runs := flag.Int("runs", 5, "timed runs per figure")
	flag.Parse()
	benchkit.Done("blocks-bench", run(*before, *after, *runs))
}

// version is one exported and built revision.
type version struct {
	rev, dir, bin, benchBin string
}

func run(before, after string, runs int) error {
	tmp, err := os.MkdirTemp("", "blocks-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var vs []version
	for i, rev := range []string{before, after} {
		v, err := build(tmp, fmt.Sprintf("v%d", i), rev)
		if err != nil {
			return fmt.Errorf("%s: %w", rev, err)
		}
		vs = append(vs, v)
	}

	ctx := context.Background()
	fmt.Fprintln(os.Stderr, "starting a server for the install and --dsn runs...")
	srv, err := pgserver.Start(ctx, pgserver.Options{Strategy: "local"})
	if err != nil {
		return err
	}
	defer srv.Close()

	type figures struct {
		modules, cases               int
		warms, installs, pgs, pgDSNs []time.Duration
		install, warm, pg, pgDSN     time.Duration
	}
	fs := make([]figures, len(vs))
	for _, v := range vs {
		// Warm each version's template cache.
		if _, _, err := benchkit.ConformPassing("", v.bin, "--run", "streams/open-true-then-false$"); err != nil {
			return fmt.Errorf("%s: warm-up run: %w", v.rev, err)
		}
	}
	// The versions take turns, so that a busy moment of the machine does
	// not land on one of them only, and neither always follows the other.
	for r := range runs {
		for k := range vs {
			// Who goes first alternates too.
			i := (k + r) % len(vs)
			v, f := vs[i], &fs[i]
			fmt.Fprintf(os.Stderr, "%s: round %d/%d\n", v.rev, r+1, runs)
			warm, err := warmStart(v)
			if err != nil {
				return fmt.Errorf("%s: %w", v.rev, err)
			}
			f.warms = append(f.warms, warm)
			db, err := srv.CreateDatabase(ctx, "")
			if err != nil {
				return err
			}
			out, wall, err := benchkit.Run("", v.bin, "blocks", "install", "--dsn", srv.ConnString(db), "--format", "json")
			f.installs = append(f.installs, wall)
			if err != nil {
				return fmt.Errorf("%s: %w", v.rev, err)
			}
			var rep struct{ Modules []struct{ Name string } }
			if err := json.Unmarshal(out, &rep); err != nil {
				return err
			}
			f.modules = len(rep.Modules)
			if err := srv.DropDatabase(ctx, db); err != nil {
				return err
			}
			for _, dsn := range []bool{false, true} {
				var args []string
				if dsn {
					args = []string{"--dsn", srv.ConnString("postgres")}
				}
				rep, wall, err := benchkit.ConformPassing("", v.bin, args...)
				if err != nil {
					return fmt.Errorf("%s: %w", v.rev, err)
				}
				f.cases = len(rep.Results)
				if dsn {
					f.pgDSNs = append(f.pgDSNs, wall)
				} else {
					f.pgs = append(f.pgs, wall)
				}
			}
		}
	}
	for i := range fs {
		fs[i].warm, fs[i].install, fs[i].pg, fs[i].pgDSN = benchkit.Median(fs[i].warms), benchkit.Median(fs[i].installs), benchkit.Median(fs[i].pgs), benchkit.Median(fs[i].pgDSNs)
	}

	fmt.Printf("the embedded blocks, %s against %s (medians of %d runs)\n\n", vs[1].rev, vs[0].rev, runs)
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "figure\t%s\t%s\tratio\tgoal\n", vs[0].rev, vs[1].rev)
	row := func(name string, a, b time.Duration, goal time.Duration) {
		g := ""
		if goal > 0 {
			g = fmt.Sprintf("< %s: ", benchkit.Ms(goal))
			if b < goal {
				g += "met"
			} else {
				g += "MISSED"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.2fx\t%s\n", name, benchkit.Ms(a), benchkit.Ms(b), float64(b)/float64(a), g)
	}
	fmt.Fprintf(tw, "modules installed\t%d\t%d\t\t\n", fs[0].modules, fs[1].modules)
	row("blocks install into a fresh database (the command)", fs[0].install, fs[1].install, 0)
	row("warm path: cached template to a connection", fs[0].warm, fs[1].warm, 150*time.Millisecond)
	fmt.Fprintf(tw, "conform cases\t%d\t%d\t\t\n", fs[0].cases, fs[1].cases)
	row("conform --store pg, server start included", fs[0].pg, fs[1].pg, 2*time.Second)
	row("conform --store pg --dsn (a running server)", fs[0].pgDSN, fs[1].pgDSN, 0)
	return tw.Flush()
}

// build exports rev into a folder of tmp and builds bsadapter and the
// pgserver benchmark there.
func build(tmp, name, rev string) (version, error) {
	v := version{rev: rev, dir: filepath.Join(tmp, name)}
	if err := os.MkdirAll(v.dir, 0o755); err != nil {
		return v, err
	}
	fmt.Fprintf(os.Stderr, "exporting and building %s...\n", rev)
	archive := exec.Command("git", "archive", "--format=tar", rev)
	untar := exec.Command("tar", "-x", "-C", v.dir)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		return v, err
	}
	untar.Stdin = pipe
	archive.Stderr, untar.Stderr = os.Stderr, os.Stderr
	if err := untar.Start(); err != nil {
		return v, err
	}
	if err := archive.Run(); err != nil {
		return v, fmt.Errorf("git archive %s: %w", rev, err)
	}
	if err := untar.Wait(); err != nil {
		return v, err
	}
	v.bin = filepath.Join(v.dir, "bsadapter.bin")
	v.benchBin = filepath.Join(v.dir, "pgserver.test")
	for _, args := range [][]string{
		{"build", "-o", v.bin, "./cmd/bsadapter"},
		{"test", "-c", "-o", v.benchBin, "./bench/pgserver"},
	} {
		if err := benchkit.Go(v.dir, args...); err != nil {
			return v, err
		}
	}
	return v, nil
}

var nsPerOp = regexp.MustCompile(`BenchmarkStart/warm\S*\s+\d+\s+([0-9.]+) ns/op`)

// warmStart runs the version's own pgserver benchmark of the warm path
// (four starts; the figure is their mean).
func warmStart(v version) (time.Duration, error) {
	cmd := exec.Command(v.benchBin, "-test.run", "^$", "-test.bench", "Start/warm$", "-test.benchtime", "4x")
	cmd.Dir, cmd.Stderr = filepath.Join(v.dir, "bench", "pgserver"), os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("pgserver benchmark: %w", err)
	}
	m := nsPerOp.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("pgserver benchmark printed no warm start figure:\n%s", out)
	}
	ns, err := strconv.ParseFloat(string(m[1]), 64)
	return time.Duration(ns), err
}
