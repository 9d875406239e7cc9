package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/bridgestore"
	"github.com/bsadapter/bsadapter/internal/conform/memstore"
	"github.com/bsadapter/bsadapter/internal/conform/pgstore"
	"github.com/bsadapter/bsadapter/internal/conform/storebench"
	"github.com/bsadapter/bsadapter/internal/conform/suites"
	"github.com/bsadapter/bsadapter/internal/pgserver"
	"github.com/bsadapter/bsadapter/internal/report"
	"github.com/spf13/cobra"
)

type conformOptions struct {
	app      *App
	store    string
	suites   []string
	list     bool
	run      string
	skip     string
	parallel int
	timeout  time.Duration
	// timeoutSet says --timeout was given (0 is then an error, not the
	// default).
	timeoutSet bool
	format     string
	reports    []reportSpec
	verbose    bool
	bridge     bridgeFlag
	realTTLs   bool
	pg         pgFlags
	blocks     string

	// storeSet says --store was given (or implied by --bridge).
	storeSet bool

	// shard is --shard K/N as given; shardK and shardN are its parts
	// (0 when not given).
	shard          string
	shardK, shardN int

	bench        bool
	benchAppends int
	benchReads   int

	// watch re-runs on every change of the adapter (watch_conform.go).
	watch bool

	// sel and cases are what validate selected: the run's options and
	// the cases the flags pick from the catalog.
	sel   conform.Options
	cases []conform.Case
}

