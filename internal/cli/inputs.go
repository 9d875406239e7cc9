package cli

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/config"
	"github.com/bsadapter/bsadapter/internal/pgserver"
	"github.com/spf13/cobra"
)

// This file reads the flags several commands share, the same way for all
// of them: --bridge, and the PostgreSQL server's --pg, --dsn and
// --pg-image; and whether bsadapter runs in CI. What the flags resolve to
// (the bridge of bsadapter.json, a started server) the App's providers in
// factory.go give.

// CI says whether the CI variable is set to something other than "0" or
// "false": no questions, no live views.
func (s Stdio) CI() bool {
	v := s.getenv("CI")
	return v != "" && v != "0" && v != "false"
}

// bridgeFlag is --bridge: the command line that starts the adapter's
// bridge, overriding bridge.command in bsadapter.json.
type bridgeFlag struct {
	value string
	set   bool // given, even as ""
	argv  []string
	// startTimeout is --start-timeout: how long the bridge may take to
	// start, apart from each request's --timeout (0: bsadapter.json's
	// bridge.startTimeout, else the bridge package's default).
	startTimeout time.Duration
	startSet     bool
}

// addBridgeFlag adds --bridge and --start-timeout to cmd; usage says what
// --bridge does there.
func addBridgeFlag(cmd *cobra.Command, f *bridgeFlag, usage string) {
	cmd.Flags().StringVar(&f.value, "bridge", "", usage)
	cmd.Flags().DurationVar(&f.startTimeout, "start-timeout", 0, fmt.Sprintf("how long the bridge may take to start and answer initialize, apart from each request's time limit (default: bridge.startTimeout in bsadapter.json, else %s)", bridge.DefaultStartTimeout))
}

// parse notes whether --bridge was given and splits it. An empty --bridge
// (an unset variable, say) is a usage error on every command, whatever the
// other flags, rather than silently no bridge.
func (f *bridgeFlag) parse(cmd *cobra.Command) error {
	f.startSet = cmd.Flags().Changed("start-timeout")
	if f.startSet && f.startTimeout <= 0 {
		return usageErr("e.g. --start-timeout 2m, or leave it out for bridge.startTimeout in bsadapter.json or the default of "+bridge.DefaultStartTimeout.String(), "--start-timeout must be positive, got %s", f.startTimeout)
	}
	f.set = cmd.Flags().Changed("bridge")
	if !f.set {
		return nil
	}
	argv, err := bridge.SplitCommand(f.value)
	if err != nil {
		hint := "quote arguments with spaces, e.g. --bridge \"node 'my bridge.mjs'\""
		if strings.TrimSpace(f.value) == "" {
			hint = "give the command that starts the bridge, e.g. --bridge 'npx tsx bsadapter.bridge.ts', or leave --bridge out"
		}
		return usageErr(hint, "--bridge: %v", err)
	}
	f.argv = argv
	return nil
}

// pgFlags are the flags of every command that needs a PostgreSQL server:
// --pg, --dsn, --pg-image, --pg-start-timeout and --pg-install-timeout.
type pgFlags struct {
	strategy string
	dsn      string
	image    string
	// startTimeout and installTimeout bound PostgreSQL's start and the
	// blocks' installation in it: the flag, else bsadapter.json's
	// postgres section (useConfig), else 0 for pgserver's defaults.
	startTimeout   time.Duration
	installTimeout time.Duration
	startSet       bool   // --pg-start-timeout was on the command line
	installSet     bool   // --pg-install-timeout was on the command line
	given          string // the first of the flags given on the command line, if any
	progress       *pgProgress
	dsnGiven       bool // --dsn was on the command line, even as --dsn ""
	// envDSN is BSADAPTER_DSN, the DSN when --dsn is left out.
	envDSN string
	// configOptional says that a bsadapter.json that does not load only
	// goes without its postgres section, rather than stopping the
	// command: doctor reports the file among its checks.
	configOptional bool
}

// addPGFlags adds --pg, --dsn, --pg-image, --pg-start-timeout and
// --pg-install-timeout to cmd.
func addPGFlags(cmd *cobra.Command, f *pgFlags) {
	cmd.Flags().StringVar(&f.strategy, "pg", "auto", "how to get PostgreSQL: auto, dsn, local, npm or docker")
	cmd.Flags().StringVar(&f.dsn, "dsn", "", "connection string of your server (default $BSADAPTER_DSN); bsadapter works in a database of its own there and drops it")
	cmd.Flags().StringVar(&f.image, "pg-image", pgserver.DefaultImage, "container image for --pg docker")
	cmd.Flags().DurationVar(&f.startTimeout, "pg-start-timeout", 0, fmt.Sprintf("how long each step of starting a PostgreSQL server may take (initdb; the server, or a new container, until it takes connections); fetching binaries or an image is not part of it (default: postgres.startTimeout in bsadapter.json, else %s)", pgserver.DefaultStartTimeout))
	cmd.Flags().DurationVar(&f.installTimeout, "pg-install-timeout", 0, fmt.Sprintf("how long installing the blocks into PostgreSQL may take (default: postgres.installTimeout in bsadapter.json, else %s)", pgserver.DefaultPrepareTimeout))
}

