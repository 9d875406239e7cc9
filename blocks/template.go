package blocks

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"

	"github.com/jackc/pgx/v5"
)

// Template is every embedded block as the content of a template
// database. It is what a server's caller hands to pgserver (as
// Options.Template, and to Server.Template), so that the server prepares
// the blocks once and clones them for every database; pgserver itself
// knows nothing of what is installed.
type Template struct{}

// Key identifies the blocks installed: it changes whenever a module's
// name, version or SQL, or the registry bookkeeping, changes, which is
// what keys a cached server cluster.
func (Template) Key() string {
	h := sha256.New()
	io.WriteString(h, registry+"\x00")
	for _, m := range List() {
		io.WriteString(h, m.Name+"\x00"+m.Version+"\x00"+m.SQL+"\x00")
	}
	return "blocks-" + hex.EncodeToString(h.Sum(nil))[:16]
}

// Prepare installs every block into the database conn is connected to.
func (Template) Prepare(ctx context.Context, conn *pgx.Conn) error {
	_, err := Install(ctx, conn)
	return err
}

// Roles lists the Supabase API roles supabase-base creates on a server
// that lacks them. Roles belong to the whole server, so a run on someone
// else's server drops again those it created.
func (Template) Roles() []string { return []string{"anon", "authenticated", "service_role"} }
