package cli

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/schemas"
	"github.com/spf13/cobra"
)

// ruleCase is one row of a flag-rule table: a name, the check's error
// ("" for none) and the hint that must come with it.
type ruleCase struct {
	name string
	err  error
	want string // the error's message; "" when the options are valid
	hint string // the hint, when want is set; "-" for none
}

// checkRules checks every row: a valid row has no error, an invalid one
// a usage error (exit 2) with exactly the message and the hint.
func checkRules(t *testing.T, rows []ruleCase) {
	t.Helper()
	for _, r := range rows {
		if r.want == "" {
			if r.err != nil {
				t.Errorf("%s: unexpected error %v", r.name, r.err)
			}
			continue
		}
		var ee *ExitError
		if !errors.As(r.err, &ee) || ee.Code != ExitUsage {
			t.Errorf("%s: got %v, want a usage error %q", r.name, r.err, r.want)
			continue
		}
		if ee.Err.Error() != r.want {
			t.Errorf("%s: message %q, want %q", r.name, ee.Err.Error(), r.want)
		}
		hint := r.hint
		if hint == "-" {
			hint = ""
		}
		if ee.Hint != hint {
			t.Errorf("%s: hint %q, want %q", r.name, ee.Hint, hint)
		}
	}
}

const bridgeHint = "name a bridge with --bridge or bridge.command in bsadapter.json"

func TestCheckFixturesValidate(t *testing.T) {
	valid := func() *checkFixturesOptions { return &checkFixturesOptions{timeout: time.Second} }
	with := func(f func(*checkFixturesOptions)) error {
		o := valid()
		f(o)
		return o.validate()
	}
	checkRules(t, []ruleCase{
		{name: "defaults", err: with(func(*checkFixturesOptions) {})},
		{name: "--bridge with --no-bridge", err: with(func(o *checkFixturesOptions) { o.bridge.set, o.noBridge = true, true }),
			want: "--bridge and --no-bridge cannot be used together", hint: "use one of them"},
		{name: "--jobs below 0", err: with(func(o *checkFixturesOptions) { o.jobs = -1 }),
			want: "--jobs must be 0 (automatic) or more, got -1", hint: "-"},
		{name: "--jobs 0 is automatic", err: with(func(o *checkFixturesOptions) { o.jobs = 0 })},
		{name: "--timeout 0", err: with(func(o *checkFixturesOptions) { o.timeout = 0 }),
			want: "--timeout must be positive, got 0s", hint: "e.g. --timeout 30s"},
		{name: "--timeout below 0", err: with(func(o *checkFixturesOptions) { o.timeout = -time.Second }),
			want: "--timeout must be positive, got -1s", hint: "e.g. --timeout 30s"},
		{name: "--generate below 0", err: with(func(o *checkFixturesOptions) { o.generate = -2 }),
			want: "--generate must be 0 (off) or more, got -2", hint: "-"},
		{name: "--seed without --generate", err: with(func(o *checkFixturesOptions) { o.seedSet = true }),
			want: "--seed and --float64 apply to generated round trips only", hint: "add --generate N"},
		{name: "--float64 without --generate", err: with(func(o *checkFixturesOptions) { o.float64 = true }),
			want: "--seed and --float64 apply to generated round trips only", hint: "add --generate N"},
		{name: "--generate with --seed and --float64", err: with(func(o *checkFixturesOptions) { o.generate, o.seedSet, o.float64 = 5, true, true })},
		{name: "--generate with --update", err: with(func(o *checkFixturesOptions) { o.generate, o.update = 5, true }),
			want: "--generate reads no fixtures: it cannot be used with PATHs, --update or --no-bridge", hint: "run the fixtures and the generated round trips separately"},
		{name: "--generate with PATHs", err: with(func(o *checkFixturesOptions) { o.generate, o.paths = 5, []string{"fixtures"} }),
			want: "--generate reads no fixtures: it cannot be used with PATHs, --update or --no-bridge", hint: "run the fixtures and the generated round trips separately"},
		{name: "--generate with --no-bridge", err: with(func(o *checkFixturesOptions) { o.generate, o.noBridge = 5, true }),
			want: "--generate reads no fixtures: it cannot be used with PATHs, --update or --no-bridge", hint: "run the fixtures and the generated round trips separately"},
		{name: "--require-parts known, blanks dropped", err: with(func(o *checkFixturesOptions) { o.requireParts = []string{" text", "", "tool-call "} })},
		{name: "--require-parts unknown", err: with(func(o *checkFixturesOptions) { o.requireParts = []string{"text", "image"} }),
			want: `--require-parts: unknown part type "image"`, hint: "the nine part types are: " + strings.Join(schemas.PartTypes, ", ")},
		// The first rule broken is the one said.
		{name: "--bridge with --no-bridge before --jobs", err: with(func(o *checkFixturesOptions) { o.bridge.set, o.noBridge, o.jobs = true, true, -1 }),
			want: "--bridge and --no-bridge cannot be used together", hint: "use one of them"},
	})

	// The rule that waits for the bridge to be resolved.
	checkRules(t, []ruleCase{
		{name: "no bridge, nothing that needs one", err: valid().checkBridge(false)},
		{name: "--generate needs a bridge", err: (&checkFixturesOptions{generate: 3}).checkBridge(false),
			want: "--generate sends messages through the converters, so it needs a bridge", hint: bridgeHint},
		{name: "--update needs a bridge", err: (&checkFixturesOptions{update: true}).checkBridge(false),
			want: "--update writes the converter's canonical forms, so it needs a bridge", hint: bridgeHint},
		{name: "--update with a bridge", err: (&checkFixturesOptions{update: true}).checkBridge(true)},
		{name: "--generate with a bridge", err: (&checkFixturesOptions{generate: 3}).checkBridge(true)},
	})
}

