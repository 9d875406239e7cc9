package blocks_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/internal/pgserver/pgtest"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func TestEmbeddedFS(t *testing.T) {
	if err := blocks.LoadError(); err != nil {
		t.Fatal(err)
	}
	if err := fstest.TestFS(blocks.FS(), "sql/registry.sql", "sql/supabase-base.sql", "sql/streams.sql", "sql/ai-chat.sql", "sql/workflows.sql", "sql/chat-sdk-state.sql", "sql/access.sql", "sql/vault.sql", "sql/credentials.sql", "sql/jobs.sql", "sql/pg-net.sql", "sql/workflow-sdk-world.sql", "sql/workflow-builder.sql", "sql/ai-cache.sql"); err != nil {
		t.Fatal(err)
	}
}

// The modules, versions and public functions contracts.md names.
var wantModules = []struct {
	name, version string
	functions     []string
}{
	{"supabase-base", "1", []string{"auth.jwt", "auth.uid", "auth.role"}},
	{"access", "3", []string{"can", "tenant_ids_with", "can_user", "audit_event", "tenant_entitlements"}},
	{"vault", "1", []string{"vault.create_secret", "vault.update_secret"}},
	{"credentials", "1", []string{"credential_get", "credential_set", "credential_delete"}},
	{"streams", "1", []string{"stream_open", "stream_append", "stream_read", "stream_status", "stream_close", "stream_cancel", "purge_streams"}},
	{"ai-chat", "2", []string{"ai_chat_can_read", "create_ai_chat", "update_ai_chat", "delete_ai_chat", "get_ai_chat", "list_ai_chats", "purge_ai_chats",
		"save_ai_project", "delete_ai_project", "list_ai_projects",
		"ai_message_path_of", "ai_message_path", "ai_message_siblings", "switch_ai_branch", "append_ai_user_message", "save_ai_assistant_message",
		"claim_ai_chat_stream", "release_ai_chat_stream", "request_ai_chat_stop", "attach_ai_run", "get_ai_run", "list_ai_runs",
		"record_ai_run_step", "list_ai_run_steps", "set_ai_run_cost",
		"record_ai_tool_approval", "decide_ai_tool_approval", "get_ai_tool_approvals", "list_pending_ai_tool_approvals", "set_ai_tool_policy", "ai_tool_policies_for",
		"open_ai_pending_input", "answer_ai_pending_input", "rate_ai_message",
		"share_ai_chat", "revoke_ai_chat_share", "list_ai_chat_shares", "get_shared_ai_chat",
		"upsert_ai_models", "allowed_ai_models", "record_ai_moderation_event", "list_ai_moderation_events",
		"register_ai_sandbox", "touch_ai_sandbox", "ai_sandbox_for", "list_ai_sandboxes", "idle_ai_sandboxes", "finish_ai_sandbox_stop",
		"load_ai_harness_session", "save_ai_harness_session", "lock_ai_harness_session", "unlock_ai_harness_session"}},
	{"chat-sdk-state", "1", chatStateFunctions},
	{"ai-cache", "1", []string{"ai_cache_get", "ai_cache_set", "ai_cache_delete", "purge_ai_cache",
		"api.ai_cache_get", "api.ai_cache_set", "api.ai_cache_delete", "api.purge_ai_cache"}},
	{"workflows", "1", []string{"record_workflow_run", "workflow_runs_list", "workflow_run_get", "request_workflow_cancel", "purge_workflow_runs",
		"create_workflow_schedule", "workflow_schedules_list", "pause_workflow_schedule", "remove_workflow_schedule", "claim_due_workflow_schedules", "advance_workflow_schedule",
		"acquire_workflow_semaphore", "release_workflow_semaphore", "workflow_admission_active", "request_workflow_start", "claim_workflow_start_requests", "mark_workflow_start_request"}},
	{"jobs", "1", []string{"enqueue_job", "claim_jobs"}},
	{"pg-net", "1", []string{"net.http_post"}},
	{"workflow-sdk-world", "1", []string{"workflow_sdk_mirror_run", "dispatch_workflow_deliveries"}},
	{"workflow-builder", "1", builderFunctions},
	{"ai-files", "1", []string{}},
	{"vector-search", "1", []string{}},
	{"knowledge", "1", knowledgeFunctions},
	{"memory", "2", memoryFunctions},
}

// memoryFunctions are the memory block's functions, then the same in
// schema api.
var memoryFunctions = func() []string {
	fns := []string{"memory_view", "memory_create", "memory_str_replace", "memory_insert", "memory_delete", "memory_rename",
		"memory_list", "memory_save", "memory_search", "memory_forget", "set_memory_embedding", "set_memory_embeddings",
		"pending_memory_embeddings", "set_ai_message_embedding", "recall_ai_messages", "memory_document_read",
		"memory_document_write", "purge_memory_documents"}
	for _, f := range append([]string{}, fns...) {
		fns = append(fns, "api."+f)
	}
	return fns
}()

