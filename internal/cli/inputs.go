package cli

import (
	"context"
	"errors"
	"fmt"
	"github.com/jackc/pgx/v5"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/config"
	"github.com/bsadapter/bsadapter/internal/pgserver"
	"github.com/spf13/cobra"
)

// This file resolves the inputs several commands share, once for all of
// them: the bridge (--bridge, else bsadapter.json), the PostgreSQL server
// (--pg, --dsn, BSADAPTER_DSN, --pg-image) and whether bsadapter runs in
// CI.

// CI says whether the CI variable is set to something other than "0" or
// "false": no questions, no live views.
func (s Stdio) CI() bool {
	v := s.getenv("CI")
	return v != "" && v != "0" && v != "false"
}

// workspace is where a command runs: the current folder and the nearest
// bsadapter.json (cfg is nil when there is none).
type workspace struct {
	dir string
	cfg *config.Config
}

// findWorkspace reads the current folder and the nearest bsadapter.json;
// hint is the fix to suggest for a broken bsadapter.json.
func findWorkspace(hint string) (workspace, error) {
	wd, err := os.Getwd()
	if err != nil {
		return workspace{}, envErr(err, "")
	}
	cfg, err := config.Find(wd)
	if err != nil {
		return workspace{}, envErr(err, hint)
	}
	return workspace{dir: wd, cfg: cfg}, nil
}

// bridgeFlag is --bridge: the command line that starts the adapter's
// bridge, overriding bridge.command in bsadapter.json.
type bridgeFlag struct {
	value string
	set   bool // given, even as ""
	argv  []string
}

// addBridgeFlag adds --bridge to cmd; usage says what it does there.
func addBridgeFlag(cmd *cobra.Command, f *bridgeFlag, usage string) {
	cmd.Flags().StringVar(&f.value, "bridge", "", usage)
}

// parse notes whether --bridge was given and splits it. An empty --bridge
// (an unset variable, say) is a usage error on every command, whatever the
// other flags, rather than silently no bridge.
func (f *bridgeFlag) parse(cmd *cobra.Command) error {
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

// bridgeCommand is the bridge a command starts: its argv, the folder it
// runs in and where the command line came from.
type bridgeCommand struct {
	argv   []string
	dir    string
	source string // "--bridge" or the path of bsadapter.json
}

// resolve returns the bridge --bridge names (run in ws.dir), else the one
// in bsadapter.json (run in its folder), else nil.
func (f *bridgeFlag) resolve(ws workspace) *bridgeCommand {
	switch {
	case f.set:
		return &bridgeCommand{argv: f.argv, dir: ws.dir, source: "--bridge"}
	case ws.cfg != nil && len(ws.cfg.Bridge.Command) > 0:
		return &bridgeCommand{argv: ws.cfg.Bridge.Command, dir: ws.cfg.Dir, source: ws.cfg.Path}
	}
	return nil
}

// options returns the bridge options for b, with this binary's version.
func (b *bridgeCommand) options() bridge.Options {
	return bridge.Options{Command: b.argv, Dir: b.dir, ClientVersion: Build().Version}
}

// startErr explains a bridge that would not start.
func (b *bridgeCommand) startErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return envErr(err, "the bridge command comes from "+b.source+"; run it by hand in "+b.dir+" to see why it fails (it must answer initialize, see the bridge protocol)")
}

// dsnOr returns flag, else BSADAPTER_DSN.
func (app *App) dsnOr(flag string) string {
	if flag != "" {
		return flag
	}
	return app.getenv("BSADAPTER_DSN")
}

// pgFlags are the flags of every command that needs a PostgreSQL server:
// --pg, --dsn and --pg-image.
type pgFlags struct {
	strategy string
	dsn      string
	image    string
	given    string // the first of them given on the command line, if any
	progress *pgProgress
	dsnGiven bool // --dsn was on the command line, even as --dsn ""
}

// addPGFlags adds --pg, --dsn and --pg-image to cmd.
func addPGFlags(cmd *cobra.Command, f *pgFlags) {
	cmd.Flags().StringVar(&f.strategy, "pg", "auto", "how to get PostgreSQL: auto, dsn, local, npm or docker")
	cmd.Flags().StringVar(&f.dsn, "dsn", "", "connection string of your server (default $BSADAPTER_DSN); bsadapter works in a database of its own there and drops it")
	cmd.Flags().StringVar(&f.image, "pg-image", pgserver.DefaultImage, "container image for --pg docker")
}

// parse notes which of the flags the command line gave.
func (f *pgFlags) parse(cmd *cobra.Command) {
	for _, name := range []string{"pg", "dsn", "pg-image"} {
		if f.given == "" && cmd.Flags().Changed(name) {
			f.given = name
		}
	}
	f.dsnGiven = cmd.Flags().Changed("dsn")
}

