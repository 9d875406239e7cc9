package pgstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/builderrecords"
	"github.com/jackc/pgx/v5"
)

// BuilderRecords gives each builder-records case the workflow-builder
// block in the run's shared clone: every case makes definitions and runs
// of its own.
func (p *pgStore) BuilderRecords(context.Context) (conform.Opener[builderrecords.Records], error) {
	if err := p.missing[builderrecords.Suite.Name]; err != nil {
		return nil, err
	}
	return func(t *conform.T) (builderrecords.Records, error) {
		t.SetPrefix(p.prefix())
		return pgBuilderRecords{db: p.shared, prefix: t.Prefix()}, nil
	}, nil
}

// pgBuilderRecords calls the workflow-builder block's functions as the
// service role (and, for PublishAsMember, as a signed-in member); runs
// are recorded through the workflows block's record_workflow_run.
type pgBuilderRecords struct {
	db     *pgDB
	prefix string
}

// call runs sql (one jsonb value) as the service role and decodes it into
// dst.
func (b pgBuilderRecords) call(ctx context.Context, dst any, sql string, args ...any) error {
	return b.db.with(ctx, func(c *pgx.Conn) error {
		_, err := jsonInto(ctx, c, dst, sql, args...)
		return err
	})
}

func (b pgBuilderRecords) NewDefinition(ctx context.Context) (string, error) {
	var d struct {
		ID string `json:"id"`
	}
	slug := "conform-" + conform.NewUUID()
	err := b.call(ctx, &d, "select better_supabase.save_workflow_definition(null, $1, $2)", slug, "conformance "+b.prefix)
	return d.ID, err
}

func (b pgBuilderRecords) SaveDraft(ctx context.Context, definition string, graph json.RawMessage) (builderrecords.Version, error) {
	var v builderrecords.Version
	err := b.call(ctx, &v, "select better_supabase.save_workflow_draft($1::uuid, $2::jsonb)", definition, string(graph))
	return v, err
}

func jsonArg(v json.RawMessage) any {
	if len(v) == 0 {
		return nil
	}
	return string(v)
}

func (b pgBuilderRecords) Publish(ctx context.Context, version string, compiled json.RawMessage) (builderrecords.Version, error) {
	var v builderrecords.Version
	err := b.call(ctx, &v, "select better_supabase.publish_workflow_version($1::uuid, $2::jsonb)", version, jsonArg(compiled))
	return v, err
}

func (b pgBuilderRecords) Version(ctx context.Context, id string) (builderrecords.Version, error) {
	var v builderrecords.Version
	err := b.call(ctx, &v, "select better_supabase.workflow_version_get($1::uuid)", id)
	if err == nil && v.ID == "" {
		err = fmt.Errorf("no workflow version %s", id)
	}
	return v, err
}

func (b pgBuilderRecords) StartTarget(ctx context.Context, definition string) (builderrecords.Version, error) {
	var target struct {
		Version builderrecords.Version `json:"version"`
	}
	err := b.call(ctx, &target, "select better_supabase.workflow_start_target($1::uuid)", definition)
	return target.Version, err
}

func (b pgBuilderRecords) NewTrigger(ctx context.Context, definition, kind string) (string, error) {
	var tr struct {
		ID string `json:"id"`
	}
	err := b.call(ctx, &tr, "select better_supabase.save_workflow_trigger($1::uuid, $2, '{}'::jsonb, true)", definition, kind)
	return tr.ID, err
}

func (b pgBuilderRecords) EnableTrigger(ctx context.Context, definition, trigger string, on bool) error {
	var tr json.RawMessage
	return b.call(ctx, &tr, "select better_supabase.save_workflow_trigger($1::uuid, 'webhook', '{}'::jsonb, $2, $3::uuid)", definition, on, trigger)
}

func (b pgBuilderRecords) RotateToken(ctx context.Context, trigger string) (string, error) {
	var tok string
	err := b.db.with(ctx, func(c *pgx.Conn) error {
		return scalar(ctx, c, &tok, "select better_supabase.rotate_workflow_webhook_token($1::uuid)", trigger)
	})
	return tok, err
}

func (b pgBuilderRecords) WebhookTarget(ctx context.Context, token string) (string, error) {
	var target struct {
		Trigger struct {
			ID string `json:"id"`
		} `json:"trigger"`
	}
	err := b.call(ctx, &target, "select better_supabase.workflow_webhook_target($1)", token)
	return target.Trigger.ID, err
}

// AtRest is every row of the triggers and of their tokens, as a reader of
// the tables sees them (the hash as hex).
func (b pgBuilderRecords) AtRest(ctx context.Context) (json.RawMessage, error) {
	var rest json.RawMessage
	err := b.db.admin(ctx, func(c *pgx.Conn) error {
		return scalar(ctx, c, &rest, `select pg_catalog.jsonb_build_object(
			'triggers', (select coalesce(pg_catalog.jsonb_agg(pg_catalog.to_jsonb(t)), '[]') from better_supabase.workflow_triggers t),
			'tokens', (select coalesce(pg_catalog.jsonb_agg(pg_catalog.to_jsonb(k)), '[]') from better_supabase.workflow_webhook_tokens k))`)
	})
	return rest, err
}

