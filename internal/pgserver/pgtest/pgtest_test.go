package pgtest_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/internal/pgserver"
	"github.com/bsadapter/bsadapter/internal/pgserver/pgtest"
	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func TestDBHasTheBlocks(t *testing.T) {
	s, db := pgtest.DB(t)
	conn := pgtest.Conn(t, s, db)
	var n int
	if err := conn.QueryRow(context.Background(), "select count(*) from better_supabase.modules").Scan(&n); err != nil || n != len(blocks.List()) {
		t.Fatalf("%d modules, %v", n, err)
	}
	if s != pgtest.Server(t) {
		t.Error("a second call started another server")
	}
	_, empty := pgtest.EmptyDB(t)
	if empty == db {
		t.Error("EmptyDB returned the same database")
	}
}

// With BSADAPTER_TEST_DSN the tests use that server: databases of their
// own there, all dropped when the tests end.
func TestUsesTheDSNFromTheEnvironment(t *testing.T) {
	if err := pgtest.Stop(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	host, err := pgserver.Start(ctx, pgserver.Options{Strategy: "local"})
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	list := func() []string {
		conn, err := host.Connect(ctx, "postgres")
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		rows, _ := conn.Query(ctx, "select datname from pg_database order by 1")
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return names
	}
	before := list()
	t.Setenv("BSADAPTER_TEST_DSN", host.ConnString("postgres"))
	t.Run("inner", func(t *testing.T) {
		s, db := pgtest.DB(t)
		if s.Strategy() != "dsn" {
			t.Errorf("strategy %q with BSADAPTER_TEST_DSN set", s.Strategy())
		}
		if !slices.Contains(list(), db) {
			t.Errorf("%s is not on the DSN's server", db)
		}
	})
	if err := pgtest.Stop(); err != nil {
		t.Fatal(err)
	}
	if after := list(); !slices.Equal(after, before) {
		t.Errorf("databases before %v, after %v", before, after)
	}
	for _, n := range list() {
		if strings.HasPrefix(n, "bsadapter_") && n != pgserver.TemplateName {
			t.Errorf("left behind: %s", n)
		}
	}
}