func TestConformValidate(t *testing.T) {
	valid := func() *conformOptions {
		return &conformOptions{store: "pg", parallel: 4, format: "text", benchAppends: 10, benchReads: 10}
	}
	with := func(f func(*conformOptions)) error {
		o := valid()
		f(o)
		return o.validate()
	}
	textOrJSON := "use --format text or json with --bench"
	checkRules(t, []ruleCase{
		{name: "defaults", err: with(func(*conformOptions) {})},
		{name: "unknown --store", err: with(func(o *conformOptions) { o.store = "sqlite" }),
			want: `--store "sqlite" is not one of pg, memory, bridge`, hint: "-"},
		{name: "--dsn with --store memory", err: with(func(o *conformOptions) { o.store, o.pg.given = "memory", "dsn" }),
			want: "--dsn applies only to --store pg, not --store memory", hint: "drop --dsn or use --store pg"},
		{name: "--pg-image with --store bridge", err: with(func(o *conformOptions) { o.store, o.pg.given = "bridge", "pg-image" }),
			want: "--pg-image applies only to --store pg, not --store bridge", hint: "drop --pg-image or use --store pg"},
		{name: "--blocks with --store memory", err: with(func(o *conformOptions) { o.store, o.blocks = "memory", "dir" }),
			want: "--blocks applies only to --store pg, not --store memory", hint: "drop --blocks or use --store pg"},
		{name: "--blocks with --store pg", err: with(func(o *conformOptions) { o.blocks = "dir" })},
		{name: "--bridge with --store memory", err: with(func(o *conformOptions) { o.store, o.bridge.set = "memory", true }),
			want: "--bridge applies only to --store bridge, not --store memory", hint: "drop --bridge or use --store bridge"},
		{name: "--bridge with --store bridge", err: with(func(o *conformOptions) { o.store, o.bridge.set = "bridge", true })},
		{name: "--real-ttls with --store pg", err: with(func(o *conformOptions) { o.realTTLs = true }),
			want: "--real-ttls applies only to --store bridge, not --store pg", hint: "drop --real-ttls or use --store bridge"},
		{name: "--real-ttls with --store bridge", err: with(func(o *conformOptions) { o.store, o.realTTLs = "bridge", true })},
		{name: "--parallel 0", err: with(func(o *conformOptions) { o.parallel = 0 }),
			want: "--parallel must be at least 1, not 0", hint: "-"},
		{name: "--timeout 0 given", err: with(func(o *conformOptions) { o.timeoutSet = true }),
			want: "--timeout must be positive, got 0s", hint: "e.g. --timeout 30s, or leave it out for each case's own limit"},
		{name: "--timeout left out", err: with(func(o *conformOptions) { o.timeoutSet = false })},
		{name: "--run that does not compile", err: with(func(o *conformOptions) { o.run = "(" }),
			want: "--run \"(\": error parsing regexp: missing closing ): `(`", hint: "the value is a Go regular expression matched against case IDs such as streams/append-retry-is-noop"},
		{name: "--skip that does not compile", err: with(func(o *conformOptions) { o.skip = "[" }),
			want: "--skip \"[\": error parsing regexp: missing closing ]: `[`", hint: "the value is a Go regular expression matched against case IDs such as streams/append-retry-is-noop"},
		{name: "--list --format junit", err: with(func(o *conformOptions) { o.list, o.format = true, "junit" }),
			want: "--list does not support --format junit", hint: "use --format text or json with --list"},
		{name: "--list --format json", err: with(func(o *conformOptions) { o.list, o.format = true, "json" })},
		{name: "--list wins over --bench's rules", err: with(func(o *conformOptions) { o.list, o.bench, o.benchAppends = true, true, 0 })},
		{name: "--bench --format github", err: with(func(o *conformOptions) { o.bench, o.format = true, "github" }),
			want: "--bench does not support --format github", hint: textOrJSON},
		{name: "--bench-appends 0", err: with(func(o *conformOptions) { o.bench, o.benchAppends = true, 0 }),
			want: "--bench-appends and --bench-reads must be at least 1", hint: "-"},
		{name: "--bench-reads 0", err: with(func(o *conformOptions) { o.bench, o.benchReads = true, 0 }),
			want: "--bench-appends and --bench-reads must be at least 1", hint: "-"},
		{name: "--bench-appends 0 without --bench", err: with(func(o *conformOptions) { o.benchAppends = 0 })},
		{name: "--bench --format json", err: with(func(o *conformOptions) { o.bench, o.format = true, "json" })},
	})

	// An unknown suite and an ID both selected and skipped come from the
	// catalog's selection, with the list as the fix.
	for _, f := range []func(*conformOptions){
		func(o *conformOptions) { o.suites = []string{"nope"} },
		func(o *conformOptions) { o.run, o.skip = "streams", "streams" },
	} {
		err := with(f)
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != ExitUsage || ee.Hint != "run 'bsadapter conform --list' to see the case IDs" {
			t.Errorf("selection error: %v", err)
		}
	}
	// A valid selection is kept for the run.
	o := valid()
	o.suites, o.run = []string{"streams"}, "^streams/append"
	if err := o.validate(); err != nil || len(o.cases) == 0 || o.sel.Run == nil || o.sel.Parallel != 4 {
		t.Errorf("selection: %v, %d cases, %+v", err, len(o.cases), o.sel)
	}
	for _, c := range o.cases {
		if !strings.HasPrefix(c.ID, "streams/append") {
			t.Errorf("selected %s", c.ID)
		}
	}
}