// runEngine is the engine the cases' runs are recorded under.
const runEngine = "conformance"

func (b pgBuilderRecords) NewRun(ctx context.Context, definition string) (string, error) {
	var id string
	attrs, _ := json.Marshal(map[string]string{"bs.definition": definition})
	err := b.db.with(ctx, func(c *pgx.Conn) error {
		return scalar(ctx, c, &id, `select better_supabase.record_workflow_run($1, $2, $3, 'running', null, null, $4::jsonb)::text`,
			runEngine, "builder-"+conform.NewUUID(), definition, string(attrs))
	})
	return id, err
}

func (b pgBuilderRecords) FailRun(ctx context.Context, run string) error {
	return b.db.with(ctx, func(c *pgx.Conn) error {
		var ext, def string
		if err := c.QueryRow(ctx, "select external_id, definition from better_supabase.workflow_runs where id = $1::uuid", run).Scan(&ext, &def); err != nil {
			return pgErr(err)
		}
		var id string
		return scalar(ctx, c, &id, `select better_supabase.record_workflow_run($1, $2, $3, 'failed', null, null, '{}'::jsonb, 'the step failed')::text`, runEngine, ext, def)
	})
}

func (b pgBuilderRecords) AgeRun(ctx context.Context, run string, d time.Duration) error {
	return b.db.ageRows(ctx, "workflow_runs", "id = $1::uuid", run, d)
}

func (b pgBuilderRecords) RecordNode(ctx context.Context, run, node, status string, attempt int) (bool, error) {
	var ok bool
	var att any
	if attempt > 0 {
		att = attempt
	}
	err := b.db.with(ctx, func(c *pgx.Conn) error {
		return scalar(ctx, c, &ok, "select better_supabase.record_workflow_node_run($1, $2, $3, $4::integer)", run, node, status, att)
	})
	return ok, err
}

func (b pgBuilderRecords) NodeRuns(ctx context.Context, run string) ([]builderrecords.NodeRun, error) {
	out := []builderrecords.NodeRun{}
	err := b.call(ctx, &out, "select better_supabase.workflow_node_runs_list($1)", run)
	return out, err
}

func (b pgBuilderRecords) NewAlert(ctx context.Context, definition, onEvent string, threshold time.Duration) (string, error) {
	var a struct {
		ID string `json:"id"`
	}
	err := b.call(ctx, &a, "select better_supabase.save_workflow_alert($1::uuid, $2, '{}'::jsonb, $3::float8 * interval '1 second')",
		definition, onEvent, seconds(threshold))
	return a.ID, err
}

func (b pgBuilderRecords) CheckAlerts(ctx context.Context) (int, error) {
	var n int
	err := b.db.with(ctx, func(c *pgx.Conn) error {
		return scalar(ctx, c, &n, "select better_supabase.check_workflow_alerts(null)")
	})
	return n, err
}

// Fires reads the alert's fires from the block's table, as the server.
func (b pgBuilderRecords) Fires(ctx context.Context, alert string) ([]time.Time, error) {
	var out []time.Time
	err := b.db.with(ctx, func(c *pgx.Conn) error {
		rows, err := c.Query(ctx, "select fired_at from better_supabase.workflow_alert_fires where alert_id = $1::uuid order by fired_at, run_id", alert)
		if err != nil {
			return pgErr(err)
		}
		out, err = pgx.CollectRows(rows, pgx.RowTo[time.Time])
		return pgErr(err)
	})
	return out, err
}

// PublishAsMember makes a definition in a tenant of its own, grants a new
// user workflow.publish there, saves a draft as the server and publishes
// it as that user with compiled.
func (b pgBuilderRecords) PublishAsMember(ctx context.Context, compiled json.RawMessage) (string, error) {
	tenant, user := conform.NewUUID(), conform.NewUUID()
	if err := (pgRegistry{db: b.db}).Grant(ctx, user, tenant, "workflow.publish"); err != nil {
		return "", err
	}
	var d struct {
		ID string `json:"id"`
	}
	if err := b.call(ctx, &d, "select better_supabase.save_workflow_definition($1::uuid, $2, $3)", tenant, "conform-"+conform.NewUUID(), "conformance "+b.prefix); err != nil {
		return "", err
	}
	v, err := b.SaveDraft(ctx, d.ID, json.RawMessage(`{"nodes": [{"id": "start", "kind": "trigger"}], "edges": []}`))
	if err != nil {
		return "", err
	}
	return v.ID, b.db.as(ctx, conform.Caller{Role: conform.RoleAuthenticated, Sub: user}, func(tx pgx.Tx) error {
		var out json.RawMessage
		_, err := jsonInto(ctx, tx, &out, "select better_supabase.publish_workflow_version($1::uuid, $2::jsonb)", v.ID, jsonArg(compiled))
		return err
	})
}
