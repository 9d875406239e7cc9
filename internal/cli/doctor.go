package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/conform/suites"
	"github.com/bsadapter/bsadapter/internal/pgserver"
	"github.com/bsadapter/bsadapter/internal/report"
	"github.com/spf13/cobra"
)

type doctorOptions struct {
	app    *App
	format string
	pg     pgFlags
}

func newDoctorCmd(app *App, runF func(context.Context, *doctorOptions) error) *cobra.Command {
	// A broken bsadapter.json is one of doctor's checks: PostgreSQL's
	// waits go without its postgres section then.
	opts := &doctorOptions{app: app, pg: pgFlags{configOptional: true}}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check what bsadapter needs on this machine and in this folder",
		Long: `doctor checks what the other commands need, one line each, ok, warn or fail, with
the fix: which PostgreSQL 'conform' would use, where it comes from and whether
it works, whether Docker answers, the Node.js and npm versions, the nearest
bsadapter.json and whether its bridge starts and answers initialize, and the
cache folder and its size.

For PostgreSQL, doctor connects to the --dsn server (or BSADAPTER_DSN's), or
starts the throwaway server 'conform' would start from binaries already on the
machine (and stops it at once), and says how long that took; it fetches no
binaries and starts no container. Cached npm binaries are checked file by file
against the checksums taken when they were unpacked.

Exit status: 0 when nothing failed (warnings included), 1 when a check
failed, 2 for a usage error.`,
		Example: `  bsadapter doctor
  bsadapter doctor --format json
  bsadapter doctor --dsn "$DATABASE_URL"`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.pg.parse(c)
			opts.pg.envDSN = app.getenv("BSADAPTER_DSN")
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runDoctor(c.Context(), opts)
		},
	}
	addFormatFlag(cmd, &opts.format, "output format: text or json", "", textJSON...)
	addPGFlags(cmd, &opts.pg)
	return cmd
}

// validate holds doctor's flag rules, which are those of the PostgreSQL
// flags.
func (o *doctorOptions) validate() error { return o.pg.validate() }

func runDoctor(ctx context.Context, opts *doctorOptions) error {
	pgOpts, err := opts.app.Postgres(&opts.pg)
	if err != nil {
		return err
	}
	checks := runChecks(ctx, opts.app, pgOpts)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return writeDoctor(opts, checks)
}

// runChecks looks at everything doctor checks, in the order it prints
// them.
func runChecks(ctx context.Context, app *App, pgOpts pgserver.Options) []report.Check {
	checks := []report.Check{
		checkPostgres(ctx, pgOpts),
		checkDocker(ctx, pgOpts),
		checkTool(ctx, "node", 20, "install Node.js 20 or newer (https://nodejs.org); adapters and their bridges run on it"),
		checkTool(ctx, "npm", 0, "install npm (it comes with Node.js); 'npm install' sets up an adapter"),
	}
	checks = append(checks, checkConfig(ctx, app)...)
	return append(checks, checkCache())
}

// writeDoctor prints the checks in the --format asked for and fails the
// run when one of them failed.
func writeDoctor(opts *doctorOptions, checks []report.Check) error {
	app := opts.app
	var err error
	if opts.format == "json" {
		err = report.WriteJSON(app.Out, report.NewDoctor(checks))
	} else {
		err = writeDoctorText(app.Out, checks, app.Style)
	}
	if err != nil {
		return envErr(err, "")
	}
	failedN := 0
	for _, c := range checks {
		if c.Status == report.CheckFail {
			failedN++
		}
	}
	if failedN > 0 {
		if opts.format == "text" {
			return failed("")
		}
		return failed(fmt.Sprintf("%d doctor checks failed", failedN))
	}
	return nil
}

// doctorConnectTimeout bounds doctor's connection to a --dsn server.
var doctorConnectTimeout = 10 * time.Second