// knowledgeFunctions are the knowledge block's functions, then the same in
// schema api.
var knowledgeFunctions = func() []string {
	fns := []string{"create_knowledge_document", "get_knowledge_document", "list_knowledge_documents", "delete_knowledge_document",
		"write_knowledge_chunks", "pending_knowledge_chunks", "set_knowledge_embeddings", "fail_knowledge_document",
		"pending_knowledge_documents", "reembed_knowledge", "knowledge_search"}
	for _, f := range []string{"create_knowledge_document", "write_knowledge_chunks", "get_knowledge_document", "list_knowledge_documents",
		"delete_knowledge_document", "knowledge_search", "pending_knowledge_chunks", "set_knowledge_embeddings", "fail_knowledge_document",
		"pending_knowledge_documents", "reembed_knowledge"} {
		fns = append(fns, "api."+f)
	}
	return fns
}()

func TestListInDependencyOrder(t *testing.T) {
	mods := blocks.List()
	if len(mods) != len(wantModules) {
		t.Fatalf("List() has %d modules, want %d", len(mods), len(wantModules))
	}
	pos := map[string]int{}
	for i, m := range mods {
		pos[m.Name] = i
	}
	for _, m := range mods {
		for _, r := range m.Requires {
			if pos[r] >= pos[m.Name] {
				t.Errorf("%s requires %s but comes before it", m.Name, r)
			}
		}
	}
	for _, w := range wantModules {
		i, ok := pos[w.name]
		if !ok {
			t.Errorf("module %s missing", w.name)
			continue
		}
		m := mods[i]
		if m.Version != w.version {
			t.Errorf("%s version %s, want %s", w.name, m.Version, w.version)
		}
		var want []string
		for _, f := range w.functions {
			if !strings.Contains(f, ".") {
				f = "better_supabase." + f
			}
			want = append(want, f)
		}
		if !slices.Equal(m.Functions, want) {
			t.Errorf("%s functions\n got %v\nwant %v", w.name, m.Functions, want)
		}
	}
	// List returns copies: changing them must not change the package.
	mods[0].Requires = append(mods[0].Requires, "x")
	if slices.Contains(blocks.List()[0].Requires, "x") {
		t.Error("List shares its slices with the package")
	}
}

