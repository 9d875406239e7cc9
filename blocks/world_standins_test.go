package blocks_test

import (
	"context"
	"slices"
	"testing"

	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/internal/pgserver/pgtest"
	"github.com/jackc/pgx/v5"
)

// A database with a jobs module and pg_net of its own: the two functions
// the World's dispatcher calls, writing to tables of their own.
const theirJobsAndNet = `
	create schema if not exists better_supabase;
	create table public.their_jobs (id bigint generated always as identity primary key, queue text not null,
		payload jsonb, claims integer not null default 0);
	create function better_supabase.enqueue_job(queue text, payload jsonb default '{}', delay integer default 0,
		max_attempts integer default 5, dedupe_key text default null, dedupe_running boolean default true)
	returns bigint language sql as $$
		insert into public.their_jobs (queue, payload) values (enqueue_job.queue, enqueue_job.payload) returning id
	$$;
	create function better_supabase.claim_jobs(queue text, lease integer default 300, batch integer default 1)
	returns table (id bigint, attempts integer, enqueued_at timestamptz, visible_until timestamptz, message jsonb)
	language sql as $$
		update public.their_jobs j set claims = j.claims + 1
		where j.id in (select k.id from public.their_jobs k where k.queue = claim_jobs.queue and k.claims = 0
		               order by k.id limit claim_jobs.batch)
		returning j.id, j.claims, now(), now(), jsonb_build_object('payload', j.payload, 'theirs', true)
	$$;
	create schema net;
	create table net.their_requests (id bigint generated always as identity primary key, url text, body jsonb, headers jsonb);
	create function net.http_post(url text, body jsonb default '{}', params jsonb default '{}',
		headers jsonb default '{}', timeout_milliseconds integer default 5000)
	returns bigint language sql as $$
		insert into net.their_requests (url, body, headers) values (http_post.url, http_post.body, http_post.headers) returning id
	$$;`

// theirDefinitions fingerprints the database's own functions, which the
// stand-ins must leave as they are.
const theirDefinitions = `
	select string_agg(p.oid::regprocedure::text || ' ' || md5(pg_get_functiondef(p.oid)), ', ' order by 1)
	from pg_proc p
	where p.oid in ('better_supabase.enqueue_job(text,jsonb,integer,integer,text,boolean)'::regprocedure,
	                'better_supabase.claim_jobs(text,integer,integer)'::regprocedure,
	                'net.http_post(text,jsonb,jsonb,jsonb,integer)'::regprocedure)`

// Where the database has a jobs module and pg_net of its own, the jobs and
// pg-net stand-ins change nothing and are not recorded, by Install and by
// the printed SQL alike, and the World's dispatcher goes through the
// database's own functions.
func TestWorldStandInsKeepTheDatabasesOwn(t *testing.T) {
	check := func(t *testing.T, conn *pgx.Conn, before string) {
		t.Helper()
		ctx := context.Background()
		var after string
		var jobsTable, netTable, jobsRecorded, netRecorded, world bool
		if err := conn.QueryRow(ctx, theirDefinitions).Scan(&after); err != nil {
			t.Fatal(err)
		}
		if after != before {
			t.Errorf("the database's own functions changed:\n before %s\n after  %s", before, after)
		}
		if err := conn.QueryRow(ctx, `select to_regclass('better_supabase._standin_jobs') is not null,
			to_regclass('net._standin_requests') is not null,
			exists (select from better_supabase.modules where name = 'jobs'),
			exists (select from better_supabase.modules where name = 'pg-net'),
			exists (select from better_supabase.modules where name = 'workflow-sdk-world')`).Scan(&jobsTable, &netTable, &jobsRecorded, &netRecorded, &world); err != nil {
			t.Fatal(err)
		}
		if jobsTable || netTable || jobsRecorded || netRecorded || !world {
			t.Errorf("stand-in tables made (jobs %v, requests %v), stand-ins recorded (jobs %v, pg-net %v), world recorded %v; want false, false, false, false, true",
				jobsTable, netTable, jobsRecorded, netRecorded, world)
		}

		// The dispatcher claims through their claim_jobs and posts through
		// their http_post.
		if _, err := conn.Exec(ctx, `select vault.create_secret('https://flow.example/deliver', 'workflow_flow_url');
			select vault.create_secret('whsec_theirs', 'workflow_delivery_secret');
			select better_supabase.enqueue_job('workflow_deliveries', '{"n": 1}'::jsonb)`); err != nil {
			t.Fatal(err)
		}
		var sent int
		if err := asService(ctx, conn, "select better_supabase.dispatch_workflow_deliveries()", &sent); err != nil {
			t.Fatal(err)
		}
		var url, job, body string
		if err := conn.QueryRow(ctx, `select url, headers ->> 'x-bs-job', body::text from net.their_requests`).Scan(&url, &job, &body); err != nil {
			t.Fatal(err)
		}
		if sent != 1 || url != "https://flow.example/deliver" || job != "workflow_deliveries:1:1" || body != `{"n": 1}` {
			t.Errorf("dispatched %d: url %q, x-bs-job %q, body %s; want 1, the flow URL, workflow_deliveries:1:1, {\"n\": 1}", sent, url, job, body)
		}
	}
	t.Run("install", func(t *testing.T) {
		s, db := pgtest.EmptyDB(t)
		conn := pgtest.Conn(t, s, db)
		ctx := context.Background()
		if _, err := conn.Exec(ctx, theirJobsAndNet); err != nil {
			t.Fatal(err)
		}
		var before string
		if err := conn.QueryRow(ctx, theirDefinitions).Scan(&before); err != nil {
			t.Fatal(err)
		}
		rep, err := blocks.Install(ctx, conn, "workflow-sdk-world")
		if err != nil {
			t.Fatal(err)
		}
		got := actions(rep)
		if got[blocks.JobsModule] != blocks.Skipped || got[blocks.PgNetModule] != blocks.Skipped || got["workflow-sdk-world"] != blocks.Installed {
			t.Errorf("actions %v, want jobs and pg-net skipped, workflow-sdk-world installed", got)
		}
		// Installing again finds them as they were.
		rep, err = blocks.Install(ctx, conn, "workflow-sdk-world")
		if err != nil {
			t.Fatal(err)
		}
		got = actions(rep)
		if got[blocks.JobsModule] != blocks.Skipped || got[blocks.PgNetModule] != blocks.Skipped || got["workflow-sdk-world"] != blocks.Already {
			t.Errorf("second install: actions %v, want jobs and pg-net skipped, workflow-sdk-world already", got)
		}
		check(t, conn, before)
	})
	t.Run("printed SQL", func(t *testing.T) {
		s, db := pgtest.EmptyDB(t)
		conn := pgtest.Conn(t, s, db)
		ctx := context.Background()
		if _, err := conn.Exec(ctx, theirJobsAndNet); err != nil {
			t.Fatal(err)
		}
		var before string
		if err := conn.QueryRow(ctx, theirDefinitions).Scan(&before); err != nil {
			t.Fatal(err)
		}
		sql, err := blocks.SQL("workflow-sdk-world")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
		check(t, conn, before)
	})
}

