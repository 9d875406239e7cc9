package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/filekind"
	"github.com/bsadapter/bsadapter/internal/fixtures"
	"github.com/bsadapter/bsadapter/internal/report"
	"github.com/bsadapter/bsadapter/schemas"
	"github.com/spf13/cobra"
)

type checkFixturesOptions struct {
	app          *App
	paths        []string
	bridge       bridgeFlag
	noBridge     bool
	strict       bool
	requireParts []string
	update       bool
	format       string
	reports      []reportSpec
	verbose      bool
	timeout      time.Duration
	jobs         int
	ignore       []string
	noNative     bool
	generate     int
	seed         uint64
	seedSet      bool
	float64      bool
	// shard is --shard K/N as given; shardK and shardN its parts (0 when
	// not given).
	shard          string
	shardK, shardN int
	shrinkTime     time.Duration
	// watch re-runs on every change (watch_fixtures.go).
	watch bool
	// now gives the time a generated run's seed is made from.
	now func() time.Time
}

func newCheckFixturesCmd(app *App, runF func(context.Context, *checkFixturesOptions) error) *cobra.Command {
	opts := &checkFixturesOptions{app: app, now: time.Now}
	cmd := &cobra.Command{
		Use:   "check-fixtures [PATH...]",
		Short: "Validate fixture messages and their round trips through the adapter's converters",
		Long: `Check every message in an adapter's fixtures.

PATHs are fixture files or folders (folders are walked for *.json, *.jsonl and
*.ndjson, skipping node_modules, dot-folders and *.canonical.json snapshots;
links are followed, each folder once, except links back into the walk and
links to a folder that holds the fixtures, such as /).
Without PATHs, the "fixtures" entry of bsadapter.json is used (found in the
current folder or the nearest parent), else ./fixtures.

Canonical mode (no bridge): every message must be a valid AiMessage
(ai-message-v1).

Converter mode (a bridge from bsadapter.json's bridge.command, or --bridge):
every message is a native SDK message. Each goes through converter.fromSdk;
the result must be a valid AiMessage; then converter.toSdk and
converter.fromSdk again must give back the same parts. A changed id, role or
metadata is a warning (a failure with --strict). The native message toSdk gives
back must equal the fixture (the native round trip): every dropped, added or
changed field fails the message, with its JSON Pointer, except what
bsadapter.json's roundTrip.ignore or --ignore covers. A native message with
content whose canonical form has no parts fails (a hollow conversion).
A .json file holding {"conversation": [...]} is a conversation: over a bridge
that declares converterHistory, its messages are converted together.

With --generate N, no fixtures are read: N canonical messages are built from
the schema (the part types the bridge declares in capabilities.parts, else
roundTrip.parts of bsadapter.json, else all nine; every optional field present
and absent; empty, long and non-ASCII strings; deep and odd JSON; numbers
beyond float64) and each goes through toSdk and then fromSdk: the parts must
come back. Failures are told by cause (where the change is, as a pattern, and
its kind), each cause with its count, its smallest message shrunk to what the
cause needs, and the run that replays it; -v lists every message. Shrinking
stops after --shrink-time. The seed is printed; --seed replays it.

Every run shows which of the nine part types the corpus produced and how
often. With --update the canonical form of each fixture file is written next
to it as NAME.canonical.json; later runs compare against it.`,
		Example: `  bsadapter check-fixtures
  bsadapter check-fixtures --no-bridge fixtures/canonical
  bsadapter check-fixtures --bridge 'node bridge.mjs' --require-parts text,tool-call fixtures
  bsadapter check-fixtures --format github
  bsadapter check-fixtures --generate 1000 --float64`,
		RunE: func(c *cobra.Command, args []string) error {
			if err := opts.bridge.parse(c); err != nil {
				return err
			}
			opts.paths = args
			opts.seedSet = c.Flags().Changed("seed")
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			if opts.watch {
				return runCheckFixturesWatch(c.Context(), opts)
			}
			return runCheckFixtures(c.Context(), opts)
		},
	}
	addBridgeFlag(cmd, &opts.bridge, "bridge command line, e.g. 'npx tsx bsadapter.bridge.ts' (overrides bsadapter.json; run in the current folder)")
	f := cmd.Flags()
	f.BoolVar(&opts.noBridge, "no-bridge", false, "canonical mode even when bsadapter.json names a bridge")
	f.BoolVar(&opts.strict, "strict", false, "treat round-trip warnings (changed id, role or metadata) as failures")
	f.StringSliceVar(&opts.requireParts, "require-parts", nil, "fail unless the corpus produces each of these part types (comma-separated)")
	f.BoolVar(&opts.update, "update", false, "write each fixture file's canonical form to NAME.canonical.json instead of comparing")
	addFormatFlag(cmd, &opts.format, "output format: text, json, junit or github", "", allFormats...)
	addReportFlag(cmd, &opts.reports, allFormats...)
	f.BoolVarP(&opts.verbose, "verbose", "v", false, "list passing messages too, and the native differences ignored, with their reasons")
	f.DurationVar(&opts.timeout, "timeout", bridge.DefaultTimeout, "how long to wait for the bridge's answer to one request")
	f.StringArrayVar(&opts.ignore, "ignore", nil, "a native round-trip difference to ignore for this run: POINTER[=REASON], '*' matching one key or index (repeatable)")
	f.BoolVar(&opts.noNative, "no-native-round-trip", false, "do not compare the native message toSdk gives back with the fixture")
	f.IntVar(&opts.generate, "generate", 0, "instead of the fixtures, build N canonical messages from the schema and take each through toSdk and fromSdk (failures are shrunk)")
	f.Uint64Var(&opts.seed, "seed", 0, "with --generate: the seed that makes the messages (default: a new one, printed)")
	f.BoolVar(&opts.float64, "float64", false, "with --generate: keep numbers within what a float64 holds (for a JavaScript bridge, which reads every JSON number as one)")
	f.StringVar(&opts.shard, "shard", "", "check only the K-th of N disjoint parts, e.g. 2/4: of the fixture files, or of --generate's messages (join the parts' JSON reports with merge-reports)")
	f.DurationVar(&opts.shrinkTime, "shrink-time", fixtures.DefaultShrinkTime, "with --generate: the time allowed for shrinking the failures, all told")
	f.IntVar(&opts.jobs, "jobs", 0, "messages checked at once (default: CPUs in canonical mode, 8 requests in flight over a bridge)")
	f.BoolVarP(&opts.watch, "watch", "w", false, "watch the adapter's files and re-run on every change: a changed fixture file alone, everything (on a restarted bridge) after a code change")
	return cmd
}

