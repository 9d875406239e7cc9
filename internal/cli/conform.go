package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/spf13/cobra"

	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/config"
	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/pgserver"
	"github.com/bsadapter/bsadapter/internal/report"
)

func init() { register(newConformCmd) }

type conformOptions struct {
	store    string
	suites   []string
	list     bool
	run      string
	skip     string
	parallel int
	timeout  time.Duration
	format   string
	verbose  bool
	bridge   string
	pg       pgFlags

	bench        bool
	benchAppends int
	benchReads   int
}

func newConformCmd(app *App) *cobra.Command {
	opts := &conformOptions{}
	cmd := &cobra.Command{
		Use:   "conform",
		Short: "Run the conformance suites for StreamStore, the run registry and chat storage",
		Long: `Run the conformance suites against a store and report every result.

Stores:
  pg      the embedded blocks in PostgreSQL (default): a throwaway local server,
          a container, or yours with --dsn; every call goes through the blocks'
          SQL functions with a real caller's rights
  memory  the in-process reference implementation of the same contracts
  bridge  your own StreamStore or run registry over the bridge protocol
          (--bridge 'CMD', or bridge.command in bsadapter.json)

Suites: streams, registry, chat (default: all the store supports; the others
are reported as skipped, with the reason). Each case has a stable ID and the
rule it checks: 'bsadapter conform --list' prints them all.

Exit status: 0 when every case that ran passed, 1 when a case failed, 2 for
a usage or environment error.`,
		Example: `  bsadapter conform
  bsadapter conform --store memory --suite streams
  bsadapter conform --store bridge --bridge 'npx tsx bsadapter.bridge.ts'
  bsadapter conform --dsn "$DATABASE_URL" --format junit > conform.xml
  bsadapter conform --run 'streams/(append|read)' --parallel 8
  bsadapter conform --bench --store pg`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if !c.Flags().Changed("store") && opts.bridge != "" {
				opts.store = "bridge"
			}
			return runConform(c.Context(), app, c, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.store, "store", "pg", "store to check: pg, memory or bridge")
	f.StringSliceVar(&opts.suites, "suite", nil, "suites to run, comma-separated: streams, registry, chat (default all)")
	f.BoolVar(&opts.list, "list", false, "list the selected cases (ID and rule) without running them")
	f.StringVar(&opts.run, "run", "", "run only the cases whose ID matches this regular expression")
	f.StringVar(&opts.skip, "skip", "", "leave out the cases whose ID matches this regular expression (a case matched by both --run and --skip is an error)")
	f.IntVar(&opts.parallel, "parallel", 4, "how many cases run at once")
	f.DurationVar(&opts.timeout, "timeout", 0, "time limit of every case (default: each case's own, 10s for most)")
	f.StringVar(&opts.format, "format", "text", "output format: text, json, junit or github")
	f.BoolVarP(&opts.verbose, "verbose", "v", false, "with --format text: list passed cases too")
	f.StringVar(&opts.bridge, "bridge", "", "command that starts your bridge (implies --store bridge)")
	addPGFlags(cmd, &opts.pg)
	f.BoolVar(&opts.bench, "bench", false, "measure the store instead: append and read throughput and p50/p99 latency with 1 and 8 writers")
	f.IntVar(&opts.benchAppends, "bench-appends", 2000, "with --bench: appends per concurrency level")
	f.IntVar(&opts.benchReads, "bench-reads", 400, "with --bench: reads (of 100 chunks) per concurrency level")
	return cmd
}

var conformStores = []string{"pg", "memory", "bridge"}

func runConform(ctx context.Context, app *App, cmd *cobra.Command, opts *conformOptions) error {
	if err := formatFlag(opts.format, "text", "json", "junit", "github"); err != nil {
		return err
	}
	if !slices.Contains(conformStores, opts.store) {
		return usageErr("", "--store %q is not one of %s", opts.store, strings.Join(conformStores, ", "))
	}
	if opts.store != "pg" {
		for _, name := range []string{"pg", "dsn", "pg-image"} {
			if cmd.Flags().Changed(name) {
				return usageErr("drop --"+name+" or use --store pg", "--%s applies only to --store pg, not --store %s", name, opts.store)
			}
		}
	}
	if opts.bridge != "" && opts.store != "bridge" {
		return usageErr("drop --bridge or use --store bridge", "--bridge applies only to --store bridge, not --store %s", opts.store)
	}
	if opts.parallel < 1 {
		return usageErr("", "--parallel must be at least 1, not %d", opts.parallel)
	}
	if opts.timeout < 0 {
		return usageErr("", "--timeout must not be negative")
	}
	sel := conform.Options{Suites: opts.suites, Parallel: opts.parallel, Timeout: opts.timeout}
	for _, re := range []struct {
		flag, expr string
		dst        **regexp.Regexp
	}{{"--run", opts.run, &sel.Run}, {"--skip", opts.skip, &sel.Skip}} {
		if re.expr == "" {
			continue
		}
		r, err := regexp.Compile(re.expr)
		if err != nil {
			return usageErr("the value is a Go regular expression matched against case IDs such as streams/append-retry-is-noop", "%s %q: %v", re.flag, re.expr, err)
		}
		*re.dst = r
	}
	cases, err := conform.Select(conform.Cases(), sel)
	if err != nil {
		return usageErr("run 'bsadapter conform --list' to see the case IDs", "%v", err)
	}
	if opts.list {
		return listCases(app, opts.format, cases)
	}
	if opts.bench {
		if opts.benchAppends < 1 || opts.benchReads < 1 {
			return usageErr("", "--bench-appends and --bench-reads must be at least 1")
		}
		if opts.format != "text" && opts.format != "json" {
			return usageErr("use --format text or json with --bench", "--bench does not support --format %s", opts.format)
		}
	}

	store, closeStore, err := openStore(ctx, app, opts)
	if err != nil {
		return err
	}
	defer closeStore()

	if opts.bench {
		return runBench(ctx, app, opts, store)
	}
	if err := runnable(store, cases); err != nil {
		return err
	}

	var rep *conform.Report
	if liveView(app) {
		rep, err = runWithView(ctx, app, store, cases, sel)
		if err != nil {
			return err
		}
	} else {
		sel.OnEvent = plainProgress(app)
		rep = conform.Run(ctx, store, cases, sel)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err := writeReport(app, opts, rep); err != nil {
		return err
	}
	// A bridge that died mid-run failed every later case for one reason:
	// that is an environment error, said once.
	if f, ok := store.(interface{ Fatal() error }); ok && f.Fatal() != nil {
		return envErr(fmt.Errorf("the bridge stopped working during the run, so the cases after it could not run: %w", f.Fatal()),
			"run the bridge command on its own to see why it stops; its last stderr lines are above")
	}
	if n := rep.Count(conform.Fail); n > 0 {
		if opts.format == "text" {
			return failed("")
		}
		return failed(fmt.Sprintf("%d of %d conformance cases failed", n, len(rep.Results)))
	}
	return nil
}

// runnable refuses a run in which the store supports none of the selected
// suites: everything would be skipped, and a green result would mislead.
func runnable(store conform.Store, cases []conform.Case) error {
	var reasons []string
	for _, suite := range conform.Suites {
		if !slices.ContainsFunc(cases, func(c conform.Case) bool { return c.Suite == suite }) {
			continue
		}
		err := store.Supports(suite)
		if err == nil {
			return nil
		}
		reasons = append(reasons, suite+": "+err.Error())
	}
	return usageErr("select a suite the store supports with --suite, or use --store pg or memory",
		"%s runs none of the selected suites (%s)", store.Name(), strings.Join(reasons, "; "))
}

// openStore starts what the store needs; the returned function releases it.
func openStore(ctx context.Context, app *App, opts *conformOptions) (conform.Store, func(), error) {
	switch opts.store {
	case "memory":
		st := conform.NewMemoryStore()
		return st, func() { st.Close() }, nil
	case "bridge":
		argv, dir, err := bridgeCommand(app, opts.bridge)
		if err != nil {
			return nil, nil, err
		}
		st, err := conform.NewBridgeStore(ctx, bridge.Options{Command: argv, Dir: dir, ClientVersion: Build().Version})
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			return nil, nil, envErr(fmt.Errorf("start the bridge: %w", err), "check that the command runs on its own and answers initialize (see the bridge protocol docs)")
		}
		return st, func() {
			if err := st.Close(); err != nil {
				fmt.Fprintf(app.Err, "bsadapter: closing the bridge: %v\n", err)
			}
		}, nil
	}
	srv, err := opts.pg.startPG(ctx, app)
	if err != nil {
		return nil, nil, err
	}
	st, err := conform.NewPGStore(ctx, srv)
	if err != nil {
		srv.Close()
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return nil, nil, envErr(fmt.Errorf("prepare the database: %w", err), pgHint(srv))
	}
	return st, func() {
		st.Close()
		if err := srv.Close(); err != nil {
			fmt.Fprintf(app.Err, "bsadapter: cleaning up PostgreSQL: %v\n", err)
		}
	}, nil
}

func pgHint(srv *pgserver.Server) string {
	if srv.Strategy() == "dsn" {
		return "the role in --dsn needs CREATEDB, and the blocks must install there (try 'bsadapter blocks install')"
	}
	return "run 'bsadapter blocks install --help' to check the embedded blocks"
}

// bridgeCommand returns the bridge's argv and folder: --bridge, else the
// nearest bsadapter.json.
func bridgeCommand(app *App, flag string) ([]string, string, error) {
	if flag != "" {
		argv, err := bridge.SplitCommand(flag)
		if err != nil {
			return nil, "", usageErr("quote the command as you would in a shell, e.g. --bridge 'npx tsx bsadapter.bridge.ts'", "--bridge: %v", err)
		}
		if len(argv) == 0 {
			return nil, "", usageErr("", "--bridge is empty")
		}
		return argv, "", nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, "", envErr(err, "")
	}
	cfg, err := config.Find(wd)
	if err != nil {
		return nil, "", envErr(err, "fix bsadapter.json, or pass --bridge 'CMD'")
	}
	if cfg == nil || len(cfg.Bridge.Command) == 0 {
		return nil, "", usageErr("pass --bridge 'CMD', or run inside an adapter whose bsadapter.json has bridge.command", "--store bridge needs a bridge command")
	}
	return cfg.Bridge.Command, cfg.Dir, nil
}

func listCases(app *App, format string, cases []conform.Case) error {
	switch format {
	case "json":
		items := make([]report.Case, len(cases))
		for i, c := range cases {
			t := c.Timeout
			if t == 0 {
				t = conform.DefaultTimeout
			}
			items[i] = report.Case{ID: c.ID, Suite: c.Suite, Rule: c.Rule, TimeoutMs: t.Milliseconds()}
		}
		return report.WriteJSON(app.Out, report.NewCases(items))
	case "text":
		tw := tabwriter.NewWriter(app.Out, 0, 4, 2, ' ', 0)
		for _, c := range cases {
			fmt.Fprintf(tw, "%s\t%s\n", c.ID, c.Rule)
		}
		return tw.Flush()
	}
	return usageErr("use --format text or json with --list", "--list does not support --format %s", format)
}

func writeReport(app *App, opts *conformOptions, rep *conform.Report) error {
	return writeResults(app, opts.format, rep.Document(), rep, func(w io.Writer) error {
		return writeText(w, app.Style, rep, opts.verbose)
	})
}

// writeText writes failures with their rule and values, skips with their
// reason, passes only when verbose, and a summary line.
func writeText(w io.Writer, st Style, rep *conform.Report, verbose bool) error {
	for _, r := range rep.Results {
		switch r.Outcome {
		case conform.Fail:
			fmt.Fprintf(w, "%s %s\n    rule: %s\n", st.Red(r.Outcome.Mark()), r.ID, r.Rule)
			for _, line := range strings.Split(strings.TrimRight(conform.FailureText(r), "\n"), "\n") {
				fmt.Fprintf(w, "    %s\n", line)
			}
		case conform.Skipped:
			fmt.Fprintf(w, "%s %s: %s\n", st.Yellow(r.Outcome.Mark()), r.ID, r.Reason)
		default:
			if verbose {
				fmt.Fprintf(w, "%s   %s %s\n", st.Green(r.Outcome.Mark()), r.ID, st.Dim("("+fmtDur(r.Elapsed)+")"))
			}
		}
	}
	word := st.Green(conform.Pass.Mark())
	if rep.Count(conform.Fail) > 0 {
		word = st.Red(conform.Fail.Mark())
	}
	_, err := fmt.Fprintf(w, "%s %s\n", word, conform.Summary(rep))
	return err
}

// liveView says whether progress is the live view: stderr is a terminal
// and CI is not set (CI logs get plain lines).
func liveView(app *App) bool {
	if v := app.getenv("CI"); v != "" && v != "0" && v != "false" {
		return false
	}
	return app.ErrTTY && app.getenv("TERM") != "dumb"
}

// plainProgress prints one line on stderr per finished case: the view for
// logs and pipes.
func plainProgress(app *App) func(conform.Event) {
	st := app.ErrStyle
	return func(e conform.Event) {
		if !e.Done {
			return
		}
		r := e.Result
		switch r.Outcome {
		case conform.Pass:
			fmt.Fprintf(app.Err, "%s %s %s\n", st.Green(r.Outcome.Mark()), r.ID, st.Dim(fmtDur(r.Elapsed)))
		case conform.Fail:
			fmt.Fprintf(app.Err, "%s %s %s\n", st.Red(r.Outcome.Mark()), r.ID, st.Dim(fmtDur(r.Elapsed)))
		case conform.Skipped:
			fmt.Fprintf(app.Err, "%s %s\n", st.Yellow(r.Outcome.Mark()), r.ID)
		}
	}
}

// progressModel is the live view on a terminal: counts, the cases running
// now with how long they have run, the failures so far, and the elapsed
// time.
type progressModel struct {
	store   string
	total   int
	start   time.Time
	now     time.Time
	running []runningCase
	passed  int
	failed  []string
	skipped int
	done    bool
	style   Style
}

type runningCase struct {
	id    string
	since time.Time
}

type (
	progressTick  time.Time
	progressEvent conform.Event
	progressDone  struct{}
)

func newProgressModel(store string, total int, st Style, now time.Time) progressModel {
	return progressModel{store: store, total: total, start: now, now: now, style: st}
}

func tickProgress() tea.Cmd {
	return tea.Tick(100*time.Millisecond, func(t time.Time) tea.Msg { return progressTick(t) })
}

func (m progressModel) Init() tea.Cmd { return tickProgress() }

func (m progressModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case progressTick:
		m.now = time.Time(msg)
		if m.done {
			return m, nil
		}
		return m, tickProgress()
	case progressEvent:
		e := conform.Event(msg)
		if !e.Done {
			m.running = append(m.running, runningCase{e.Case.ID, m.now})
			return m, nil
		}
		m.running = slices.DeleteFunc(m.running, func(r runningCase) bool { return r.id == e.Case.ID })
		switch e.Result.Outcome {
		case conform.Pass:
			m.passed++
		case conform.Fail:
			m.failed = append(m.failed, e.Case.ID)
		case conform.Skipped:
			m.skipped++
		}
	case progressDone:
		m.done = true
		return m, tea.Quit
	}
	return m, nil
}

