package blocks_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/bsadapter/bsadapter/internal/pgserver/pgtest"
	"github.com/jackc/pgx/v5"
)

// Fixed ids of the owner-less tests: a tenant and three users.
const (
	olTenant   = "a0000000-0000-4000-8000-00000000000a"
	olStranger = "22222222-2222-4222-8222-222222222222" // no permission anywhere
	olMember   = "44444444-4444-4444-8444-444444444444" // ai.read and ai.create, not ai.admin
	olAdmin    = "33333333-3333-4333-8333-333333333333" // ai.admin
)

// asIdentity switches conn to the service role ("service") or to a
// signed-in user.
func asIdentity(t *testing.T, conn *pgx.Conn, who string) {
	t.Helper()
	claims := `{"role":"service_role"}`
	role := "service_role"
	if who != "service" {
		claims, role = fmt.Sprintf(`{"role":"authenticated","sub":%q}`, who), "authenticated"
	}
	if _, err := conn.Exec(context.Background(), "reset role"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(context.Background(), "select set_config('request.jwt.claims', $1, false)", claims); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(context.Background(), "set role "+role); err != nil {
		t.Fatal(err)
	}
}

// ownerlessSetup adds the users and their permissions.
func ownerlessSetup(t *testing.T, conn *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	for _, sql := range []string{"reset role", "reset request.jwt.claims"} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	for _, u := range []string{olStranger, olMember, olAdmin} {
		if _, err := conn.Exec(ctx, "insert into auth.users (id) values ($1)", u); err != nil {
			t.Fatal(err)
		}
	}
	for _, g := range [][2]string{{olMember, "ai.read"}, {olMember, "ai.create"}, {olAdmin, "ai.admin"}} {
		if _, err := conn.Exec(ctx, "insert into better_supabase.tenant_permissions (tenant_id, user_id, permission) values ($1, $2, $3)",
			olTenant, g[0], g[1]); err != nil {
			t.Fatal(err)
		}
	}
}

// Organization knowledge the server added has no owner. Upstream lets any
// signed-in user rewrite or delete it (its refusal is null, hence skipped,
// for a null owner); the block does not: neither a stranger nor a member
// who may read and create knowledge but not administer it can change it,
// while a member holding ai.admin can.
func TestKnowledgeOwnerlessDocumentStaysTheAdmins(t *testing.T) {
	// It checks the knowledge and memory modules too, which need pgvector.
	needVector(t)
	s, db := pgtest.DB(t)
	conn := pgtest.Conn(t, s, db)
	ctx := context.Background()
	ownerlessSetup(t, conn)

	asIdentity(t, conn, "service")
	var doc string
	if err := conn.QueryRow(ctx, `select better_supabase.create_knowledge_document($1, 'Handbook', scope => 'organization') ->> 'id'`, olTenant).Scan(&doc); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `select better_supabase.write_knowledge_chunks($1, '[{"content":"the real handbook"}]')`, doc); err != nil {
		t.Fatal(err)
	}
	var owner *string
	if err := conn.QueryRow(ctx, `select owner_id::text from better_supabase.knowledge_documents where id = $1`, doc).Scan(&owner); err != nil || owner != nil {
		t.Fatalf("the document's owner is %v (%v), want none", owner, err)
	}

	for _, who := range []string{olStranger, olMember} {
		asIdentity(t, conn, who)
		_, err := conn.Exec(ctx, `select better_supabase.write_knowledge_chunks($1, '[{"content":"defaced"}]')`, doc)
		wantRefused(t, who+" rewrites the owner-less document", err, "P0002", "KNOWLEDGE_NOT_FOUND")
		var deleted bool
		if err := conn.QueryRow(ctx, `select better_supabase.delete_knowledge_document($1)`, doc).Scan(&deleted); err != nil || deleted {
			t.Errorf("%s deletes the owner-less document: %v (%v), want false", who, deleted, err)
		}
	}
	asIdentity(t, conn, "service")
	var content string
	var n int
	if err := conn.QueryRow(ctx, `select string_agg(content, ','), count(*) from better_supabase.knowledge_chunks where document_id = $1`, doc).Scan(&content, &n); err != nil {
		t.Fatal(err)
	}
	if n != 1 || content != "the real handbook" {
		t.Errorf("after the refused calls the document holds %d chunks %q, want the one it had", n, content)
	}

	// The tenant's admin may change it: the refusal is about who, not a
	// document nobody can touch.
	asIdentity(t, conn, olAdmin)
	var chunks string
	if err := conn.QueryRow(ctx, `select better_supabase.write_knowledge_chunks($1, '[{"content":"new edition"}]') ->> 'chunk_count'`, doc).Scan(&chunks); err != nil || chunks != "1" {
		t.Errorf("the admin rewrites the document: %q (%v), want chunk_count 1", chunks, err)
	}
	var deleted bool
	if err := conn.QueryRow(ctx, `select better_supabase.delete_knowledge_document($1)`, doc).Scan(&deleted); err != nil || !deleted {
		t.Errorf("the admin deletes the document: %v (%v), want true", deleted, err)
	}
}
