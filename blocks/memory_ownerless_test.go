package blocks_test

import (
	"context"
	"testing"

	"github.com/bsadapter/bsadapter/internal/pgserver/pgtest"
)

// An organization fact has no owner. Upstream lets any signed-in user
// forget or supersede it (its refusal is null, hence skipped, for a null
// owner); the block does not: neither a stranger nor a member who reads
// the tenant's memory but does not administer it can, while a member
// holding ai.admin can.
func TestMemoryOwnerlessFactStaysTheAdmins(t *testing.T) {
	// It checks the knowledge and memory modules too, which need pgvector.
	needVector(t)
	s, db := pgtest.DB(t)
	conn := pgtest.Conn(t, s, db)
	ctx := context.Background()
	ownerlessSetup(t, conn)

	asIdentity(t, conn, "service")
	var fact, other string
	for _, c := range []struct {
		content string
		into    *string
	}{{"the office opens at nine", &fact}, {"the office opens at ten", &other}} {
		if err := conn.QueryRow(ctx, `select better_supabase.memory_save($1, $2, '{"scope":"organization"}') ->> 'id'`, olTenant, c.content).Scan(c.into); err != nil {
			t.Fatal(err)
		}
	}
	for _, who := range []string{olStranger, olMember} {
		asIdentity(t, conn, who)
		for _, call := range []string{
			`select better_supabase.memory_forget($1::uuid)`,
			`select better_supabase.memory_forget($1::uuid, '` + other + `')`,
		} {
			var done bool
			if err := conn.QueryRow(ctx, call, fact).Scan(&done); err != nil || done {
				t.Errorf("%s: %s: %v (%v), want false", who, call, done, err)
			}
		}
	}
	asIdentity(t, conn, "service")
	var live int
	if err := conn.QueryRow(ctx, `select count(*) from better_supabase.memories where id = $1 and superseded_by is null`, fact).Scan(&live); err != nil || live != 1 {
		t.Fatalf("after the refused calls the fact is live %d times (%v), want once", live, err)
	}

	asIdentity(t, conn, olAdmin)
	var done bool
	if err := conn.QueryRow(ctx, `select better_supabase.memory_forget($1)`, fact).Scan(&done); err != nil || !done {
		t.Errorf("the admin forgets the fact: %v (%v), want true", done, err)
	}
}