func TestPGFlagsValidate(t *testing.T) {
	dsnHint := "bsadapter needs PostgreSQL: postgres://user:password@host:5432/database (a Supabase project's is under Project Settings, Database)"
	checkRules(t, []ruleCase{
		{name: "auto", err: (&pgFlags{strategy: "auto"}).validate()},
		{name: "auto with a DSN", err: (&pgFlags{strategy: "auto", dsn: "postgres://h/db"}).validate()},
		{name: "dsn with BSADAPTER_DSN", err: (&pgFlags{strategy: "dsn", envDSN: "postgres://h/db"}).validate()},
		{name: "keywords", err: (&pgFlags{strategy: "auto", dsn: "host=h dbname=db"}).validate()},
		{name: "unknown --pg", err: (&pgFlags{strategy: "cloud"}).validate(),
			want: `--pg "cloud" is not one of auto, dsn, local, npm, docker`, hint: "-"},
		{name: "--dsn empty", err: (&pgFlags{strategy: "auto", dsnGiven: true, dsn: " "}).validate(),
			want: "--dsn is empty", hint: "is the variable you meant to pass set? Drop --dsn to let bsadapter start a server of its own"},
		{name: "--dsn of another database", err: (&pgFlags{strategy: "auto", dsn: "mysql://u:p@h/db"}).validate(),
			want: "--dsn (or BSADAPTER_DSN) is a mysql:// URL, a connection string of another database, not a PostgreSQL connection string", hint: dsnHint},
		{name: "BSADAPTER_DSN a web address", err: (&pgFlags{strategy: "auto", envDSN: "https://example.com"}).validate(),
			want: "--dsn (or BSADAPTER_DSN) is an https:// URL (a web address), not a PostgreSQL connection string", hint: dsnHint},
		{name: "--pg dsn without one", err: (&pgFlags{strategy: "dsn"}).validate(),
			want: "--pg dsn needs a connection string", hint: "pass --dsn postgres://user@host/db or set BSADAPTER_DSN"},
		{name: "--pg local with a DSN", err: (&pgFlags{strategy: "local", dsn: "postgres://h/db"}).validate(),
			want: "--pg local and a DSN do not go together", hint: "drop --dsn (and unset BSADAPTER_DSN) to use --pg local, or use --pg dsn"},
		{name: "--pg npm with BSADAPTER_DSN", err: (&pgFlags{strategy: "npm", envDSN: "postgres://h/db"}).validate(),
			want: "--pg npm and a DSN do not go together", hint: "drop --dsn (and unset BSADAPTER_DSN) to use --pg npm, or use --pg dsn"},
	})
	// doctor's rules are these.
	checkRules(t, []ruleCase{
		{name: "doctor --pg cloud", err: (&doctorOptions{pg: pgFlags{strategy: "cloud"}}).validate(),
			want: `--pg "cloud" is not one of auto, dsn, local, npm, docker`, hint: "-"},
		{name: "doctor defaults", err: (&doctorOptions{pg: pgFlags{strategy: "auto"}}).validate()},
	})
}

