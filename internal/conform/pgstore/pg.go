// Package pgstore drives better-supabase's blocks in PostgreSQL as a
// conformance subject (conform --store pg): the blocks installed once into
// a template database, a clone per run and per purging case running at
// once, and every call made through the blocks' SQL functions with a real
// caller's rights.
package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/aicache"
	"github.com/bsadapter/bsadapter/internal/conform/suites/builderrecords"
	"github.com/bsadapter/bsadapter/internal/conform/suites/chat"
	"github.com/bsadapter/bsadapter/internal/conform/suites/chatstate"
	"github.com/bsadapter/bsadapter/internal/conform/suites/credentials"
	"github.com/bsadapter/bsadapter/internal/conform/suites/knowledge"
	"github.com/bsadapter/bsadapter/internal/conform/suites/memory"
	"github.com/bsadapter/bsadapter/internal/conform/suites/registry"
	"github.com/bsadapter/bsadapter/internal/conform/suites/streams"
	"github.com/bsadapter/bsadapter/internal/pgserver"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// pgStore runs the suites against the embedded blocks in PostgreSQL. The
// blocks are installed once, in a template database; the run works in a
// clone of it, and a case that purges gets one no other running case uses
// (caseDB). Every call goes through the blocks' SQL functions with a real
// caller's rights, taken the way PostgREST takes them on Supabase
// (request.jwt.claims with the role, and sub for a user, then SET ROLE):
// the service role for writes, an authenticated user or anon in a
// transaction for the visibility cases.
// Only moving time is done as the connecting (owner) role, by shifting
// timestamps.
type pgStore struct {
	srv      *pgserver.Server
	set      *blocks.Set
	template string
	shared   *pgDB
	missing  map[string]error
	// auditLog says that audit_event is the access module's, which keeps
	// its events in better_supabase.audit_events.
	auditLog bool
	// leftOut is the modules of the set the server could not install.
	leftOut []conform.ModuleLeftOut
	n       atomic.Int64
	// timeCols caches, per table, its timestamp columns: every clone has
	// the template's tables.
	timeCols sync.Map
	// spare holds the databases of Isolated cases that have ended, for
	// the next ones (see caseDB).
	spareMu sync.Mutex
	spare   []*pgDB
	closed  bool
}

// ModulesLeftOut lists the modules the server could not install, with
// why and how to get them.
func (p *pgStore) ModulesLeftOut() []conform.ModuleLeftOut { return p.leftOut }

// suiteFunctions names, per block suite, a function of the module it
// runs against: without it the suite cannot run.
var suiteFunctions = map[string]string{
	streams.Suite.Name:        "better_supabase.stream_append",
	registry.Suite.Name:       "better_supabase.record_workflow_run",
	chat.Suite.Name:           "better_supabase.claim_ai_chat_stream",
	chatstate.Suite.Name:      "better_supabase.chat_state_acquire_lock",
	credentials.Suite.Name:    "better_supabase.credential_get",
	builderrecords.Suite.Name: "better_supabase.publish_workflow_version",
	aicache.Suite.Name:        "better_supabase.ai_cache_get",
	knowledge.Suite.Name:      "better_supabase.knowledge_search",
	memory.Suite.Name:         "better_supabase.memory_view",
}

// New prepares srv for the suites: it installs the embedded blocks into
// the server's template database for them (once; a server started with
// blocks.Template in its options has it already) and clones the database
// the run shares.
func New(ctx context.Context, srv *pgserver.Server) (conform.Store, error) {
	return NewOf(ctx, srv, blocks.Embedded())
}

