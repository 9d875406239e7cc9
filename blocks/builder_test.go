package blocks_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/internal/pgserver/pgtest"
	"github.com/jackc/pgx/v5"
)

// The workflow-builder module's functions, in the order its SQL defines
// them.
var builderFunctions = []string{
	"validate_workflow_graph",
	"save_workflow_definition", "workflow_definitions_list", "workflow_definition_get", "remove_workflow_definition",
	"save_workflow_draft", "publish_workflow_version", "workflow_versions_list", "workflow_version_get", "workflow_start_target",
	"save_workflow_trigger", "workflow_triggers_list", "remove_workflow_trigger", "rotate_workflow_webhook_token",
	"workflow_webhook_target", "workflow_event_targets",
	"save_workflow_credential", "workflow_credentials_list", "workflow_credential_get", "remove_workflow_credential",
	"sync_workflow_steps", "workflow_steps_list",
	"record_workflow_node_run", "workflow_node_runs_list",
	"save_workflow_alert", "workflow_alerts_list", "remove_workflow_alert", "workflow_runs_alert", "check_workflow_alerts",
}

// What a signed-in user may call: everything but the server's functions
// (resolving webhook tokens and event targets, reading a credential's
// reference, syncing the library, recording node runs, checking alerts).
var builderForMembers = []string{
	"validate_workflow_graph",
	"save_workflow_definition", "workflow_definitions_list", "workflow_definition_get", "remove_workflow_definition",
	"save_workflow_draft", "publish_workflow_version", "workflow_versions_list", "workflow_version_get", "workflow_start_target",
	"save_workflow_trigger", "workflow_triggers_list", "remove_workflow_trigger", "rotate_workflow_webhook_token",
	"save_workflow_credential", "workflow_credentials_list", "remove_workflow_credential",
	"workflow_steps_list", "workflow_node_runs_list",
	"save_workflow_alert", "workflow_alerts_list", "remove_workflow_alert",
}

func init() {
	for name, sig := range map[string]struct{ args, result string }{
		"validate_workflow_graph":       {"graph jsonb", "jsonb"},
		"save_workflow_definition":      {"tenant uuid, slug text, name text, description text = null", "jsonb"},
		"workflow_definitions_list":     {"tenant uuid = null", "jsonb"},
		"workflow_definition_get":       {"definition uuid", "jsonb"},
		"remove_workflow_definition":    {"definition uuid", "boolean"},
		"save_workflow_draft":           {"definition uuid, graph jsonb", "jsonb"},
		"publish_workflow_version":      {"version uuid, compiled jsonb = null", "jsonb"},
		"workflow_versions_list":        {"definition uuid", "jsonb"},
		"workflow_version_get":          {"version uuid", "jsonb"},
		"workflow_start_target":         {"definition uuid", "jsonb"},
		"save_workflow_trigger":         {"definition uuid, kind text, config jsonb = '{}', enabled boolean = true, trigger uuid = null", "jsonb"},
		"workflow_triggers_list":        {"definition uuid", "jsonb"},
		"remove_workflow_trigger":       {"trigger uuid", "boolean"},
		"rotate_workflow_webhook_token": {"trigger uuid", "text"},
		"workflow_webhook_target":       {"token text", "jsonb"},
		"workflow_event_targets":        {"type text, tenant uuid = null", "jsonb"},
		"save_workflow_credential":      {"tenant uuid, kind text, name text, ref jsonb, scopes text[] = '{}'", "jsonb"},
		"workflow_credentials_list":     {"tenant uuid = null", "jsonb"},
		"workflow_credential_get":       {"credential uuid", "jsonb"},
		"remove_workflow_credential":    {"credential uuid", "jsonb"},
		"sync_workflow_steps":           {"steps jsonb", "integer"},
		"workflow_steps_list":           {"", "jsonb"},
		"record_workflow_node_run":      {"run text, node text, status text, attempt integer = null, output jsonb = null, error text = null", "boolean"},
		"workflow_node_runs_list":       {"run text", "jsonb"},
		"save_workflow_alert":           {"definition uuid, on_event text, channel jsonb = '{}', threshold interval = null, alert uuid = null", "jsonb"},
		"workflow_alerts_list":          {"definition uuid", "jsonb"},
		"remove_workflow_alert":         {"alert uuid", "boolean"},
		"workflow_runs_alert":           {"", "trigger"},
		"check_workflow_alerts":         {"batch integer = 100", "integer"},
	} {
		name = "better_supabase." + name
		if _, dup := wantSignatures[name]; dup {
			panic("signature listed twice: " + name)
		}
		wantSignatures[name] = sig
	}
	mayExecute["authenticated"] = append(mayExecute["authenticated"], builderForMembers...)
}

