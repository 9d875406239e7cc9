package blocks_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/internal/pgserver/pgtest"
	"github.com/bsadapter/bsadapter/internal/testenv"
	"github.com/jackc/pgx/v5"
)

// The ai-cache module's functions and their signatures, as better-supabase's
// module declares them (its AI SDK cache middleware calls them by these
// argument names); the api schema has the same four.
var aiCacheSignatures = map[string]struct{ args, result string }{
	"ai_cache_get":    {"key text", "jsonb"},
	"ai_cache_set":    {"key text, value jsonb, ttl integer, tenant uuid = null, kind text = 'generate', model text = null", "jsonb"},
	"ai_cache_delete": {"key text = null, tenant uuid = null, model text = null", "integer"},
	"purge_ai_cache":  {"batch integer = 5000", "integer"},
}

// aiCacheCalls calls each function once, the better_supabase ones and the
// api ones, with arguments of the right types.
var aiCacheCalls = []string{
	"select better_supabase.ai_cache_set('k', '1', 60)",
	"select better_supabase.ai_cache_get('k')",
	"select better_supabase.ai_cache_delete('k')",
	"select better_supabase.purge_ai_cache()",
	"select api.ai_cache_set('k', '1', 60)",
	"select api.ai_cache_get('k')",
	"select api.ai_cache_delete('k')",
	"select api.purge_ai_cache()",
}

func init() {
	for name, sig := range aiCacheSignatures {
		name = "better_supabase." + name
		if _, dup := wantSignatures[name]; dup {
			panic("signature listed twice: " + name)
		}
		wantSignatures[name] = sig
	}
	// Nothing for anon or authenticated in mayExecute: the whole module is
	// the service role's, as upstream grants it.
}

