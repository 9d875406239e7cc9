// Package pgtest gives a test binary one PostgreSQL server, started lazily
// by the first test that asks for it, and fresh databases cloned from a
// template that has every block installed.
//
// Stopping the server: a package that uses pgtest should end its tests
// through Main, so the server is stopped once, after the last test:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
//
// Without it, the server is stopped when the test that started it ends
// (t.Cleanup), and the next test that needs one starts another: correct,
// only slower.
//
// BSADAPTER_TEST_DSN, when set, names a server to use instead (the dsn
// strategy: the tests create databases of their own there and drop them).
// Otherwise the local strategy starts a throwaway server. When there is no
// PostgreSQL at all, the test is skipped, or fails under CI=true.
package pgtest

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/internal/pgserver"
	"github.com/bsadapter/bsadapter/internal/testenv"
	"github.com/jackc/pgx/v5"
)

var (
	mu       sync.Mutex
	shared   *pgserver.Server
	startErr error
	inMain   bool
)

// Main runs the tests and then stops the shared server. Use it from
// TestMain.
func Main(m *testing.M) int {
	mu.Lock()
	inMain = true
	mu.Unlock()
	code := m.Run()
	if err := Stop(); err != nil {
		os.Stderr.WriteString("pgtest: " + err.Error() + "\n")
		if code == 0 {
			code = 1
		}
	}
	return code
}

// Stop stops the shared server, if one was started. The next Server call
// starts a new one.
func Stop() error {
	mu.Lock()
	s := shared
	shared, startErr = nil, nil
	mu.Unlock()
	if s == nil {
		return nil
	}
	return s.Close()
}

// Server returns the test binary's shared server, starting it on first use.
func Server(t testing.TB) *pgserver.Server {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	if shared == nil && startErr == nil {
		opts := pgserver.Options{Strategy: "local", Template: blocks.Template{}}
		if dsn := os.Getenv("BSADAPTER_TEST_DSN"); dsn != "" {
			opts = pgserver.Options{Strategy: "dsn", DSN: dsn, Template: blocks.Template{}}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		shared, startErr = pgserver.Start(ctx, opts)
		cancel()
		if startErr == nil && !inMain {
			s := shared
			t.Cleanup(func() {
				mu.Lock()
				if shared == s {
					shared = nil
				}
				mu.Unlock()
				if err := s.Close(); err != nil {
					t.Errorf("pgtest: stop the server: %v", err)
				}
			})
		}
	}
	if startErr != nil {
		err := startErr
		if !inMain {
			startErr = nil // let a later test try again
		}
		if strings.Contains(err.Error(), "no PostgreSQL binaries") {
			testenv.Missing(t, "PostgreSQL is not installed (%v); install it (apt-get install postgresql) or set BSADAPTER_TEST_DSN", err)
		}
		t.Fatalf("pgtest: cannot start PostgreSQL: %v", err)
	}
	return shared
}

// DB returns the server and a fresh database with every block installed,
// cloned from the blocks template and dropped when the test ends.
func DB(t testing.TB) (*pgserver.Server, string) {
	t.Helper()
	s := Server(t)
	ctx := context.Background()
	tpl, err := s.Template(ctx, blocks.Template{})
	if err != nil {
		t.Fatalf("pgtest: blocks template: %v", err)
	}
	return s, newDB(t, s, tpl)
}

// EmptyDB returns the server and a fresh empty database, dropped when the
// test ends.
func EmptyDB(t testing.TB) (*pgserver.Server, string) {
	t.Helper()
	s := Server(t)
	return s, newDB(t, s, "")
}

func newDB(t testing.TB, s *pgserver.Server, tpl string) string {
	t.Helper()
	ctx := context.Background()
	name, err := s.CreateDatabase(ctx, tpl)
	if err != nil {
		t.Fatalf("pgtest: create a database: %v", err)
	}
	t.Cleanup(func() {
		if err := s.DropDatabase(context.Background(), name); err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("pgtest: drop %s: %v", name, err)
		}
	})
	return name
}

// Conn connects to database db of s and closes the connection when the
// test ends.
func Conn(t testing.TB, s *pgserver.Server, db string) *pgx.Conn {
	t.Helper()
	conn, err := s.Connect(context.Background(), db)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// HasVector says whether the test server offers pgvector 0.8 or newer,
// which the knowledge and memory blocks need.
func HasVector(t testing.TB) bool {
	t.Helper()
	s := Server(t)
	conn, err := s.Connect(context.Background(), "postgres")
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	defer conn.Close(context.Background())
	var recent bool
	err = conn.QueryRow(context.Background(), `select coalesce(bool_or(pg_catalog.string_to_array(pg_catalog.substring(default_version, '^[0-9.]*[0-9]'), '.')::int[] >= '{0,8}'), false)
		from pg_catalog.pg_available_extensions where name = 'vector'`).Scan(&recent)
	if err != nil {
		t.Fatalf("pgtest: look for pgvector: %v", err)
	}
	return recent
}

// NeedVector skips the test, or fails it under CI=true, when the test
// server has no pgvector 0.8 or newer.
func NeedVector(t testing.TB) {
	t.Helper()
	if !HasVector(t) {
		testenv.Missing(t, "the test server has no pgvector 0.8 or newer, which the knowledge and memory blocks need: as root, scripts/test builds it from Debian's source package (scripts/pgvector.sh), or set BSADAPTER_TEST_DSN to a server with it")
	}
}