const (
	builderTenantA = "a0000000-0000-4000-8000-00000000000a"
	builderTenantB = "b0000000-0000-4000-8000-00000000000b"
	builderReader  = "33333333-3333-4333-8333-333333333333" // workflow.read in tenant A
	builderActor   = "22222222-2222-4222-8222-222222222222" // no permission; the actor of one run
)

// builderCall runs one statement in a transaction of its own as role (with
// the claims PostgREST would set; sub a user's id or ""; role "" stays the
// installer), and gives its single value as JSON text, or the error.
func builderCall(t *testing.T, conn *pgx.Conn, role, sub, sql string, args ...any) (string, error) {
	t.Helper()
	ctx := context.Background()
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	claims := `{"role":"` + role + `"}`
	if sub != "" {
		claims = `{"role":"` + role + `","sub":"` + sub + `"}`
	}
	if role != "" {
		if _, err := tx.Exec(ctx, "select set_config('request.jwt.claims', $1, true), set_config('role', $2, true)", claims, role); err != nil {
			t.Fatal(err)
		}
	}
	var v any
	if err := tx.QueryRow(ctx, sql, args...).Scan(&v); err != nil {
		return "", err
	}
	if err := tx.Commit(ctx); err != nil {
		return "", err
	}
	b, _ := json.Marshal(v)
	return string(b), nil
}

// builderMust is builderCall for a statement that must succeed.
func builderMust(t *testing.T, conn *pgx.Conn, role, sub, sql string, args ...any) string {
	t.Helper()
	v, err := builderCall(t, conn, role, sub, sql, args...)
	if err != nil {
		t.Fatalf("%s as %s %s: %v", sql, role, sub, err)
	}
	return v
}

func unquote(t *testing.T, v string) string {
	t.Helper()
	var s string
	if err := json.Unmarshal([]byte(v), &s); err != nil {
		t.Fatalf("%s is not a JSON string: %v", v, err)
	}
	return s
}

