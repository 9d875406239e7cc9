package pgstore

import (
	"context"
	"encoding/json"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/registry"
	"github.com/jackc/pgx/v5"
)

// pgRegistry is the workflows block's run registry, called as the
// service role.
type pgRegistry struct{ db *pgDB }

func (r pgRegistry) Record(ctx context.Context, in registry.Record) (string, error) {
	attrs := in.Attributes
	if attrs == nil {
		attrs = map[string]any{}
	}
	aj, err := json.Marshal(attrs)
	if err != nil {
		return "", err
	}
	var id string
	err = r.db.with(ctx, func(c *pgx.Conn) error {
		// An actor is a user of the project (a foreign key to auth.users),
		// as a stream's owner is.
		if in.Actor != "" {
			if _, err := c.Exec(ctx, "insert into auth.users (id) values ($1) on conflict do nothing", in.Actor); err != nil {
				return pgErr(err)
			}
		}
		return scalar(ctx, c, &id, `select better_supabase.record_workflow_run($1, $2, $3, $4, $5::uuid, $6::uuid, $7::jsonb, $8, $9::timestamptz, $10::timestamptz)::text`,
			in.Engine, in.ExternalID, in.Definition, in.Status, nullable(in.Tenant), nullable(in.Actor), string(aj), in.Error, in.StartedAt, in.CompletedAt)
	})
	return id, err
}

// The registry's reads and its cancel request are the same SQL for the
// service role and for any other caller; only the way in differs. in runs
// fn on a query path: a plain connection (the service role), or a
// transaction that takes a caller's claims and role.
type runReads struct {
	in func(ctx context.Context, fn func(q queryer) error) error
}

func (r runReads) one(ctx context.Context, sql, ref string) (*registry.Run, error) {
	var run registry.Run
	var found bool
	err := r.in(ctx, func(q queryer) error {
		var err error
		found, err = jsonInto(ctx, q, &run, sql, ref)
		return err
	})
	if err != nil || !found {
		return nil, err
	}
	if run.Attributes == nil {
		run.Attributes = map[string]any{}
	}
	return &run, nil
}

func (r runReads) Get(ctx context.Context, ref string) (*registry.Run, error) {
	return r.one(ctx, "select better_supabase.workflow_run_get($1)", ref)
}

func (r runReads) RequestCancel(ctx context.Context, ref string) (*registry.Run, error) {
	return r.one(ctx, "select better_supabase.request_workflow_cancel($1)", ref)
}

func (r runReads) List(ctx context.Context, f registry.Filter) ([]registry.Run, error) {
	limit := f.Max
	if limit == 0 {
		limit = 50
	}
	out := []registry.Run{}
	err := r.in(ctx, func(q queryer) error {
		_, err := jsonInto(ctx, q, &out, "select better_supabase.workflow_runs_list($1::uuid, $2, $3, $4, $5::timestamptz)",
			nullable(f.Tenant), nullable(f.Definition), nullable(f.Status), limit, f.Before)
		return err
	})
	for i := range out {
		if out[i].Attributes == nil {
			out[i].Attributes = map[string]any{}
		}
	}
	return out, err
}

// reads are the registry's reads as the service role.
func (r pgRegistry) reads() runReads {
	return runReads{in: func(ctx context.Context, fn func(queryer) error) error {
		return r.db.with(ctx, func(c *pgx.Conn) error { return fn(c) })
	}}
}

func (r pgRegistry) Get(ctx context.Context, ref string) (*registry.Run, error) {
	return r.reads().Get(ctx, ref)
}

func (r pgRegistry) RequestCancel(ctx context.Context, ref string) (*registry.Run, error) {
	return r.reads().RequestCancel(ctx, ref)
}

func (r pgRegistry) List(ctx context.Context, f registry.Filter) ([]registry.Run, error) {
	return r.reads().List(ctx, f)
}

func (r pgRegistry) Purge(ctx context.Context, olderThan time.Duration, batch int) (int, error) {
	if batch <= 0 {
		batch = 1000
	}
	var n int
	err := r.db.with(ctx, func(c *pgx.Conn) error {
		return scalar(ctx, c, &n, "select better_supabase.purge_workflow_runs(coalesce($1::float8 * interval '1 second', interval '30 days'), $2)", seconds(olderThan), batch)
	})
	return n, err
}

// Grant gives user permission in tenant through the access module's
// table (the user must exist, as in the project's auth.users). Where the
// database decides permissions with an access module of its own there is
// no such table, and Grant fails with conform.ErrNoGrants.
func (r pgRegistry) Grant(ctx context.Context, user, tenant, permission string) error {
	return r.db.admin(ctx, func(c *pgx.Conn) error {
		var table bool
		if err := c.QueryRow(ctx, "select pg_catalog.to_regclass('better_supabase.tenant_permissions') is not null").Scan(&table); err != nil {
			return pgErr(err)
		}
		if !table {
			return conform.ErrNoGrants
		}
		_, err := c.Exec(ctx, `insert into auth.users (id) values ($1) on conflict do nothing;`, user)
		if err == nil {
			_, err = c.Exec(ctx, `insert into better_supabase.tenant_permissions (tenant_id, user_id, permission)
				values ($1, $2, $3) on conflict do nothing`, tenant, user, permission)
		}
		return pgErr(err)
	})
}

// As returns the registry as caller c sees it: every call in a
// transaction that takes c's claims and role.
func (r pgRegistry) As(c conform.Caller) registry.View {
	return runReads{in: func(ctx context.Context, fn func(queryer) error) error {
		return r.db.as(ctx, c, func(tx pgx.Tx) error { return fn(tx) })
	}}
}

func (r pgRegistry) AgeRun(ctx context.Context, id string, d time.Duration) error {
	return r.db.ageRows(ctx, "workflow_runs", "id = $1::uuid", id, d)
}

// RunRegistry runs the registry cases against the workflows block's SQL
// functions, in the run's shared clone or, for a case that purges, a
// database no other running case uses; time passes for a run by shifting its timestamps.
func (p *pgStore) RunRegistry(context.Context) (conform.Opener[registry.Subject], error) {
	if err := p.missing[registry.Suite.Name]; err != nil {
		return nil, err
	}
	return func(t *conform.T) (registry.Subject, error) {
		db, err := p.caseDB(t)
		if err != nil {
			return registry.Subject{}, err
		}
		t.SetPrefix(p.prefix())
		reg := pgRegistry{db: db}
		return registry.Subject{Registry: reg, Age: reg.AgeRun}, nil
	}, nil
}
