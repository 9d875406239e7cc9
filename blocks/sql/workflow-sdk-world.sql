-- bsadapter block: workflow-sdk-world
-- version: 1
-- requires: workflows, vault, jobs, pg-net
-- mode: managed
--
-- The storage of the Workflow SDK's Postgres World (@workflow/world-postgres)
-- in schema workflow: runs, steps, events, event slots, hooks, invocations,
-- snapshots, stream chunks and waits, laid out as the World writes them
-- (it reads and writes these tables itself, so names and types are its).
-- The API roles get nothing here; the service role (the World's
-- connection) gets everything. Apps read runs from the engine-neutral
-- registry of the workflows block instead: every World run is mirrored
-- there under engine 'workflow-sdk' by a trigger, with the tenant and
-- actor its bs.tenant and bs.actor attributes name (the tenant kept only
-- when that actor may start runs there, workflow.run).
--
-- better_supabase.dispatch_workflow_deliveries(batch) hands the World's
-- queued deliveries (queue workflow_deliveries of the jobs module) to the
-- app's flow route over pg_net: one signed POST per message, to the URL in
-- the Vault secret workflow_flow_url, signed with workflow_delivery_secret.

-- ------------------------------------------------------------------ enums

create schema if not exists workflow;

do $enums$
declare
  e record;
begin
  for e in
    select * from (values
      ('status', array['pending', 'running', 'completed', 'failed', 'cancelled']),
      ('step_status', array['pending', 'running', 'completed', 'failed', 'cancelled']),
      ('wait_status', array['waiting', 'completed'])) v(name, labels)
  loop
    if not exists (select from pg_catalog.pg_type t join pg_catalog.pg_namespace n on n.oid = t.typnamespace
                   where n.nspname = 'workflow' and t.typname = e.name) then
      execute pg_catalog.format('create type workflow.%I as enum (%s)', e.name,
        (select pg_catalog.string_agg(pg_catalog.quote_literal(l), ', ' order by o) from unnest(e.labels) with ordinality u(l, o)));
    end if;
  end loop;
end
$enums$;

-- ----------------------------------------------------------------- tables
-- Timestamps are the World's: timestamp without time zone, written in UTC.
-- Key and index names are the World's own, so that its migrations find
-- them in place.

create table if not exists workflow.workflow_runs (
  id varchar not null,
  output jsonb,
  deployment_id varchar not null,
  status workflow.status not null,
  name varchar not null,
  execution_context jsonb,
  input jsonb,
  error text,
  created_at timestamp not null default now(),
  updated_at timestamp not null default now(),
  completed_at timestamp,
  started_at timestamp,
  output_cbor bytea,
  execution_context_cbor bytea,
  input_cbor bytea,
  expired_at timestamp,
  spec_version varchar,
  error_cbor bytea,
  error_code varchar,
  attributes jsonb not null default '{}'::jsonb,
  encryption_public_key varchar,
  dynamic_workflow_code_cbor bytea,
  constraint workflow_runs_pkey primary key (id)
);

create table if not exists workflow.workflow_steps (
  run_id varchar not null,
  step_id varchar not null,
  step_name varchar not null,
  status workflow.step_status not null,
  input jsonb,
  output jsonb,
  error text,
  attempt integer not null,
  started_at timestamp,
  completed_at timestamp,
  created_at timestamp not null default now(),
  updated_at timestamp not null default now(),
  retry_after timestamp,
  input_cbor bytea,
  output_cbor bytea,
  error_cbor bytea,
  spec_version integer,
  constraint workflow_steps_pkey primary key (step_id)
);

-- An event id is unique within its run only.
create table if not exists workflow.workflow_events (
  id varchar not null,
  type varchar not null,
  correlation_id varchar,
  created_at timestamp not null default now(),
  run_id varchar not null,
  payload jsonb,
  payload_cbor bytea,
  spec_version integer,
  resume_id varchar,
  resume_payload_digest varchar,
  constraint workflow_events_run_id_id_pk primary key (run_id, id)
);

-- One row per run that has events: the World locks it to append in order.
create table if not exists workflow.workflow_event_slots (
  run_id varchar not null,
  constraint workflow_event_slots_pkey primary key (run_id)
);