// parse notes which of the flags the command line gave.
func (f *pgFlags) parse(cmd *cobra.Command) {
	for _, name := range []string{"pg", "dsn", "pg-image", "pg-start-timeout", "pg-install-timeout"} {
		if f.given == "" && cmd.Flags().Changed(name) {
			f.given = name
		}
	}
	f.dsnGiven = cmd.Flags().Changed("dsn")
	f.startSet = cmd.Flags().Changed("pg-start-timeout")
	f.installSet = cmd.Flags().Changed("pg-install-timeout")
}

// needsConfig says whether a wait is left to bsadapter.json: a flag not
// given.
func (f *pgFlags) needsConfig() bool { return !f.startSet || !f.installSet }

// useConfig takes the waits the command line left out from cfg's postgres
// section (cfg may be nil: no bsadapter.json). A flag wins over the file,
// the file over pgserver's defaults.
func (f *pgFlags) useConfig(cfg *config.Config) {
	if cfg == nil {
		return
	}
	if !f.startSet && cfg.Postgres.StartTimeout > 0 {
		f.startTimeout = cfg.Postgres.StartTimeout
	}
	if !f.installSet && cfg.Postgres.InstallTimeout > 0 {
		f.installTimeout = cfg.Postgres.InstallTimeout
	}
}

// dsnOrEnv is the DSN the run uses: --dsn, else BSADAPTER_DSN.
func (f *pgFlags) dsnOrEnv() string {
	if f.dsn != "" {
		return f.dsn
	}
	return f.envDSN
}

// validate checks the flags together with BSADAPTER_DSN (envDSN): a
// strategy that exists, a --dsn that is not empty and is PostgreSQL's,
// and a DSN only with the strategies that use one.
func (f *pgFlags) validate() error {
	if !slices.Contains(pgserver.Strategies, f.strategy) {
		return usageErr("", "--pg %q is not one of %s", f.strategy, strings.Join(pgserver.Strategies, ", "))
	}
	// Zero when not given is pgserver's default.
	if f.startTimeout < 0 || f.startTimeout == 0 && f.startSet {
		return usageErr("e.g. --pg-start-timeout 5m, or leave it out for postgres.startTimeout in bsadapter.json or the default of "+pgserver.DefaultStartTimeout.String(), "--pg-start-timeout must be positive, got %s", f.startTimeout)
	}
	if f.installTimeout < 0 || f.installTimeout == 0 && f.installSet {
		return usageErr("e.g. --pg-install-timeout 10m, or leave it out for postgres.installTimeout in bsadapter.json or the default of "+pgserver.DefaultPrepareTimeout.String(), "--pg-install-timeout must be positive, got %s", f.installTimeout)
	}
	// --dsn "" is most often an unset variable ("--dsn $DATABASE_URL"):
	// quietly starting a throwaway server instead would test a database
	// nobody meant.
	if f.dsnGiven && strings.TrimSpace(f.dsn) == "" {
		return usageErr("is the variable you meant to pass set? Drop --dsn to let bsadapter start a server of its own", "--dsn is empty")
	}
	dsn := f.dsnOrEnv()
	if err := checkDSN(dsn); err != nil {
		return err
	}
	if f.strategy == "dsn" && dsn == "" {
		return usageErr("pass --dsn postgres://user@host/db or set BSADAPTER_DSN", "--pg dsn needs a connection string")
	}
	if dsn != "" && f.strategy != "auto" && f.strategy != "dsn" {
		return usageErr("drop --dsn (and unset BSADAPTER_DSN) to use --pg "+f.strategy+", or use --pg dsn", "--pg %s and a DSN do not go together", f.strategy)
	}
	return nil
}

// checkDSN refuses a connection string that is a URL of another kind
// (mysql://, http://, ...): pgx would fail on it with a message about
// keyword/value syntax, showing the URL half-masked. Keyword/value strings
// (host=... user=...) and postgres:// URLs pass; the server judges them.
func checkDSN(dsn string) error {
	i := strings.Index(dsn, "://")
	if i <= 0 {
		return nil
	}
	scheme := strings.ToLower(dsn[:i])
	if scheme == "postgres" || scheme == "postgresql" {
		return nil
	}
	for _, c := range scheme {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			return nil // not a URL scheme: let the parser explain
		}
	}
	what := "a " + scheme + ":// URL"
	switch scheme {
	case "http", "https":
		what = "an " + scheme + ":// URL (a web address)"
	case "mysql", "mariadb", "sqlserver", "mssql", "mongodb", "mongodb+srv", "redis", "sqlite", "sqlite3":
		what = "a " + scheme + ":// URL, a connection string of another database"
	}
	return usageErr("bsadapter needs PostgreSQL: postgres://user:password@host:5432/database (a Supabase project's is under Project Settings, Database)",
		"--dsn (or BSADAPTER_DSN) is %s, not a PostgreSQL connection string", what)
}
