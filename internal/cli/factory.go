package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/config"
	"github.com/bsadapter/bsadapter/internal/pgserver"
	"github.com/spf13/cobra"
)

// This file is where commands get the parts they share, as gh's
// cmdutil.Factory gives them: the workspace (the working directory and
// the nearest bsadapter.json), the blocks, the bridge and PostgreSQL.
// Each provider works once, when a command first asks, and keeps its
// answer: one run is one command, so everything later in the run sees
// the same folder and the same file, and nothing reads them again.

// parts holds what the providers found. Its zero value is ready to use,
// so that an App built by hand in a test has providers too.
type parts struct {
	wdOnce sync.Once
	wd     string
	wdErr  error

	cfgOnce sync.Once
	cfg     *config.Config
	cfgErr  error

	blocksOnce sync.Once
	blocks     *blocks.Set
	blocksErr  error

	pgOnce sync.Once
	pg     pgserver.Options
	pgErr  error
}

// workspace is where a command runs: the current folder and the nearest
// bsadapter.json (cfg is nil when there is none).
type workspace struct {
	dir string
	cfg *config.Config
}

// WorkDir returns the working directory, read once for the whole run.
// This is the only place bsadapter asks for it.
func (app *App) WorkDir() (string, error) {
	app.parts.wdOnce.Do(func() {
		getwd := app.Getwd
		if getwd == nil {
			getwd = os.Getwd
		}
		app.parts.wd, app.parts.wdErr = getwd()
	})
	if app.parts.wdErr != nil {
		return "", envErr(app.parts.wdErr, "")
	}
	return app.parts.wd, nil
}

// Workspace returns the working directory and the nearest bsadapter.json,
// found once from there. hint is the fix to suggest for a broken
// bsadapter.json, which differs with what the command could do instead.
func (app *App) Workspace(hint string) (workspace, error) {
	wd, err := app.WorkDir()
	if err != nil {
		return workspace{}, err
	}
	app.parts.cfgOnce.Do(func() { app.parts.cfg, app.parts.cfgErr = config.Find(wd) })
	if app.parts.cfgErr != nil {
		return workspace{}, envErr(app.parts.cfgErr, hint)
	}
	return workspace{dir: wd, cfg: app.parts.cfg}, nil
}

// addBlocksFlag adds --blocks DIR, which takes the modules from a folder
// instead of the embedded ones.
func addBlocksFlag(cmd *cobra.Command, dst *string) {
	cmd.Flags().StringVar(dst, "blocks", "", "folder of another implementation of the blocks (.sql files with bsadapter's or better-supabase's module headers, such as a better-supabase checkout's supabase/schemas); default: \"blocks\" in bsadapter.json, else the embedded blocks")
}

// Blocks returns the modules to work with: the folder dir (--blocks)
// names, else the one "blocks" in the nearest bsadapter.json names
// (relative to the file), else the embedded blocks. The first call's
// answer is the run's.
func (app *App) Blocks(dir string) (*blocks.Set, error) {
	app.parts.blocksOnce.Do(func() { app.parts.blocks, app.parts.blocksErr = app.loadBlocks(dir) })
	return app.parts.blocks, app.parts.blocksErr
}

func (app *App) loadBlocks(dir string) (*blocks.Set, error) {
	if dir == "" {
		// A --blocks folder needs no bsadapter.json: a broken one above
		// it is not read at all.
		ws, err := app.Workspace("fix bsadapter.json, or pass --blocks DIR")
		if err != nil {
			return nil, err
		}
		if ws.cfg == nil || ws.cfg.Blocks == "" {
			return blocks.Embedded(), nil
		}
		dir = filepath.Join(ws.cfg.Dir, ws.cfg.Blocks)
	}
	set, err := blocks.LoadDir(dir)
	if err != nil {
		return nil, usageErr("give the folder that holds the modules' .sql files, each starting with '-- bsadapter block: NAME' and '-- version: N', or with better-supabase's '-- @bs-module NAME@VERSION MODE'", "%v", err)
	}
	return set, nil
}

// bridgeCommand is the bridge a command starts: its argv, the folder it
// runs in and where the command line came from.
type bridgeCommand struct {
	argv   []string
	dir    string
	source string // "--bridge" or the path of bsadapter.json
	// startTimeout is --start-timeout, else bsadapter.json's
	// bridge.startTimeout, else 0 (the bridge package's default).
	startTimeout time.Duration
}