func TestResolveAndSQL(t *testing.T) {
	mods, err := blocks.Resolve("ai-chat")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range mods {
		names = append(names, m.Name)
	}
	if want := []string{"supabase-base", "access", "streams", "ai-chat"}; !slices.Equal(names, want) {
		t.Errorf("Resolve(ai-chat) = %v, want %v", names, want)
	}
	sql, err := blocks.SQL("workflows")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sql, "module supabase-base") || !strings.Contains(sql, "module workflows") || strings.Contains(sql, "module streams") {
		t.Errorf("SQL(workflows) has the wrong modules:\n%s", firstLines(sql, 5))
	}
	if strings.Index(sql, "module supabase-base") > strings.Index(sql, "module workflows") {
		t.Error("SQL(workflows) puts workflows before what it requires")
	}
	_, err = blocks.SQL("streams", "chat")
	var unknown *blocks.UnknownModuleError
	if !errors.As(err, &unknown) || unknown.Name != "chat" {
		t.Errorf("SQL(chat) error = %v, want an UnknownModuleError for chat", err)
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

func actions(rep blocks.Report) map[string]string {
	out := map[string]string{}
	for _, m := range rep.Modules {
		out[m.Name] = m.Action
	}
	return out
}

func TestInstallFreshThenTwice(t *testing.T) {
	// It checks the knowledge and memory modules too, which need pgvector.
	needVector(t)
	s, db := pgtest.EmptyDB(t)
	conn := pgtest.Conn(t, s, db)
	ctx := context.Background()

	rep, err := blocks.Install(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range blocks.List() {
		if got := actions(rep)[m.Name]; got != blocks.Installed {
			t.Errorf("first install: %s %q, want installed", m.Name, got)
		}
	}
	rows, _ := conn.Query(ctx, "select name, version::text from better_supabase.modules order by name")
	recorded, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
		var n, v string
		err := r.Scan(&n, &v)
		return n + "@" + v, err
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"access@3", "ai-cache@1", "ai-chat@2", "ai-files@1", "chat-sdk-state@1", "credentials@1", "jobs@1", "knowledge@1", "memory@2", "pg-net@1", "streams@1", "supabase-base@1", "vault@1", "vector-search@1", "workflow-builder@1", "workflow-sdk-world@1", "workflows@1"}; !slices.Equal(recorded, want) {
		t.Errorf("modules table = %v, want %v", recorded, want)
	}

	before := catalogSnapshot(t, conn)
	rep, err = blocks.Install(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range blocks.List() {
		if got := actions(rep)[m.Name]; got != blocks.Already {
			t.Errorf("second install: %s %q, want already", m.Name, got)
		}
	}
	if rep.Changed() {
		t.Error("second install says it changed the database")
	}
	after := catalogSnapshot(t, conn)
	if diff := diffLines(before, after); diff != "" {
		t.Errorf("installing twice changed the database:\n%s", diff)
	}
}

// catalogSnapshot lists, one line each, everything the blocks define and
// the registry rows, with the system columns that change when a row is
// rewritten (xmin), so that a no-op install shows no difference.
func catalogSnapshot(t *testing.T, conn *pgx.Conn) []string {
	t.Helper()
	rows, err := conn.Query(context.Background(), `
		select 'function ' || p.oid::regprocedure || ' xmin=' || p.xmin || ' ' || md5(pg_get_functiondef(p.oid)) || ' acl=' || coalesce(p.proacl::text, '')
		from pg_proc p join pg_namespace n on n.oid = p.pronamespace
		where n.nspname in ('better_supabase', 'auth', 'api')
		union all
		select 'relation ' || c.oid::regclass || ' xmin=' || c.xmin || ' rls=' || c.relrowsecurity || ' acl=' || coalesce(c.relacl::text, '')
		from pg_class c join pg_namespace n on n.oid = c.relnamespace
		where n.nspname in ('better_supabase', 'auth', 'api')
		union all
		select 'policy ' || schemaname || '.' || tablename || '.' || policyname || ' ' || coalesce(qual, '') || ' ' || array_to_string(roles, ',')
		from pg_policies where schemaname in ('better_supabase', 'auth')
		union all
		select 'module ' || name || ' ' || version || ' ' || installed_at || ' xmin=' || xmin from better_supabase.modules
		union all
		select 'role ' || rolname || ' ' || rolbypassrls || ' ' || rolcanlogin from pg_roles where rolname in ('anon', 'authenticated', 'service_role')
		order by 1`)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) < 30 {
		t.Fatalf("catalog snapshot has only %d lines; the query misses the blocks", len(lines))
	}
	return lines
}

func diffLines(a, b []string) string {
	var out []string
	for _, l := range a {
		if !slices.Contains(b, l) {
			out = append(out, "- "+l)
		}
	}
	for _, l := range b {
		if !slices.Contains(a, l) {
			out = append(out, "+ "+l)
		}
	}
	return strings.Join(out, "\n")
}

func TestInstallSubsetThenRest(t *testing.T) {
	s, db := pgtest.EmptyDB(t)
	conn := pgtest.Conn(t, s, db)
	ctx := context.Background()
	rep, err := blocks.Install(ctx, conn, "streams")
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(rep); len(got) != 2 || got["supabase-base"] != blocks.Installed || got["streams"] != blocks.Installed {
		t.Fatalf("install streams: %v, want supabase-base and streams installed", got)
	}
	if exists(t, conn, "select to_regclass('better_supabase.workflow_runs') is not null") {
		t.Fatal("installing streams also created workflow_runs")
	}
	rep, err = blocks.Install(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"supabase-base": blocks.Already, "streams": blocks.Already, "access": blocks.Installed, "ai-cache": blocks.Installed, "ai-chat": blocks.Installed, "chat-sdk-state": blocks.Installed, "vault": blocks.Installed, "credentials": blocks.Installed, "workflows": blocks.Installed,
		"jobs": blocks.Installed, "pg-net": blocks.Installed, "workflow-sdk-world": blocks.Installed, "workflow-builder": blocks.Installed,
		"ai-files": blocks.Installed, "vector-search": blocks.Installed, "knowledge": blocks.Installed, "memory": blocks.Installed}
	if got := actions(rep); !mapsEqual(got, want) {
		t.Errorf("install all after streams: %v, want %v", got, want)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func exists(t *testing.T, conn *pgx.Conn, query string, args ...any) bool {
	t.Helper()
	var ok bool
	if err := conn.QueryRow(context.Background(), query, args...).Scan(&ok); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return ok
}

// A module that fails leaves nothing of itself behind; the modules before
// it stay installed.
func TestInstallFailureRollsBackTheModule(t *testing.T) {
	s, db := pgtest.EmptyDB(t)
	conn := pgtest.Conn(t, s, db)
	ctx := context.Background()
	// A table of that name but another shape: the workflows module's index
	// on created_at cannot be built.
	if _, err := conn.Exec(ctx, "create schema better_supabase; create table better_supabase.workflow_runs (id integer)"); err != nil {
		t.Fatal(err)
	}
	rep, err := blocks.Install(ctx, conn)
	var ie *blocks.InstallError
	if !errors.As(err, &ie) || ie.Module != "workflows" {
		t.Fatalf("Install error = %v, want an InstallError for workflows", err)
	}
	if !strings.Contains(err.Error(), "created_at") {
		t.Errorf("the error does not say what is wrong: %v", err)
	}
	got := actions(rep)
	if got["ai-chat"] != blocks.Installed || got["streams"] != blocks.Installed {
		t.Errorf("modules before workflows: %v, want installed", got)
	}
	if exists(t, conn, "select to_regprocedure('better_supabase.workflow_run_get(text)') is not null") {
		t.Error("a function of the failed module was left behind")
	}
	if exists(t, conn, "select exists (select from better_supabase.modules where name = 'workflows')") {
		t.Error("the failed module was recorded as installed")
	}
	if exists(t, conn, "select exists (select from pg_policies where tablename = 'workflow_runs')") {
		t.Error("a policy of the failed module was left behind")
	}
}

// The SQL printed for migration tools installs the same thing as Install,
// and running it twice is harmless.
func TestSQLScriptMatchesInstall(t *testing.T) {
	// It checks the knowledge and memory modules too, which need pgvector.
	needVector(t)
	s, viaInstall := pgtest.EmptyDB(t)
	_, viaScript := pgtest.EmptyDB(t)
	ctx := context.Background()
	a := pgtest.Conn(t, s, viaInstall)
	if _, err := blocks.Install(ctx, a); err != nil {
		t.Fatal(err)
	}
	b := pgtest.Conn(t, s, viaScript)
	sql, err := blocks.SQL()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if _, err := b.Exec(ctx, sql); err != nil {
			t.Fatalf("running the printed SQL (time %d): %v", i+1, err)
		}
	}
	strip := func(lines []string) []string {
		var out []string
		for _, l := range lines {
			// OIDs, xmin and install times differ between two databases.
			if i := strings.Index(l, " xmin="); i >= 0 {
				rest := l[i+len(" xmin="):]
				if j := strings.IndexByte(rest, ' '); j >= 0 {
					l = l[:i] + rest[j:]
				} else {
					l = l[:i]
				}
			}
			if strings.HasPrefix(l, "module ") {
				f := strings.Fields(l)
				l = strings.Join(f[:3], " ")
			}
			out = append(out, l)
		}
		return out
	}
	if diff := diffLines(strip(catalogSnapshot(t, a)), strip(catalogSnapshot(t, b))); diff != "" {
		t.Errorf("the printed SQL and Install differ:\n%s", diff)
	}
	rep, err := blocks.Install(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Changed() {
		t.Errorf("Install after the printed SQL changed something: %+v", rep)
	}
}

// On a Supabase database the base module is skipped and Supabase's own
// auth functions stay as they are.
func TestSupabaseBaseSkippedOnSupabase(t *testing.T) {
	s, db := pgtest.EmptyDB(t)
	conn := pgtest.Conn(t, s, db)
	ctx := context.Background()
	supabaseLike(t, conn)
	rep, err := blocks.Install(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(rep)["supabase-base"]; got != blocks.Skipped {
		t.Errorf("supabase-base %q on a Supabase database, want skipped", got)
	}
	var uid string
	if err := conn.QueryRow(ctx, "select auth.uid()::text").Scan(&uid); err != nil || uid != "00000000-0000-0000-0000-00000000cafe" {
		t.Errorf("auth.uid() = %q, %v: Supabase's own function was replaced", uid, err)
	}
	if got := actions(rep)["streams"]; got != blocks.Installed {
		t.Errorf("streams %q, want installed", got)
	}
}

func pgCode(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
}

// blocks.Template prepares an empty database with every block, as the
// template pgserver clones, and names the roles supabase-base makes.
func TestTemplatePrepare(t *testing.T) {
	s, db := pgtest.EmptyDB(t)
	conn := pgtest.Conn(t, s, db)
	if err := (blocks.Template{}).Prepare(t.Context(), conn); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := conn.QueryRow(t.Context(), "select count(*) from better_supabase.modules").Scan(&n); err != nil || n != len(blocks.List()) {
		t.Errorf("%d modules installed (%v), want %d", n, err, len(blocks.List()))
	}
	for _, r := range (blocks.Template{}).Roles() {
		var ok bool
		if err := conn.QueryRow(t.Context(), "select exists (select from pg_roles where rolname = $1)", r).Scan(&ok); err != nil || !ok {
			t.Errorf("role %s does not exist after Prepare (%v)", r, err)
		}
	}
}