// NewOf is New for another implementation of the blocks (blocks.LoadDir):
// the suites run against set's modules, installed into a template
// database of their own.
func NewOf(ctx context.Context, srv *pgserver.Server, set *blocks.Set) (conform.Store, error) {
	tpl, err := srv.Template(ctx, blocks.Template{Set: set})
	if err != nil {
		return nil, err
	}
	st := &pgStore{srv: srv, set: set, template: tpl, missing: map[string]error{}}
	st.shared, err = st.clone(ctx)
	if err != nil {
		return nil, err
	}
	for suite, fn := range suiteFunctions {
		var ok bool
		if err := st.shared.admin(ctx, func(c *pgx.Conn) error {
			return c.QueryRow(ctx, "select pg_catalog.to_regproc($1) is not null", fn).Scan(&ok)
		}); err != nil {
			st.Close()
			return nil, err
		}
		if !ok {
			st.missing[suite] = fmt.Errorf("the installed blocks have no %s", fn)
		}
	}
	// A suite whose module was left out (the server lacks an extension it
	// needs) is left out of the run with it, saying why and how to get
	// it: the reason of the module that lacked the extension.
	var leftOut []blocks.ModuleResult
	if err := st.shared.admin(ctx, func(c *pgx.Conn) error {
		var err error
		leftOut, err = set.LeftOut(ctx, c)
		return err
	}); err != nil {
		st.Close()
		return nil, err
	}
	// root is, per module left out, the module whose own reason it was
	// left out for, and that reason.
	type cause struct{ module, reason string }
	root := map[string]cause{}
	for _, lo := range leftOut {
		st.leftOut = append(st.leftOut, conform.ModuleLeftOut{Module: lo.Name, Reason: lo.Reason})
		mods, err := set.Resolve(lo.Name)
		if err != nil {
			continue
		}
		m := mods[len(mods)-1]
		root[lo.Name] = cause{lo.Name, lo.Reason}
		for _, r := range m.Requires {
			if c, ok := root[r]; ok {
				root[lo.Name] = c
				break
			}
		}
		reason := fmt.Sprintf("module %s was left out: %s", lo.Name, lo.Reason)
		if c := root[lo.Name]; c.module != lo.Name {
			reason = fmt.Sprintf("module %s was left out, as module %s was: %s", lo.Name, c.module, c.reason)
		}
		for suite, fn := range suiteFunctions {
			if st.missing[suite] != nil && slices.Contains(m.Functions, fn) {
				st.missing[suite] = conform.NotImplemented("%s", reason)
			}
		}
	}
	if err := st.shared.admin(ctx, func(c *pgx.Conn) error {
		return c.QueryRow(ctx, `select pg_catalog.to_regclass('better_supabase.audit_events') is not null
			and coalesce(pg_catalog.obj_description(pg_catalog.to_regprocedure(
				'better_supabase.audit_event(text,text,text,text,text,text,uuid,jsonb,text,jsonb,uuid,text,text,text)'), 'pg_proc'), '') = 'bsadapter access stand-in'`).Scan(&st.auditLog)
	}); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

// Name says which server and which implementation of the blocks the run
// tested.
func (p *pgStore) Name() string {
	if p.set.IsEmbedded() {
		return "pg (" + p.srv.Strategy() + ")"
	}
	return "pg (" + p.srv.Strategy() + ", blocks from " + p.set.Source() + ")"
}

func (p *pgStore) Close() error {
	if p.shared == nil {
		return nil
	}
	p.spareMu.Lock()
	dbs := append([]*pgDB{p.shared}, p.spare...)
	p.spare, p.closed = nil, true
	p.spareMu.Unlock()
	var errs []error
	for _, db := range dbs {
		db.close()
		errs = append(errs, p.srv.DropDatabase(context.Background(), db.name))
	}
	return errors.Join(errs...)
}

func (p *pgStore) clone(ctx context.Context) (*pgDB, error) {
	name, err := p.srv.CreateDatabase(ctx, p.template)
	if err != nil {
		return nil, err
	}
	return &pgDB{srv: p.srv, name: name, timeCols: &p.timeCols, slots: make(chan struct{}, maxConns), idle: map[bool][]*pgx.Conn{}}, nil
}

// Decline says why pg has no suite of an adapter's own code.
func (p *pgStore) Decline(*conform.Suite) string {
	return "checks an adapter's own code, not a block: use --store=bridge"
}

// prefix returns a new prefix for a case's ids.
func (p *pgStore) prefix() string { return fmt.Sprintf("pg%d", p.n.Add(1)) }

// caseDB returns the database t's case works in: the run's shared clone,
// or, for an Isolated case (it purges, and a purge sees the whole
// database), one that no other case uses while it runs. That is a clone
// of the template, or the database of an Isolated case that has ended,
// with its warm connections: the case then finds the rows earlier cases
// left there, as on any store it shares with the cases before it (a
// bridge's), except a case that counts what its purge finds (Counts),
// which never gets a database a case of its suite has used: what other
// suites' cases left is in other modules' tables, which its purge does
// not see. A clone costs the server a copy, checkpoints, cold processes
// and a drop.
func (p *pgStore) caseDB(t *conform.T) (*pgDB, error) {
	if !t.Case().Isolated {
		return p.shared, nil
	}
	suite := t.Case().Suite
	db, err := p.takeSpare(t.Context(), suite, t.Case().Counts)
	if err != nil {
		return nil, err
	}
	db.usedBy = append(db.usedBy, suite)
	// Its purges reach only its own database: they need not wait for the
	// cases on the shared one.
	t.SetPrivate()
	t.Cleanup(func() { p.giveBack(db) })
	return db, nil
}

// takeSpare returns the most recently kept database, one no case of
// suite has used when the case counts, or a new clone when none is kept.
func (p *pgStore) takeSpare(ctx context.Context, suite string, counts bool) (*pgDB, error) {
	p.spareMu.Lock()
	for i := len(p.spare) - 1; i >= 0; i-- {
		if db := p.spare[i]; !counts || !slices.Contains(db.usedBy, suite) {
			p.spare = slices.Delete(p.spare, i, i+1)
			p.spareMu.Unlock()
			return db, nil
		}
	}
	p.spareMu.Unlock()
	return p.clone(ctx)
}

// giveBack keeps an ended Isolated case's database for the next one, or
// drops it: when the store is closed, or when a call of the case is still
// in flight (from a goroutine the case left behind), which could reach
// the next case.
func (p *pgStore) giveBack(db *pgDB) {
	p.spareMu.Lock()
	if !p.closed && len(db.slots) == 0 {
		p.spare = append(p.spare, db)
		db = nil
	}
	p.spareMu.Unlock()
	if db != nil {
		db.close()
		_ = p.srv.DropDatabase(context.Background(), db.name)
	}
}

// pgDB is one database with a small pool of connections, each acting as
// the service role or as the connecting role (admin) as a call asks.
type pgDB struct {
	srv  *pgserver.Server
	name string
	// usedBy lists the suites whose Isolated cases have used the
	// database (see caseDB).
	usedBy []string
	// slots bounds the connections in use at once, whatever --parallel
	// asks, so that a run stays within the server's max_connections.
	slots chan struct{}
	mu    sync.Mutex
	all   []*pgx.Conn
	// idle holds the idle connections acting as the service role (true)
	// and as the connecting role (false), the most recently used last.
	idle map[bool][]*pgx.Conn
	done bool
	// timeCols caches, per table, its timestamp columns (the store's).
	timeCols *sync.Map
}

func (d *pgDB) connect(ctx context.Context) (*pgx.Conn, error) {
	c, err := pgx.Connect(ctx, d.srv.ConnString(d.name))
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.done {
		c.Close(ctx)
		return nil, errors.New("the database was released")
	}
	d.all = append(d.all, c)
	return c, nil
}

// maxConns is the most connections one database of a run uses at once.
// Each is a server process that warms its own caches and compiles the
// blocks' functions again, so a burst of calls pays for every process it
// opens: with 24 the main job's CPU was a quarter higher than with 8,
// for bursts that a few warm processes serve as well. Eight keeps a
// racing case racing in the server: the streams cases' eight writers
// are all in flight together, and of chat-state's sixteen, eight at a
// time, the others waiting for a connection.
const maxConns = 8

// acquire waits for a connection slot; release gives it back.
func (d *pgDB) acquire(ctx context.Context) error {
	select {
	case d.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (d *pgDB) release() { <-d.slots }

// with runs fn on a pooled connection acting as the service role.
func (d *pgDB) with(ctx context.Context, fn func(*pgx.Conn) error) error {
	return d.use(ctx, true, fn)
}

// admin runs fn on a pooled connection as the connecting role.
func (d *pgDB) admin(ctx context.Context, fn func(*pgx.Conn) error) error {
	return d.use(ctx, false, fn)
}

// actAsService makes a connection act as the service role, as PostgREST
// does with the service key: the claims first, then the role. The blocks
// recognise the service role by that claim (or by a login of the server's
// admin roles), so this works for any login that may become service_role.
const actAsService = `select pg_catalog.set_config('request.jwt.claims', '{"role":"service_role"}', false); set role service_role`

// actAsOwner undoes actAsService: the connection acts as the connecting
// role again, with no claims, as a new one does.
const actAsOwner = `reset role; reset request.jwt.claims`

// use runs fn on a pooled connection acting as the service role (service)
// or as the connecting role. Every new connection costs the server a
// process and the warm-up of its caches (catalog entries, compiled
// functions, plans), so the most recently used idle connection is taken
// first, one idle in the other role is switched over rather than a new
// one opened, and only as many are opened as calls are in flight at once.
// Taking the warmest first keeps the work on few, warm server processes
// after a burst of concurrent calls opened many.
func (d *pgDB) use(ctx context.Context, service bool, fn func(*pgx.Conn) error) error {
	if err := d.acquire(ctx); err != nil {
		return err
	}
	defer d.release()
	c, switched := d.take(service)
	if c == nil {
		var err error
		if c, err = d.connect(ctx); err != nil {
			return err
		}
		switched = service
	}
	if switched {
		sql, as := actAsOwner, "act as the connecting role"
		if service {
			sql, as = actAsService, "act as service_role"
		}
		if _, err := c.Exec(ctx, sql); err != nil {
			c.Close(context.Background())
			return fmt.Errorf("%s: %w", as, err)
		}
	}
	err := fn(c)
	if c.IsClosed() || c.PgConn().TxStatus() != 'I' || ctx.Err() != nil {
		// A call cut short by its context leaves the connection unusable.
		c.Close(context.Background())
		return err
	}
	d.mu.Lock()
	if !d.done {
		d.idle[service] = append(d.idle[service], c)
	}
	d.mu.Unlock()
	return err
}

// take returns the most recently used idle connection acting in the
// role asked for, or else the most recently used one acting in the other
// (switched is then true), or nil when none is idle.
func (d *pgDB) take(service bool) (c *pgx.Conn, switched bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, role := range []bool{service, !service} {
		if n := len(d.idle[role]); n > 0 {
			c = d.idle[role][n-1]
			d.idle[role] = d.idle[role][:n-1]
			return c, role != service
		}
	}
	return nil, false
}

// as runs fn in a transaction as caller (with its JWT claims).
func (d *pgDB) as(ctx context.Context, who conform.Caller, fn func(pgx.Tx) error) error {
	return d.with(ctx, func(c *pgx.Conn) error {
		claims := map[string]any{"role": who.Role}
		if who.Sub != "" {
			claims["sub"] = who.Sub
		}
		cj, _ := json.Marshal(claims)
		return pgx.BeginFunc(ctx, c, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, "select pg_catalog.set_config('role', $1, true), pg_catalog.set_config('request.jwt.claims', $2, true)", who.Role, string(cj)); err != nil {
				return err
			}
			return fn(tx)
		})
	})
}

func (d *pgDB) close() {
	d.mu.Lock()
	d.done = true
	all := d.all
	d.all, d.idle = nil, nil
	d.mu.Unlock()
	for _, c := range all {
		c.Close(context.Background())
	}
}

// ageRows shifts every timestamp column of the rows of table matching
// where back by by.
func (d *pgDB) ageRows(ctx context.Context, table, where string, arg any, by time.Duration) error {
	return d.admin(ctx, func(c *pgx.Conn) error {
		var cols []string
		if v, ok := d.timeCols.Load(table); ok {
			cols = v.([]string)
		} else {
			// The catalog, not information_schema, whose views take far
			// longer to answer on a server process that has just started.
			rows, err := c.Query(ctx, `select a.attname::text from pg_catalog.pg_attribute a
				join pg_catalog.pg_class r on r.oid = a.attrelid
				join pg_catalog.pg_namespace n on n.oid = r.relnamespace
				where n.nspname = 'better_supabase' and r.relname = $1 and a.attnum > 0 and not a.attisdropped
				  and a.atttypid in ('pg_catalog.timestamptz'::pg_catalog.regtype, 'pg_catalog.timestamp'::pg_catalog.regtype)
				order by a.attnum`, table)
			if err != nil {
				return err
			}
			if cols, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
				return err
			}
			d.timeCols.Store(table, cols)
		}
		if len(cols) == 0 {
			return fmt.Errorf("better_supabase.%s has no timestamp columns", table)
		}
		sets := make([]string, len(cols))
		for i, col := range cols {
			id := pgx.Identifier{col}.Sanitize()
			sets[i] = fmt.Sprintf("%s = %s - $2::float8 * interval '1 second'", id, id)
		}
		tag, err := c.Exec(ctx, fmt.Sprintf("update better_supabase.%s set %s where %s", pgx.Identifier{table}.Sanitize(), strings.Join(sets, ", "), where), arg, by.Seconds())
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("no row of better_supabase.%s to age", table)
		}
		return nil
	})
}