// builderSeed gives tenants A and B (and no tenant) a definition each,
// with a published version, a webhook trigger with a token, an event
// trigger, a credential and an alert, and a run of A's definition that
// the actor started, with a node run; the reader holds workflow.read in
// A. It returns A's definition, version, trigger and token.
func builderSeed(t *testing.T, conn *pgx.Conn) (def, version, trigger, token string) {
	t.Helper()
	ctx := context.Background()
	if _, err := conn.Exec(ctx, `insert into auth.users (id) values ($1), ($2) on conflict do nothing`, builderReader, builderActor); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `insert into better_supabase.tenant_permissions (tenant_id, user_id, permission) values ($1, $2, 'workflow.read')`,
		builderTenantA, builderReader); err != nil {
		t.Fatal(err)
	}
	builderMust(t, conn, "service_role", "", `select better_supabase.sync_workflow_steps('{"crm.lookup": {"title": "Look up"}}')`)
	graph := `{"nodes": [{"id": "start", "kind": "trigger"}, {"id": "s", "kind": "step", "step": "crm.lookup"}], "edges": [{"id": "e", "source": "start", "target": "s"}]}`
	for _, tenant := range []any{builderTenantA, builderTenantB, nil} {
		d := unquote(t, builderMust(t, conn, "service_role", "", `select better_supabase.save_workflow_definition($1::uuid, 'onboard', 'Onboard') ->> 'id'`, tenant))
		v := unquote(t, builderMust(t, conn, "service_role", "", `select better_supabase.save_workflow_draft($1::uuid, $2::jsonb) ->> 'id'`, d, graph))
		builderMust(t, conn, "service_role", "", `select better_supabase.publish_workflow_version($1::uuid, '{"engine": "world"}')`, v)
		tr := unquote(t, builderMust(t, conn, "service_role", "", `select better_supabase.save_workflow_trigger($1::uuid, 'webhook') ->> 'id'`, d))
		tok := unquote(t, builderMust(t, conn, "service_role", "", `select better_supabase.rotate_workflow_webhook_token($1::uuid)`, tr))
		builderMust(t, conn, "service_role", "", `select better_supabase.save_workflow_trigger($1::uuid, 'event', '{"type": "user.created"}')`, d)
		ref := `{"provider": "vault", "secret": "crm"}`
		if tenant != nil {
			ref = `{"provider": "vault", "secret": "crm", "tenant": "` + tenant.(string) + `"}`
		}
		builderMust(t, conn, "service_role", "", `select better_supabase.save_workflow_credential($1::uuid, 'crm', 'CRM', $2::jsonb)`, tenant, ref)
		builderMust(t, conn, "service_role", "", `select better_supabase.save_workflow_alert($1::uuid, 'failed')`, d)
		if tenant == builderTenantA {
			def, version, trigger, token = d, v, tr, tok
		}
	}
	builderMust(t, conn, "service_role", "", `select better_supabase.record_workflow_run('world', 'wrun_a', 'onboard', 'failed', tenant => $1::uuid, actor => $2::uuid,
		attributes => jsonb_build_object('bs.definition', $3::text))`, builderTenantB, builderActor, def)
	builderMust(t, conn, "service_role", "", `select better_supabase.record_workflow_node_run('wrun_a', 's', 'failed', error => 'boom')`)
	return def, version, trigger, token
}

// builderState is what the module holds, for comparing before and after.
func builderState(t *testing.T, conn *pgx.Conn) string {
	t.Helper()
	var s string
	if err := conn.QueryRow(context.Background(), `select jsonb_build_object(
		'definitions', (select jsonb_agg(to_jsonb(d) order by d.id) from better_supabase.workflow_definitions d),
		'versions', (select jsonb_agg(to_jsonb(v) order by v.id) from better_supabase.workflow_versions v),
		'triggers', (select jsonb_agg(to_jsonb(x) order by x.id) from better_supabase.workflow_triggers x),
		'tokens', (select jsonb_agg(to_jsonb(k) order by k.trigger_id) from better_supabase.workflow_webhook_tokens k),
		'credentials', (select jsonb_agg(to_jsonb(c) order by c.id) from better_supabase.workflow_credentials c),
		'steps', (select jsonb_agg(to_jsonb(s) order by s.name) from better_supabase.workflow_step_library s),
		'nodes', (select jsonb_agg(to_jsonb(n) order by n.run_id, n.node_id) from better_supabase.workflow_node_runs n),
		'alerts', (select jsonb_agg(to_jsonb(a) order by a.id) from better_supabase.workflow_alerts a),
		'fires', (select jsonb_agg(to_jsonb(f) order by f.alert_id, f.run_id) from better_supabase.workflow_alert_fires f))::text`).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// Installing the module again changes nothing: Install leaves it alone
// (not a catalog row moves), and the printed SQL, run twice over a
// database that holds builder data, keeps every row and the tokens
// working.
func TestBuilderInstallTwiceChangesNothing(t *testing.T) {
	s, db := pgtest.EmptyDB(t)
	conn := pgtest.Conn(t, s, db)
	ctx := context.Background()
	rep, err := blocks.Install(ctx, conn, "workflow-builder")
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(rep); got["workflow-builder"] != blocks.Installed || got["workflows"] != blocks.Installed || got["access"] != blocks.Installed {
		t.Fatalf("first install: %v, want workflow-builder, workflows and access installed", got)
	}
	_, _, _, token := builderSeed(t, conn)
	catalog, state := catalogSnapshot(t, conn), builderState(t, conn)

	rep, err = blocks.Install(ctx, conn, "workflow-builder")
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(rep); got["workflow-builder"] != blocks.Already || rep.Changed() {
		t.Errorf("second install: %v (changed %v), want workflow-builder already installed and nothing changed", got, rep.Changed())
	}
	if diff := diffLines(catalog, catalogSnapshot(t, conn)); diff != "" {
		t.Errorf("installing twice changed the catalog:\n%s", diff)
	}

	sql, err := blocks.SQL("workflow-builder")
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("the printed SQL over an installed module: %v", err)
		}
	}
	if got := builderState(t, conn); got != state {
		t.Errorf("the printed SQL changed the module's rows\nbefore %s\nafter  %s", state, got)
	}
	if got := builderMust(t, conn, "service_role", "", `select better_supabase.workflow_webhook_target($1) -> 'tenant'`, token); got != `"`+builderTenantA+`"` {
		t.Errorf("the token resolves to tenant %s after reinstalling, want %s", got, builderTenantA)
	}
}

