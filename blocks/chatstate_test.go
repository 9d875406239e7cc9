package blocks_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/internal/pgserver/pgtest"
	"github.com/bsadapter/bsadapter/internal/testenv"
	"github.com/jackc/pgx/v5"
)

// The chat-sdk-state module's functions, in the order its SQL defines
// them, and their signatures as better-supabase's module declares them
// (the Chat SDK adapter calls them by these argument names).
var chatStateFunctions = []string{
	"chat_state_subscribe", "chat_state_unsubscribe", "chat_state_is_subscribed",
	"chat_state_acquire_lock", "chat_state_extend_lock", "chat_state_release_lock", "chat_state_force_release_lock",
	"chat_state_get", "chat_state_set", "chat_state_set_if_not_exists", "chat_state_delete",
	"chat_state_append_to_list", "chat_state_get_list",
	"chat_state_enqueue", "chat_state_dequeue", "chat_state_queue_depth",
	"purge_chat_state",
	"chat_install", "chat_installation", "list_chat_installations", "chat_uninstall",
}

// chatStateCalls calls each of the module's functions once, with
// arguments of the right types.
var chatStateCalls = []string{
	"select better_supabase.chat_state_subscribe('p', 't')",
	"select better_supabase.chat_state_unsubscribe('p', 't')",
	"select better_supabase.chat_state_is_subscribed('p', 't')",
	"select better_supabase.chat_state_acquire_lock('p', 't', 'tok', 1000)",
	"select better_supabase.chat_state_extend_lock('p', 't', 'tok', 1000)",
	"select better_supabase.chat_state_release_lock('p', 't', 'tok')",
	"select better_supabase.chat_state_force_release_lock('p', 't')",
	"select better_supabase.chat_state_get('p', 'k')",
	"select better_supabase.chat_state_set('p', 'k', '1')",
	"select better_supabase.chat_state_set_if_not_exists('p', 'k', '1')",
	"select better_supabase.chat_state_delete('p', 'k')",
	"select better_supabase.chat_state_append_to_list('p', 'l', '1')",
	"select better_supabase.chat_state_get_list('p', 'l')",
	"select better_supabase.chat_state_enqueue('p', 't', '{}', now() + interval '1 minute')",
	"select better_supabase.chat_state_dequeue('p', 't')",
	"select better_supabase.chat_state_queue_depth('p', 't')",
	"select better_supabase.purge_chat_state()",
	"select better_supabase.chat_install('slack', 'T1')",
	"select better_supabase.chat_installation('slack', 'T1')",
	"select better_supabase.list_chat_installations()",
	"select better_supabase.chat_uninstall('slack', 'T1')",
}

var chatStateTables = []string{"chat_state_subscriptions", "chat_state_locks", "chat_state_cache", "chat_state_lists", "chat_state_queues", "chat_installations"}

func init() {
	for name, sig := range map[string]struct{ args, result string }{
		"chat_state_subscribe":          {"prefix text, thread_id text", "void"},
		"chat_state_unsubscribe":        {"prefix text, thread_id text", "void"},
		"chat_state_is_subscribed":      {"prefix text, thread_id text", "boolean"},
		"chat_state_acquire_lock":       {"prefix text, thread_id text, token text, ttl_ms integer", "jsonb"},
		"chat_state_extend_lock":        {"prefix text, thread_id text, token text, ttl_ms integer", "boolean"},
		"chat_state_release_lock":       {"prefix text, thread_id text, token text", "boolean"},
		"chat_state_force_release_lock": {"prefix text, thread_id text", "boolean"},
		"chat_state_get":                {"prefix text, key text", "jsonb"},
		"chat_state_set":                {"prefix text, key text, value jsonb, ttl_ms integer = null", "void"},
		"chat_state_set_if_not_exists":  {"prefix text, key text, value jsonb, ttl_ms integer = null", "boolean"},
		"chat_state_delete":             {"prefix text, key text", "void"},
		"chat_state_append_to_list":     {"prefix text, key text, value jsonb, max_length integer = null, ttl_ms integer = null", "void"},
		"chat_state_get_list":           {"prefix text, key text", "jsonb"},
		"chat_state_enqueue":            {"prefix text, thread_id text, entry jsonb, expires_at timestamp with time zone, max_size integer = null", "integer"},
		"chat_state_dequeue":            {"prefix text, thread_id text", "jsonb"},
		"chat_state_queue_depth":        {"prefix text, thread_id text", "integer"},
		"purge_chat_state":              {"batch integer = 5000", "integer"},
		"chat_install":                  {"adapter text, external_id text, tenant uuid = null, credential_ref jsonb = null, installed_by uuid = null, metadata jsonb = '{}'", "jsonb"},
		"chat_installation":             {"adapter text, external_id text", "jsonb"},
		"list_chat_installations":       {"tenant uuid = null, adapter text = null, include_uninstalled boolean = false", "jsonb"},
		"chat_uninstall":                {"adapter text, external_id text", "jsonb"},
	} {
		name = "better_supabase." + name
		if _, dup := wantSignatures[name]; dup {
			panic("signature listed twice: " + name)
		}
		wantSignatures[name] = sig
	}
	// Nothing for anon or authenticated in mayExecute: the whole module is
	// the service role's, as upstream grants it.
}