func TestOtherCommandsValidate(t *testing.T) {
	installHint := "pass --dsn postgres://user@host:port/database or set BSADAPTER_DSN; to get the SQL instead, run 'bsadapter blocks sql'"
	_, noDSN := (&blocksInstallOptions{}).checkDSN()
	dsn, envDSN := (&blocksInstallOptions{envDSN: "postgres://e/db"}).checkDSN()
	if dsn != "postgres://e/db" {
		t.Errorf("BSADAPTER_DSN gave %q", dsn)
	}
	dsn, _ = (&blocksInstallOptions{dsn: "postgres://f/db", envDSN: "postgres://e/db"}).checkDSN()
	if dsn != "postgres://f/db" {
		t.Errorf("--dsn gave %q", dsn)
	}
	checkRules(t, []ruleCase{
		{name: "schema NAME", err: (&schemaOptions{args: 1, name: "x"}).validate()},
		{name: "schema --list", err: (&schemaOptions{list: true}).validate()},
		{name: "schema --list NAME", err: (&schemaOptions{list: true, args: 1}).validate(),
			want: "--list takes no schema name", hint: "run 'bsadapter schema NAME' or 'bsadapter schema --list'"},
		{name: "blocks install without a DSN", err: noDSN, want: "blocks install needs the database to install into", hint: installHint},
		{name: "blocks install with BSADAPTER_DSN", err: envDSN},
	})
}

func TestNewValidate(t *testing.T) {
	subpathHint := "run it inside a better-supabase checkout, pass --dir CHECKOUT, or use --placement package"
	checkRules(t, []ruleCase{
		{name: "no NAME (the wizard may ask)", err: (&newOptions{}).validate()},
		{name: "one NAME", err: (&newOptions{args: []string{"x"}}).validate()},
		{name: "two NAMEs", err: (&newOptions{args: []string{"x", "y"}}).validate(),
			want: "new takes one NAME, got 2 arguments (x y)", hint: "quote nothing: NAME is one word, e.g. 'bsadapter new my-sdk'"},
		{name: "bare --storage before a word", err: (&newOptions{args: []string{"x", "mod"}, storage: storageDefault}).validate(),
			want: "new takes one NAME, got 2 arguments (x mod)", hint: "--storage takes its value with '=': --storage=mod"},

		{name: "--package-name with a subpath", err: (&newOptions{pkgName: "p"}).checkPlacement("subpath", true, "/c"),
			want: "--package-name applies only to --placement package", hint: "drop --package-name: a subpath is exported as better-supabase/NAME"},
		{name: "--package-name with a package", err: (&newOptions{pkgName: "p"}).checkPlacement("package", false, "/c")},
		{name: "a subpath outside a checkout", err: (&newOptions{}).checkPlacement("subpath", false, "/c"),
			want: "--placement subpath: /c is not inside a better-supabase checkout (no packages/better-supabase/package.json named better-supabase)", hint: subpathHint},
		{name: "a subpath inside a checkout", err: (&newOptions{}).checkPlacement("subpath", true, "/c")},
	})
}