// validate holds check-fixtures' flag rules: which flags go together and
// the ranges of the numbers. It reads nothing but the options.
func (o *checkFixturesOptions) validate() error {
	if o.noBridge && o.bridge.set {
		return usageErr("use one of them", "--bridge and --no-bridge cannot be used together")
	}
	if o.jobs < 0 {
		return usageErr("", "--jobs must be 0 (automatic) or more, got %d", o.jobs)
	}
	if o.timeout <= 0 {
		return usageErr("e.g. --timeout 30s", "--timeout must be positive, got %s", o.timeout)
	}
	if o.generate < 0 {
		return usageErr("", "--generate must be 0 (off) or more, got %d", o.generate)
	}
	if o.generate == 0 && (o.seedSet || o.float64) {
		return usageErr("add --generate N", "--seed and --float64 apply to generated round trips only")
	}
	if o.shrinkTime < 0 {
		return usageErr("e.g. --shrink-time 2m", "--shrink-time must be positive, got %s", o.shrinkTime)
	}
	if o.generate > 0 && (o.update || len(o.paths) > 0 || o.noBridge) {
		return usageErr("run the fixtures and the generated round trips separately", "--generate reads no fixtures: it cannot be used with PATHs, --update or --no-bridge")
	}
	if o.shard != "" {
		k, n, err := report.ParseShard(o.shard)
		if err != nil {
			return usageErr("give the part to check and the number of parts, e.g. --shard 1/4 ... --shard 4/4", "%v", err)
		}
		if err := fixtures.CheckShard(o.generate, k, n); err != nil {
			return fixturesErr(err)
		}
		if o.generate > 0 && !o.seedSet {
			return usageErr("pass the same --seed to every part, e.g. --seed 42", "--shard with --generate needs --seed: the parts must make the same messages")
		}
		o.shardK, o.shardN = k, n
	}
	for _, p := range o.requiredParts() {
		if _, ok := schemas.PartDef(p); !ok {
			return usageErr("the nine part types are: "+strings.Join(schemas.PartTypes, ", "), "--require-parts: unknown part type %q", p)
		}
	}
	return o.validateWatch()
}