// What a signed-in user sees: with workflow.read in a tenant, that
// tenant's definitions, versions, triggers, credentials and alerts, and
// nothing of another tenant's or of what has no tenant; never a webhook
// token or an alert fire; the node runs of the runs it may read (its own
// run, here). Without a permission: the step library and its own run's
// nodes only. anon: nothing at all. Neither may call the server's
// functions or write a table.
func TestBuilderWhatAPlainUserSees(t *testing.T) {
	s, db := pgtest.DB(t)
	conn := pgtest.Conn(t, s, db)
	def, version, trigger, token := builderSeed(t, conn)

	type check struct {
		sql  string
		want string // JSON, or "42501" for a refusal (no privilege)
	}
	// The statements name A's definition, version, trigger and token as
	// :def, :ver, :trg and :tok (uuids and hex digits, quoted as they are).
	fill := strings.NewReplacer(":def", "'"+def+"'::uuid", ":ver", "'"+version+"'::uuid", ":trg", "'"+trigger+"'::uuid", ":tok", "'"+token+"'")
	run := func(t *testing.T, role, sub string, checks []check) {
		t.Helper()
		for _, c := range checks {
			got, err := builderCall(t, conn, role, sub, fill.Replace(c.sql))
			switch {
			case c.want == "42501":
				wantRefused(t, c.sql, err, "42501", "")
			case err != nil:
				t.Errorf("%s: %v, want %s", c.sql, err, c.want)
			case !sameJSON(got, c.want):
				t.Errorf("%s: %s, want %s", c.sql, got, c.want)
			}
		}
	}
	serverOnly := []check{
		{"select better_supabase.workflow_webhook_target(:tok)", "42501"},
		{"select better_supabase.workflow_event_targets('user.created', '" + builderTenantA + "')", "42501"},
		{"select better_supabase.workflow_credential_get((select c.id from better_supabase.workflow_credentials c limit 1))", "42501"},
		{"select better_supabase.sync_workflow_steps('{}')", "42501"},
		{"select better_supabase.record_workflow_node_run('wrun_a', 'x', 'running')", "42501"},
		{"select better_supabase.check_workflow_alerts()", "42501"},
		{"select count(*) from better_supabase.workflow_webhook_tokens", "42501"},
		{"select count(*) from better_supabase.workflow_alert_fires", "42501"},
	}
	t.Run("reader", func(t *testing.T) {
		run(t, "authenticated", builderReader, append([]check{
			{"select jsonb_agg(x -> 'tenant') from jsonb_array_elements(better_supabase.workflow_definitions_list()) x", `["` + builderTenantA + `"]`},
			{"select better_supabase.workflow_definitions_list('" + builderTenantB + "')", `[]`},
			{"select better_supabase.workflow_version_get(:ver) ->> 'status'", `"published"`},
			{"select better_supabase.workflow_version_get(:ver) -> 'compiled'", `{"engine": "world"}`},
			{"select jsonb_agg(x -> 'kind' order by x ->> 'kind') from jsonb_array_elements(better_supabase.workflow_triggers_list(:def)) x", `["event", "webhook"]`},
			{"select jsonb_agg(x -> 'tenant') from jsonb_array_elements(better_supabase.workflow_credentials_list()) x", `["` + builderTenantA + `"]`},
			{"select jsonb_array_length(better_supabase.workflow_alerts_list(:def))", `1`},
			{"select count(*) from better_supabase.workflow_versions", `1`},
			{"select count(*) from better_supabase.workflow_triggers", `2`},
			// The run is B's, and the reader holds nothing in B.
			{"select better_supabase.workflow_node_runs_list('wrun_a')", `[]`},
			{"select jsonb_array_length(better_supabase.workflow_steps_list())", `1`},
		}, serverOnly...))
		// Reading is not editing.
		_, err := builderCall(t, conn, "authenticated", builderReader, "select better_supabase.save_workflow_draft($1::uuid, '{}')", def)
		wantRefused(t, "a reader saves a draft", err, "42501", "WORKFLOW_FORBIDDEN")
		_, err = builderCall(t, conn, "authenticated", builderReader, "select better_supabase.rotate_workflow_webhook_token($1::uuid)", trigger)
		wantRefused(t, "a reader rotates a token", err, "42501", "WORKFLOW_FORBIDDEN")
		if got := builderMust(t, conn, "authenticated", builderReader, "select better_supabase.remove_workflow_definition($1::uuid)", def); got != "false" {
			t.Errorf("a reader removes a definition: %s, want false", got)
		}
	})
	t.Run("actor without permissions", func(t *testing.T) {
		run(t, "authenticated", builderActor, append([]check{
			{"select better_supabase.workflow_definitions_list()", `[]`},
			{"select better_supabase.workflow_version_get(:ver)", `null`},
			{"select better_supabase.workflow_triggers_list(:def)", `[]`},
			{"select better_supabase.workflow_credentials_list()", `[]`},
			{"select better_supabase.workflow_alerts_list(:def)", `[]`},
			{"select count(*) from better_supabase.workflow_definitions", `0`},
			{"select jsonb_agg(x -> 'node') from jsonb_array_elements(better_supabase.workflow_node_runs_list('wrun_a')) x", `["s"]`},
			{"select jsonb_array_length(better_supabase.workflow_steps_list())", `1`},
		}, serverOnly...))
		_, err := builderCall(t, conn, "authenticated", builderActor, "select better_supabase.workflow_start_target($1::uuid)", def)
		wantRefused(t, "a stranger asks for a start target", err, "42501", "WORKFLOW_FORBIDDEN")
	})
	t.Run("anon", func(t *testing.T) {
		var checks []check
		for _, f := range []string{"workflow_definitions_list()", "workflow_steps_list()", "workflow_version_get(:ver)", "validate_workflow_graph('{}')"} {
			checks = append(checks, check{"select better_supabase." + f, "42501"})
		}
		for _, table := range []string{"workflow_definitions", "workflow_versions", "workflow_step_library", "workflow_credentials"} {
			checks = append(checks, check{"select count(*) from better_supabase." + table, "42501"})
		}
		run(t, "anon", "", append(checks, serverOnly...))
	})
	// No signed-in user writes a table directly, whatever it holds.
	for _, table := range []string{"workflow_definitions", "workflow_versions", "workflow_triggers", "workflow_credentials", "workflow_step_library", "workflow_node_runs", "workflow_alerts"} {
		_, err := builderCall(t, conn, "authenticated", builderReader, "with gone as (delete from better_supabase."+table+" returning 1) select count(*) from gone")
		wantRefused(t, "a reader deletes from "+table, err, "42501", "")
	}
}