// Each command hands its runF the options the command line gives, after
// validate passed; a rule broken stops it before runF.
func TestCommandsParseIntoOptions(t *testing.T) {
	app := &App{Stdio: Stdio{Out: io.Discard, Err: io.Discard, Env: func(k string) (string, bool) {
		if k == "BSADAPTER_DSN" {
			return "postgres://e/db", true
		}
		return "", false
	}}}
	run := func(cmd *cobra.Command, args ...string) error {
		cmd.SetArgs(args)
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		cmd.SilenceErrors, cmd.SilenceUsage = true, true
		return cmd.ExecuteContext(context.Background())
	}

	var cf *checkFixturesOptions
	err := run(newCheckFixturesCmd(app, func(_ context.Context, o *checkFixturesOptions) error { cf = o; return nil }),
		"--bridge", "node 'my bridge.mjs'", "--require-parts", "text,file", "--ignore", "/a=b", "--jobs", "3", "--timeout", "2s", "-v", "fx")
	if err != nil || cf == nil || !cf.bridge.set || strings.Join(cf.bridge.argv, "|") != "node|my bridge.mjs" || cf.jobs != 3 ||
		cf.timeout != 2*time.Second || !cf.verbose || strings.Join(cf.paths, ",") != "fx" || strings.Join(cf.requireParts, ",") != "text,file" || cf.ignore[0] != "/a=b" {
		t.Errorf("check-fixtures: %v, %+v", err, cf)
	}
	cf = nil
	err = run(newCheckFixturesCmd(app, func(_ context.Context, o *checkFixturesOptions) error { cf = o; return nil }), "--generate", "4", "--seed", "9")
	if err != nil || cf.generate != 4 || !cf.seedSet || cf.seed != 9 || cf.request("/w").Seed != 9 {
		t.Errorf("check-fixtures --generate: %v, %+v", err, cf)
	}
	cf = nil
	err = run(newCheckFixturesCmd(app, func(_ context.Context, o *checkFixturesOptions) error { cf = o; return nil }), "--no-bridge", "--bridge", "x")
	if err == nil || cf != nil {
		t.Errorf("check-fixtures --no-bridge --bridge reached the run: %v", err)
	}

	var co *conformOptions
	err = run(newConformCmd(app, func(_ context.Context, o *conformOptions) error { co = o; return nil }), "--bridge", "node b.mjs", "--suite", "streams", "--parallel", "2")
	if err != nil || co.store != "bridge" || co.parallel != 2 || len(co.cases) == 0 || co.timeoutSet {
		t.Errorf("conform --bridge: %v, %+v", err, co)
	}
	err = run(newConformCmd(app, func(_ context.Context, o *conformOptions) error { co = o; return nil }), "--dsn", "postgres://f/db", "--timeout", "5s")
	if err != nil || co.store != "pg" || co.pg.given != "dsn" || !co.pg.dsnGiven || !co.timeoutSet || co.timeout != 5*time.Second {
		t.Errorf("conform --dsn: %v, %+v", err, co)
	}

	var do *doctorOptions
	err = run(newDoctorCmd(app, func(_ context.Context, o *doctorOptions) error { do = o; return nil }), "--pg", "local", "--dsn", "postgres://f/db")
	if err == nil || do != nil {
		t.Errorf("doctor --pg local --dsn reached the run: %v", err)
	}
	err = run(newDoctorCmd(app, func(_ context.Context, o *doctorOptions) error { do = o; return nil }), "--format", "json")
	if err != nil || do.format != "json" || do.pg.envDSN != "postgres://e/db" {
		t.Errorf("doctor: %v, %+v", err, do)
	}

	var lo *lintOptions
	err = run(newLintCmd(app, func(_ context.Context, o *lintOptions) error { lo = o; return nil }), "--sdk", " a, ,b", "dir")
	if err != nil || lo.dir != "dir" || strings.Join(lo.sdkList(), ",") != "a,b" {
		t.Errorf("lint: %v, %+v", err, lo)
	}

	var no *newOptions
	err = run(newNewCmd(app, func(_ context.Context, o *newOptions) error { no = o; return nil }), "x", "--sdk", "s", "--storage", "--yes")
	if err != nil || no.name != "x" || no.storage != storageDefault || !no.yes || !no.changed("sdk") || no.changed("contracts") {
		t.Errorf("new: %v, %+v", err, no)
	}

	var so *schemaOptions
	err = run(newSchemaCmd(app, func(_ context.Context, o *schemaOptions) error { so = o; return nil }), "--list", "x")
	if err == nil || so != nil {
		t.Errorf("schema --list x reached the run: %v", err)
	}

	var bi *blocksInstallOptions
	err = run(newBlocksInstallCmd(app, func(_ context.Context, o *blocksInstallOptions) error { bi = o; return nil }), "streams")
	if err != nil || bi.envDSN != "postgres://e/db" || bi.names[0] != "streams" {
		t.Errorf("blocks install: %v, %+v", err, bi)
	}
}
