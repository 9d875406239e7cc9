package pgstore

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/internal/pgserver"
	"github.com/bsadapter/bsadapter/internal/pgserver/pgtest"
	"github.com/jackc/pgx/v5"
)

// A database's connections serve both roles: one idle in the other role
// is switched over, acting exactly as a new connection of that role
// would, rather than a new one opened.
func TestConnectionsSwitchRoles(t *testing.T) {
	ctx := t.Context()
	db := testDB(t)
	type who struct{ user, session, claims string }
	ask := func(use func(context.Context, func(*pgx.Conn) error) error) who {
		t.Helper()
		var w who
		if err := use(ctx, func(c *pgx.Conn) error {
			return c.QueryRow(ctx, "select current_user::text, session_user::text, coalesce(current_setting('request.jwt.claims', true), '')").Scan(&w.user, &w.session, &w.claims)
		}); err != nil {
			t.Fatal(err)
		}
		return w
	}
	for i := range 2 {
		if w := ask(db.with); w.user != "service_role" || w.claims != `{"role":"service_role"}` {
			t.Errorf("round %d: as the service role the connection acts as %s with claims %q", i, w.user, w.claims)
		}
		if w := ask(db.admin); w.user != w.session || w.claims != "" {
			t.Errorf("round %d: as the connecting role (%s) the connection acts as %s with claims %q", i, w.session, w.user, w.claims)
		}
	}
	db.mu.Lock()
	opened := len(db.all)
	db.mu.Unlock()
	if opened != 1 {
		t.Errorf("%d connections opened for calls one at a time, want 1", opened)
	}
}