func TestChatStateModuleIsTheServiceRolesOnly(t *testing.T) {
	s, db := pgtest.DB(t)
	conn := pgtest.Conn(t, s, db)
	ctx := context.Background()
	if len(chatStateCalls) != len(chatStateFunctions) {
		t.Fatalf("%d calls for %d functions", len(chatStateCalls), len(chatStateFunctions))
	}
	for i, call := range chatStateCalls {
		if !strings.Contains(call, "better_supabase."+chatStateFunctions[i]+"(") {
			t.Fatalf("call %d (%s) does not call %s", i, call, chatStateFunctions[i])
		}
	}
	var reads []string
	for _, tbl := range chatStateTables {
		reads = append(reads, "select count(*) from better_supabase."+tbl, "delete from better_supabase."+tbl)
	}
	for _, who := range []struct{ role, sub string }{{"anon", ""}, {"authenticated", alice}} {
		for _, call := range append(slices.Clone(chatStateCalls), reads...) {
			asRole(t, conn, who.role, who.sub, func(tx pgx.Tx) {
				_, err := tx.Exec(ctx, "savepoint s; "+call)
				if code := pgCode(err); code != "42501" {
					t.Errorf("as %s, %s: error %v, want permission denied (42501)", who.role, call, err)
				}
				tx.Exec(ctx, "rollback to savepoint s")
			})
		}
	}
	// The service role reaches every function and table, also when it
	// comes with a user's sub in its claims.
	asRole(t, conn, "service_role", alice, func(tx pgx.Tx) {
		for _, call := range append(slices.Clone(chatStateCalls), reads...) {
			if _, err := tx.Exec(ctx, call); err != nil {
				t.Errorf("as service_role, %s: %v", call, err)
			}
		}
	})
}