func (m progressModel) View() string {
	if m.done {
		// The report follows on stdout; leave no stale frame behind.
		return ""
	}
	st := m.style
	var b strings.Builder
	finished := m.passed + len(m.failed) + m.skipped
	fmt.Fprintf(&b, "%s %s  %d/%d  %s  %s  %s  %s\n", st.Bold("conform"), m.store, finished, m.total,
		st.Green(fmt.Sprintf("%d passed", m.passed)), st.Red(fmt.Sprintf("%d failed", len(m.failed))),
		st.Yellow(fmt.Sprintf("%d skipped", m.skipped)), st.Dim(m.now.Sub(m.start).Round(100*time.Millisecond).String()))
	for i, r := range m.running {
		if i == 8 {
			fmt.Fprintf(&b, "  ... and %d more running\n", len(m.running)-i)
			break
		}
		fmt.Fprintf(&b, "  running %s %s\n", r.id, st.Dim(m.now.Sub(r.since).Round(100*time.Millisecond).String()))
	}
	for _, id := range m.failed {
		fmt.Fprintf(&b, "  %s %s\n", st.Red(conform.Fail.Mark()), id)
	}
	return b.String()
}

// runWithView runs the cases under the live bubbletea view on stderr.
func runWithView(ctx context.Context, app *App, store conform.Store, cases []conform.Case, sel conform.Options) (*conform.Report, error) {
	m := newProgressModel(store.Name(), len(cases), app.ErrStyle, time.Now())
	p := tea.NewProgram(m, tea.WithOutput(app.Err), tea.WithInput(nil), tea.WithoutSignalHandler(), tea.WithContext(ctx))
	sel.OnEvent = func(e conform.Event) { p.Send(progressEvent(e)) }
	reports := make(chan *conform.Report, 1)
	go func() {
		rep := conform.Run(ctx, store, cases, sel)
		reports <- rep
		p.Send(progressDone{})
	}()
	_, err := p.Run()
	// Even when the view stopped early (an interrupt), wait for the run to
	// wind down, so that cleanup finds no case in flight.
	rep := <-reports
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) && ctx.Err() == nil {
		return nil, fmt.Errorf("progress view: %w", err)
	}
	return rep, nil
}

