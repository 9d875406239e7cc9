package blocks_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/internal/pgserver/pgtest"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// token is a fresh secret value no test shares.
func token(t *testing.T) string {
	t.Helper()
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "xoxb-" + hex.EncodeToString(b)
}

// wantRefused fails unless err is a PostgreSQL error with code (and hint,
// when given).
func wantRefused(t *testing.T, what string, err error, code, hint string) {
	t.Helper()
	var pe *pgconn.PgError
	switch {
	case !errors.As(err, &pe):
		t.Errorf("%s: %v, want SQLSTATE %s", what, err, code)
	case pe.Code != code || hint != "" && pe.Hint != hint:
		t.Errorf("%s: %s %q (%s), want %s %q", what, pe.Code, pe.Hint, pe.Message, code, hint)
	}
}

// A secret set through the credentials block can be read back through it
// by the service role and by nobody else: not by anon or a signed-in user
// (no right on the functions or on schema vault), not by the service role
// reading Vault's tables, and not by a role that was granted the stand-in's
// tables (it sees the encrypted text only, and neither the key nor the
// decrypting view). Nothing readable is left in any table, nor in the
// server's log, even after a refused call that carried the secret (sent as
// a bind parameter, as a provider sends it).
func TestCredentialsSecretsStayUnreadable(t *testing.T) {
	s, db := pgtest.DB(t)
	conn := pgtest.Conn(t, s, db)
	ctx := context.Background()
	first, second := token(t), token(t)
	secrets := []string{first, second}

	exec := func(t *testing.T, sql string, args ...any) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	exec(t, `select set_config('request.jwt.claims', '{"role":"service_role"}', false); set role service_role`)
	for _, v := range secrets {
		if _, err := conn.Exec(ctx, "select better_supabase.credential_set('slack', 'T1', $1)", v); err != nil {
			t.Fatal(err)
		}
	}
	_, err := conn.Exec(ctx, "select better_supabase.credential_set('slack', 'bad name', $1)", first)
	wantRefused(t, "a set with a bad name", err, "P0001", "CREDENTIAL_NAME_INVALID")
	var got string
	if err := conn.QueryRow(ctx, "select better_supabase.credential_get('slack', 'T1')").Scan(&got); err != nil || got != second {
		t.Fatalf("the service role reads %q (%v), want the second secret", got, err)
	}
	if _, err := conn.Exec(ctx, "select better_supabase.credential_set('slack', 'T2', $1)", first); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "select better_supabase.credential_delete('slack', 'T2')"); err != nil {
		t.Fatal(err)
	}

	reads := []string{
		"select better_supabase.credential_get('slack', 'T1')",
		"select secret from vault.secrets",
		"select decrypted_secret from vault.decrypted_secrets",
		"select key::text from vault._standin_key",
	}
	for _, who := range []struct{ name, as string }{
		{"anon", `reset role; select set_config('request.jwt.claims', '{"role":"anon"}', false); set role anon`},
		{"authenticated", `reset role; select set_config('request.jwt.claims', '{"role":"authenticated","sub":"11111111-1111-4111-8111-111111111111"}', false); set role authenticated`},
	} {
		exec(t, who.as)
		for _, q := range reads {
			_, err := conn.Exec(ctx, q)
			wantRefused(t, who.name+": "+q, err, "42501", "")
		}
	}
	exec(t, `reset role; select set_config('request.jwt.claims', '{"role":"service_role"}', false); set role service_role`)
	for _, q := range reads[1:] {
		_, err := conn.Exec(ctx, q)
		wantRefused(t, "service_role: "+q, err, "42501", "")
	}

	// A role that is not a superuser, granted the stand-in's tables.
	reader := "vault_reader_" + strings.TrimPrefix(token(t), "xoxb-")
	exec(t, fmt.Sprintf(`reset role; reset request.jwt.claims; create role %[1]s nologin;
		grant usage on schema vault to %[1]s; grant select on vault.secrets, vault.decrypted_secrets to %[1]s`, reader))
	t.Cleanup(func() {
		_, _ = conn.Exec(context.Background(), fmt.Sprintf("reset role; drop owned by %[1]s; drop role %[1]s", reader))
	})
	exec(t, "set role "+reader)
	var rows string
	if err := conn.QueryRow(ctx, "select coalesce(string_agg(to_jsonb(s)::text, ','), '') from vault.secrets s").Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rows, "bs:cred:slack:T1") {
		t.Fatalf("the reader does not see the credential's row: %s", rows)
	}
	for _, v := range secrets {
		if strings.Contains(rows, v) {
			t.Errorf("a role granted vault.secrets reads a secret from it: %s", rows)
		}
	}
	for _, q := range []string{
		"select decrypted_secret from vault.decrypted_secrets",
		"select vault._standin_decrypt(s.secret, s.id) from vault.secrets s",
		"select key::text from vault._standin_key",
	} {
		_, err := conn.Exec(ctx, q)
		wantRefused(t, reader+": "+q, err, "42501", "")
	}

	// Every row of every table, as the superuser reads it.
	exec(t, "reset role")
	tables, err := conn.Query(ctx, `select pg_catalog.format('%I.%I', n.nspname, c.relname)
		from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
		where c.relkind in ('r', 'p') and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg_toast%'`)
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(tables, pgx.RowTo[string])
	if err != nil || len(names) < 10 {
		t.Fatalf("the tables: %v (%v)", names, err)
	}
	for _, table := range names {
		var all string
		if err := conn.QueryRow(ctx, "select coalesce(string_agg(to_jsonb(t)::text, ','), '') from "+table+" t").Scan(&all); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		for _, v := range secrets {
			if strings.Contains(all, v) {
				t.Errorf("%s holds a secret readably: %s", table, all)
			}
		}
	}

	t.Run("server log", func(t *testing.T) {
		if s.Strategy() != "local" {
			t.Skipf("the %s server's log is not readable here", s.Strategy())
		}
		var data string
		if err := conn.QueryRow(ctx, "select current_setting('data_directory')").Scan(&data); err != nil {
			t.Fatal(err)
		}
		// The local server logs to postgres.log beside its data folder.
		log, err := os.ReadFile(filepath.Join(filepath.Dir(data), "postgres.log"))
		if err != nil {
			t.Fatal(err)
		}
		// The refused call is there (so this is the log that was written
		// meanwhile), without the secret it carried.
		if !strings.Contains(string(log), "CREDENTIAL_NAME_INVALID") {
			t.Fatalf("the server log does not show the refused call:\n%s", log)
		}
		for _, v := range secrets {
			if strings.Contains(string(log), v) {
				t.Errorf("the server log holds a secret:\n%s", log)
			}
		}
	})
}

