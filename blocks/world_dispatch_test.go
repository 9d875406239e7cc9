package blocks_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"testing"

	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/internal/pgserver/pgtest"
	"github.com/jackc/pgx/v5"
)

// A flow route verifies each delivery the way better-supabase's does: the
// HMAC-SHA256, under the delivery secret, of "<t>.<x-bs-job>.<the body as
// sent>". The probes pin the header's shape; this checks that the
// signature verifies (and that another secret or body does not).
func TestDispatchSignatureVerifies(t *testing.T) {
	s, db := pgtest.EmptyDB(t)
	conn := pgtest.Conn(t, s, db)
	ctx := context.Background()
	if _, err := blocks.Install(ctx, conn, "workflow-sdk-world"); err != nil {
		t.Fatal(err)
	}
	const secret = "whsec_ünïcode secret"
	if _, err := conn.Exec(ctx, "select vault.create_secret('https://flow.example/deliver', 'workflow_flow_url')"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "select vault.create_secret($1, 'workflow_delivery_secret')", secret); err != nil {
		t.Fatal(err)
	}
	payloads := []string{`{"runId": "wrun_1", "nested": {"b": [1, 2.5, null], "a": "ä\"q"}}`, `[]`, `"text"`}
	for _, p := range payloads {
		if _, err := conn.Exec(ctx, "select better_supabase.enqueue_job('workflow_deliveries', $1::jsonb)", p); err != nil {
			t.Fatal(err)
		}
	}
	var sent int
	if err := asService(ctx, conn, "select better_supabase.dispatch_workflow_deliveries()", &sent); err != nil {
		t.Fatal(err)
	}
	if sent != len(payloads) {
		t.Fatalf("dispatched %d, want %d", sent, len(payloads))
	}
	rows, err := conn.Query(ctx, `select body::text, headers ->> 'x-bs-job', headers ->> 'x-bs-signature' from net._standin_requests order by id`)
	if err != nil {
		t.Fatal(err)
	}
	type request struct{ Body, Job, Signature string }
	got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[request])
	if err != nil {
		t.Fatal(err)
	}
	sigRe := regexp.MustCompile(`^t=([0-9]+),v1=([0-9a-f]{64})$`)
	sign := func(key, t, job, body string) string {
		m := hmac.New(sha256.New, []byte(key))
		m.Write([]byte(t + "." + job + "." + body))
		return hex.EncodeToString(m.Sum(nil))
	}
	for i, r := range got {
		var sentBody, enqueued any
		if err := json.Unmarshal([]byte(r.Body), &sentBody); err != nil {
			t.Fatal(err)
		}
		json.Unmarshal([]byte(payloads[i]), &enqueued)
		if !jsonEqual(sentBody, enqueued) {
			t.Errorf("request %d posts %s, want the payload %s", i+1, r.Body, payloads[i])
		}
		m := sigRe.FindStringSubmatch(r.Signature)
		if m == nil {
			t.Fatalf("request %d: x-bs-signature %q", i+1, r.Signature)
		}
		if want := sign(secret, m[1], r.Job, r.Body); m[2] != want {
			t.Errorf("request %d: v1 %s does not verify (want %s over %q)", i+1, m[2], want, m[1]+"."+r.Job+"."+r.Body)
		}
		if m[2] == sign("another secret", m[1], r.Job, r.Body) || m[2] == sign(secret, m[1], r.Job, r.Body+" ") {
			t.Errorf("request %d: the signature verifies with another secret or body", i+1)
		}
	}
}

// The mirror's tenant check asks can_user, which only the service role may
// call directly: a World writing as the service role still has its runs'
// tenants checked, since the trigger runs as its owner.
func TestWorldMirrorChecksTheActorAsItsOwner(t *testing.T) {
	s, db := pgtest.EmptyDB(t)
	conn := pgtest.Conn(t, s, db)
	ctx := context.Background()
	if _, err := blocks.Install(ctx, conn, "workflow-sdk-world"); err != nil {
		t.Fatal(err)
	}
	const actor, tenant = "11111111-1111-4111-8111-111111111111", "a0000000-0000-4000-8000-00000000000a"
	if _, err := conn.Exec(ctx, "insert into auth.users (id) values ($1)", actor); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "insert into better_supabase.tenant_permissions (tenant_id, user_id, permission) values ($1, $2, 'workflow.run')", tenant, actor); err != nil {
		t.Fatal(err)
	}
	// The same insert the World makes, as the service role, with the
	// attribute keys uppercase and without hyphens (still uuids).
	var n int
	if err := asService(ctx, conn, `with i as (insert into workflow.workflow_runs (id, deployment_id, status, name, attributes)
		values ('wrun_1', 'dpl', 'pending', 'wf', jsonb_build_object('bs.tenant', upper('`+tenant+`'), 'bs.actor', replace('`+actor+`', '-', ''))) returning 1)
		select count(*) from i`, &n); err != nil {
		t.Fatal(err)
	}
	var gotTenant, gotActor string
	if err := conn.QueryRow(ctx, `select r.tenant_id::text, r.actor_id::text from better_supabase.workflow_runs r
		where r.engine = 'workflow-sdk' and r.external_id = 'wrun_1'`).Scan(&gotTenant, &gotActor); err != nil {
		t.Fatal(err)
	}
	if gotTenant != tenant || gotActor != actor {
		t.Errorf("mirrored tenant %s, actor %s; want %s, %s", gotTenant, gotActor, tenant, actor)
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// A World run whose bs.actor is a uuid no user has cannot be mirrored (the
// registry's actors are users), so the World's own insert fails with the
// foreign key's error and leaves nothing behind; docs/blocks.md lists it.
func TestWorldMirrorRefusesAnUnknownActor(t *testing.T) {
	s, db := pgtest.EmptyDB(t)
	conn := pgtest.Conn(t, s, db)
	ctx := context.Background()
	if _, err := blocks.Install(ctx, conn, "workflow-sdk-world"); err != nil {
		t.Fatal(err)
	}
	var n int
	err := asService(ctx, conn, `with i as (insert into workflow.workflow_runs (id, deployment_id, status, name, attributes)
		values ('wrun_1', 'dpl', 'pending', 'wf', '{"bs.actor": "dead0000-0000-4000-8000-000000000000"}') returning 1)
		select count(*) from i`, &n)
	if pgCode(err) != "23503" {
		t.Fatalf("insert with an unknown actor: %v, want 23503", err)
	}
	if exists(t, conn, "select exists (select from workflow.workflow_runs) or exists (select from better_supabase.workflow_runs)") {
		t.Error("the refused insert left a row")
	}
}
