package pgstore

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites"
	"github.com/bsadapter/bsadapter/internal/conform/suites/chatstate"
	"github.com/bsadapter/bsadapter/internal/pgserver/pgtest"
	"github.com/jackc/pgx/v5"
)

// Breaking the real blocks in PostgreSQL is caught too, by exactly the
// cases for the broken rule: stream_append rewritten to overwrite on retry,
// to allow gaps or to ignore close, a policy that shows every stream to every caller, and a
// trigger that turns a cancel request into a status change; and beyond
// those five, a registry that lets a run clear its error, shows every run
// to every user or lets anyone ask for a cancel, a chat release that
// frees the chat for any stream, chats that tenant members read without
// their being shared, revoked share links that still show the chat, a
// harness lock that lets a second holder in; and in the chat-sdk-state
// module, a release that ignores the token, a lock that never expires, a
// set that ignores its TTL, a list cap that keeps the oldest entries, a
// queue depth that counts expired entries and an enqueue whose cap counts
// an entry that came expired (as upstream's does); and in the credentials
// module and its Vault stand-in, a read that returns another user's
// secret, a token stored readable (in the description, or by a Vault that
// does not encrypt), a caller check that lets a user's claims through,
// functions granted to users, and a delete that records the wrong event;
// and in the workflow-builder module, a publish that drops the compiled
// form, drafts saved into the published version, a rotation that keeps
// the old token, disabled triggers whose tokens resolve, node attempts
// overwritten, an end kept when a node runs again, and alerts that fire
// every time; and in the ai-cache, knowledge and memory modules, a read
// that counts no hit or returns an expired entry, an uncapped TTL, a
// delete that ignores the model, a cache granted to users, a search that
// ignores a scope's id, documents shown to everyone, the text ranking
// dropped from the fusion, owner-less documents changed by anyone,
// organization knowledge added without ai.admin, a create that ignores
// the expected version, a str_replace of ambiguous text, an insert that
// drops a line, a rename over a taken path, users' namespaces shared,
// superseded facts brought back, and organization facts forgotten by
// anyone.
func TestPGMutantsCaught(t *testing.T) {
	srv := pgtest.Server(t)
	for _, tc := range []struct {
		name string
		sql  string
		// patch, when set, rewrites function fn's own definition (default
		// stream_append): every key is replaced by its value.
		patch map[string]string
		want  []string
		fn    string
	}{
		{name: "error-cleared", fn: "better_supabase.record_workflow_run",
			patch: map[string]string{"error = coalesce(excluded.error, w.error)": "error = excluded.error"},
			want:  []string{"registry/record-error-not-cleared"}},
		{name: "leak-runs", sql: `create policy conform_leak on better_supabase.workflow_runs for select to authenticated using (true);`,
			want: []string{"registry/actor-sees-own-run", "registry/tenant-members-read-with-workflow-read"}},
		{name: "cancel-anyone", fn: "better_supabase.request_workflow_cancel",
			patch: map[string]string{"if not (better_supabase._workflow_admin(w.tenant_id)": "if false and not (better_supabase._workflow_admin(w.tenant_id)"},
			want:  []string{"registry/cancel-by-actor-or-tenant-admin"}},
		{name: "release-any-stream", fn: "better_supabase.release_ai_chat_stream",
			patch: map[string]string{"where x.id = release_ai_chat_stream.chat and x.active_stream_id = release_ai_chat_stream.stream": "where x.id = release_ai_chat_stream.chat"},
			want:  []string{"chat/release-other-stream"}},
		{name: "private-chats-to-members", fn: "better_supabase.ai_chat_can_read",
			patch: map[string]string{"(c.visibility = 'organization' and": "(true and"},
			want:  []string{"chat/tenant-members-read-shared-chats"}},
		{name: "revoked-links-live-on", fn: "better_supabase.get_shared_ai_chat",
			patch: map[string]string{" and x.revoked_at is null": ""},
			want:  []string{"chat/revoked-share-exposes-nothing"}},
		{name: "harness-lock-ignored", fn: "better_supabase.lock_ai_harness_session",
			patch: map[string]string{"if h.locked_until > now() and h.lock_holder is distinct from lock_ai_harness_session.holder then": "if false then"},
			want:  []string{"chat/harness-lock-excludes-and-expires"}},
		{name: "chat-state-release-ignores-token", fn: "better_supabase.chat_state_release_lock",
			patch: map[string]string{
				"where (l.key_prefix, l.thread_id, l.token) = (chat_state_release_lock.prefix, chat_state_release_lock.thread_id, chat_state_release_lock.token)": "where (l.key_prefix, l.thread_id) = (chat_state_release_lock.prefix, chat_state_release_lock.thread_id)",
			},
			want: []string{"chat-state/lock-wrong-token"}},
		{name: "chat-state-lock-never-expires", fn: "better_supabase.chat_state_acquire_lock",
			patch: map[string]string{"where cur.expires_at <= pg_catalog.clock_timestamp()": "where false"},
			want:  []string{"chat-state/lock-expired", "chat-state/lock-extend-moves-expiry"}},
		{name: "chat-state-list-ignores-ttl", fn: "better_supabase.chat_state_append_to_list",
			patch: map[string]string{"if chat_state_append_to_list.ttl_ms > 0 then": "if false then"},
			want:  []string{"chat-state/list-append-refreshes-ttl", "chat-state/list-ttl"}},
		{name: "chat-state-set-ignores-ttl", fn: "better_supabase.chat_state_set",
			patch: map[string]string{"case when chat_state_set.ttl_ms > 0": "case when false"},
			want:  []string{"chat-state/value-ttl"}},
		{name: "chat-state-list-cap-keeps-oldest", fn: "better_supabase.chat_state_append_to_list",
			patch: map[string]string{"order by o.id desc": "order by o.id"},
			want:  []string{"chat-state/list-cap-keeps-newest"}},
		{name: "chat-state-queue-counts-expired", fn: "better_supabase.chat_state_queue_depth",
			patch: map[string]string{" and q.expires_at > pg_catalog.clock_timestamp()": ""},
			want:  []string{"chat-state/queue-entry-expires"}},
		{name: "chat-state-expired-arrival-takes-a-place", fn: "better_supabase.chat_state_enqueue",
			patch: map[string]string{"        and o.expires_at > pg_catalog.clock_timestamp()\n      order by o.id desc": "      order by o.id desc"},
			want:  []string{"chat-state/queue-expired-arrival-takes-no-place"}},
		{name: "credentials-another-users-secret", fn: "better_supabase.credential_get",
			patch: map[string]string{"from vault.decrypted_secrets d where d.name = vault_name);": "from vault.decrypted_secrets d where pg_catalog.split_part(d.name, '@', 1) = pg_catalog.split_part(vault_name, '@', 1) order by d.created_at desc limit 1);"},
			want:  []string{"credentials/per-user-apart", "credentials/revoke-one-user"}},
		{name: "credentials-token-in-description", fn: "better_supabase.credential_set",
			patch: map[string]string{"coalesce(credential_set.description, 'better-supabase credential')": "credential_set.secret"},
			want:  []string{"credentials/no-token-at-rest"}},
		{name: "vault-keeps-plaintext", sql: `
			create or replace function vault._standin_encrypt(plain text, secret_id uuid) returns text
			  language sql set search_path = '' as $$ select secret_id::text || ':' || plain $$;
			create or replace function vault._standin_decrypt(stored text, secret_id uuid) returns text
			  language sql set search_path = '' as $$ select pg_catalog.substr(stored, pg_catalog.length(secret_id::text) + 2) $$;`,
			want: []string{"credentials/no-token-at-rest"}},
		{name: "credentials-claims-unchecked", fn: "better_supabase._credential_vault_name",
			patch: map[string]string{"if not better_supabase._caller_is_service() then": "if false then"},
			want:  []string{"credentials/service-role-only"}},
		{name: "credentials-granted-to-users", sql: `grant execute on function better_supabase.credential_get(text, text),
			better_supabase.credential_set(text, text, text, text), better_supabase.credential_delete(text, text) to anon, authenticated;`,
			want: []string{"credentials/service-role-only"}},
		{name: "credentials-delete-unaudited", fn: "better_supabase.credential_delete",
			patch: map[string]string{"event_type => 'credential.deleted'": "event_type => 'credential.removed'"},
			want:  []string{"credentials/audit-events"}},
		{name: "builder-publish-drops-compiled", fn: "better_supabase.publish_workflow_version",
			patch: map[string]string{"set status = 'published', compiled = publish_workflow_version.compiled, published_at = now()": "set status = 'published', compiled = null, published_at = now()"},
			want:  []string{"builder-records/publish-archives-previous", "builder-records/publish-keeps-compiled", "builder-records/save-after-publish-opens-draft"}},
		{name: "builder-drafts-edit-published", fn: "better_supabase.save_workflow_draft",
			patch: map[string]string{"w.definition_id = save_workflow_draft.definition and w.status = 'draft'": "w.definition_id = save_workflow_draft.definition and w.status in ('draft', 'published')"},
			want:  []string{"builder-records/publish-archives-previous", "builder-records/save-after-publish-opens-draft"}},
		{name: "builder-rotation-keeps-old-token", fn: "better_supabase.rotate_workflow_webhook_token",
			patch: map[string]string{"delete from better_supabase.workflow_webhook_tokens k where k.trigger_id = rotate_workflow_webhook_token.trigger;": "",
				"values (better_supabase._workflow_token_hash(token), rotate_workflow_webhook_token.trigger);": "values (better_supabase._workflow_token_hash(token), rotate_workflow_webhook_token.trigger) on conflict (trigger_id) do nothing;"},
			want: []string{"builder-records/webhook-token-live"}},
		{name: "builder-disabled-triggers-resolve", fn: "better_supabase.workflow_webhook_target",
			patch: map[string]string{"and t.enabled": ""},
			want:  []string{"builder-records/webhook-token-live"}},
		{name: "builder-attempts-overwritten", fn: "better_supabase.record_workflow_node_run",
			patch: map[string]string{"attempts = greatest(n.attempts, excluded.attempts)": "attempts = excluded.attempts"},
			want:  []string{"builder-records/node-runs"}},
		{name: "builder-ended-at-kept", fn: "better_supabase.record_workflow_node_run",
			patch: map[string]string{"ended_at = excluded.ended_at": "ended_at = coalesce(excluded.ended_at, n.ended_at)"},
			want:  []string{"builder-records/node-runs"}},
		{name: "builder-failed-alerts-fire-every-time", fn: "better_supabase.workflow_runs_alert",
			patch: map[string]string{" or (tg_op = 'UPDATE' and old.status = 'failed')": "", "on conflict do nothing": "on conflict (alert_id, run_id) do update set fired_at = pg_catalog.clock_timestamp()"},
			want:  []string{"builder-records/alerts-fire-once"}},
		{name: "builder-slow-alerts-fire-every-time", fn: "better_supabase.check_workflow_alerts",
			patch: map[string]string{"      and not exists (select from better_supabase.workflow_alert_fires f where f.alert_id = a.id and f.run_id = r.id)\n": "",
				"on conflict do nothing": "on conflict (alert_id, run_id) do update set fired_at = pg_catalog.clock_timestamp()"},
			want: []string{"builder-records/alerts-fire-once"}},
		{name: "ai-cache-hits-not-counted", fn: "better_supabase.ai_cache_get",
			patch: map[string]string{"set hits = c.hits + 1": "set hits = c.hits"},
			want:  []string{"ai-cache/hit-counted"}},
		{name: "ai-cache-expired-read", fn: "better_supabase.ai_cache_get",
			patch: map[string]string{" and c.expires_at > now()": ""},
			want:  []string{"ai-cache/expired-reads-absent"}},
		{name: "ai-cache-ttl-uncapped", fn: "better_supabase.ai_cache_set",
			patch: map[string]string{"least(ai_cache_set.ttl, 604800)": "ai_cache_set.ttl"},
			want:  []string{"ai-cache/ttl-bounds"}},
		{name: "ai-cache-delete-ignores-model", fn: "better_supabase.ai_cache_delete",
			patch: map[string]string{"and (ai_cache_delete.model is null or c.model = ai_cache_delete.model)": ""},
			want:  []string{"ai-cache/delete-by-criteria"}},
		{name: "ai-cache-granted-to-users", sql: `grant execute on function better_supabase.ai_cache_get(text),
			better_supabase.ai_cache_set(text, jsonb, integer, uuid, text, text) to anon, authenticated;
			grant select, insert, update on better_supabase.ai_cache_entries to anon, authenticated;
			create policy conform_leak on better_supabase.ai_cache_entries for all to anon, authenticated using (true) with check (true);`,
			want: []string{"ai-cache/service-role-only"}},
		{name: "knowledge-search-ignores-scope-id", fn: "better_supabase.knowledge_search",
			patch: map[string]string{"and (s.item ->> 'id' is null or (s.item ->> 'id')::uuid = d.scope_id)))": "))"},
			want:  []string{"knowledge/search-scopes-and-filter"}},
		{name: "knowledge-documents-to-everyone", sql: `create policy conform_leak on better_supabase.knowledge_documents for select to authenticated using (true);`,
			want: []string{"knowledge/search-what-the-caller-reads"}},
		{name: "knowledge-text-ranking-dropped", fn: "better_supabase.knowledge_search",
			patch: map[string]string{"coalesce(1.0 / (60 + t.place), 0)": "0"},
			want:  []string{"knowledge/search-fuses-rankings"}},
		{name: "knowledge-ownerless-to-anyone", fn: "better_supabase._knowledge_may_change",
			patch: map[string]string{"coalesce(d.owner_id = (select auth.uid()), false)": "coalesce(d.owner_id = (select auth.uid()), true)"},
			want:  []string{"knowledge/ownerless-changed-by-admins-only"}},
		{name: "knowledge-organization-without-admin", fn: "better_supabase.create_knowledge_document",
			patch: map[string]string{"if create_knowledge_document.scope in ('organization', 'agent') and not (service or admin) then": "if false then"},
			want:  []string{"knowledge/adding-takes-permission"}},
		{name: "memory-create-ignores-version", fn: "better_supabase.memory_create",
			patch: map[string]string{"if memory_create.expected_version is not null and memory_create.expected_version <> m.version then": "if false then"},
			want:  []string{"memory/create-checks-version"}},
		{name: "memory-replace-ambiguous", fn: "better_supabase.memory_str_replace",
			patch: map[string]string{"elsif times > 1 then": "elsif false then"},
			want:  []string{"memory/str-replace-exactly-once"}},
		{name: "memory-insert-drops-a-line", fn: "better_supabase.memory_insert",
			patch: map[string]string{"lines[memory_insert.insert_line + 1:]": "lines[memory_insert.insert_line + 2:]"},
			want:  []string{"memory/insert-at-line"}},
		{name: "memory-rename-over-taken-path", fn: "better_supabase.memory_rename",
			patch: map[string]string{"if exists (select from better_supabase.memories x": "if false and exists (select from better_supabase.memories x"},
			want:  []string{"memory/rename-and-delete"}},
		{name: "memory-namespaces-shared", fn: "better_supabase._memory_in",
			patch: map[string]string{"and m.owner_id is not distinct from n.owner_id": ""},
			want:  []string{"memory/namespaces-apart"}},
		{name: "memory-forget-resurrects", sql: `alter table better_supabase.memories drop constraint memories_superseded_by_fkey,
			add constraint memories_superseded_by_fkey foreign key (superseded_by) references better_supabase.memories (id) on delete set null;`,
			want: []string{"memory/superseded-facts-stay-forgotten"}},
		{name: "memory-ownerless-forgotten-by-anyone", fn: "better_supabase.memory_forget",
			patch: map[string]string{"coalesce(m.owner_id = (select auth.uid()), false)": "coalesce(m.owner_id = (select auth.uid()), true)"},
			want:  []string{"memory/organization-facts-forgotten-by-admins-only"}},
		{"overwrite", "", map[string]string{
			"if v_new > v_next then":                                                      "if true then",
			"stream_append.stream_id, v_next + u.o - 1, u.t":                              "stream_append.stream_id, stream_append.from_idx + u.o - 1, u.t",
			"unnest(stream_append.chunks[(v_next - stream_append.from_idx + 1):v_count])": "unnest(stream_append.chunks)",
			"on conflict do nothing":                                                      "on conflict (stream_id, idx) do update set data = excluded.data",
		}, []string{"streams/append-retry-first-write-wins"}, ""},
		{"gaps", "", map[string]string{"or stream_append.from_idx > v_next": ""},
			[]string{"streams/append-gap-refused"}, ""},
		{"ignore-close", "", map[string]string{"if st.closed_at is not null then": "if false then"},
			[]string{"streams/append-after-close-refused", "streams/closed-checked-before-gap"}, ""},
		{"leak-owners", `
			grant select on better_supabase.streams, better_supabase.stream_chunks to anon;
			grant execute on function better_supabase.stream_read(text, integer, integer), better_supabase.stream_status(text) to anon;
			create policy conform_leak on better_supabase.streams for select to anon, authenticated using (true);
			create policy conform_leak on better_supabase.stream_chunks for select to anon, authenticated using (true);`,
			nil, []string{"streams/anon-sees-nothing", "streams/stranger-sees-nothing"}, ""},
		{"cancel-status", `
			create function better_supabase._conform_mutant() returns trigger language plpgsql as $$
			begin
			  if new.cancel_requested_at is not null and old.cancel_requested_at is null then
			    new.status := 'cancelled';
			  end if;
			  return new;
			end $$;
			create trigger conform_mutant before update on better_supabase.workflow_runs
			  for each row execute function better_supabase._conform_mutant();`,
			nil, []string{"registry/cancel-request-keeps-status"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if strings.HasPrefix(tc.name, "knowledge-") || strings.HasPrefix(tc.name, "memory-") {
				// Their modules need pgvector.
				pgtest.NeedVector(t)
			}
			st, err := New(t.Context(), srv)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			pg := st.(*pgStore)
			if err := pg.shared.admin(t.Context(), func(c *pgx.Conn) error {
				sql := tc.sql
				if tc.patch != nil {
					fn := tc.fn
					if fn == "" {
						fn = "better_supabase.stream_append"
					}
					if err := c.QueryRow(t.Context(), "select pg_get_functiondef($1::regproc)", fn).Scan(&sql); err != nil {
						return err
					}
					for from, to := range tc.patch {
						if !strings.Contains(sql, from) {
							t.Fatalf("%s no longer contains %q; update this mutant:\n%s", fn, from, sql)
						}
						sql = strings.ReplaceAll(sql, from, to)
					}
				}
				_, err := c.Exec(t.Context(), sql)
				return err
			}); err != nil {
				t.Fatalf("break the blocks: %v", err)
			}
			// The isolated cases run in clones of the intact template;
			// the mutants live in the shared clone, so run the rest (and
			// the chat-state cases, which pg runs in the shared clone
			// whether they move the clock or not).
			var cases []conform.Case
			for _, c := range suites.Cases() {
				if !c.Isolated || c.Suite == chatstate.Suite.Name {
					cases = append(cases, c)
				}
			}
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			rep := conform.Run(ctx, st, cases, conform.Options{Parallel: 4})
			got := rep.Failed()
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("failed cases: got %v, want exactly %v", got, tc.want)
				for _, r := range rep.Results {
					if r.Outcome == conform.Fail {
						t.Logf("%s: %v", r.ID, r.Failures)
					}
				}
			}
		})
	}
}