create table if not exists workflow.workflow_hooks (
  run_id varchar not null,
  hook_id varchar not null,
  token varchar not null,
  owner_id varchar not null,
  project_id varchar not null,
  environment varchar not null,
  created_at timestamp not null default now(),
  metadata jsonb,
  metadata_cbor bytea,
  spec_version integer,
  is_webhook boolean default true,
  is_system boolean default false,
  resume_context bytea,
  token_retention_until timestamptz,
  claimed_from bytea,
  constraint workflow_hooks_pkey primary key (hook_id)
);

create table if not exists workflow.workflow_invocations (
  sequence bigserial,
  run_id varchar not null,
  request_id varchar not null,
  payload bytea,
  fingerprint varchar,
  result bytea,
  created_at timestamp not null default now(),
  responded_at timestamp,
  expired_at timestamp,
  result_version integer not null default 0,
  constraint workflow_invocations_pkey primary key (run_id, request_id)
);

create table if not exists workflow.workflow_snapshots (
  run_id varchar not null,
  data bytea not null,
  events_cursor varchar,
  created_at timestamp not null default now(),
  constraint workflow_snapshots_pkey primary key (run_id)
);

create table if not exists workflow.workflow_stream_chunks (
  id varchar not null,
  stream_id varchar not null,
  data bytea not null,
  created_at timestamp not null default now(),
  eof boolean not null,
  run_id varchar,
  constraint workflow_stream_chunks_stream_id_id_pk primary key (stream_id, id)
);

create table if not exists workflow.workflow_waits (
  wait_id varchar not null,
  run_id varchar not null,
  status workflow.wait_status not null,
  resume_at timestamp,
  completed_at timestamp,
  created_at timestamp not null default now(),
  updated_at timestamp not null default now(),
  spec_version integer,
  constraint workflow_waits_pkey primary key (wait_id)
);

-- Tables an earlier World made (its own migrations, or an older module)
-- lack the columns later versions added; every such column is nullable
-- or has a default, so it can be added to a table with rows.
do $upgrade$
declare
  c record;
begin
  for c in
    select * from (values
      ('workflow_runs', 'output_cbor', 'bytea'),
      ('workflow_runs', 'execution_context_cbor', 'bytea'),
      ('workflow_runs', 'input_cbor', 'bytea'),
      ('workflow_runs', 'expired_at', 'timestamp'),
      ('workflow_runs', 'spec_version', 'varchar'),
      ('workflow_runs', 'error_cbor', 'bytea'),
      ('workflow_runs', 'error_code', 'varchar'),
      ('workflow_runs', 'attributes', 'jsonb not null default ''{}''::jsonb'),
      ('workflow_runs', 'encryption_public_key', 'varchar'),
      ('workflow_runs', 'dynamic_workflow_code_cbor', 'bytea'),
      ('workflow_steps', 'retry_after', 'timestamp'),
      ('workflow_steps', 'input_cbor', 'bytea'),
      ('workflow_steps', 'output_cbor', 'bytea'),
      ('workflow_steps', 'error_cbor', 'bytea'),
      ('workflow_steps', 'spec_version', 'integer'),
      ('workflow_events', 'payload_cbor', 'bytea'),
      ('workflow_events', 'spec_version', 'integer'),
      ('workflow_events', 'resume_id', 'varchar'),
      ('workflow_events', 'resume_payload_digest', 'varchar'),
      ('workflow_hooks', 'metadata_cbor', 'bytea'),
      ('workflow_hooks', 'spec_version', 'integer'),
      ('workflow_hooks', 'is_webhook', 'boolean default true'),
      ('workflow_hooks', 'is_system', 'boolean default false'),
      ('workflow_hooks', 'resume_context', 'bytea'),
      ('workflow_hooks', 'token_retention_until', 'timestamptz'),
      ('workflow_hooks', 'claimed_from', 'bytea'),
      ('workflow_invocations', 'expired_at', 'timestamp'),
      ('workflow_invocations', 'result_version', 'integer not null default 0'),
      ('workflow_snapshots', 'events_cursor', 'varchar'),
      ('workflow_stream_chunks', 'run_id', 'varchar'),
      ('workflow_waits', 'spec_version', 'integer')) v(tab, col, def)
  loop
    execute pg_catalog.format('alter table workflow.%I add column if not exists %I %s', c.tab, c.col, c.def);
  end loop;
end
$upgrade$;