// options checks the flags and turns them into pgserver options; the DSN
// comes from --dsn, else BSADAPTER_DSN.
func (f *pgFlags) options(app *App) (pgserver.Options, error) {
	valid := false
	for _, s := range pgserver.Strategies {
		valid = valid || f.strategy == s
	}
	if !valid {
		return pgserver.Options{}, usageErr("", "--pg %q is not one of %s", f.strategy, strings.Join(pgserver.Strategies, ", "))
	}
	// --dsn "" is most often an unset variable ("--dsn $DATABASE_URL"):
	// quietly starting a throwaway server instead would test a database
	// nobody meant.
	if f.dsnGiven && strings.TrimSpace(f.dsn) == "" {
		return pgserver.Options{}, usageErr("is the variable you meant to pass set? Drop --dsn to let bsadapter start a server of its own", "--dsn is empty")
	}
	dsn := app.dsnOr(f.dsn)
	if err := checkDSN(dsn); err != nil {
		return pgserver.Options{}, err
	}
	if f.strategy == "dsn" && dsn == "" {
		return pgserver.Options{}, usageErr("pass --dsn postgres://user@host/db or set BSADAPTER_DSN", "--pg dsn needs a connection string")
	}
	if dsn != "" && f.strategy != "auto" && f.strategy != "dsn" {
		return pgserver.Options{}, usageErr("drop --dsn (and unset BSADAPTER_DSN) to use --pg "+f.strategy+", or use --pg dsn", "--pg %s and a DSN do not go together", f.strategy)
	}
	f.progress = newPGProgress(app.Err, app.ErrTTY)
	return pgserver.Options{Strategy: f.strategy, DSN: dsn, Image: f.image, Log: app.Err, Template: blocks.Template{}, Progress: f.progress.report}, nil
}

// startPG gets the server the flags ask for. The caller must Close it.
func (f *pgFlags) startPG(ctx context.Context, app *App) (*pgserver.Server, error) {
	opts, err := f.options(app)
	if err != nil {
		return nil, err
	}
	s, err := pgserver.Start(ctx, opts)
	f.progress.finish()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		hint := "install PostgreSQL, start Docker, or pass --dsn URL"
		var none *pgserver.NoServerError
		var npmErr *pgserver.NPMError
		switch {
		case errors.As(err, &none):
			hint = "install PostgreSQL (apt-get install postgresql, brew install postgresql@15), start Docker, or pass --dsn URL"
		case opts.DSN != "" && (notPostgres(err) || !speaksPostgres(ctx, opts.DSN)):
			err = fmt.Errorf("the server of the DSN answered, but not in PostgreSQL's protocol: another service (an HTTP server?) listens at that host and port (%w)", err)
			hint = "check the host and port in --dsn (or BSADAPTER_DSN): PostgreSQL listens on 5432 unless told otherwise"
		case opts.Strategy == "docker" || strings.HasPrefix(err.Error(), "pgserver: docker:"):
			// The error says what the engine or the container did.
			hint = "pass another image with --pg-image, or use --pg local, --pg npm or --dsn URL"
		case errors.As(err, &npmErr):
			hint = "check that npm reaches its registry ('npm ping'), or take one of the three ways the error names"
		case opts.DSN != "" && opts.Strategy != "local" && opts.Strategy != "docker":
			// The error names the server and the role; the fix is theirs.
			hint = "check the --dsn URL (or BSADAPTER_DSN) and that its server answers; or drop it to let bsadapter start a server"
		}
		return nil, envErr(err, hint)
	}
	return s, nil
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

// notPostgres says whether a connection failed because what answered at
// the address does not speak PostgreSQL's protocol: pgx then reads the
// other side's first bytes ("HTTP/1.1 ...") as a message length.
func notPostgres(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "invalid body length") || strings.Contains(msg, "unexpected message type") ||
		strings.Contains(msg, "received unexpected message")
}

// speaksPostgres asks the DSN's server the first question of PostgreSQL's
// protocol (may we use TLS?), to which a PostgreSQL server answers with
// one byte, S or N. Anything else, or the connection closed without an
// answer, is another service (a web server answers "HTTP/1.1 400"). It
// says true when it cannot tell (no host, nothing listening), leaving the
// connection error as it is.
func speaksPostgres(ctx context.Context, dsn string) bool {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil || cfg.Host == "" || strings.HasPrefix(cfg.Host, "/") {
		return true
	}
	d := net.Dialer{Timeout: 3 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))))
	if err != nil {
		return true
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(3 * time.Second))
	// SSLRequest: length 8, code 80877103.
	if _, err := conn.Write([]byte{0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f}); err != nil {
		return true
	}
	var b [1]byte
	n, err := conn.Read(b[:])
	if n == 1 {
		return b[0] == 'S' || b[0] == 'N'
	}
	// Closed without a word: not what PostgreSQL does; a timeout says
	// nothing.
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
