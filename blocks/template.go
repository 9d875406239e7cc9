package blocks

import (
	"context"
	"sort"

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

// NeededExtensions lists the server extensions some module of the set
// needs, each once, sorted: what decides which modules Prepare leaves out.
func (t Template) NeededExtensions() []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range t.set().List() {
		for _, e := range m.Extensions {
			if !seen[e.Name] {
				seen[e.Name] = true
				out = append(out, e.Name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Prepare installs every module of the set into the database conn is
// connected to.
func (t Template) Prepare(ctx context.Context, conn *pgx.Conn) error {
	_, err := t.set().Install(ctx, conn)
	return err
}

// Roles lists the Supabase API roles supabase-base creates on a server
// that lacks them. Roles belong to the whole server, so a run on someone
// else's server drops again those it created.
func (Template) Roles() []string { return []string{"anon", "authenticated", "service_role"} }