// The stand-in's Vault: secrets stored encrypted, read back through the
// decrypting view, replaced and renamed by update_secret (a null argument
// keeps the value), and bound to their row: encrypted text copied to
// another row, or changed, decrypts to nothing.
func TestVaultStandIn(t *testing.T) {
	s, db := pgtest.DB(t)
	conn := pgtest.Conn(t, s, db)
	ctx := context.Background()
	var a, b string
	if err := conn.QueryRow(ctx, "select vault.create_secret('one', 'a'), vault.create_secret('two', 'b', 'second')").Scan(&a, &b); err != nil {
		t.Fatal(err)
	}
	secrets := func() string {
		t.Helper()
		var out string
		if err := conn.QueryRow(ctx, `select string_agg(pg_catalog.format('%s=%s/%s', name, coalesce(decrypted_secret, '-'), description), ' ' order by name)
			from vault.decrypted_secrets`).Scan(&out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := secrets(); got != "a=one/ b=two/second" {
		t.Errorf("after create: %s", got)
	}
	var stored string
	if err := conn.QueryRow(ctx, "select string_agg(secret, ' ') from vault.secrets").Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stored, "one") || strings.Contains(stored, "two") {
		t.Errorf("vault.secrets holds a plaintext: %s", stored)
	}
	if _, err := conn.Exec(ctx, "select vault.update_secret($1, 'uno'), vault.update_secret($2, new_name => 'c', new_description => 'third')", a, b); err != nil {
		t.Fatal(err)
	}
	if got := secrets(); got != "a=uno/ c=two/third" {
		t.Errorf("after update: %s", got)
	}
	// Copied below the trigger (as a restore with triggers off would), the
	// text of one row does not decrypt in another.
	for _, q := range []string{
		"set session_replication_role = replica",
		"update vault.secrets set secret = (select secret from vault.secrets where id = '" + a + "') where id = '" + b + "'",
		"update vault.secrets set secret = 'x' || secret where id = '" + a + "'",
		"set session_replication_role = origin",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if got := secrets(); got != "a=-/ c=-/third" {
		t.Errorf("after moving and changing the encrypted text: %s", got)
	}
	// A name is unique; many secrets may have none.
	_, err := conn.Exec(ctx, "select vault.create_secret('again', 'a')")
	wantRefused(t, "a second secret named a", err, "23505", "")
	if _, err := conn.Exec(ctx, "select vault.create_secret('n1'), vault.create_secret('n2')"); err != nil {
		t.Errorf("nameless secrets: %v", err)
	}
}

// Where the database has a Vault of its own (Supabase), the vault module
// changes nothing and is not recorded, by Install and by the printed SQL
// alike, and the credentials block keeps its secrets in that Vault.
func TestVaultModuleKeepsTheDatabasesOwn(t *testing.T) {
	own := `
		create schema vault;
		create table vault.secrets (id uuid primary key default gen_random_uuid(), name text unique,
			description text not null default '', secret text not null, key_id uuid, nonce bytea,
			created_at timestamptz not null default now(), updated_at timestamptz not null default now());
		create view vault.decrypted_secrets as select *, 'theirs:' || secret as decrypted_secret from vault.secrets;
		create function vault.create_secret(new_secret text, new_name text default null, new_description text default '', new_key_id uuid default null)
		returns uuid language sql as $$ insert into vault.secrets (secret, name, description) values (new_secret, new_name, new_description) returning id $$;
		create function vault.update_secret(secret_id uuid, new_secret text default null, new_name text default null, new_description text default null, new_key_id uuid default null)
		returns void language sql as $$ update vault.secrets set secret = coalesce(new_secret, secret) where id = secret_id $$;`
	check := func(t *testing.T, conn *pgx.Conn) {
		t.Helper()
		ctx := context.Background()
		var read string
		var key, recorded, credentials bool
		if _, err := conn.Exec(ctx, "select better_supabase.credential_set('slack', 'T1', 'tok')"); err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRow(ctx, `select better_supabase.credential_get('slack', 'T1'),
			to_regclass('vault._standin_key') is not null,
			exists (select from better_supabase.modules where name = 'vault'),
			exists (select from better_supabase.modules where name = 'credentials')`).Scan(&read, &key, &recorded, &credentials); err != nil {
			t.Fatal(err)
		}
		if read != "theirs:tok" || key || recorded || !credentials {
			t.Errorf("read through their Vault %q, the stand-in's key made %v, vault recorded %v, credentials installed %v; want \"theirs:tok\", false, false, true",
				read, key, recorded, credentials)
		}
	}
	t.Run("install", func(t *testing.T) {
		s, db := pgtest.EmptyDB(t)
		conn := pgtest.Conn(t, s, db)
		ctx := context.Background()
		if _, err := conn.Exec(ctx, own); err != nil {
			t.Fatal(err)
		}
		rep, err := blocks.Install(ctx, conn, "credentials")
		if err != nil {
			t.Fatal(err)
		}
		if got := actions(rep); got[blocks.VaultModule] != blocks.Skipped || got["credentials"] != blocks.Installed {
			t.Errorf("actions %v, want vault skipped and credentials installed", got)
		}
		check(t, conn)
	})
	t.Run("printed SQL", func(t *testing.T) {
		s, db := pgtest.EmptyDB(t)
		conn := pgtest.Conn(t, s, db)
		ctx := context.Background()
		sql, err := blocks.SQL("credentials")
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{own, sql} {
			if _, err := conn.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		check(t, conn)
	})
}

// The stand-in uses pgcrypto where the database has it already, and adds
// no schema of its own for it then.
func TestVaultStandInUsesTheDatabasesPgcrypto(t *testing.T) {
	s, db := pgtest.EmptyDB(t)
	conn := pgtest.Conn(t, s, db)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "create extension pgcrypto with schema public"); err != nil {
		t.Fatal(err)
	}
	if _, err := blocks.Install(ctx, conn, "credentials"); err != nil {
		t.Fatal(err)
	}
	var stored, extensions bool
	if _, err := conn.Exec(ctx, "select better_supabase.credential_set('slack', 'T1', 'tok')"); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, `select better_supabase.credential_get('slack', 'T1') = 'tok', to_regnamespace('extensions') is not null`).Scan(&stored, &extensions); err != nil {
		t.Fatal(err)
	}
	if !stored || extensions {
		t.Errorf("set and read back: %v, schema extensions made: %v; want true, false", stored, extensions)
	}
}
