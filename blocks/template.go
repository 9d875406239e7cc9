package blocks

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// Template is a set of blocks as the content of a template database. It
// is what a server's caller hands to pgserver (as Options.Template, and to
// Server.Template), so that the server prepares the blocks once and clones
// them for every database; pgserver itself knows nothing of what is
// installed.
type Template struct {
	// Set is the modules to install; nil means the embedded blocks.
	Set *Set
}

func (t Template) set() *Set {
	if t.Set == nil {
		return embedded
	}
	return t.Set
}

// Key identifies the blocks installed: it changes whenever a module's
// name, version, mode or SQL, or the registry bookkeeping, changes, which
// is what keys a cached server cluster.
func (t Template) Key() string { return "blocks-" + t.set().Hash()[:16] }

// Prepare installs every module of the set into the database conn is
// connected to, but for the modules that need a server extension the
// server does not offer (Module.Extensions, with what they require): those
// are left out.
func (t Template) Prepare(ctx context.Context, conn *pgx.Conn) error {
	set := t.set()
	names, err := installable(ctx, conn, set)
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return nil
	}
	_, err = set.Install(ctx, conn, names...)
	return err
}

// installable lists the modules of set whose extensions the server offers
// (pg_available_extensions).
func installable(ctx context.Context, conn *pgx.Conn, set *Set) ([]string, error) {
	rows, err := conn.Query(ctx, "select name from pg_catalog.pg_available_extensions")
	if err != nil {
		return nil, err
	}
	offered, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	has := map[string]bool{}
	for _, e := range offered {
		has[e] = true
	}
	var names []string
	for _, m := range set.List() {
		ok := true
		for _, e := range set.NeedsExtensions(m.Name) {
			ok = ok && has[e]
		}
		if ok {
			names = append(names, m.Name)
		}
	}
	return names, nil
}

// Roles lists the Supabase API roles supabase-base creates on a server
// that lacks them. Roles belong to the whole server, so a run on someone
// else's server drops again those it created.
func (Template) Roles() []string { return []string{"anon", "authenticated", "service_role"} }