func checkPostgres(ctx context.Context, opts pgserver.Options) report.Check {
	c := report.Check{Name: "postgresql"}
	ch := pgserver.Which(ctx, opts)
	if ch.Strategy == "" {
		c.Status, c.Detail = report.CheckFail, "none to be had: "+strings.Join(ch.Tried, "; ")
		c.Fix = "install PostgreSQL's server binaries (apt-get install postgresql, brew install postgresql@15), install Node.js with npm, start Docker, or pass --dsn URL"
		return c
	}
	c.Status = report.CheckOK
	c.Detail = "'conform' would use " + ch.Strategy
	if ch.Version != "" {
		c.Detail += " (PostgreSQL " + ch.Version + ")"
	}
	c.Detail += " from " + ch.Source
	switch {
	case ch.Strategy == "dsn":
		return probeDSN(ctx, c, opts.DSN)
	case ch.Strategy == "npm":
		if dir, err := pgserver.VerifyNPM(opts); err != nil {
			c.Status = report.CheckFail
			c.Detail += fmt.Sprintf(": the binaries cached in %s are damaged (%v)", dir, err)
			c.Fix = "delete " + dir + "; the next conform run fetches them again"
			return c
		}
	}
	if !ch.Ready {
		c.Detail += "; the first run fetches it"
		return c
	}
	if ch.Strategy == "local" || ch.Strategy == "npm" {
		return startPostgres(ctx, c, opts, ch.Strategy)
	}
	return c
}

// probeDSN connects to the DSN's server and says what failed, or the
// server's version and whether the role may create databases.
func probeDSN(ctx context.Context, c report.Check, dsn string) report.Check {
	p, err := pgserver.ProbeDSN(ctx, dsn, doctorConnectTimeout)
	if err != nil {
		c.Status = report.CheckFail
		c.Detail += ": " + err.Error()
		c.Fix = "check the --dsn URL (or BSADAPTER_DSN): host, port, user, password and database, and that its server runs and takes connections from here"
		return c
	}
	c.Detail += fmt.Sprintf(": PostgreSQL %s answers as role %s (connected in %s)", p.Version, p.Role, p.Took.Round(time.Millisecond))
	if !p.MayCreate {
		c.Status = report.CheckFail
		c.Detail += ", which may not create databases"
		c.Fix = "bsadapter works in a database of its own: run 'ALTER ROLE " + p.Role + " CREATEDB' as a superuser, or pass the DSN of a role that has CREATEDB"
	}
	return c
}

// startPostgres starts the throwaway server 'conform' would start, and
// stops it.
func startPostgres(ctx context.Context, c report.Check, opts pgserver.Options, strategy string) report.Check {
	opts.Strategy = strategy
	opts.Log, opts.Progress = nil, nil
	s, err := pgserver.Start(ctx, opts)
	if err != nil {
		if ctx.Err() != nil {
			return c
		}
		c.Status = report.CheckFail
		c.Detail += ": it does not start: " + err.Error()
		c.Fix, _ = explainPGStart(ctx, opts, err)
		return c
	}
	took := s.StartedIn()
	if err := s.Close(); err != nil {
		c.Status = report.CheckWarn
		c.Detail += fmt.Sprintf("; it started in %s, but stopping it failed: %v", took.Round(time.Millisecond), err)
		return c
	}
	c.Detail += fmt.Sprintf("; it started in %s", took.Round(time.Millisecond))
	return c
}

func checkDocker(ctx context.Context, opts pgserver.Options) report.Check {
	c := report.Check{Name: "docker"}
	ch := pgserver.Which(ctx, pgserver.Options{Strategy: "docker", Image: opts.Image})
	if ch.Strategy == "docker" {
		c.Status, c.Detail = report.CheckOK, "the engine answers: "+ch.Source
		return c
	}
	c.Status, c.Detail = report.CheckWarn, "not reachable: "+strings.TrimPrefix(strings.Join(ch.Tried, "; "), "docker: ")
	c.Fix = "only needed when no other PostgreSQL is to be had: start Docker, or set DOCKER_HOST"
	return c
}