// A database that keeps pgcrypto in another schema (public here): the
// module uses it there and makes no schema extensions; the token's hash
// is pgcrypto's SHA-256 of it.
func TestBuilderUsesTheDatabasesPgcrypto(t *testing.T) {
	s, db := pgtest.EmptyDB(t)
	conn := pgtest.Conn(t, s, db)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "create extension pgcrypto with schema public"); err != nil {
		t.Fatal(err)
	}
	if _, err := blocks.Install(ctx, conn, "workflow-builder"); err != nil {
		t.Fatal(err)
	}
	if exists(t, conn, "select to_regnamespace('extensions') is not null") {
		t.Error("schema extensions was made, though the database has pgcrypto in public")
	}
	d := unquote(t, builderMust(t, conn, "service_role", "", `select better_supabase.save_workflow_definition(null, 'hook', 'Hook') ->> 'id'`))
	tr := unquote(t, builderMust(t, conn, "service_role", "", `select better_supabase.save_workflow_trigger($1::uuid, 'webhook') ->> 'id'`, d))
	token := unquote(t, builderMust(t, conn, "service_role", "", `select better_supabase.rotate_workflow_webhook_token($1::uuid)`, tr))
	if len(token) != 52 || !strings.HasPrefix(token, "wfh_") {
		t.Errorf("token %q, want wfh_ and 48 hex digits", token)
	}
	sum := sha256.Sum256([]byte(token))
	if !exists(t, conn, "select token_hash = $1 and token_hash = public.digest($2, 'sha256') from better_supabase.workflow_webhook_tokens", sum[:], token) {
		t.Error("the stored hash is not the token's SHA-256")
	}
	if got := builderMust(t, conn, "service_role", "", `select better_supabase.workflow_webhook_target($1) -> 'trigger' ->> 'id'`, token); got != `"`+tr+`"` {
		t.Errorf("the token resolves to %s, want trigger %s", got, tr)
	}
}

