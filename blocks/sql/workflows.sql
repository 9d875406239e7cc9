-- bsadapter block: workflows
-- version: 1
-- requires: supabase-base, access
--
-- The engine-neutral run registry: every workflow engine records its runs
-- here, keyed by (engine, external_id), so that apps list, show and cancel
-- runs without knowing the engine.

grant usage on schema better_supabase to anon, authenticated, service_role;

create table if not exists better_supabase.workflow_runs (
  id uuid primary key default gen_random_uuid(),
  engine text not null check (char_length(engine) between 1 and 100),
  external_id text not null check (char_length(external_id) between 1 and 200),
  definition text not null check (char_length(definition) between 1 and 200),
  tenant_id uuid,
  actor_id uuid,
  status text not null
    check (status in ('queued', 'running', 'waiting', 'completed', 'failed', 'cancelled')),
  attributes jsonb not null default '{}' check (jsonb_typeof(attributes) = 'object'),
  error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  started_at timestamptz,
  completed_at timestamptz,
  cancel_requested_at timestamptz,
  unique (engine, external_id)
);
create index if not exists workflow_runs_created_at_idx on better_supabase.workflow_runs (created_at desc, id desc);
create index if not exists workflow_runs_external_id_idx on better_supabase.workflow_runs (external_id);

alter table better_supabase.workflow_runs enable row level security;

do $policies$
declare
  t text;
begin
  -- The service role does everything. On Supabase it bypasses row-level
  -- security anyway; where supabase-base had to create it without
  -- BYPASSRLS (the installing role was not a superuser), this gives it
  -- the same reach.
  foreach t in array array['workflow_runs'] loop
    if not exists (select from pg_catalog.pg_policies where schemaname = 'better_supabase' and tablename = t and policyname = t || '_service_all') then
      execute pg_catalog.format('create policy %I on better_supabase.%I for all to service_role using (true) with check (true)', t || '_service_all', t);
    end if;
  end loop;
  if not exists (select from pg_catalog.pg_policies where schemaname = 'better_supabase' and tablename = 'workflow_runs' and policyname = 'workflow_runs_actor_read') then
    create policy workflow_runs_actor_read on better_supabase.workflow_runs
      for select to authenticated
      using (actor_id = (select auth.uid()));
  end if;
end
$policies$;

-- Only these grants count: default privileges may have granted more
-- (TRUNCATE, which row-level security does not stop, among them).
revoke all on table better_supabase.workflow_runs from anon, authenticated, service_role;
grant select on table better_supabase.workflow_runs to anon, authenticated;
grant all on table better_supabase.workflow_runs to service_role;

-- _workflow_run_json is the public shape of a run, with camelCase keys.
create or replace function better_supabase._workflow_run_json(w better_supabase.workflow_runs)
returns jsonb language sql immutable set search_path = '' as $$
  select jsonb_build_object(
    'id', w.id,
    'engine', w.engine,
    'externalId', w.external_id,
    'definition', w.definition,
    'tenant', w.tenant_id,
    'actor', w.actor_id,
    'status', w.status,
    'attributes', w.attributes,
    'error', w.error,
    'createdAt', w.created_at,
    'updatedAt', w.updated_at,
    'startedAt', w.started_at,
    'completedAt', w.completed_at,
    'cancelRequestedAt', w.cancel_requested_at)
$$;

-- _uuid_or_null reads text as a uuid, or gives null when it is not one.
create or replace function better_supabase._uuid_or_null(value text)
returns uuid language sql immutable set search_path = '' as $$
  select case when value ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
              then value::uuid end
$$;

create or replace function better_supabase.record_workflow_run(
  engine text,
  external_id text,
  definition text,
  status text,
  tenant uuid default null,
  actor uuid default null,
  attributes jsonb default '{}',
  error text default null,
  started_at timestamptz default null,
  completed_at timestamptz default null
) returns uuid language plpgsql security definer set search_path = '' as $$
#variable_conflict use_column
declare
  v_id uuid;
begin
  insert into better_supabase.workflow_runs as w
    (engine, external_id, definition, status, tenant_id, actor_id, attributes, error, started_at, completed_at)
  values (record_workflow_run.engine, record_workflow_run.external_id, record_workflow_run.definition,
          record_workflow_run.status, record_workflow_run.tenant, record_workflow_run.actor,
          coalesce(record_workflow_run.attributes, '{}'::jsonb), left(record_workflow_run.error, 4000),
          record_workflow_run.started_at, record_workflow_run.completed_at)
  on conflict (engine, external_id) do update set
    definition = excluded.definition,
    status = excluded.status,
    tenant_id = coalesce(w.tenant_id, excluded.tenant_id),
    actor_id = coalesce(w.actor_id, excluded.actor_id),
    started_at = coalesce(w.started_at, excluded.started_at),
    attributes = w.attributes || excluded.attributes,
    error = coalesce(excluded.error, w.error),
    completed_at = coalesce(excluded.completed_at, w.completed_at),
    updated_at = now()
  returning w.id into v_id;
  return v_id;
