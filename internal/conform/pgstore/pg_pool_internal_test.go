package pgstore

import (
	"context"
	"testing"

	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/internal/pgserver/pgtest"
	"github.com/jackc/pgx/v5"
)

// A database's connections serve both roles: one idle in the other role
// is switched over, acting exactly as a new connection of that role
// would, rather than a new one opened.
func TestConnectionsSwitchRoles(t *testing.T) {
	srv := pgtest.Server(t)
	ctx := t.Context()
	tpl, err := srv.Template(ctx, blocks.Template{})
	if err != nil {
		t.Fatal(err)
	}
	st := &pgStore{srv: srv, template: tpl}
	db, err := st.clone(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		db.close()
		_ = srv.DropDatabase(context.Background(), db.name)
	}()
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