func runBench(ctx context.Context, app *App, opts *conformOptions, store conform.Store) error {
	fmt.Fprintf(app.Err, "bench: %s: %d appends and %d reads per level...\n", store.Name(), opts.benchAppends, opts.benchReads)
	res, err := conform.Bench(ctx, store, conform.BenchOptions{Appends: opts.benchAppends, Reads: opts.benchReads})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return envErr(err, "")
	}
	switch opts.format {
	case "json":
		return report.WriteJSON(app.Out, report.NewBench(store.Name(), 64, conform.PageSize, res))
	case "text":
		tw := tabwriter.NewWriter(app.Out, 0, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "writers\tappends/s\tappend p50\tappend p99\treads\tread chunks/s\tread p50\tread p99\t\n")
		for _, r := range res {
			fmt.Fprintf(tw, "%d\t%.0f\t%s\t%s\t%d\t%.0f\t%s\t%s\t\n", r.Writers, r.AppendsPerSec, fmtDur(r.AppendP50), fmtDur(r.AppendP99),
				r.Reads, r.ReadChunksPerS, fmtDur(r.ReadP50), fmtDur(r.ReadP99))
		}
		return tw.Flush()
	}
	return usageErr("use --format text or json with --bench", "--bench does not support --format %s", opts.format)
}

func fmtDur(d time.Duration) string {
	switch {
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%.1fµs", float64(d)/float64(time.Microsecond))
	}
}