// Bridge returns the bridge --bridge names (run in the working directory),
// else the one bsadapter.json names (run in its folder), else nil. The
// workspace is read either way, so a broken bsadapter.json is an error
// with hint as its fix.
func (app *App) Bridge(f *bridgeFlag, hint string) (*bridgeCommand, error) {
	ws, err := app.Workspace(hint)
	if err != nil {
		return nil, err
	}
	return f.resolve(ws), nil
}

// resolve returns the bridge --bridge names (run in ws.dir), else the one
// in bsadapter.json (run in its folder), else nil.
func (f *bridgeFlag) resolve(ws workspace) *bridgeCommand {
	var b *bridgeCommand
	switch {
	case f.set:
		b = &bridgeCommand{argv: f.argv, dir: ws.dir, source: "--bridge"}
	case ws.cfg != nil && len(ws.cfg.Bridge.Command) > 0:
		b = &bridgeCommand{argv: ws.cfg.Bridge.Command, dir: ws.cfg.Dir, source: ws.cfg.Path}
	default:
		return nil
	}
	switch {
	case f.startSet:
		b.startTimeout = f.startTimeout
	case ws.cfg != nil:
		b.startTimeout = ws.cfg.Bridge.StartTimeout
	}
	return b
}

// options returns the bridge options for b, with this binary's version.
func (b *bridgeCommand) options() bridge.Options {
	return bridge.Options{Command: b.argv, Dir: b.dir, ClientVersion: Build().Version, StartTimeout: b.startTimeout}
}

// commandLine is the bridge's command as messages show it.
func (b *bridgeCommand) commandLine() string { return strings.Join(b.argv, " ") }

// startErr explains a bridge that would not start, or that started and
// failed before the run could use it (a capability it declared in
// initialize that does not hold): each gets the hint that fits.
func (b *bridgeCommand) startErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var te *bridge.TransportError
	if errors.As(err, &te) && te.StartTimeout {
		return envErr(err, "a slow start (a cold npx, a loaded machine) needs a longer --start-timeout or bridge.startTimeout in bsadapter.json; otherwise run the bridge command (from "+b.source+") by hand in "+b.dir+" to see why it does not answer initialize")
	}
	var se *bridge.StartError
	if !errors.As(err, &se) {
		// It answered initialize: what failed came after, in what it
		// declared there.
		if errors.As(err, &te) {
			return envErr(err, "the bridge answered initialize, then stopped working: run it by hand in "+b.dir+" to see why (the command comes from "+b.source+")")
		}
		return envErr(err, "the bridge answered initialize, but a capability it declared there does not hold: serve every declared capability's methods with the values the bridge protocol allows, or leave the capability out of initialize's answer")
	}
	if errors.As(err, &te) {
		switch te.Kind {
		case bridge.FaultStart:
			return envErr(err, "the bridge command comes from "+b.source+": its first word must name a program that runs in "+b.dir+" (bsadapter runs it without a shell)")
		case bridge.FaultProtocol, bridge.FaultVersion, bridge.FaultUnknown:
			return envErr(err, "the bridge did not answer initialize as the bridge protocol asks (see its handshake section); the command comes from "+b.source)
		}
	}
	return envErr(err, "the bridge command comes from "+b.source+"; run it by hand in "+b.dir+" to see why it fails (it must answer initialize, see the bridge protocol)")
}

// Postgres checks the PostgreSQL flags and turns them into the options
// of pgserver, with the fetch's progress on stderr; a wait the command
// line leaves out comes from the postgres section of the nearest
// bsadapter.json. The first call's answer is the run's.
func (app *App) Postgres(f *pgFlags) (pgserver.Options, error) {
	app.parts.pgOnce.Do(func() {
		f.envDSN = app.getenv("BSADAPTER_DSN")
		if err := f.validate(); err != nil {
			app.parts.pgErr = err
			return
		}
		if f.needsConfig() {
			ws, err := app.Workspace("fix bsadapter.json, or give both --pg-start-timeout and --pg-install-timeout")
			if err != nil && !f.configOptional {
				app.parts.pgErr = err
				return
			}
			f.useConfig(ws.cfg)
		}
		f.progress = newPGProgress(app.Err, app.ErrTTY)
		install := newInstallProgress(app.Err, f.installTimeout)
		app.parts.pg = pgserver.Options{Strategy: f.strategy, DSN: f.dsnOrEnv(), Image: f.image, Log: app.Err, Template: blocks.Template{}, Progress: f.progress.report,
			StartTimeout: f.startTimeout, PrepareTimeout: f.installTimeout, PrepareContext: install.context}
	})
	return app.parts.pg, app.parts.pgErr
}