end
$$;

create or replace function better_supabase.workflow_runs_list(
  tenant uuid default null,
  definition text default null,
  status text default null,
  max integer default 50,
  before timestamptz default null
) returns jsonb language sql stable security invoker set search_path = '' as $$
  select coalesce(jsonb_agg(better_supabase._workflow_run_json(w) order by w.created_at desc, w.id desc), '[]'::jsonb)
  from (
    select * from better_supabase.workflow_runs r
    where (workflow_runs_list.tenant is null or r.tenant_id = workflow_runs_list.tenant)
      and (workflow_runs_list.definition is null or r.definition = workflow_runs_list.definition)
      and (workflow_runs_list.status is null or r.status = workflow_runs_list.status)
      and (workflow_runs_list.before is null or r.created_at < workflow_runs_list.before)
    order by r.created_at desc, r.id desc
    limit least(greatest(coalesce(workflow_runs_list.max, 50), 1), 500)
  ) w
$$;

create or replace function better_supabase.workflow_run_get(run text)
returns jsonb language sql stable security invoker set search_path = '' as $$
  select better_supabase._workflow_run_json(w)
  from better_supabase.workflow_runs w
  where w.id = better_supabase._uuid_or_null(workflow_run_get.run)
     or w.external_id = workflow_run_get.run
  -- A registry id match comes first, then the newest external id match.
  order by (w.id = better_supabase._uuid_or_null(workflow_run_get.run)) is true desc, w.created_at desc
  limit 1
$$;

create or replace function better_supabase.request_workflow_cancel(run text)
returns jsonb language plpgsql security definer set search_path = '' as $$
#variable_conflict use_column
declare
  w better_supabase.workflow_runs;
  v_uuid uuid := better_supabase._uuid_or_null(request_workflow_cancel.run);
begin
  select * into w from better_supabase.workflow_runs r
  where r.id = v_uuid or r.external_id = request_workflow_cancel.run
  order by (r.id = v_uuid) is true desc, r.created_at desc
  limit 1
  for update;
  if w.id is null or not (better_supabase._caller_is_service() or w.actor_id = (select auth.uid())) then
    return null;
  end if;
  -- A terminal run, or one whose cancel was requested before, comes
  -- back as it is: the first request's time is kept.
  if w.status in ('completed', 'failed', 'cancelled') or w.cancel_requested_at is not null then
    return better_supabase._workflow_run_json(w);
  end if;
  update better_supabase.workflow_runs r
  set cancel_requested_at = now(), updated_at = now()
  where r.id = w.id
  returning * into w;
  return better_supabase._workflow_run_json(w);
end
$$;

create or replace function better_supabase.purge_workflow_runs(
  older_than interval default '30 days',
  batch integer default 1000
) returns integer language plpgsql security definer set search_path = '' as $$
#variable_conflict use_column
declare
  n integer;
begin
  with doomed as (
    select r.id from better_supabase.workflow_runs r
    where r.status in ('completed', 'failed', 'cancelled')
      and coalesce(r.completed_at, r.updated_at) < now() - coalesce(purge_workflow_runs.older_than, interval '30 days')
    limit greatest(coalesce(purge_workflow_runs.batch, 1000), 0)
    for update skip locked
  )
  delete from better_supabase.workflow_runs r using doomed d where r.id = d.id;
  get diagnostics n = row_count;
  return n;
end
$$;

revoke all on function
  better_supabase._workflow_run_json(better_supabase.workflow_runs),
  better_supabase._uuid_or_null(text),
  better_supabase.record_workflow_run(text, text, text, text, uuid, uuid, jsonb, text, timestamptz, timestamptz),
  better_supabase.workflow_runs_list(uuid, text, text, integer, timestamptz),
  better_supabase.workflow_run_get(text),
  better_supabase.request_workflow_cancel(text),
  better_supabase.purge_workflow_runs(interval, integer)
-- Also from the API roles: default privileges may have granted them
-- every new function.
from public, anon, authenticated, service_role;
-- The two helpers run with the caller's rights inside the readers below.
grant execute on function
  better_supabase._workflow_run_json(better_supabase.workflow_runs),
  better_supabase._uuid_or_null(text),
  better_supabase.workflow_runs_list(uuid, text, text, integer, timestamptz),
  better_supabase.workflow_run_get(text)
to anon, authenticated, service_role;
grant execute on function better_supabase.request_workflow_cancel(text) to authenticated, service_role;
grant execute on function
  better_supabase.record_workflow_run(text, text, text, text, uuid, uuid, jsonb, text, timestamptz, timestamptz),
  better_supabase.purge_workflow_runs(interval, integer)
to service_role;