// Versions are immutable once they leave draft: saving opens a new draft
// and leaves the published graph alone; publishing another version
// archives it unchanged; only the compiled form is added, by the service
// role. Each publish records a workflow.published audit event.
func TestBuilderPublishedVersionsStay(t *testing.T) {
	s, db := pgtest.DB(t)
	conn := pgtest.Conn(t, s, db)
	g1 := `{"nodes": [{"id": "start", "kind": "trigger"}], "edges": []}`
	g2 := `{"nodes": [{"id": "begin", "kind": "trigger"}, {"id": "nap", "kind": "sleep"}], "edges": []}`
	d := unquote(t, builderMust(t, conn, "service_role", "", `select better_supabase.save_workflow_definition($1::uuid, 'flow', 'Flow') ->> 'id'`, builderTenantA))
	v1 := unquote(t, builderMust(t, conn, "service_role", "", `select better_supabase.save_workflow_draft($1::uuid, $2::jsonb) ->> 'id'`, d, g1))
	builderMust(t, conn, "service_role", "", `select better_supabase.publish_workflow_version($1::uuid)`, v1)
	v2 := unquote(t, builderMust(t, conn, "service_role", "", `select better_supabase.save_workflow_draft($1::uuid, $2::jsonb) ->> 'id'`, d, g2))
	if v2 == v1 {
		t.Fatal("a save after publishing wrote into the published version")
	}
	builderMust(t, conn, "service_role", "", `select better_supabase.publish_workflow_version($1::uuid, '{"engine": "x"}')`, v1)
	builderMust(t, conn, "service_role", "", `select better_supabase.publish_workflow_version($1::uuid)`, v2)
	for _, c := range []struct {
		role, sql string
		args      []any
		want      string
	}{
		{"service_role", `select better_supabase.workflow_version_get($1::uuid) - 'id' - 'definition' - 'createdAt' - 'publishedAt'`, []any{v1},
			`{"version": 1, "status": "archived", "graph": ` + g1 + `, "compiled": {"engine": "x"}, "createdBy": null}`},
		{"service_role", `select better_supabase.workflow_start_target($1::uuid) -> 'version' -> 'graph'`, []any{d}, g2},
		// The audit log is the installer's to read.
		{"", `select count(*) from better_supabase.audit_events e where e.event_type = 'workflow.published' and e.record_id in ($1, $2)`, []any{v1, v2}, `2`},
	} {
		got, err := builderCall(t, conn, c.role, "", c.sql, c.args...)
		if err != nil || !sameJSON(got, c.want) {
			t.Errorf("%s: %s (%v), want %s", c.sql, got, err, c.want)
		}
	}
}