// StartPostgres gets the server the flags ask for. The caller must Close
// it.
func (app *App) StartPostgres(ctx context.Context, f *pgFlags) (*pgserver.Server, error) {
	opts, err := app.Postgres(f)
	if err != nil {
		return nil, err
	}
	s, err := pgserver.Start(ctx, opts)
	f.progress.finish()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, pgStartErr(ctx, opts, err)
	}
	return s, nil
}

// pgStartErr explains a server that could not be had, with the fix that
// fits how it failed.
func pgStartErr(ctx context.Context, opts pgserver.Options, err error) error {
	hint, err := explainPGStart(ctx, opts, err)
	return envErr(err, hint)
}

// explainPGStart returns the fix that fits how err failed, and err, said
// more plainly where that helps.
func explainPGStart(ctx context.Context, opts pgserver.Options, err error) (string, error) {
	var none *pgserver.NoServerError
	var npmErr *pgserver.NPMError
	var timeout *pgserver.TimeoutError
	var noCache *pgserver.NoCacheError
	var damaged *pgserver.DamagedNPMError
	switch {
	case errors.As(err, &timeout):
		return timeoutHint(timeout), err
	case errors.As(err, &noCache):
		return "bsadapter keeps PostgreSQL's server binaries in the user's cache folder: set XDG_CACHE_HOME (or HOME) to a writable folder; or use --pg local, --pg docker or --dsn URL, which need none", err
	case errors.As(err, &damaged) && damaged.Removed:
		return "the next run fetches the binaries again, once npm reaches its registry ('npm ping'); or use --pg local, --pg docker or --dsn URL", err
	case errors.As(err, &damaged):
		return "delete " + damaged.Dir + " (the next run fetches the binaries again, once npm reaches its registry: 'npm ping'); or use --pg local, --pg docker or --dsn URL", err
	case errors.As(err, &none):
		return "install PostgreSQL (apt-get install postgresql, brew install postgresql@15), start Docker, or pass --dsn URL", err
	case opts.DSN != "" && (pgserver.NotPostgres(err) || !pgserver.SpeaksPostgres(ctx, opts.DSN)):
		return "check the host and port in --dsn (or BSADAPTER_DSN): PostgreSQL listens on 5432 unless told otherwise",
			fmt.Errorf("the server of the DSN answered, but not in PostgreSQL's protocol: another service (an HTTP server?) listens at that host and port (%w)", err)
	case opts.Strategy == "docker" || strings.HasPrefix(err.Error(), "pgserver: docker:"):
		// The error says what the engine or the container did.
		return "pass another image with --pg-image, or use --pg local, --pg npm or --dsn URL", err
	case errors.As(err, &npmErr):
		return "check that npm reaches its registry ('npm ping'), or take one of the three ways the error names", err
	case opts.DSN != "" && opts.Strategy != "local" && opts.Strategy != "docker":
		// The error names the server and the role; the fix is theirs.
		return "check the --dsn URL (or BSADAPTER_DSN) and that its server answers; or drop it to let bsadapter start a server", err
	case strings.HasPrefix(err.Error(), "pgserver: local: no PostgreSQL binaries"):
		return "install PostgreSQL (apt-get install postgresql, brew install postgresql@15), or use --pg npm, --pg docker or --dsn URL", err
	case strings.Contains(err.Error(), "postgres exited during start-up") || strings.Contains(err.Error(), "initdb failed"):
		// PostgreSQL is there; what it said is in the error.
		return "PostgreSQL's own words (its log's last lines) are above: fix what they name, or use --pg docker or --dsn URL", err
	}
	return "install PostgreSQL, start Docker, or pass --dsn URL", err
}

// timeoutHint is the fix for a wait of PostgreSQL's that ran out: the
// flag and the bsadapter.json key that set it.
func timeoutHint(e *pgserver.TimeoutError) string {
	if e.StartTimeout() {
		return "a loaded or slow machine may need longer: raise --pg-start-timeout or postgres.startTimeout in bsadapter.json (it was " + e.Limit.String() + "); the server's own words, if any, are above"
	}
	return "a module that waits (on a lock, in pg_sleep) does not end by itself: fix it; if it is only slow, raise --pg-install-timeout or postgres.installTimeout in bsadapter.json (it was " + e.Limit.String() + ")"
}
