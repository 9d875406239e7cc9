package pgstore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/conformtest"
	"github.com/bsadapter/bsadapter/internal/conform/pgstore"
	"github.com/bsadapter/bsadapter/internal/conform/suites"
	"github.com/bsadapter/bsadapter/internal/pgserver"
	"github.com/bsadapter/bsadapter/internal/pgserver/pgtest"
	"github.com/jackc/pgx/v5"
)

// With --dsn, users often connect as a role that is not a superuser (on
// Supabase, postgres is not one): the suites still pass, the blocks
// installed and driven by that role alone.
func TestPGStoreAsNonSuperuser(t *testing.T) {
	srv := pgtest.Server(t)
	admin, err := srv.Connect(t.Context(), "postgres")
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	// Like Supabase's postgres role: no superuser, but CREATEDB and a
	// member of the three API roles (which the cluster already has).
	const role = "conform_plain"
	if _, err := admin.Exec(t.Context(), fmt.Sprintf(`drop role if exists %[1]s; create role %[1]s login createdb nosuperuser;
		grant anon, authenticated, service_role to %[1]s`, role)); err != nil {
		t.Fatal(err)
	}
	cfg, err := pgx.ParseConfig(srv.ConnString("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	dsn := fmt.Sprintf("host=%s port=%d user=%s dbname=postgres sslmode=disable", cfg.Host, cfg.Port, role)
	plain, err := pgserver.Start(t.Context(), pgserver.Options{Strategy: "dsn", DSN: dsn})
	if err != nil {
		t.Fatalf("connect as %s: %v", role, err)
	}
	st, err := pgstore.New(t.Context(), plain)
	if err != nil {
		plain.Close()
		t.Fatalf("prepare the pg store as %s: %v", role, err)
	}
	cases, err := conform.Select(suites.Cases(), conform.Options{Suites: pgSuites})
	if err != nil {
		t.Fatal(err)
	}
	rep := conform.Run(t.Context(), st, cases, conform.Options{Parallel: 4})
	if err := st.Close(); err != nil {
		t.Error(err)
	}
	if err := plain.Close(); err != nil {
		t.Error(err)
	}
	if f := conformtest.Failures(rep); f != "" {
		t.Errorf("as a plain role, %d of %d passed:\n%s", rep.Count(conform.Pass), len(rep.Results), f)
	}
	// pgvector is not a trusted extension: a plain role cannot create it,
	// so the modules that need it (knowledge, memory) are left out, and
	// their cases are skipped with the reason and the way to get it, never
	// failed and never passed. Every other case passes.
	offered := pgtest.HasVector(t)
	leftOut := 0
	for _, r := range rep.Results {
		if r.Outcome == conform.Pass {
			continue
		}
		vectorSuite := r.Suite == "knowledge" || r.Suite == "memory"
		want, fix := "the server lacks extension vector", "use a server with pgvector"
		if offered {
			want, fix = "role "+role+" may not create it", "create extension vector schema extensions"
		}
		if r.Outcome != conform.Skipped || !vectorSuite || !strings.Contains(r.Reason, want) || !strings.Contains(r.Reason, fix) {
			t.Errorf("as a plain role, %s: %s (%s), want a pass, or for a case of knowledge or memory a skip saying %q and how to create the extension", r.ID, r.Outcome, r.Reason, want)
			continue
		}
		leftOut++
	}
	if leftOut == 0 {
		t.Errorf("as a plain role, no case of knowledge or memory was left out, though the role may not create extension vector")
	}
	// Whatever the role's run created must be gone before the role goes.
	if _, err := admin.Exec(t.Context(), fmt.Sprintf("drop owned by %[1]s; drop role %[1]s", role)); err != nil {
		t.Errorf("drop the role: %v", err)
	}
}