create index if not exists workflow_runs_name_index on workflow.workflow_runs (name);
create index if not exists workflow_runs_status_index on workflow.workflow_runs (status);
create index if not exists workflow_runs_attributes_idx on workflow.workflow_runs using gin (attributes jsonb_path_ops);
create index if not exists workflow_steps_run_id_index on workflow.workflow_steps (run_id);
create index if not exists workflow_steps_status_index on workflow.workflow_steps (status);
create index if not exists workflow_events_correlation_id_index on workflow.workflow_events (correlation_id);
-- Creating a step, hook, wait or attribute is idempotent: one creation
-- event per run and correlation id (events without one are not counted).
create unique index if not exists workflow_events_entity_creation_unique on workflow.workflow_events (run_id, correlation_id, type)
  where type in ('step_created', 'hook_created', 'wait_created', 'attr_set');
-- A hook is resumed once per resume id.
create unique index if not exists workflow_events_hook_resume_unique on workflow.workflow_events (run_id, resume_id)
  where type = 'hook_received' and resume_id is not null;
-- The token is looked up, not unique: the World refuses a second live hook
-- with one token itself.
create index if not exists workflow_hooks_run_id_index on workflow.workflow_hooks (run_id);
create index if not exists workflow_hooks_token_index on workflow.workflow_hooks (token);
create index if not exists workflow_invocations_pending on workflow.workflow_invocations (run_id, sequence)
  where responded_at is null;
create index if not exists workflow_stream_chunks_run_id_index on workflow.workflow_stream_chunks (run_id);
create index if not exists workflow_waits_run_id_index on workflow.workflow_waits (run_id);

-- ----------------------------------------------------------------- rights
-- Closed to anon and signed-in users (schema and tables); the service role
-- has every right, and row-level security, on with no policy, keeps any
-- other role that is given a table out of its rows.

revoke all on schema workflow from public, anon, authenticated, service_role;
grant usage on schema workflow to service_role;

do $rights$
declare
  t record;
begin
  for t in
    select c.relname from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'workflow' and c.relkind in ('r', 'p')
  loop
    execute pg_catalog.format('alter table workflow.%I enable row level security', t.relname);
    execute pg_catalog.format('revoke all on table workflow.%I from public, anon, authenticated', t.relname);
    execute pg_catalog.format('grant all on table workflow.%I to service_role', t.relname);
  end loop;
end
$rights$;
revoke all on all sequences in schema workflow from public, anon, authenticated, service_role;
grant usage, select on all sequences in schema workflow to service_role;

-- ----------------------------------------------------------------- mirror

-- _workflow_sdk_uuid reads an attribute as a uuid (any form PostgreSQL
-- accepts), or null when it is none.
create or replace function better_supabase._workflow_sdk_uuid(value text)
returns uuid language plpgsql immutable set search_path = '' as $$
begin
  return value::uuid;
exception when invalid_text_representation then
  return null;
end
$$;

-- workflow_sdk_mirror_run copies a World run into the run registry. The
-- World's pending is the registry's queued; an error is mirrored only for
-- a failed run (its code when it has one, else its message). A run started
-- for a user (bs.actor) keeps its bs.tenant only when that user holds
-- workflow.run there; a run without an actor was started by the server,
-- which is trusted. Neither key stays among the attributes.
create or replace function better_supabase.workflow_sdk_mirror_run()
returns trigger language plpgsql security definer set search_path = '' as $$
declare
  v_tenant uuid := better_supabase._workflow_sdk_uuid(new.attributes ->> 'bs.tenant');
  v_actor uuid := better_supabase._workflow_sdk_uuid(new.attributes ->> 'bs.actor');
begin
  if v_tenant is not null and v_actor is not null
     and not coalesce(better_supabase.can_user(v_actor, 'tenant', v_tenant, 'workflow.run'), false) then
    v_tenant := null;
  end if;
  perform better_supabase.record_workflow_run(
    engine => 'workflow-sdk',
    external_id => new.id,
    definition => new.name,
    status => case new.status when 'pending' then 'queued' else new.status::text end,
    tenant => v_tenant,
    actor => v_actor,
    attributes => coalesce(new.attributes, '{}'::jsonb) - 'bs.tenant' - 'bs.actor',
    error => case when new.status = 'failed' then coalesce(new.error_code, left(new.error, 4000)) end,
    -- The World writes UTC wall-clock times, whatever its session's zone.
    started_at => new.started_at at time zone 'UTC',
    completed_at => new.completed_at at time zone 'UTC');
  return null;