// checkTool runs NAME --version; minMajor > 0 is the oldest major version
// that will do.
func checkTool(ctx context.Context, name string, minMajor int, fix string) report.Check {
	c := report.Check{Name: name}
	path, err := exec.LookPath(name)
	if err != nil {
		c.Status, c.Detail, c.Fix = report.CheckWarn, "not found on PATH", fix
		return c
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(cctx, path, "--version").Output()
	if err != nil {
		c.Status, c.Detail, c.Fix = report.CheckWarn, fmt.Sprintf("%s --version failed: %v", path, err), fix
		return c
	}
	v := strings.TrimSpace(string(out))
	c.Status, c.Detail = report.CheckOK, v+" ("+path+")"
	if minMajor > 0 {
		major, _ := strconv.Atoi(strings.SplitN(strings.TrimPrefix(v, "v"), ".", 2)[0])
		if major < minMajor {
			c.Status, c.Fix = report.CheckWarn, fix
			c.Detail += fmt.Sprintf(": older than %d", minMajor)
		}
	}
	return c
}

// checkConfig finds the nearest bsadapter.json and, when it names a
// bridge, starts it and runs the initialize handshake.
func checkConfig(ctx context.Context, app *App) []report.Check {
	c := report.Check{Name: "bsadapter.json"}
	wd, err := app.WorkDir()
	if err != nil {
		c.Status, c.Detail = report.CheckFail, err.Error()
		return []report.Check{c}
	}
	ws, err := app.Workspace("")
	switch {
	case err != nil:
		c.Status, c.Detail, c.Fix = report.CheckFail, err.Error(), "fix the file; 'bsadapter new' writes a valid one"
		return []report.Check{c}
	case ws.cfg == nil:
		c.Status, c.Detail = report.CheckWarn, "none in "+wd+" or the folders above"
		c.Fix = "run bsadapter in an adapter's folder, or create an adapter with 'bsadapter new NAME'"
		return []report.Check{c}
	}
	c.Status, c.Detail = report.CheckOK, ws.cfg.Path
	return []report.Check{c, checkBridge(ctx, ws)}
}

// checkBridge starts the bridge bsadapter.json names and runs the
// initialize handshake.
func checkBridge(ctx context.Context, ws workspace) report.Check {
	b := report.Check{Name: "bridge"}
	// No --bridge here: doctor checks what the file says.
	bc := (&bridgeFlag{}).resolve(ws)
	if bc == nil {
		b.Status, b.Detail = report.CheckWarn, ws.cfg.Path+" names no bridge.command"
		b.Fix = "add \"bridge\": {\"command\": [...]} to run check-fixtures and conform --store bridge without --bridge"
		return b
	}
	client, err := bridge.Start(ctx, bc.options())
	if err != nil {
		b.Status, b.Detail = report.CheckFail, fmt.Sprintf("%s did not start and answer initialize: %v", bc.commandLine(), err)
		b.Fix = "run it by hand in " + bc.dir + " (after 'npm install') to see why; it must answer initialize (see the bridge protocol)"
		return b
	}
	a := client.Adapter()
	var offers []string
	for _, g := range suites.BridgeGroups() {
		if client.Capabilities().Has(g) {
			offers = append(offers, g)
		}
	}
	client.Close()
	b.Status, b.Detail = report.CheckOK, fmt.Sprintf("%s answers initialize (adapter %s, format %s; it started in %s)", bc.commandLine(), a.Name, a.Format, client.StartedIn().Round(time.Millisecond))
	if len(offers) > 0 {
		// What 'conform --store bridge' will run.
		b.Detail += "; it offers " + strings.Join(offers, ", ")
	}
	return b
}

func checkCache() report.Check {
	c := report.Check{Name: "cache"}
	dir, err := pgserver.CacheDir()
	if err != nil {
		c.Status, c.Detail, c.Fix = report.CheckWarn, "no cache folder: "+err.Error(), "set XDG_CACHE_HOME or HOME to a writable folder: without one every conform run builds PostgreSQL's template again, and --pg npm has nowhere to keep its binaries"
		return c
	}
	var size int64
	err = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if info, ierr := d.Info(); ierr == nil && info.Mode().IsRegular() {
			size += info.Size()
		}
		return nil
	})
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.Status, c.Detail = report.CheckOK, dir+" (not made yet: the first conform run makes it)"
	case err != nil:
		c.Status, c.Detail, c.Fix = report.CheckWarn, fmt.Sprintf("%s cannot be read: %v", dir, err), "make it readable, or delete it (bsadapter makes it again)"
	default:
		c.Status, c.Detail = report.CheckOK, fmt.Sprintf("%s, %.1f MiB (delete it to reclaim the space; the next run makes it again)", dir, float64(size)/(1<<20))
	}
	return c
}
