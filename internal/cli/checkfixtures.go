package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/fixtures"
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
	verbose      bool
	timeout      time.Duration
	jobs         int
	ignore       []string
	noNative     bool
	generate     int
	seed         uint64
	seedSet      bool
	float64      bool
}

func newCheckFixturesCmd(app *App) *cobra.Command {
	opts := &checkFixturesOptions{app: app}
	cmd := &cobra.Command{
		Use:   "check-fixtures [PATH...]",
		Short: "Validate fixture messages and their round trips through the adapter's converters",
		Long: `Check every message in an adapter's fixtures.

PATHs are fixture files or folders (folders are walked for *.json, *.jsonl and
*.ndjson, skipping node_modules, dot-folders and *.canonical.json snapshots).
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
come back. A failing message is shrunk to a minimal one. The seed is printed;
--seed replays it.

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
	f.BoolVarP(&opts.verbose, "verbose", "v", false, "list passing messages too, and the native differences ignored, with their reasons")
	f.DurationVar(&opts.timeout, "timeout", bridge.DefaultTimeout, "how long to wait for the bridge's answer to one request")
	f.StringArrayVar(&opts.ignore, "ignore", nil, "a native round-trip difference to ignore for this run: POINTER[=REASON], '*' matching one key or index (repeatable)")
	f.BoolVar(&opts.noNative, "no-native-round-trip", false, "do not compare the native message toSdk gives back with the fixture")
	f.IntVar(&opts.generate, "generate", 0, "instead of the fixtures, build N canonical messages from the schema and take each through toSdk and fromSdk (failures are shrunk)")
	f.Uint64Var(&opts.seed, "seed", 0, "with --generate: the seed that makes the messages (default: a new one, printed)")
	f.BoolVar(&opts.float64, "float64", false, "with --generate: keep numbers within what a float64 holds (for a JavaScript bridge, which reads every JSON number as one)")
	f.IntVar(&opts.jobs, "jobs", 0, "messages checked at once (default: CPUs in canonical mode, 8 requests in flight over a bridge)")
	return cmd
}

func runCheckFixtures(ctx context.Context, opts *checkFixturesOptions) error {
	app, args := opts.app, opts.paths
	if opts.noBridge && opts.bridge.set {
		return usageErr("use one of them", "--bridge and --no-bridge cannot be used together")
	}
	if opts.jobs < 0 {
		return usageErr("", "--jobs must be 0 (automatic) or more, got %d", opts.jobs)
	}
	if opts.timeout <= 0 {
		return usageErr("e.g. --timeout 30s", "--timeout must be positive, got %s", opts.timeout)
	}
	if opts.generate < 0 {
		return usageErr("", "--generate must be 0 (off) or more, got %d", opts.generate)
	}
	if opts.generate == 0 && (opts.seedSet || opts.float64) {
		return usageErr("add --generate N", "--seed and --float64 apply to generated round trips only")
	}
	if opts.generate > 0 && (opts.update || len(opts.paths) > 0 || opts.noBridge) {
		return usageErr("run the fixtures and the generated round trips separately", "--generate reads no fixtures: it cannot be used with PATHs, --update or --no-bridge")
	}
	var required []string
	for _, p := range opts.requireParts {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if _, ok := schemas.PartDef(p); !ok {
			return usageErr("the nine part types are: "+strings.Join(schemas.PartTypes, ", "), "--require-parts: unknown part type %q", p)
		}
		required = append(required, p)
	}

	ws, err := findWorkspace("fix bsadapter.json, or run from a folder without one")
	if err != nil {
		return err
	}
	cfg := ws.cfg
	var ignore []fixtures.IgnoreRule
	if cfg != nil {
		for i, ig := range cfg.RoundTrip.Ignore {
			if why := fixtures.CheckPattern(ig.Path); why != "" {
				return usageErr("fix "+cfg.Path, "roundTrip.ignore entry %d (%s): %s", i, ig.Path, why)
			}
			ignore = append(ignore, fixtures.IgnoreRule{Pattern: ig.Path, Reason: ig.Reason, Source: "bsadapter.json"})
		}
	}
	for _, arg := range opts.ignore {
		pat, reason, _ := strings.Cut(arg, "=")
		if why := fixtures.CheckPattern(pat); why != "" {
			return usageErr("e.g. --ignore '/parts/*/providerMetadata=the SDK fills it in'", "--ignore %q: %s", arg, why)
		}
		if reason == "" {
			reason = "given with --ignore"
		}
		ignore = append(ignore, fixtures.IgnoreRule{Pattern: pat, Reason: reason, Source: "--ignore"})
	}

	paths := args
	if len(paths) == 0 && opts.generate == 0 {
		switch {
		case cfg != nil && len(cfg.Fixtures) > 0:
			paths = cfg.FixturePaths()
		default:
			if _, err := os.Stat("fixtures"); err != nil {
				hint := "pass fixture files or folders, or set \"fixtures\" in bsadapter.json"
				return usageErr(hint, "no PATH given and there is no ./fixtures folder")
			}
			paths = []string{"fixtures"}
		}
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			hint := ""
			if cfg != nil && len(args) == 0 {
				hint = "the path comes from " + cfg.Path
			}
			return envErr(fixtures.PathError(p, err), hint)
		}
	}

	var bc *bridgeCommand
	if !opts.noBridge {
		bc = opts.bridge.resolve(ws)
	}
	if opts.generate > 0 && bc == nil {
		return usageErr("name a bridge with --bridge or bridge.command in bsadapter.json", "--generate sends messages through the converters, so it needs a bridge")
	}
	if opts.update && bc == nil {
		return usageErr("name a bridge with --bridge or bridge.command in bsadapter.json", "--update writes the converter's canonical forms, so it needs a bridge")
	}

	var client *bridge.Client
	if bc != nil {
		bo := bc.options()
		bo.Timeout, bo.Jobs = opts.timeout, opts.jobs
		client, err = bridge.Start(ctx, bo)
		if err != nil {
			return bc.startErr(ctx, err)
		}
		defer client.Close()
		if !client.Capabilities().Converter {
			return envErr(fmt.Errorf("the bridge %s does not declare the converter capability", strings.Join(bc.argv, " ")), "check-fixtures needs converter.fromSdk and converter.toSdk; pass --no-bridge to check canonical messages")
		}
	}

	seed := opts.seed
	if opts.generate > 0 && !opts.seedSet {
		seed = uint64(time.Now().UnixNano())
	}
	var genParts []string
	genSource := ""
	if cfg != nil && len(cfg.RoundTrip.Parts) > 0 && (client == nil || len(client.Capabilities().Parts) == 0) {
		for _, p := range cfg.RoundTrip.Parts {
			if _, ok := schemas.PartDef(p); !ok {
				return usageErr("the nine part types are: "+strings.Join(schemas.PartTypes, ", "), "%s: roundTrip.parts: unknown part type %q", cfg.Path, p)
			}
		}
		genParts, genSource = cfg.RoundTrip.Parts, "roundTrip.parts in bsadapter.json"
	}
	var checked atomic.Int64
	stop := heartbeat(app, app.Err, "check-fixtures", func() string {
		return fmt.Sprintf("%d messages checked", checked.Load())
	})
	rep, err := fixtures.Run(ctx, fixtures.Options{
		Checked:      &checked,
		Paths:        paths,
		WorkDir:      ws.dir,
		Bridge:       client,
		Strict:       opts.strict,
		RequireParts: required,
		Update:       opts.update,
		Jobs:         opts.jobs,
		Ignore:       ignore,

		NoNativeRoundTrip:   opts.noNative,
		Generate:            opts.generate,
		Seed:                seed,
		Float64:             opts.float64,
		GenerateParts:       genParts,
		GeneratePartsSource: genSource,
	})
	stop()
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.Is(err, fixtures.ErrNoFixtures) {
			return usageErr("fixture files end in .json, .jsonl or .ndjson", "%v", err)
		}
		return envErr(err, "")
	}
	if client != nil {
		// Stop the bridge before printing, so a slow shutdown never
		// delays output and nothing outlives the report.
		client.Close()
	}

	err = writeResults(app, opts.format, rep, rep, func(w io.Writer) error {
		return writeFixturesText(w, rep, opts.verbose, app.Style)
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