func newConformCmd(app *App, runF func(context.Context, *conformOptions) error) *cobra.Command {
	opts := &conformOptions{app: app}
	cmd := &cobra.Command{
		Use:   "conform",
		Short: "Run the conformance suites for the blocks' storage contracts and the interfaces adapters implement",
		Long: `Run the conformance suites against a store and report every result.

Stores:
  pg      the embedded blocks in PostgreSQL (default): a throwaway local server,
          a container, or yours with --dsn; every call goes through the blocks'
          SQL functions with a real caller's rights
  memory  the in-process reference implementation of the same contracts
  bridge  your own StreamStore, run registry, Chat SDK state adapter,
          credential provider, engine adapter, graph compiler, builder
          runtime, Workflow SDK World, embedder or AI task runner over the
          bridge protocol
          (--bridge 'CMD', or bridge.command in bsadapter.json)

` + fill("Suites: "+strings.Join(suites.Names(), ", ")+". By default every suite the store implements runs, "+
			"and the report names the ones it left out and why; a suite named with --suite runs whatever the store, "+
			"its cases skipped with the reason where the store cannot run them. Each case has a stable ID and the rule it checks: "+
			"'bsadapter conform --list' prints them all.", 76) + `

Exit status: 0 when every case that ran passed, 1 when a case failed, 2 for
a usage or environment error, including a bridge that dies mid-run (the
cases it left are reported as not run).`,
		Example: `  bsadapter conform
  bsadapter conform --store memory --suite streams
  bsadapter conform --store bridge --bridge 'npx tsx bsadapter.bridge.ts'
  bsadapter conform --dsn "$DATABASE_URL" --format junit > conform.xml
  bsadapter conform --run 'streams/(append|read)' --parallel 8
  bsadapter conform --bench --store pg`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := opts.bridge.parse(c); err != nil {
				return err
			}
			opts.storeSet = c.Flags().Changed("store") || opts.bridge.set
			if !c.Flags().Changed("store") && opts.bridge.set {
				opts.store = "bridge"
			}
			opts.pg.parse(c)
			opts.timeoutSet = c.Flags().Changed("timeout")
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			if opts.watch {
				return runConformWatch(c.Context(), opts)
			}
			return runConform(c.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.store, "store", "pg", "store to check: pg, memory or bridge")
	f.StringSliceVar(&opts.suites, "suite", nil, "suites to run, comma-separated: "+strings.Join(suites.Names(), ", ")+" (default: those the store implements)")
	f.BoolVar(&opts.list, "list", false, "list the selected cases (ID and rule) without running them")
	f.StringVar(&opts.run, "run", "", "run only the cases whose ID matches this regular expression")
	f.StringVar(&opts.skip, "skip", "", "leave out the cases whose ID matches this regular expression (a case matched by both --run and --skip is an error)")
	f.IntVar(&opts.parallel, "parallel", 4, "how many cases run at once")
	f.DurationVar(&opts.timeout, "timeout", 0, "time limit of every case (default: each case's own, "+conform.DefaultTimeout.String()+" for most)")
	addFormatFlag(cmd, &opts.format, "output format: text, json, junit or github", "", allFormats...)
	addReportFlag(cmd, &opts.reports, allFormats...)
	f.BoolVarP(&opts.verbose, "verbose", "v", false, "list passed cases too: in the report with --format text, and in the progress on stderr off a terminal")
	addBridgeFlag(cmd, &opts.bridge, "command that starts your bridge (implies --store bridge)")
	f.BoolVar(&opts.realTTLs, "real-ttls", false, "with --store bridge: do not move the bridge's clock even if it offers one; the TTL cases wait for real TTLs of seconds")
	addPGFlags(cmd, &opts.pg)
	addBlocksFlag(cmd, &opts.blocks)
	f.StringVar(&opts.shard, "shard", "", "run only the K-th of N disjoint parts of the cases, e.g. 2/4 (join the parts' JSON reports with merge-reports)")
	f.BoolVar(&opts.bench, "bench", false, "measure the store instead: append and read throughput and p50/p99 latency with 1 and 8 writers")
	f.IntVar(&opts.benchAppends, "bench-appends", 2000, "with --bench: appends per concurrency level")
	f.IntVar(&opts.benchReads, "bench-reads", 400, "with --bench: reads (of 100 chunks) per concurrency level")
	f.BoolVarP(&opts.watch, "watch", "w", false, "with --store bridge: watch the adapter's files, restart the bridge and re-run the cases on every change")
	return cmd
}

var conformStores = []string{"pg", "memory", "bridge"}

// validate holds conform's flag rules: the store and the flags that apply
// to one store only, the ranges, the expressions and the suites that
// select cases (from the catalog, which is part of the binary), and the
// formats --list and --bench support. It keeps the selection in sel and
// cases.
func (o *conformOptions) validate() error {
	if err := o.validateStore(); err != nil {
		return err
	}
	if o.parallel < 1 {
		return usageErr("", "--parallel must be at least 1, not %d", o.parallel)
	}
	// --timeout means one thing in every command: a positive limit.
	// Left out, each case keeps its own.
	if o.timeoutSet && o.timeout <= 0 {
		return usageErr("e.g. --timeout 30s, or leave it out for each case's own limit", "--timeout must be positive, got %s", o.timeout)
	}
	if err := o.selectCases(); err != nil {
		return err
	}
	if err := o.validateShard(); err != nil {
		return err
	}
	// --report writes a run's results; listing and measuring have none.
	if len(o.reports) > 0 && (o.list || o.bench) {
		mode := "--list"
		if o.bench {
			mode = "--bench"
		}
		return usageErr("leave --report out with "+mode+", or run the cases to get a report", "%s writes no report, so --report does not go with it", mode)
	}
	if err := o.validateWatch(); err != nil {
		return err
	}
	switch {
	case o.list:
		if o.format != "text" && o.format != "json" {
			return usageErr("use --format text or json with --list", "--list does not support --format %s", o.format)
		}
	case o.bench:
		if o.benchAppends < 1 || o.benchReads < 1 {
			return usageErr("", "--bench-appends and --bench-reads must be at least 1")
		}
		if o.format != "text" && o.format != "json" {
			return usageErr("use --format text or json with --bench", "--bench does not support --format %s", o.format)
		}
	}
	return nil
}

// validateShard checks --shard: K/N with 1 <= K <= N, and no more parts
// than selected cases (the store may leave out more: see shardCases).
func (o *conformOptions) validateShard() error {
	if o.shard == "" {
		return nil
	}
	k, n, err := report.ParseShard(o.shard)
	if err != nil {
		return usageErr("give the part to run and the number of parts, e.g. --shard 1/4 ... --shard 4/4", "%v", err)
	}
	if o.list || o.bench {
		return usageErr("drop --shard, or --list and --bench", "--shard splits the run of the cases; it does not apply to --list or --bench")
	}
	if n > len(o.cases) {
		return usageErr(fmt.Sprintf("use at most %d parts, e.g. --shard %d/%d", len(o.cases), min(k, len(o.cases)), len(o.cases)),
			"--shard %s: %d parts for %d selected cases would leave a part with none", o.shard, n, len(o.cases))
	}
	o.shardK, o.shardN = k, n
	return nil
}

// shardCases keeps the cases of the run's part (all of them without
// --shard) and describes the part for the report. cases are the whole
// run's: what the store implements and is held to, so that every part of
// a run has the same and a part never holds only cases left out.
func shardCases(opts *conformOptions, store conform.Store, cases []conform.Case) ([]conform.Case, *report.Shard, error) {
	if opts.shardN == 0 {
		return cases, nil, nil
	}
	k, n := opts.shardK, opts.shardN
	if n > len(cases) {
		return nil, nil, usageErr(fmt.Sprintf("use at most %d parts, e.g. --shard %d/%d", len(cases), min(k, len(cases)), len(cases)),
			"--shard %s: %s runs %d of the selected cases, too few for %d parts", opts.shard, store.Name(), len(cases), n)
	}
	ids := make([]string, len(cases))
	for i, c := range cases {
		ids[i] = c.ID
	}
	sh := &report.Shard{Command: "conform", Index: k, Total: n, Unit: "case", Units: ids, Count: len(ids),
		Run: report.RunID(append([]string{"conform", store.Name()}, ids...)...)}
	mine := conform.ShardOf(cases, k, n)
	fmt.Fprintf(opts.app.Err, "%s: %d of the run's %d cases\n", sh.Label(), len(mine), len(cases))
	return mine, sh, nil
}

// validateStore checks --store and the flags that belong to one store.
func (o *conformOptions) validateStore() error {
	if !slices.Contains(conformStores, o.store) {
		return usageErr("", "--store %q is not one of %s", o.store, strings.Join(conformStores, ", "))
	}
	if name := o.pg.given; o.store != "pg" && name != "" {
		return usageErr("drop --"+name+" or use --store pg", "--%s applies only to --store pg, not --store %s", name, o.store)
	}
	if o.blocks != "" && o.store != "pg" {
		return usageErr("drop --blocks or use --store pg", "--blocks applies only to --store pg, not --store %s", o.store)
	}
	if o.bridge.set && o.store != "bridge" {
		return usageErr("drop --bridge or use --store bridge", "--bridge applies only to --store bridge, not --store %s", o.store)
	}
	if o.realTTLs && o.store != "bridge" {
		return usageErr("drop --real-ttls or use --store bridge", "--real-ttls applies only to --store bridge, not --store %s", o.store)
	}
	return nil
}

// selectCases compiles --run and --skip and picks the cases of --suite.
func (o *conformOptions) selectCases() error {
	o.sel = conform.Options{Suites: o.suites, Parallel: o.parallel, Timeout: o.timeout}
	for _, re := range []struct {
		flag, expr string
		dst        **regexp.Regexp
	}{{"--run", o.run, &o.sel.Run}, {"--skip", o.skip, &o.sel.Skip}} {
		if re.expr == "" {
			continue
		}
		r, err := regexp.Compile(re.expr)
		if err != nil {
			return usageErr("the value is a Go regular expression matched against case IDs such as streams/append-retry-is-noop", "%s %q: %v", re.flag, re.expr, err)
		}
		*re.dst = r
	}
	cases, err := conform.Select(suites.Cases(), o.sel)
	if err != nil {
		return usageErr("run 'bsadapter conform --list' to see the case IDs", "%v", err)
	}
	o.cases = cases
	return nil
}

func runConform(ctx context.Context, opts *conformOptions) error {
	if opts.list {
		return listCases(opts, opts.cases)
	}
	storeNote(opts)
	store, closeStore, err := openStore(ctx, opts)
	if err != nil {
		return err
	}
	defer closeStore()
	if opts.bench {
		return runBench(ctx, opts, store)
	}
	cases := opts.cases
	if err := runnable(ctx, store, cases); err != nil {
		return err
	}
	// Named suites run whatever the store is, their cases skipped with the
	// reason where it cannot; otherwise the suites the store does not
	// implement are left out, and said so once, rather than a skip line
	// for each of their cases.
	var leftOut []conform.LeftOut
	if len(opts.suites) == 0 {
		cases, leftOut = conform.Implemented(store, cases)
	}
	// The cases of block rules the store declares it does not keep are
	// not run, whatever the selection, and are said so once (Run would
	// leave them out too; taken out here, they do not count in the
	// progress).
	cases, notApplicable := conform.Applicable(store, cases)
	cases, shard, err := shardCases(opts, store, cases)
	if err != nil {
		return err
	}
	rep, err := runCases(ctx, opts, store, cases)
	if err != nil {
		return err
	}
	rep.Shard = shard
	rep.LeftOut = leftOut
	rep.NotApplicable = notApplicable
	if l, ok := store.(conform.ModuleLeaver); ok {
		rep.ModulesLeftOut = l.ModulesLeftOut()
	}
	if err := writeReport(opts.app, opts, rep); err != nil {
		return err
	}
	return conformOutcome(opts, store, rep)
}

// storeNote says, before anything runs, what a run with the default store
// checks when it runs inside an adapter (a bsadapter.json that names a
// bridge): the blocks, not the adapter, which --store=bridge checks.
func storeNote(opts *conformOptions) {
	if opts.storeSet || opts.store != "pg" {
		return
	}
	app := opts.app
	ws, err := app.Workspace("")
	if err != nil || ws.cfg == nil || len(ws.cfg.Bridge.Command) == 0 {
		// A broken bsadapter.json is reported where it is needed.
		return
	}
	what := "the embedded blocks"
	switch {
	case opts.blocks != "":
		what = "the blocks in " + opts.blocks
	case ws.cfg.Blocks != "":
		what = "the blocks in " + filepath.Join(ws.cfg.Dir, ws.cfg.Blocks)
	}
	fmt.Fprintf(app.Err, "%s checking %s (store pg, the default), not this adapter: %s names its bridge; run 'bsadapter conform --store=bridge' to check the adapter\n",
		app.ErrStyle.Yellow("note:"), what, ws.cfg.Path)
}

// runCases runs the cases with progress on stderr: the live view on a
// terminal, plain lines and a heartbeat elsewhere.
func runCases(ctx context.Context, opts *conformOptions, store conform.Store, cases []conform.Case) (*conform.Report, error) {
	app, sel := opts.app, opts.sel
	if liveView(app) {
		rep, err := runWithView(ctx, app, store, cases, sel)
		if err != nil {
			return nil, err
		}
		return rep, ctx.Err()
	}
	errw := &syncWriter{w: app.Err}
	var done, running atomic.Int64
	plain := plainProgress(app, errw, app.ErrTTY || opts.verbose)
	sel.OnEvent = func(e conform.Event) {
		if e.Done {
			done.Add(1)
			running.Add(-1)
		} else {
			running.Add(1)
		}
		plain(e)
	}
	stop := heartbeat(app, errw, "conform", func() string {
		return fmt.Sprintf("%d of %d cases done, %d running", done.Load(), len(cases), running.Load())
	})
	rep := conform.Run(ctx, store, cases, sel)
	stop()
	return rep, ctx.Err()
}

// conformOutcome says how the run ended once the report is out: a bridge
// that died mid-run is an environment error, a failed case a failure.
func conformOutcome(opts *conformOptions, store conform.Store, rep *conform.Report) error {
	// A bridge that died mid-run left the later cases unrun (marked so in
	// the report): an environment error, said once.
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
func runnable(ctx context.Context, store conform.Store, cases []conform.Case) error {
	var reasons []string
	seen := map[string]bool{}
	for i := range cases {
		c := &cases[i]
		if seen[c.Suite] {
			continue
		}
		seen[c.Suite] = true
		err := conform.CanRun(ctx, store, c)
		if err == nil {
			return nil
		}
		reasons = append(reasons, c.Suite+": "+err.Error())
	}
	return usageErr("select a suite the store supports with --suite, or use --store pg or memory",
		"%s runs none of the selected suites (%s)", store.Name(), strings.Join(reasons, "; "))
}

// openStore starts what the store needs; the returned function releases it.
func openStore(ctx context.Context, opts *conformOptions) (conform.Store, func(), error) {
	switch opts.store {
	case "memory":
		st := memstore.New()
		return st, func() { st.Close() }, nil
	case "bridge":
		return openBridgeStore(ctx, opts)
	}
	return openPGStore(ctx, opts)
}

// openBridgeStore starts the bridge of --bridge or bsadapter.json.
func openBridgeStore(ctx context.Context, opts *conformOptions) (conform.Store, func(), error) {
	app := opts.app
	bc, err := app.Bridge(&opts.bridge, "fix bsadapter.json, or pass --bridge 'CMD'")
	if err != nil {
		return nil, nil, err
	}
	if bc == nil {
		return nil, nil, usageErr("pass --bridge 'CMD', or run inside an adapter whose bsadapter.json has bridge.command", "--store bridge needs a bridge command")
	}
	var bo []bridgestore.Option
	if opts.realTTLs {
		bo = append(bo, bridgestore.RealTTLs())
	}
	st, err := bridgestore.New(ctx, bc.options(), bo...)
	if err != nil {
		if errors.As(err, new(*bridge.StartError)) {
			return nil, nil, bc.startErr(ctx, fmt.Errorf("start the bridge: %w", err))
		}
		// It started: what failed came after initialize.
		return nil, nil, bc.startErr(ctx, fmt.Errorf("the bridge %s answered initialize, then failed: %w", bc.commandLine(), err))
	}
	return st, func() {
		if err := st.Close(); err != nil {
			fmt.Fprintf(app.Err, "bsadapter: closing the bridge: %v\n", err)
		}
	}, nil
}

// openPGStore starts PostgreSQL and installs the blocks in it.
func openPGStore(ctx context.Context, opts *conformOptions) (conform.Store, func(), error) {
	app := opts.app
	set, err := app.Blocks(opts.blocks)
	if err != nil {
		return nil, nil, err
	}
	srv, err := app.StartPostgres(ctx, &opts.pg)
	if err != nil {
		return nil, nil, err
	}
	st, err := pgstore.NewOf(ctx, srv, set)
	if err != nil {
		srv.Close()
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return nil, nil, envErr(fmt.Errorf("prepare the database: %w", err), pgHint(srv, set, err))
	}
	return st, func() {
		st.Close()
		if err := srv.Close(); err != nil {
			fmt.Fprintf(app.Err, "bsadapter: cleaning up PostgreSQL: %v\n", err)
		}
	}, nil
}

func pgHint(srv *pgserver.Server, set *blocks.Set, err error) string {
	var timeout *pgserver.TimeoutError
	if errors.As(err, &timeout) {
		return timeoutHint(timeout)
	}
	if !set.IsEmbedded() {
		hint := "the error names the module and its file: fix it in " + set.Source() + ", or drop --blocks (and \"blocks\" in bsadapter.json) to check the embedded blocks"
		if srv.Strategy() == "dsn" {
			hint += "; on your server, the role in --dsn must also be a superuser, or have CREATEDB and CREATEROLE"
		}
		return hint
	}
	if srv.Strategy() == "dsn" {
		return "the role in --dsn must be a superuser, or have CREATEDB and CREATEROLE (the blocks create roles on plain PostgreSQL), and the blocks must install there (try 'bsadapter blocks install')"
	}
	return "run 'bsadapter blocks install --help' to check the embedded blocks"
}

func listCases(opts *conformOptions, cases []conform.Case) error {
	app, format := opts.app, opts.format
	switch format {
	case "json":
		items := make([]report.Case, len(cases))
		for i, c := range cases {
			t := c.Timeout
			if t == 0 {
				t = conform.DefaultTimeout
			}
			items[i] = report.Case{ID: c.ID, Suite: c.Suite, Rule: c.Rule, Source: string(c.Source()), BlockRule: c.Block.Name, TimeoutMs: t.Milliseconds()}
		}
		return report.WriteJSON(app.Out, report.NewCases(items))
	}
	// validate let only text and json through.
	tw := tabwriter.NewWriter(app.Out, 0, 4, 2, ' ', 0)
	for _, c := range cases {
		// A block rule is marked; a rule of the interface, the usual kind,
		// is not.
		block := ""
		if !c.Block.IsZero() {
			block = " [block: " + c.Block.Name + "]"
		}
		fmt.Fprintf(tw, "%s\t%s%s\n", c.ID, c.Rule, block)
	}
	return tw.Flush()
}

func writeReport(app *App, opts *conformOptions, rep *conform.Report) error {
	return writeResults(app, opts.format, opts.reports, report.KindConform, rep.Document(), rep, func(w io.Writer) error {
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
		case conform.NotRun:
			fmt.Fprintf(w, "%s %s\n", st.Yellow(r.Outcome.Mark()), r.ID)
		default:
			if verbose {
				fmt.Fprintf(w, "%s   %s %s\n", st.Green(r.Outcome.Mark()), r.ID, st.Dim("("+fmtDur(r.Elapsed)+")"))
			}
		}
	}
	writeNotRun(w, st, rep)
	writeNotApplicable(w, st, rep)
	writeLeftOut(w, st, rep)
	writeModulesLeftOut(w, st, rep)
	word := st.Green(conform.Pass.Mark())
	if rep.Count(conform.Fail) > 0 || rep.Count(conform.NotRun) > 0 {
		word = st.Red(conform.Fail.Mark())
	}
	_, err := fmt.Fprintf(w, "%s %s\n", word, conform.Summary(rep))
	return err
}

// writeLeftOut says which suites the run left out because the store does
// not implement them, those with the same reason on one line.
func writeLeftOut(w io.Writer, st Style, rep *conform.Report) {
	if len(rep.LeftOut) == 0 {
		return
	}
	var reasons []string
	group := map[string][]conform.LeftOut{}
	for _, l := range rep.LeftOut {
		if _, ok := group[l.Reason]; !ok {
			reasons = append(reasons, l.Reason)
		}
		group[l.Reason] = append(group[l.Reason], l)
	}
	fmt.Fprintf(w, "%s not selected, as %s does not implement them (name one with --suite to run it anyway):\n", st.Dim("-"), rep.Store)
	for _, why := range reasons {
		var names []string
		n := 0
		for _, l := range group[why] {
			names = append(names, l.Suite)
			n += l.Cases
		}
		fmt.Fprintf(w, "    %s (%d cases): %s\n", strings.Join(names, ", "), n, why)
	}
}

// writeModulesLeftOut names the block modules the store could not
// install, modules with the same reason on one line.
func writeModulesLeftOut(w io.Writer, st Style, rep *conform.Report) {
	if len(rep.ModulesLeftOut) == 0 {
		return
	}
	var reasons []string
	group := map[string][]string{}
	for _, m := range rep.ModulesLeftOut {
		if _, ok := group[m.Reason]; !ok {
			reasons = append(reasons, m.Reason)
		}
		group[m.Reason] = append(group[m.Reason], m.Module)
	}
	fmt.Fprintf(w, "%s block modules left out, as %s could not install them (nothing of theirs was checked):\n", st.Dim("-"), rep.Store)
	for _, why := range reasons {
		fmt.Fprintf(w, "    %s: %s\n", strings.Join(group[why], ", "), why)
	}
}

// writeNotApplicable lists the cases the run did not hold the store to,
// by the block rule they check and why the store does not keep it.
func writeNotApplicable(w io.Writer, st Style, rep *conform.Report) {
	if len(rep.NotApplicable) == 0 {
		return
	}
	fmt.Fprintf(w, "%s not applicable to %s, which declares it does not keep these block rules (its interface does not promise them):\n", st.Dim("-"), rep.Store)
	for _, line := range conform.NotApplicableLines(rep.NotApplicable) {
		fmt.Fprintf(w, "    %s\n", line)
	}
}

// writeNotRun lists, by the capability (or feature) they need, the cases
// skipped for lack of one: what the store would have to offer to run them.
func writeNotRun(w io.Writer, st Style, rep *conform.Report) {
	var order []string
	byNeed := map[string][]string{}
	for _, r := range rep.Results {
		if r.Outcome != conform.Skipped || r.Needs == "" {
			continue
		}
		need := string(r.Needs)
		if c := bridgestore.Capability(r.Needs); c != "" && strings.HasPrefix(rep.Store, "bridge") {
			if strings.Contains(r.Reason, c) {
				need = "capability " + c + " (" + need + ")"
			} else {
				// The bridge has the capability; the case was skipped for
				// another reason (a store that cannot grant permissions).
				need += " (" + r.Reason + ")"
			}
		}
		if _, ok := byNeed[need]; !ok {
			order = append(order, need)
		}
		byNeed[need] = append(byNeed[need], r.ID)
	}
	if len(order) == 0 {
		return
	}
	fmt.Fprintf(w, "%s these cases did not run, by what they need:\n", st.Yellow(conform.Skipped.Mark()))
	for _, need := range order {
		fmt.Fprintf(w, "    %s: %s\n", need, strings.Join(byNeed[need], ", "))
	}
}

func runBench(ctx context.Context, opts *conformOptions, store conform.Store) error {
	app := opts.app
	fmt.Fprintf(app.Err, "bench: %s: %d appends and %d reads per level...\n", store.Name(), opts.benchAppends, opts.benchReads)
	res, err := storebench.Run(ctx, store, storebench.Options{Appends: opts.benchAppends, Reads: opts.benchReads})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return envErr(err, "")
	}
	switch opts.format {
	case "json":
		return report.WriteJSON(app.Out, report.NewBench(store.Name(), 64, storebench.PageSize, res))
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

// fill wraps text into lines of at most width columns, breaking at
// spaces, for a help paragraph built from a list.
func fill(text string, width int) string {
	var b strings.Builder
	n := 0
	for _, w := range strings.Fields(text) {
		switch {
		case n == 0:
		case n+1+len(w) > width:
			b.WriteByte('\n')
			n = 0
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}