// A database with only one of the jobs functions has a jobs module of its
// own all the same: the stand-in does not complete it with a claim_jobs
// that reads a table the other function never writes.
func TestJobsStandInLeavesAHalfModuleAlone(t *testing.T) {
	s, db := pgtest.EmptyDB(t)
	conn := pgtest.Conn(t, s, db)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, `create schema better_supabase;
		create function better_supabase.enqueue_job(queue text, payload jsonb default '{}', delay integer default 0,
			max_attempts integer default 5, dedupe_key text default null, dedupe_running boolean default true)
		returns bigint language sql as $$ select 7::bigint $$;`); err != nil {
		t.Fatal(err)
	}
	rep, err := blocks.Install(ctx, conn, blocks.JobsModule)
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(rep)[blocks.JobsModule]; got != blocks.Skipped {
		t.Errorf("jobs: %q, want skipped", got)
	}
	if exists(t, conn, "select to_regprocedure('better_supabase.claim_jobs(text,integer,integer)') is not null or to_regclass('better_supabase._standin_jobs') is not null") {
		t.Error("the stand-in added claim_jobs (or its table) beside the database's own enqueue_job")
	}
}

// Where the stand-ins made the functions, installing again (or a newer
// bsadapter) may replace them: their comment marks them as the stand-ins'.
func TestWorldStandInsMarkTheirFunctions(t *testing.T) {
	s, db := pgtest.EmptyDB(t)
	conn := pgtest.Conn(t, s, db)
	ctx := context.Background()
	if _, err := blocks.Install(ctx, conn, blocks.JobsModule, blocks.PgNetModule); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.Query(ctx, `select p.oid::regprocedure::text || ' ' || coalesce(obj_description(p.oid, 'pg_proc'), '')
		from pg_proc p where p.oid in (to_regprocedure('better_supabase.enqueue_job(text,jsonb,integer,integer,text,boolean)'),
			to_regprocedure('better_supabase.claim_jobs(text,integer,integer)'), to_regprocedure('net.http_post(text,jsonb,jsonb,jsonb,integer)'))
		order by 1`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"better_supabase.claim_jobs(text,integer,integer) bsadapter jobs stand-in",
		"better_supabase.enqueue_job(text,jsonb,integer,integer,text,boolean) bsadapter jobs stand-in",
		"net.http_post(text,jsonb,jsonb,jsonb,integer) bsadapter pg_net stand-in",
	}
	if !slices.Equal(got, want) {
		t.Errorf("functions\n got %q\nwant %q", got, want)
	}
	// Deleted by hand and installed again: the module is recorded, so
	// Install leaves it; the printed SQL puts the function back.
	if _, err := conn.Exec(ctx, "drop function net.http_post(text, jsonb, jsonb, jsonb, integer)"); err != nil {
		t.Fatal(err)
	}
	sql, err := blocks.SQL(blocks.PgNetModule)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatal(err)
	}
	if !exists(t, conn, "select to_regprocedure('net.http_post(text,jsonb,jsonb,jsonb,integer)') is not null") {
		t.Error("the printed SQL did not make net.http_post again")
	}
}

// asService runs one query as the service role (claims, then the role, as
// PostgREST does) and scans its one value.
func asService(ctx context.Context, conn *pgx.Conn, query string, dest any) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `select set_config('request.jwt.claims', '{"role":"service_role"}', true); set local role service_role`); err != nil {
		return err
	}
	if err := tx.QueryRow(ctx, query).Scan(dest); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// worldAs runs one statement as anon or a signed-in user and returns its
// error.
func worldAs(ctx context.Context, conn *pgx.Conn, role, sub, query string) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	claims := `{"role":"` + role + `"` + map[bool]string{true: `,"sub":"` + sub + `"`}[sub != ""] + `}`
	if _, err := tx.Exec(ctx, "select set_config('request.jwt.claims', $1, true)", claims); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "set local role "+pgx.Identifier{role}.Sanitize()); err != nil {
		return err
	}
	_, err = tx.Exec(ctx, query)
	return err
}