// After a burst of concurrent calls opened several connections, calls
// one at a time go to the most recently used one, the warmest, rather
// than rotating through every connection the burst opened.
func TestConnectionsWarmestFirst(t *testing.T) {
	ctx := t.Context()
	db := testDB(t)
	pid := func(c *pgx.Conn) int { return int(c.PgConn().PID()) }
	// Three calls in flight at once: each nested call holds the outer
	// one's connection, so three are opened; the innermost ends first.
	var last int
	if err := db.with(ctx, func(a *pgx.Conn) error {
		last = pid(a)
		return db.with(ctx, func(b *pgx.Conn) error {
			return db.with(ctx, func(c *pgx.Conn) error {
				if pid(a) == pid(b) || pid(b) == pid(c) || pid(a) == pid(c) {
					t.Fatalf("nested calls share a connection: %d %d %d", pid(a), pid(b), pid(c))
				}
				return nil
			})
		})
	}); err != nil {
		t.Fatal(err)
	}
	// The outermost call's connection was returned last: every call now
	// takes it (a queue would hand out the innermost's first).
	for i := range 4 {
		if err := db.with(ctx, func(c *pgx.Conn) error {
			if pid(c) != last {
				t.Errorf("call %d one at a time went to server process %d, want %d (the most recently used)", i, pid(c), last)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	db.mu.Lock()
	opened := len(db.all)
	db.mu.Unlock()
	if opened != 3 {
		t.Errorf("%d connections opened, want 3", opened)
	}
}

// testDB returns a clone of the blocks' template on the test server,
// closed and dropped when the test ends.
func testDB(t *testing.T) *pgDB {
	t.Helper()
	srv := pgtest.Server(t)
	tpl, err := srv.Template(t.Context(), blocks.Template{})
	if err != nil {
		t.Fatal(err)
	}
	st := &pgStore{srv: srv, template: tpl}
	db, err := st.clone(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db.close()
		_ = srv.DropDatabase(context.Background(), db.name)
	})
	return db
}

// A database lets the eight writers of a racing case into the server
// together, and opens no more connections than that for a larger burst:
// each one is a server process that warms up on its own.
func TestConnectionsBoundedAtEight(t *testing.T) {
	ctx := t.Context()
	db := testDB(t)
	const racers = 8
	// Each call waits inside the server's connection until all eight are
	// there: with fewer connections, the last ones never get in.
	arrived := make(chan struct{}, racers)
	all := make(chan struct{})
	errs := make(chan error, racers)
	var wg sync.WaitGroup
	for range racers {
		wg.Go(func() {
			errs <- db.with(ctx, func(c *pgx.Conn) error {
				if _, err := c.Exec(ctx, "select 1"); err != nil {
					return err
				}
				arrived <- struct{}{}
				if len(arrived) == racers {
					close(all)
				}
				select {
				case <-all:
					return nil
				case <-time.After(time.Minute):
					return fmt.Errorf("only %d of %d calls reached the server together", len(arrived), racers)
				}
			})
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	// A burst of three times as many calls, each holding its connection
	// a moment, opens none beyond those eight.
	for range 3 * racers {
		wg.Go(func() {
			if err := db.with(ctx, func(c *pgx.Conn) error {
				_, err := c.Exec(ctx, "select pg_catalog.pg_sleep(0.01)")
				return err
			}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	db.mu.Lock()
	opened := len(db.all)
	db.mu.Unlock()
	if opened != racers {
		t.Errorf("%d connections opened, want %d", opened, racers)
	}
}

// Cases that purge get a database no other case uses while they run: a
// kept one, with its connections, once a case has ended in it; a new
// clone when every kept one is in use or has been used by a case of the
// suite of a case that counts what its purge removes, or when the case
// that ended left a call in flight. Close drops every one.
func TestIsolatedDatabasesKept(t *testing.T) {
	ctx := t.Context()
	srv := pgtest.Server(t)
	tpl, err := srv.Template(ctx, blocks.Template{})
	if err != nil {
		t.Fatal(err)
	}
	st := &pgStore{srv: srv, template: tpl}
	st.shared, err = st.clone(ctx)
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			st.Close()
		}
	})
	// take takes a database for an Isolated case of suite, as caseDB does.
	take := func(suite string, counts bool) *pgDB {
		t.Helper()
		db, err := st.takeSpare(ctx, suite, counts)
		if err != nil {
			t.Fatal(err)
		}
		db.usedBy = append(db.usedBy, suite)
		return db
	}
	pid := func(db *pgDB) (pid uint32) {
		t.Helper()
		if err := db.with(ctx, func(c *pgx.Conn) error { pid = c.PgConn().PID(); return nil }); err != nil {
			t.Fatal(err)
		}
		return pid
	}
	a, b := take("registry", true), take("streams", false)
	if a.name == b.name || a.name == st.shared.name || b.name == st.shared.name {
		t.Fatalf("two cases at once share a database: %s, %s (shared %s)", a.name, b.name, st.shared.name)
	}
	pa := pid(a)
	st.giveBack(a)
	// A registry case that counts what its purge removes never gets a's
	// database: it could find a's case's runs.
	r := take("registry", true)
	if r.name == a.name || r.name == b.name {
		t.Errorf("a counting registry case got database %s, which a registry case has used", r.name)
	}
	c := take("streams", false)
	if c.name != a.name || pid(c) != pa {
		t.Errorf("a streams case got database %s (server process %d), want the ended registry case's %s (%d)", c.name, pid(c), a.name, pa)
	}
	st.giveBack(r)
	if d := take("chat", false); d.name == c.name || d.name == b.name {
		t.Errorf("a case got database %s, which a running case uses", d.name)
	} else {
		st.giveBack(d)
	}
	// A call of c's still in flight when its case ends: c is dropped.
	inFlight, release := make(chan struct{}), make(chan struct{})
	done := make(chan error)
	go func() {
		done <- c.with(ctx, func(*pgx.Conn) error { close(inFlight); <-release; return nil })
	}()
	<-inFlight
	st.giveBack(c)
	close(release)
	<-done
	names := Databases(t, srv)
	if slices.Contains(names, c.name) {
		t.Errorf("database %s, given back with a call in flight, was kept", c.name)
	}
	if e := take("chat", false); e.name == c.name {
		t.Errorf("the next case got database %s, given back with a call in flight", e.name)
	} else {
		st.giveBack(e)
	}
	st.giveBack(b)
	kept := []string{b.name}
	st.spareMu.Lock()
	for _, db := range st.spare {
		kept = append(kept, db.name)
	}
	st.spareMu.Unlock()
	closed = true
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	names = Databases(t, srv)
	for _, n := range append(kept, st.shared.name) {
		if slices.Contains(names, n) {
			t.Errorf("database %s left after Close", n)
		}
	}
}

// Databases lists the server's databases, by name (for this package's
// external tests too).
func Databases(t *testing.T, srv *pgserver.Server) []string {
	t.Helper()
	conn, err := srv.Connect(t.Context(), "postgres")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(t.Context(), "select datname from pg_database order by datname")
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return names
}