// checkBridge is the flag rule that waits for the bridge to be resolved
// (from --bridge or bsadapter.json): --generate and --update need one.
func (o *checkFixturesOptions) checkBridge(have bool) error {
	if have {
		return nil
	}
	if o.generate > 0 {
		return usageErr("name a bridge with --bridge or bridge.command in bsadapter.json", "--generate sends messages through the converters, so it needs a bridge")
	}
	if o.update {
		return usageErr("name a bridge with --bridge or bridge.command in bsadapter.json", "--update writes the converter's canonical forms, so it needs a bridge")
	}
	return nil
}

// requiredParts are the part types of --require-parts, blanks dropped.
func (o *checkFixturesOptions) requiredParts() []string {
	var required []string
	for _, p := range o.requireParts {
		if p = strings.TrimSpace(p); p != "" {
			required = append(required, p)
		}
	}
	return required
}

// request is what the flags ask of the run, for fixtures.OptionsFromConfig.
func (o *checkFixturesOptions) request(workDir string) fixtures.Request {
	seed := o.seed
	if o.generate > 0 && !o.seedSet {
		seed = uint64(o.now().UnixNano())
	}
	return fixtures.Request{
		Paths: o.paths, Ignore: o.ignore, WorkDir: workDir,
		Strict: o.strict, RequireParts: o.requiredParts(), Update: o.update, NoNativeRoundTrip: o.noNative,
		Jobs: o.jobs, Generate: o.generate, Seed: seed, Float64: o.float64, ShrinkTime: o.shrinkTime,
		// The text report without -v and the annotations name only what
		// failed or warned: the passing messages are counted, not kept.
		DropPassed: (o.format == "text" && !o.verbose) || o.format == "github",
	}
}

func runCheckFixtures(ctx context.Context, o *checkFixturesOptions) error {
	ws, err := o.app.Workspace("fix bsadapter.json, or run from a folder without one")
	if err != nil {
		return err
	}
	fo, err := fixtures.OptionsFromConfig(ws.cfg, o.request(ws.dir))
	if err != nil {
		return fixturesErr(err)
	}
	bc, err := o.bridgeCommand()
	if err != nil {
		return err
	}
	var client *bridge.Client
	if bc != nil {
		if client, err = o.startBridge(ctx, bc); err != nil {
			return err
		}
		defer client.Close()
		fo.Bridge = client
	}
	fo.ShardK, fo.ShardN = o.shardK, o.shardN
	if err := fo.UsePartsFromConfig(ws.cfg); err != nil {
		return fixturesErr(err)
	}
	rep, err := o.check(ctx, fo)
	if err != nil {
		return err
	}
	if client != nil {
		// Stop the bridge before printing, so a slow shutdown never
		// delays output and nothing outlives the report.
		client.Close()
	}
	return o.writeReport(rep)
}

// bridgeCommand is the bridge the run uses (nil in canonical mode), with
// the rule that --generate and --update need one.
func (o *checkFixturesOptions) bridgeCommand() (*bridgeCommand, error) {
	var bc *bridgeCommand
	if !o.noBridge {
		var err error
		if bc, err = o.app.Bridge(&o.bridge, "fix bsadapter.json, or run from a folder without one"); err != nil {
			return nil, err
		}
	}
	return bc, o.checkBridge(bc != nil)
}