// pgErr turns a PostgreSQL error into a StoreError with its hint and
// SQLSTATE.
func pgErr(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return &conform.StoreError{Hint: pe.Hint, SQLState: pe.Code, Message: pe.Message}
	}
	return err
}

// queryer is what both a connection and a transaction offer.
type queryer interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// scalar runs a one-value query on q and scans the value into dst.
func scalar(ctx context.Context, q queryer, dst any, sql string, args ...any) error {
	return pgErr(q.QueryRow(ctx, sql, args...).Scan(dst))
}

// jsonInto runs a query returning one json value and decodes it into dst;
// found is false when the value is SQL null.
func jsonInto(ctx context.Context, q queryer, dst any, sql string, args ...any) (found bool, err error) {
	var raw []byte
	if err := scalar(ctx, q, &raw, sql, args...); err != nil {
		return false, err
	}
	if raw == nil || string(raw) == "null" {
		return false, nil
	}
	return true, json.Unmarshal(raw, dst)
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func seconds(d time.Duration) any {
	if d <= 0 {
		return nil
	}
	return d.Seconds()
}

type pgStreams struct{ db *pgDB }

// APIVersion is the TS interface's apiVersion.
func (s pgStreams) APIVersion() int { return 1 }

// StoreName is the TS interface's name.
func (s pgStreams) StoreName() string { return "postgres" }

func (s pgStreams) Open(ctx context.Context, id string, o streams.OpenOptions) (bool, error) {
	var created bool
	err := s.db.with(ctx, func(c *pgx.Conn) error {
		if o.Owner != "" {
			if _, err := c.Exec(ctx, "insert into auth.users (id) values ($1) on conflict do nothing", o.Owner); err != nil {
				return pgErr(err)
			}
		}
		kind := o.Kind
		if kind == "" {
			kind = "default"
		}
		ttl := o.TTL
		if ttl <= 0 {
			ttl = 24 * time.Hour
		}
		return scalar(ctx, c, &created, "select better_supabase.stream_open($1, $2::uuid, $3::uuid, $4, $5::float8 * interval '1 second')",
			id, nullable(o.Owner), nullable(o.Tenant), kind, ttl.Seconds())
	})
	return created, err
}

func (s pgStreams) Append(ctx context.Context, id string, from int, chunks []string) (streams.AppendResult, error) {
	return pgAppend(ctx, s.db.with, id, from, chunks)
}

func pgAppend(ctx context.Context, with func(context.Context, func(*pgx.Conn) error) error, id string, from int, chunks []string) (streams.AppendResult, error) {
	if chunks == nil {
		chunks = []string{}
	}
	var r streams.AppendResult
	err := with(ctx, func(c *pgx.Conn) error {
		_, err := jsonInto(ctx, c, &r, "select better_supabase.stream_append($1, $2, $3::text[])", id, from, chunks)
		return err
	})
	return r, err
}

func (s pgStreams) readPage(ctx context.Context, q queryer, id string, from, limit int) (streams.Page, error) {
	var p streams.Page
	_, err := jsonInto(ctx, q, &p, "select better_supabase.stream_read($1, $2, $3)", id, from, limit)
	if p.Chunks == nil {
		p.Chunks = []string{}
	}
	return p, err
}

func (s pgStreams) ReadPage(ctx context.Context, id string, from, limit int) (streams.Page, error) {
	var p streams.Page
	err := s.db.with(ctx, func(c *pgx.Conn) error {
		var err error
		p, err = s.readPage(ctx, c, id, from, limit)
		return err
	})
	return p, err
}

// liveRead pages through a stream until it is done, polling while the
// writer is behind (plain PostgreSQL has no Realtime to wake readers).
func liveReadPG(ctx context.Context, page func(from int) (streams.Page, error), from int) ([]string, error) {
	out := []string{}
	next := max(from, 0)
	wait := time.Millisecond
	for {
		p, err := page(next)
		if err != nil {
			return nil, err
		}
		if !p.Found {
			return out, nil
		}
		out = append(out, p.Chunks...)
		next = p.Next
		if p.Done {
			return out, nil
		}
		if len(p.Chunks) > 0 {
			wait = time.Millisecond
			continue
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, &conform.StoreError{Hint: streams.HintReadTimeout, Message: "the stream was not closed: " + ctx.Err().Error()}
		}
		wait = min(wait*2, 20*time.Millisecond)
	}
}

func (s pgStreams) ReadAll(ctx context.Context, id string, from int) ([]string, error) {
	return liveReadPG(ctx, func(from int) (streams.Page, error) { return s.ReadPage(ctx, id, from, 10000) }, from)
}

func (s pgStreams) status(ctx context.Context, q queryer, id string) (*streams.Status, error) {
	var st streams.Status
	found, err := jsonInto(ctx, q, &st, "select better_supabase.stream_status($1)", id)
	if err != nil || !found {
		return nil, err
	}
	return &st, nil
}

func (s pgStreams) Status(ctx context.Context, id string) (*streams.Status, error) {
	var st *streams.Status
	err := s.db.with(ctx, func(c *pgx.Conn) error {
		var err error
		st, err = s.status(ctx, c, id)
		return err
	})
	return st, err
}

func (s pgStreams) IsCancelled(ctx context.Context, id string) (bool, error) {
	st, err := s.Status(ctx, id)
	return st != nil && st.Cancelled, err
}

func (s pgStreams) boolCall(ctx context.Context, sql string, args ...any) (bool, error) {
	var ok bool
	err := s.db.with(ctx, func(c *pgx.Conn) error { return scalar(ctx, c, &ok, sql, args...) })
	return ok, err
}

func (s pgStreams) Close(ctx context.Context, id string) (bool, error) {
	return s.boolCall(ctx, "select better_supabase.stream_close($1)", id)
}

func (s pgStreams) Cancel(ctx context.Context, id string) (bool, error) {
	return s.boolCall(ctx, "select better_supabase.stream_cancel($1)", id)
}

func (s pgStreams) Purge(ctx context.Context, olderThan time.Duration) (int, error) {
	var n int
	err := s.db.with(ctx, func(c *pgx.Conn) error {
		return scalar(ctx, c, &n, "select better_supabase.purge_streams(coalesce($1::float8 * interval '1 second', interval '1 day'))", seconds(olderThan))
	})
	return n, err
}

func (s pgStreams) AgeStream(ctx context.Context, id string, d time.Duration) error {
	return s.db.ageRows(ctx, "streams", "id = $1", id, d)
}

func (s pgStreams) As(c conform.Caller) streams.View { return pgView{s, c} }

// pgView calls the stream functions as a caller other than the service
// role, inside a transaction that sets the role and the JWT claims.
type pgView struct {
	s   pgStreams
	who conform.Caller
}

func (v pgView) ReadAll(ctx context.Context, id string, from int) ([]string, error) {
	return liveReadPG(ctx, func(from int) (streams.Page, error) {
		var p streams.Page
		err := v.s.db.as(ctx, v.who, func(tx pgx.Tx) error {
			var err error
			p, err = v.s.readPage(ctx, tx, id, from, 10000)
			return err
		})
		return p, err
	}, from)
}

func (v pgView) Status(ctx context.Context, id string) (*streams.Status, error) {
	var st *streams.Status
	err := v.s.db.as(ctx, v.who, func(tx pgx.Tx) error {
		var err error
		st, err = v.s.status(ctx, tx, id)
		return err
	})
	return st, err
}

func (v pgView) Cancel(ctx context.Context, id string) (bool, error) {
	var ok bool
	err := v.s.db.as(ctx, v.who, func(tx pgx.Tx) error {
		return scalar(ctx, tx, &ok, "select better_supabase.stream_cancel($1)", id)
	})
	return ok, err
}

func (v pgView) Append(ctx context.Context, id string, from int, chunks []string) (streams.AppendResult, error) {
	var r streams.AppendResult
	err := v.s.db.as(ctx, v.who, func(tx pgx.Tx) error {
		_, err := jsonInto(ctx, tx, &r, "select better_supabase.stream_append($1, $2, $3::text[])", id, from, chunks)
		return err
	})
	return r, err
}

type pgChat struct {
	db      *pgDB
	streams pgStreams
}

func (p pgChat) Streams() streams.Store { return p.streams }

// chatTenant is the tenant the chat suite's chats belong to: upstream's
// chats always have one.
const chatTenant = "c4a70000-0000-4000-8000-00000000000c"

// NewChat makes the owner a user (Supabase's auth, not the blocks, keeps
// users) and creates the chat through create_ai_chat as the service role.
func (p pgChat) NewChat(ctx context.Context, owner string) (string, error) {
	if err := p.db.admin(ctx, func(c *pgx.Conn) error {
		_, err := c.Exec(ctx, "insert into auth.users (id) values ($1) on conflict do nothing", owner)
		return pgErr(err)
	}); err != nil {
		return "", err
	}
	var id string
	err := p.db.with(ctx, func(c *pgx.Conn) error {
		return scalar(ctx, c, &id, "select better_supabase.create_ai_chat($1::uuid, jsonb_build_object('owner_id', $2::text)) ->> 'id'", chatTenant, owner)
	})
	return id, err
}

// NewTenantChat creates a chat of owner in tenant through create_ai_chat,
// shared with the tenant's members when shared is true.
func (p pgChat) NewTenantChat(ctx context.Context, owner, tenant string, shared bool) (string, error) {
	if err := p.db.admin(ctx, func(c *pgx.Conn) error {
		_, err := c.Exec(ctx, "insert into auth.users (id) values ($1) on conflict do nothing", owner)
		return pgErr(err)
	}); err != nil {
		return "", err
	}
	visibility := "private"
	if shared {
		visibility = "organization"
	}
	var id string
	err := p.db.with(ctx, func(c *pgx.Conn) error {
		return scalar(ctx, c, &id, "select better_supabase.create_ai_chat($1::uuid, jsonb_build_object('owner_id', $2::text, 'visibility', $3::text)) ->> 'id'", tenant, owner, visibility)
	})
	return id, err
}

// PathAs reads the chat's current branch as caller c.
func (p pgChat) PathAs(ctx context.Context, c conform.Caller, chatID string) ([]chat.PathEntry, error) {
	out := []chat.PathEntry{}
	err := p.db.as(ctx, c, func(tx pgx.Tx) error {
		_, err := jsonInto(ctx, tx, &out, "select better_supabase.ai_message_path($1::uuid)", chatID)
		return err
	})
	return out, err
}

// Grant gives user permission in tenant through the access module's table,
// as the registry's Grant does.
func (p pgChat) Grant(ctx context.Context, user, tenant, permission string) error {
	return pgRegistry{db: p.db}.Grant(ctx, user, tenant, permission)
}

func (p pgChat) boolCall(ctx context.Context, sql string, args ...any) (bool, error) {
	var ok bool
	err := p.db.with(ctx, func(c *pgx.Conn) error { return scalar(ctx, c, &ok, sql, args...) })
	return ok, err
}

func (p pgChat) RegisterSandbox(ctx context.Context, tenant, provider, sandboxID, chat string) error {
	return p.db.with(ctx, func(c *pgx.Conn) error {
		_, err := c.Exec(ctx, "select better_supabase.register_ai_sandbox($1::uuid, $2, $3, jsonb_build_object('chat_id', $4::text))", tenant, provider, sandboxID, chat)
		return pgErr(err)
	})
}

func (p pgChat) SandboxFor(ctx context.Context, chat, provider string) (string, error) {
	var id *string
	err := p.db.with(ctx, func(c *pgx.Conn) error {
		return scalar(ctx, c, &id, "select better_supabase.ai_sandbox_for($1::uuid, $2) ->> 'sandbox_id'", chat, provider)
	})
	if id == nil {
		return "", err
	}
	return *id, err
}

func (p pgChat) LockHarness(ctx context.Context, chat, harness, holder string, ttl time.Duration) (bool, error) {
	return p.boolCall(ctx, "select better_supabase.lock_ai_harness_session($1::uuid, $2, $3, $4)", chat, harness, holder, int(ttl.Seconds()))
}

func (p pgChat) UnlockHarness(ctx context.Context, chat, harness, holder string) (bool, error) {
	return p.boolCall(ctx, "select better_supabase.unlock_ai_harness_session($1::uuid, $2, $3)", chat, harness, holder)
}

func (p pgChat) AgeHarnessSession(ctx context.Context, chat, harness string, d time.Duration) error {
	return p.db.ageRows(ctx, "ai_harness_sessions", "(chat_id, harness_id) = ($1::uuid, '"+strings.ReplaceAll(harness, "'", "''")+"')", chat, d)
}

// Share makes a link to the chat's branch as its owner.
func (p pgChat) Share(ctx context.Context, owner, chat string) (string, string, error) {
	var r struct {
		ID    string `json:"id"`
		Token string `json:"token"`
	}
	err := p.db.as(ctx, conform.User(owner), func(tx pgx.Tx) error {
		_, err := jsonInto(ctx, tx, &r, "select better_supabase.share_ai_chat($1::uuid)", chat)
		return err
	})
	return r.ID, r.Token, err
}

func (p pgChat) RevokeShare(ctx context.Context, owner, id string) (bool, error) {
	var ok bool
	err := p.db.as(ctx, conform.User(owner), func(tx pgx.Tx) error {
		return scalar(ctx, tx, &ok, "select better_supabase.revoke_ai_chat_share($1::uuid)", id)
	})
	return ok, err
}

// Shared reads a link as anon, as whoever holds the token would.
func (p pgChat) Shared(ctx context.Context, token string) ([]chat.PathEntry, error) {
	var r struct {
		Messages []chat.PathEntry `json:"messages"`
	}
	err := p.db.as(ctx, conform.Anon, func(tx pgx.Tx) error {
		_, err := jsonInto(ctx, tx, &r, "select better_supabase.get_shared_ai_chat($1)", token)
		return err
	})
	return r.Messages, err
}

func (p pgChat) call(ctx context.Context, dst any, sql string, args ...any) (bool, error) {
	var found bool
	err := p.db.with(ctx, func(c *pgx.Conn) error {
		var err error
		found, err = jsonInto(ctx, c, dst, sql, args...)
		return err
	})
	return found, err
}

func (p pgChat) AppendUser(ctx context.Context, chatID string, m chat.Message, o chat.UserOptions) (chat.MessageResult, error) {
	trigger := o.Trigger
	if trigger == "" {
		trigger = "submit-message"
	}
	mj, err := json.Marshal(m)
	if err != nil {
		return chat.MessageResult{}, err
	}
	var r chat.MessageResult
	_, err = p.call(ctx, &r, "select better_supabase.append_ai_user_message($1::uuid, $2::jsonb, $3, $4)", chatID, string(mj), trigger, nullable(o.MessageID))
	return r, err
}

func (p pgChat) SaveAssistant(ctx context.Context, chatID string, m chat.Message, o chat.AssistantOptions) (chat.MessageResult, error) {
	status, format := o.Status, o.Format
	if status == "" {
		status = "complete"
	}
	if format == "" {
		format = "canonical"
	}
	mj, err := json.Marshal(m)
	if err != nil {
		return chat.MessageResult{}, err
	}
	var native any
	if len(o.Native) > 0 {
		native = string(o.Native)
	}
	var r chat.MessageResult
	_, err = p.call(ctx, &r, "select better_supabase.save_ai_assistant_message($1::uuid, $2::jsonb, $3, $4, $5, $6, $7::jsonb, $8::uuid)",
		chatID, string(mj), nullable(o.ParentID), status, nullable(o.Model), format, native, nullable(o.RunID))
	return r, err
}

func (p pgChat) Path(ctx context.Context, chatID, leaf string, native bool) ([]chat.PathEntry, error) {
	out := []chat.PathEntry{}
	_, err := p.call(ctx, &out, "select better_supabase.ai_message_path($1::uuid, $2, $3)", chatID, nullable(leaf), native)
	return out, err
}

func (p pgChat) Claim(ctx context.Context, chatID, stream string, o chat.ClaimOptions) (chat.ClaimResult, error) {
	engine := o.Engine
	if engine == "" {
		engine = "ai-sdk"
	}
	var r chat.ClaimResult
	_, err := p.call(ctx, &r, "select better_supabase.claim_ai_chat_stream($1::uuid, $2, $3, $4, $5, $6)",
		chatID, stream, nullable(o.Model), nullable(o.MessageID), engine, nullable(o.ExternalRunID))
	return r, err
}

func (p pgChat) Release(ctx context.Context, chat, stream string, o chat.ReleaseOptions) (bool, error) {
	status := o.Status
	if status == "" {
		status = "completed"
	}
	var usage any
	if o.Usage != nil {
		b, _ := json.Marshal(o.Usage)
		usage = string(b)
	}
	var ok bool
	err := p.db.with(ctx, func(c *pgx.Conn) error {
		return scalar(ctx, c, &ok, "select better_supabase.release_ai_chat_stream($1::uuid, $2, $3, $4::jsonb, null, $5)",
			chat, stream, status, usage, nullable(o.Error))
	})
	return ok, err
}

func (p pgChat) Stop(ctx context.Context, chatID string) (*chat.StopResult, error) {
	var r chat.StopResult
	found, err := p.call(ctx, &r, "select better_supabase.request_ai_chat_stop($1::uuid)", chatID)
	if err != nil || !found {
		return nil, err
	}
	return &r, nil
}

func (p pgChat) RunStatus(ctx context.Context, runID string) (string, error) {
	var st string
	err := p.db.with(ctx, func(c *pgx.Conn) error {
		return scalar(ctx, c, &st, "select better_supabase.get_ai_run($1::uuid) ->> 'status'", runID)
	})
	return st, err
}

func (p pgChat) AgeChatRun(ctx context.Context, runID string, d time.Duration) error {
	return p.db.ageRows(ctx, "ai_runs", "id = $1::uuid", runID, d)
}