// age moves every timestamp of the prefix's chat-state rows back by the
// interval, as the store's time moving forward would, as the installer.
func age(t *testing.T, conn *pgx.Conn, prefix, by string) {
	t.Helper()
	ctx := context.Background()
	for _, stmt := range []string{
		"update better_supabase.chat_state_locks set expires_at = expires_at - $2::interval where key_prefix = $1",
		"update better_supabase.chat_state_cache set expires_at = expires_at - $2::interval where key_prefix = $1",
		"update better_supabase.chat_state_lists set expires_at = expires_at - $2::interval where key_prefix = $1",
		"update better_supabase.chat_state_queues set expires_at = expires_at - $2::interval where key_prefix = $1",
	} {
		if _, err := conn.Exec(ctx, "reset role; "+strings.Replace(strings.Replace(stmt, "$1", quote(prefix), 1), "$2", quote(by), 1)+"; set role service_role"); err != nil {
			t.Fatal(err)
		}
	}
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func TestChatStateSemantics(t *testing.T) {
	s, db := pgtest.DB(t)
	conn := pgtest.Conn(t, s, db)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, `insert into auth.users (id) values ('`+alice+`');
		select set_config('request.jwt.claims', '{"role":"service_role"}', false); set role service_role`); err != nil {
		t.Fatal(err)
	}
	qb := func(sql string) any { t.Helper(); return q(t, conn, sql) }

	t.Run("subscriptions", func(t *testing.T) {
		qb("select better_supabase.chat_state_subscribe('a', 't')")
		qb("select better_supabase.chat_state_subscribe('a', 't')")
		wantJSON(t, qb("select array[better_supabase.chat_state_is_subscribed('a', 't'), better_supabase.chat_state_is_subscribed('b', 't')]"), `[true, false]`, "subscribed under a and under b")
		qb("select better_supabase.chat_state_unsubscribe('a', 't')")
		qb("select better_supabase.chat_state_unsubscribe('a', 't')")
		wantJSON(t, qb("select better_supabase.chat_state_is_subscribed('a', 't')"), `false`, "subscribed after unsubscribe")
	})

	t.Run("locks", func(t *testing.T) {
		wantJSON(t, qb("select better_supabase.chat_state_acquire_lock('a', 't', 'one', 60000) - 'expires_at'"), `{"thread_id": "t", "token": "one"}`, "first acquire")
		// (In a subquery: BETWEEN evaluates its operand twice.)
		wantJSON(t, qb(`select e between 59 and 60 from (select extract(epoch from ((better_supabase.chat_state_acquire_lock('a', 'u', 'x', 60000)->>'expires_at')::timestamptz - clock_timestamp())) e) s`), `true`, "a lock's expiry is its TTL from now")
		wantJSON(t, qb("select better_supabase.chat_state_acquire_lock('a', 't', 'two', 60000)"), `null`, "acquire of a held lock")
		wantJSON(t, qb("select better_supabase.chat_state_acquire_lock('b', 't', 'two', 60000) is not null"), `true`, "the same thread under another prefix")
		wantJSON(t, qb("select array[better_supabase.chat_state_release_lock('a', 't', 'two'), better_supabase.chat_state_extend_lock('a', 't', 'two', 1000)]"), `[false, false]`, "release and extend with a wrong token")
		wantJSON(t, qb("select better_supabase.chat_state_extend_lock('a', 't', 'one', 60000)"), `true`, "extend by the holder")
		wantJSON(t, qb("select array[better_supabase.chat_state_release_lock('a', 't', 'one'), better_supabase.chat_state_release_lock('a', 't', 'one')]"), `[true, false]`, "release, twice")
		qb("select better_supabase.chat_state_acquire_lock('a', 't', 'three', 60000)")
		wantJSON(t, qb("select array[better_supabase.chat_state_force_release_lock('a', 't'), better_supabase.chat_state_force_release_lock('a', 't')]"), `[true, false]`, "force release, twice")
		qb("select better_supabase.chat_state_acquire_lock('a', 'e', 'old', 1000)")
		age(t, conn, "a", "2 seconds")
		wantJSON(t, qb("select better_supabase.chat_state_extend_lock('a', 'e', 'old', 60000)"), `false`, "extend of an expired lock")
		wantJSON(t, qb("select better_supabase.chat_state_acquire_lock('a', 'e', 'new', 60000)->>'token'"), `"new"`, "acquire of an expired lock")
		// A TTL of zero is a millisecond: the lock is taken, then expires.
		wantJSON(t, qb("select better_supabase.chat_state_acquire_lock('a', 'z', 'z', 0) is not null"), `true`, "acquire with TTL 0")
		qb("select pg_sleep(0.01)")
		wantJSON(t, qb("select better_supabase.chat_state_acquire_lock('a', 'z', 'y', 60000)->>'token'"), `"y"`, "acquire after a TTL of 0")
	})

	t.Run("cache", func(t *testing.T) {
		wantJSON(t, qb("select better_supabase.chat_state_get('c', 'k')"), `null`, "get of a missing key")
		qb(`select better_supabase.chat_state_set('c', 'k', '{"v": null}')`)
		wantJSON(t, qb("select better_supabase.chat_state_get('c', 'k')"), `{"value": {"v": null}}`, "get of a stored null")
		qb(`select better_supabase.chat_state_set('c', 'n', 'null')`)
		wantJSON(t, qb("select better_supabase.chat_state_get('c', 'n')"), `{"value": null}`, "get of a bare JSON null")
		wantJSON(t, qb("select better_supabase.chat_state_set_if_not_exists('c', 'n', '1')"), `false`, "set-if-not-exists on a stored null")
		wantJSON(t, qb(`select array[better_supabase.chat_state_set_if_not_exists('c', 's', '"a"'), better_supabase.chat_state_set_if_not_exists('c', 's', '"b"')]`), `[true, false]`, "set-if-not-exists twice")
		wantJSON(t, qb("select better_supabase.chat_state_get('c', 's')"), `{"value": "a"}`, "the first value stays")
		qb(`select better_supabase.chat_state_set('c', 't', '1', 1000)`)
		qb(`select better_supabase.chat_state_set('c', 'forever', '2', -1)`)
		qb(`select better_supabase.chat_state_set_if_not_exists('c', 'once', '"old"', 1000)`)
		age(t, conn, "c", "2 seconds")
		wantJSON(t, qb("select array[better_supabase.chat_state_get('c', 't'), better_supabase.chat_state_get('c', 'forever')]"), `[null, {"value": 2}]`, "get past a TTL, and of a value with a negative TTL (none)")
		wantJSON(t, qb(`select better_supabase.chat_state_set_if_not_exists('c', 'once', '"new"')`), `true`, "set-if-not-exists on an expired key")
		qb("select better_supabase.chat_state_delete('c', 's')")
		qb("select better_supabase.chat_state_delete('c', 'missing')")
		wantJSON(t, qb("select better_supabase.chat_state_get('c', 's')"), `null`, "get after delete")
		fails(t, conn, "23502", "", "select better_supabase.chat_state_set('c', 'sqlnull', null)")
	})

	t.Run("lists", func(t *testing.T) {
		for _, v := range []string{"a", "b", "c", "d"} {
			qb(`select better_supabase.chat_state_append_to_list('l', 'k', '"` + v + `"', 3)`)
		}
		wantJSON(t, qb("select better_supabase.chat_state_get_list('l', 'k')"), `["b", "c", "d"]`, "the list after four appends with max_length 3")
		qb(`select better_supabase.chat_state_append_to_list('l', 'k', '"e"', 0)`)
		wantJSON(t, qb("select better_supabase.chat_state_get_list('l', 'k')"), `["b", "c", "d", "e"]`, "an append with max_length 0 trims nothing")
		wantJSON(t, qb("select better_supabase.chat_state_get_list('l', 'missing')"), `[]`, "a missing list")
		// The TTL is the whole list's: the last append's TTL is every
		// entry's, and an append without one clears it.
		qb(`select better_supabase.chat_state_append_to_list('l', 't', '"a"', null, 600000)`)
		qb(`select better_supabase.chat_state_append_to_list('l', 't', '"b"', null, 1000)`)
		qb(`select better_supabase.chat_state_append_to_list('l', 'u', '"a"', null, 1000)`)
		qb(`select better_supabase.chat_state_append_to_list('l', 'u', '"b"')`)
		age(t, conn, "l", "2 seconds")
		wantJSON(t, qb("select array[better_supabase.chat_state_get_list('l', 't'), better_supabase.chat_state_get_list('l', 'u')]"), `[[], ["a", "b"]]`, "lists past the last append's TTL")
		// An append to a list past its TTL starts a new one: the expired
		// entries do not come back with the new entry (upstream's do).
		qb(`select better_supabase.chat_state_append_to_list('l', 't', '"c"', null, 600000)`)
		wantJSON(t, qb("select better_supabase.chat_state_get_list('l', 't')"), `["c"]`, "an append to a list past its TTL")
	})

	t.Run("queues", func(t *testing.T) {
		wantJSON(t, qb("select array[better_supabase.chat_state_queue_depth('q', 't')::text, better_supabase.chat_state_dequeue('q', 't')::text]"), `["0", null]`, "an empty queue")
		var depths []any
		for i := 1; i <= 3; i++ {
			depths = append(depths, qb(`select better_supabase.chat_state_enqueue('q', 't', jsonb_build_object('n', `+string(rune('0'+i))+`), now() + interval '1 hour', 2)`))
		}
		wantJSON(t, depths, `[1, 2, 2]`, "depths after three entries with max_size 2")
		wantJSON(t, qb("select array[better_supabase.chat_state_queue_depth('q', 't'), better_supabase.chat_state_queue_depth('q', 'other'), better_supabase.chat_state_queue_depth('r', 't')]"), `[2, 0, 0]`, "depths of the thread, another thread, another prefix")
		// An entry that comes expired takes no place under max_size (upstream's
		// SQL lets it push out a live entry).
		wantJSON(t, qb(`select better_supabase.chat_state_enqueue('q', 't', '{"n": 9}', now() - interval '1 second', 2)`), `2`, "depth after an expired entry")
		wantJSON(t, qb("select array[better_supabase.chat_state_dequeue('q', 't'), better_supabase.chat_state_dequeue('q', 't'), better_supabase.chat_state_dequeue('q', 't')]"), `[{"n": 2}, {"n": 3}, null]`, "dequeues, oldest first")
		qb(`select better_supabase.chat_state_enqueue('q', 'e', '{"n": 1}', now() + interval '1 second')`)
		qb(`select better_supabase.chat_state_enqueue('q', 'e', '{"n": 2}', now() + interval '1 hour')`)
		age(t, conn, "q", "2 seconds")
		wantJSON(t, qb("select array[better_supabase.chat_state_queue_depth('q', 'e')::text, better_supabase.chat_state_dequeue('q', 'e')::text, better_supabase.chat_state_dequeue('q', 'e')::text]"), `["1", "{\"n\": 2}", null]`, "a queue with an expired entry")
		fails(t, conn, "23502", "", "select better_supabase.chat_state_enqueue('q', 't', '{}', null)")
	})

	t.Run("purge", func(t *testing.T) {
		if _, err := conn.Exec(ctx, `reset role; delete from better_supabase.chat_state_locks; delete from better_supabase.chat_state_cache;
			delete from better_supabase.chat_state_lists; delete from better_supabase.chat_state_queues; set role service_role`); err != nil {
			t.Fatal(err)
		}
		qb("select better_supabase.chat_state_acquire_lock('p', 't', 'x', 1000)")
		qb("select better_supabase.chat_state_acquire_lock('p', 'u', 'x', 600000)")
		qb("select better_supabase.chat_state_set('p', 'a', '1', 1000)")
		qb("select better_supabase.chat_state_set('p', 'b', '1', 1000)")
		qb("select better_supabase.chat_state_set('p', 'c', '1')")
		qb("select better_supabase.chat_state_append_to_list('p', 'l', '1', null, 1000)")
		qb(`select better_supabase.chat_state_enqueue('p', 't', '{}', now() + interval '1 second')`)
		qb("select better_supabase.chat_state_subscribe('p', 't')")
		age(t, conn, "p", "2 seconds")
		// At most one of each kind per call: a lock, a value, a list entry,
		// a queue entry; then the second value; then nothing.
		wantJSON(t, qb("select array[better_supabase.purge_chat_state(1), better_supabase.purge_chat_state(null), better_supabase.purge_chat_state()]"), `[4, 1, 0]`, "purges")
		wantJSON(t, qb(`select array[(select count(*) from better_supabase.chat_state_locks), (select count(*) from better_supabase.chat_state_cache),
			(select count(*) from better_supabase.chat_state_subscriptions where key_prefix = 'p')]`), `[1, 1, 1]`, "live rows left")
	})

	t.Run("installations", func(t *testing.T) {
		strip := " - 'id' - 'installed_at' - 'uninstalled_at'"
		wantJSON(t, qb(`select better_supabase.chat_install('slack', 'T1', 'a0000000-0000-4000-8000-00000000000a', '{"provider": "vault", "id": "1"}', '`+alice+`', '{"a": 1}')`+strip),
			`{"adapter": "slack", "external_id": "T1", "tenant_id": "a0000000-0000-4000-8000-00000000000a", "credential_ref": {"provider": "vault", "id": "1"}, "installed_by": "`+alice+`", "metadata": {"a": 1}, "previous_credential_ref": null}`, "install")
		wantJSON(t, qb(`select better_supabase.chat_install('slack', 'T1', null, '{"provider": "vault", "id": "1"}', null, '{"b": 2}')->'previous_credential_ref'`), `null`, "a reinstall with the same ref")
		wantJSON(t, qb(`select better_supabase.chat_install('slack', 'T1', null, '{"provider": "vault", "id": "2"}')`+strip),
			`{"adapter": "slack", "external_id": "T1", "tenant_id": "a0000000-0000-4000-8000-00000000000a", "credential_ref": {"provider": "vault", "id": "2"}, "installed_by": "`+alice+`", "metadata": {"a": 1, "b": 2}, "previous_credential_ref": {"provider": "vault", "id": "1"}}`, "a reinstall with a new ref")
		qb("select better_supabase.chat_install('github', 'G1')")
		wantJSON(t, qb("select jsonb_path_query_array(better_supabase.list_chat_installations(), '$[*].external_id')"), `["G1", "T1"]`, "installations, newest first")
		wantJSON(t, qb("select array[jsonb_array_length(better_supabase.list_chat_installations(adapter => 'github')), jsonb_array_length(better_supabase.list_chat_installations('a0000000-0000-4000-8000-00000000000a'))]"), `[1, 1]`, "installations of an adapter, of a tenant")
		wantJSON(t, qb("select better_supabase.chat_uninstall('slack', 'T1')"+strip),
			`{"adapter": "slack", "external_id": "T1", "tenant_id": "a0000000-0000-4000-8000-00000000000a", "credential_ref": null, "installed_by": "`+alice+`", "metadata": {"a": 1, "b": 2}, "previous_credential_ref": {"provider": "vault", "id": "2"}}`, "uninstall")
		wantJSON(t, qb("select array[better_supabase.chat_uninstall('slack', 'T1'), better_supabase.chat_uninstall('slack', 'never')]"), `[null, null]`, "uninstall of what is not installed")
		wantJSON(t, qb("select array[jsonb_array_length(better_supabase.list_chat_installations()), jsonb_array_length(better_supabase.list_chat_installations(include_uninstalled => true))]"), `[1, 2]`, "installations without and with the uninstalled")
		wantJSON(t, qb("select better_supabase.chat_installation('slack', 'T1')->>'uninstalled_at' is not null"), `true`, "an uninstalled row is kept")
		wantJSON(t, qb("select better_supabase.chat_installation('slack', 'never')"), `null`, "a workspace that never installed")
		fails(t, conn, "23514", "", `select better_supabase.chat_install('slack', 'T2', null, '{"id": "no provider"}')`)
		fails(t, conn, "23514", "", `select better_supabase.chat_install('', 'T2')`)
		fails(t, conn, "23503", "", `select better_supabase.chat_install('slack', 'T3', null, null, '00000000-0000-4000-8000-000000000009')`)
	})
}

