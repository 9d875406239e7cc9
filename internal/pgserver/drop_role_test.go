//go:build linux

package pgserver

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// A role that is not a superuser may not end other roles' sessions (nor
// an autovacuum worker's), so DROP DATABASE ... WITH (FORCE) fails for it
// while one is on the database: the drop then waits for the session to
// leave instead of failing, and says what to do when it does not.
func TestDropWaitsForASessionItMayNotEnd(t *testing.T) {
	ctx := context.Background()
	host, _, dsnFor := hostWith(t, "create role maker login createdb", "create role other login")
	s, err := Start(ctx, Options{Strategy: "dsn", DSN: dsnFor("maker", "postgres")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	// other holds a session on the database, busy for a while, then
	// leaves; the drop must neither fail nor end that session.
	name, err := s.CreateDatabase(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	other, err := pgx.Connect(ctx, dsnFor("other", name))
	if err != nil {
		t.Fatal(err)
	}
	maker, err := pgx.Connect(ctx, dsnFor("maker", "postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer maker.Close(ctx)
	// The case this is about: FORCE is refused to maker.
	if _, err := maker.Exec(ctx, "drop database "+pgx.Identifier{name}.Sanitize()+" with (force)"); err == nil || !strings.Contains(err.Error(), "42501") {
		t.Fatalf("FORCE by a plain role with another role's session on the database: %v, want SQLSTATE 42501", err)
	}
	busy := make(chan error, 1)
	go func() {
		_, err := other.Exec(ctx, "select pg_sleep(2)")
		other.Close(ctx)
		busy <- err
	}()
	if err := s.DropDatabase(ctx, name); err != nil {
		t.Errorf("drop with another role's session leaving: %v", err)
	}
	if err := <-busy; err != nil {
		t.Errorf("the other role's session was ended: %v", err)
	}
	if slices.Contains(databases(t, host), name) {
		t.Errorf("database %s is still there", name)
	}

	// A session that stays: the drop fails, saying who may end it.
	was := dropTries
	dropTries = 1
	defer func() { dropTries = was }()
	name, err = s.CreateDatabase(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	stays, err := pgx.Connect(ctx, dsnFor("other", name))
	if err != nil {
		t.Fatal(err)
	}
	err = s.DropDatabase(ctx, name)
	if err == nil || !strings.Contains(err.Error(), "may not end") || !strings.Contains(err.Error(), "pg_signal_backend") {
		t.Errorf("drop with another role's session staying: %v, want the reason and who may end it", err)
	}
	stays.Close(ctx)
	if err := s.DropDatabase(ctx, name); err != nil {
		t.Errorf("drop after the session left: %v", err)
	}
}