// startBridge starts the bridge with the run's timeout and jobs, and
// makes sure it converts.
func (o *checkFixturesOptions) startBridge(ctx context.Context, bc *bridgeCommand) (*bridge.Client, error) {
	if err := bridgePackageFile(bc.dir); err != nil {
		return nil, err
	}
	bo := bc.options()
	bo.Timeout, bo.Jobs = o.timeout, o.jobs
	client, err := bridge.Start(ctx, bo)
	if err != nil {
		return nil, bc.startErr(ctx, err)
	}
	if !client.Capabilities().Converter {
		client.Close()
		return nil, envErr(fmt.Errorf("the bridge %s does not declare the converter capability", bc.commandLine()), "check-fixtures needs converter.fromSdk and converter.toSdk; pass --no-bridge to check canonical messages")
	}
	return client, nil
}

// fixturesErr turns what fixtures.OptionsFromConfig refuses into the
// command's errors: a setting is a usage error, a missing path an
// environment error.
func fixturesErr(err error) error {
	var se *fixtures.ShardError
	if errors.As(err, &se) {
		return usageErr(se.Fix, "%s", se.Msg)
	}
	var oe *fixtures.OptionError
	if errors.As(err, &oe) {
		return usageErr(oe.Fix, "%s", oe.Msg)
	}
	var ie *fixtures.InputError
	if errors.As(err, &ie) {
		return envErr(ie.Err, ie.Fix)
	}
	return envErr(err, "")
}

// check runs the checks, saying on stderr now and then how far they got.
func (o *checkFixturesOptions) check(ctx context.Context, fo fixtures.Options) (*fixtures.Report, error) {
	var checked atomic.Int64
	stop := heartbeat(o.app, o.app.Err, "check-fixtures", func() string {
		return fmt.Sprintf("%d messages checked", checked.Load())
	})
	fo.Checked = &checked
	rep, err := fixtures.Run(ctx, fo)
	stop()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var se *fixtures.ShardError
		if errors.As(err, &se) {
			return nil, fixturesErr(err)
		}
		if errors.Is(err, fixtures.ErrNoFixtures) {
			return nil, usageErr("fixture files end in .json, .jsonl or .ndjson", "%v", err)
		}
		return nil, envErr(err, "")
	}
	return rep, nil
}

// writeReport prints the report in the --format asked for and says how
// the run ended.
func (o *checkFixturesOptions) writeReport(rep *fixtures.Report) error {
	app := o.app
	err := writeResults(app, o.format, o.reports, report.KindCheckFixtures, rep, rep, func(w io.Writer) error {
		return writeFixturesText(w, rep, o.verbose, app.Style)
	})
	if err != nil {
		return envErr(err, "")
	}
	// A bridge that stopped working left the later messages unchecked:
	// the run broke (exit 2, as in conform), whatever the report says
	// about the messages before it.
	if rep.BridgeError != "" {
		return &ExitError{Code: ExitUsage, Err: errors.New("the bridge stopped working during the run, so the messages after it could not be checked"),
			Hint: "run the bridge command on its own to see why it stops; the report above has its last stderr lines"}
	}
	if !rep.OK() {
		return failed("")
	}
	return nil
}

// bridgePackageFile refuses to start a bridge in a folder whose
// package.json is not a regular file: Node reads it (for the module type)
// before the bridge's first line runs, and on a named pipe it would wait
// for a writer until the start timeout, with nothing on stderr to say why.
func bridgePackageFile(dir string) error {
	p := filepath.Join(dir, "package.json")
	st, err := os.Stat(p)
	if err != nil || st.Mode().IsRegular() {
		return nil
	}
	return envErr(fmt.Errorf("%s %s: Node reads it to start the bridge, and would wait on it", p, filekind.IsNot(st.Mode(), filekind.Regular)),
		"make package.json a regular file (the adapter's npm manifest), or remove it")
}