end
$$;

-- Only updates that name a column the report depends on fire it: one of
-- output or of timestamps alone is not reported again (the World sets
-- started_at and completed_at in the same update as the status).
drop trigger if exists bs_workflow_sdk_runs_mirror on workflow.workflow_runs;
create trigger bs_workflow_sdk_runs_mirror
  after insert or update of status, attributes, error on workflow.workflow_runs
  for each row execute function better_supabase.workflow_sdk_mirror_run();

-- ------------------------------------------------------------- deliveries

-- dispatch_workflow_deliveries claims up to batch (default 20, at least 1)
-- visible messages of the jobs queue workflow_deliveries for 60 seconds and
-- posts each message's payload to the flow route, with the headers
--   x-bs-job: workflow_deliveries:<job id>:<attempt>
--   x-bs-signature: t=<unix seconds>,v1=<hex hmac-sha256 of "t.job.body">
-- The route completes or fails the job; a delivery whose answer is lost is
-- claimed again when the lease runs out. pg_net is looked up when called,
-- so the function installs without it and says what is missing. It returns
-- how many requests it queued. pgcrypto's hmac is taken from the schema
-- pgcrypto lives in (extensions on Supabase).
do $dispatch$
declare
  crypto text;
begin
  select n.nspname into crypto
  from pg_catalog.pg_extension e join pg_catalog.pg_namespace n on n.oid = e.extnamespace
  where e.extname = 'pgcrypto';
  if crypto is null then
    create schema if not exists extensions;
    create extension pgcrypto with schema extensions;
    crypto := 'extensions';
  end if;

  execute pg_catalog.format($def$
    create or replace function better_supabase.dispatch_workflow_deliveries(batch integer default 20)
    returns integer language plpgsql volatile security definer set search_path = '' as $fn$
    declare
      post regprocedure := pg_catalog.to_regprocedure('net.http_post(text,jsonb,jsonb,jsonb,integer)');
      url text;
      secret text;
      job record;
      body jsonb;
      stamp text;
      job_header text;
      sent integer := 0;
    begin
      if post is null then
        raise exception 'dispatch_workflow_deliveries needs pg_net (net.http_post): create extension pg_net, or let the app poll for deliveries';
      end if;
      select s.decrypted_secret into url from vault.decrypted_secrets s where s.name = 'workflow_flow_url';
      select s.decrypted_secret into secret from vault.decrypted_secrets s where s.name = 'workflow_delivery_secret';
      if url is null or secret is null then
        raise exception 'dispatch_workflow_deliveries: the Vault secrets workflow_flow_url and workflow_delivery_secret must both be set'
          using hint = 'WORKFLOW_DELIVERY_UNCONFIGURED';
      end if;
      for job in
        select * from better_supabase.claim_jobs('workflow_deliveries', 60, greatest(coalesce(dispatch_workflow_deliveries.batch, 20), 1))
      loop
        body := coalesce(job.message -> 'payload', '{}'::jsonb);
        stamp := pg_catalog.floor(pg_catalog.date_part('epoch', pg_catalog.now()))::bigint::text;
        job_header := 'workflow_deliveries:' || job.id::text || ':' || job.attempts::text;
        execute pg_catalog.format('select %%s(url => $1, body => $2, headers => $3, timeout_milliseconds => $4)', post::oid::regproc)
          using url, body,
            pg_catalog.jsonb_build_object(
              'content-type', 'application/json',
              'x-bs-job', job_header,
              'x-bs-signature', 't=' || stamp || ',v1=' || pg_catalog.encode(
                %1$I.hmac(stamp || '.' || job_header || '.' || body::text, secret, 'sha256'), 'hex')),
            30000;
        sent := sent + 1;
      end loop;
      return sent;
    end
    $fn$
  $def$, crypto);
end
$dispatch$;

revoke all on function
  better_supabase._workflow_sdk_uuid(text),
  better_supabase.workflow_sdk_mirror_run(),
  better_supabase.dispatch_workflow_deliveries(integer)
from public, anon, authenticated, service_role;
grant execute on function better_supabase.dispatch_workflow_deliveries(integer) to service_role;