// docs/blocks.md says what the module holds; its row must name exactly
// the functions the module defines, with its version and what it needs.
func TestChatStateModuleAsTheDocsSayIt(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "docs", "blocks.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `chat-sdk-state` \\| ([^|]+) \\| ([^|]+) \\| (.+) \\|$").FindSubmatch(doc)
	if row == nil {
		t.Fatal("docs/blocks.md has no row for chat-sdk-state in its table of modules")
	}
	mods, err := blocks.Resolve("chat-sdk-state")
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
	for _, f := range regexp.MustCompile("`([a-z_]+)`").FindAllSubmatch(row[3], -1) {
		if !slices.Contains(chatStateTables, string(f[1])) {
			named = append(named, "better_supabase."+string(f[1]))
		}
	}
	if !slices.Equal(named, m.Functions) {
		t.Errorf("docs name the functions\n%v\nthe module defines\n%v", named, m.Functions)
	}
	var want []string
	for _, f := range chatStateFunctions {
		want = append(want, "better_supabase."+f)
	}
	if !slices.Equal(m.Functions, want) {
		t.Errorf("the module defines\n%v\nwant\n%v", m.Functions, want)
	}
	// And the table of rights gives them all to the service role alone.
	if !strings.Contains(string(doc), "| the chat-sdk-state functions (invoker) | no | no | yes |") {
		t.Error("docs/blocks.md's table of rights has no row for the chat-sdk-state functions")
	}
}