// Entries hold prompts and outputs: neither anon nor a signed-in user may
// call a function or touch the table, in either schema; the service role
// may, also with a user's claims.
func TestAICacheIsTheServiceRolesOnly(t *testing.T) {
	s, db := pgtest.DB(t)
	conn := pgtest.Conn(t, s, db)
	ctx := context.Background()
	reads := []string{
		"select count(*) from better_supabase.ai_cache_entries",
		"delete from better_supabase.ai_cache_entries",
		"insert into better_supabase.ai_cache_entries (key, value, expires_at) values ('x', '1', now())",
	}
	for _, who := range []struct{ role, sub string }{{"anon", ""}, {"authenticated", alice}} {
		for _, call := range append(slices.Clone(aiCacheCalls), reads...) {
			asRole(t, conn, who.role, who.sub, func(tx pgx.Tx) {
				_, err := tx.Exec(ctx, "savepoint s; "+call)
				if code := pgCode(err); code != "42501" {
					t.Errorf("as %s, %s: error %v, want permission denied (42501)", who.role, call, err)
				}
				tx.Exec(ctx, "rollback to savepoint s")
			})
		}
	}
	asRole(t, conn, "service_role", alice, func(tx pgx.Tx) {
		for _, call := range append(slices.Clone(aiCacheCalls), reads...) {
			if _, err := tx.Exec(ctx, call); err != nil {
				t.Errorf("as service_role, %s: %v", call, err)
			}
		}
	})
	// The api functions are the same calls, as the caller, with no path
	// of their own.
	rows, err := conn.Query(ctx, `
		select p.proname, pg_get_function_arguments(p.oid), pg_get_function_result(p.oid), p.prosecdef,
		       coalesce(array_to_string(p.proconfig, ','), ''),
		       has_function_privilege('anon', p.oid, 'EXECUTE'), has_function_privilege('authenticated', p.oid, 'EXECUTE'),
		       has_function_privilege('service_role', p.oid, 'EXECUTE')
		from pg_proc p join pg_namespace n on n.oid = p.pronamespace
		where n.nspname = 'api' and p.proname like '%ai\_cache%'`)
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for rows.Next() {
		var name, args, result, config string
		var definer, anon, authenticated, service bool
		if err := rows.Scan(&name, &args, &result, &definer, &config, &anon, &authenticated, &service); err != nil {
			t.Fatal(err)
		}
		found++
		want, ok := aiCacheSignatures[name]
		switch {
		case !ok:
			t.Errorf("api.%s(%s) is not in the contract", name, args)
		case contractNotation(args) != want.args || result != want.result:
			t.Errorf("api.%s(%s) returns %s, want (%s) returning %s", name, contractNotation(args), result, want.args, want.result)
		}
		if definer || !strings.HasPrefix(config, `search_path=""`) {
			t.Errorf("api.%s: security definer %v, settings %q; want an invoker with search_path = ''", name, definer, config)
		}
		if anon || authenticated || !service {
			t.Errorf("api.%s: anon %v, authenticated %v, service_role %v may execute; want the service role alone", name, anon, authenticated, service)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if found != len(aiCacheSignatures) {
		t.Errorf("schema api has %d ai-cache functions, want %d", found, len(aiCacheSignatures))
	}
}

// What the probes leave open, as the contract has it.
func TestAICacheSemantics(t *testing.T) {
	s, db := pgtest.DB(t)
	c := pgtest.Conn(t, s, db)
	// No ttl, and a key one character too long.
	fails(t, c, "22023", "AI_CACHE_INVALID", "select better_supabase.ai_cache_set('k', '1', null)")
	fails(t, c, "23514", "", "select better_supabase.ai_cache_set(repeat('k', 257), '1', 60)")
	wantJSON(t, q(t, c, "select better_supabase.ai_cache_set('k', '1', 60, kind => null) ->> 'kind'"), `"generate"`, "kind null")
	wantJSON(t, q(t, c, "select length(better_supabase.ai_cache_set('k', '1', 60, model => repeat('m', 200)) ->> 'model')"), `200`, "a 200-character model")

	// Setting a key again starts its life afresh: no hits, a new creation
	// time, no last hit.
	q(t, c, "select better_supabase.ai_cache_set('k', '{\"a\":1}', 3600, model => 'm1')")
	q(t, c, "select better_supabase.ai_cache_get('k')")
	aiCacheExec(t, c, "update better_supabase.ai_cache_entries set created_at = created_at - interval '1 hour' where key = 'k'")
	wantJSON(t, q(t, c, "select better_supabase.ai_cache_get('k') -> 'hits'"), `2`, "second hit")
	again := q(t, c, `select jsonb_build_object('hits', e -> 'hits', 'last_hit_at', e -> 'last_hit_at', 'model', e -> 'model',
		'fresh', (e ->> 'created_at')::timestamptz > now() - interval '1 minute')
		from better_supabase.ai_cache_set('k', '{"a":2}', 3600) e`)
	wantJSON(t, again, `{"hits":0,"last_hit_at":null,"model":null,"fresh":true}`, "set again")
	wantJSON(t, q(t, c, "select better_supabase.ai_cache_get('k') -> 'value'"), `{"a":2}`, "the new value")

	// An expired entry counts no hit and keeps its last one.
	q(t, c, "select better_supabase.ai_cache_set('old', '1', 3600)")
	aiCacheExec(t, c, "update better_supabase.ai_cache_entries set expires_at = now() - interval '1 second' where key = 'old'")
	wantJSON(t, q(t, c, "select better_supabase.ai_cache_get('old')"), `null`, "expired")
	wantJSON(t, q(t, c, "select jsonb_build_object('hits', hits, 'last', last_hit_at) from better_supabase.ai_cache_entries where key = 'old'"),
		`{"hits":0,"last":null}`, "expired entry after a read")

	// Criteria combine: a key and a model delete only when both match.
	q(t, c, "select better_supabase.ai_cache_set('x', '1', 3600, model => 'm1', tenant => 'a0000000-0000-4000-8000-00000000000a')")
	wantJSON(t, q(t, c, "select better_supabase.ai_cache_delete('x', model => 'm2')"), `0`, "key with another model")
	wantJSON(t, q(t, c, "select better_supabase.ai_cache_delete(tenant => 'a0000000-0000-4000-8000-00000000000a', model => 'm2')"), `0`, "tenant with another model")
	wantJSON(t, q(t, c, "select better_supabase.ai_cache_delete('x', 'a0000000-0000-4000-8000-00000000000a', 'm1')"), `1`, "all three matching")

	// Purge: the batch default takes every expired entry there is here; a
	// batch under one is one; live entries stay.
	q(t, c, "select count(better_supabase.ai_cache_set('e' || i, '1', 3600)) from generate_series(1, 5) i")
	aiCacheExec(t, c, "update better_supabase.ai_cache_entries set expires_at = now() - make_interval(secs => substr(key, 2)::int) where key ~ '^e[0-9]$'")
	wantJSON(t, q(t, c, "select better_supabase.purge_ai_cache(0)"), `1`, "batch 0")
	wantJSON(t, q(t, c, "select better_supabase.purge_ai_cache(-3)"), `1`, "negative batch")
	wantJSON(t, q(t, c, "select coalesce(jsonb_agg(key order by key), '[]') from better_supabase.ai_cache_entries where key ~ '^e'"), `["e1","e2","e3"]`,
		"what is left: the two that expired first are gone")
	wantJSON(t, q(t, c, "select better_supabase.purge_ai_cache()"), `4`, "the rest, with the old entry")
	wantJSON(t, q(t, c, "select count(*) from better_supabase.ai_cache_entries where key = 'k'"), `1`, "the live entry")
}

// ai-cache installs on its own, needing nothing but the Supabase pieces,
// and a module installed after it leaves its grants alone (ai-chat's
// grants once revoked every better_supabase function named ai_*).
func TestAICacheInstallsAloneAndKeepsItsGrants(t *testing.T) {
	s, db := pgtest.EmptyDB(t)
	conn := pgtest.Conn(t, s, db)
	ctx := context.Background()
	start := time.Now()
	rep, err := blocks.Install(ctx, conn, "ai-cache")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("supabase-base and ai-cache installed into a fresh database in %v", time.Since(start).Round(time.Millisecond))
	if got, want := actions(rep), map[string]string{"supabase-base": blocks.Installed, "ai-cache": blocks.Installed}; !mapsEqual(got, want) {
		t.Fatalf("install ai-cache: %v, want %v", got, want)
	}
	if _, err := blocks.Install(ctx, conn, "ai-chat"); err != nil {
		t.Fatal(err)
	}
	asRole(t, conn, "service_role", "", func(tx pgx.Tx) {
		for _, call := range aiCacheCalls {
			if _, err := tx.Exec(ctx, call); err != nil {
				t.Errorf("as service_role after ai-chat was installed, %s: %v", call, err)
			}
		}
	})
}

// docs/blocks.md's row for the module names its version, what it needs
// and exactly the functions it defines.
func TestAICacheModuleAsTheDocsSayIt(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "docs", "blocks.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `ai-cache` \\| ([^|]+) \\| ([^|]+) \\| (.+) \\|$").FindSubmatch(doc)
	if row == nil {
		t.Fatal("docs/blocks.md has no row for ai-cache in its table of modules")
	}
	mods, err := blocks.Resolve("ai-cache")
	if err != nil {
		t.Fatal(err)
	}
	m := mods[len(mods)-1]
	if got := strings.TrimSpace(string(row[1])); got != m.Version {
		t.Errorf("docs give version %s, the module's header %s", got, m.Version)
	}
	if got := strings.TrimSpace(string(row[2])); got != strings.Join(m.Requires, ", ") {
		t.Errorf("docs say it requires %q, the module's header %q", got, strings.Join(m.Requires, ", "))
	}
	var named []string
	for _, f := range regexp.MustCompile("`((?:api\\.)?[a-z_]+)\\(").FindAllSubmatch(row[3], -1) {
		name := string(f[1])
		if !strings.Contains(name, ".") {
			name = "better_supabase." + name
		}
		named = append(named, name)
	}
	if !slices.Equal(named, m.Functions) {
		t.Errorf("docs name the functions\n%v\nthe module defines\n%v", named, m.Functions)
	}
	if !strings.Contains(string(doc), "| the ai-cache functions, also in schema `api` (invoker) | no | no | yes |") {
		t.Error("docs/blocks.md's table of rights has no row for the ai-cache functions")
	}
}

func aiCacheExec(t *testing.T, conn *pgx.Conn, sql string) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}
