-- bsadapter block: workflows
-- version: 1
-- requires: supabase-base, access
--
-- The engine-neutral run registry: every workflow engine records its runs
-- here, keyed by (engine, external_id), so that apps list, show and cancel
-- runs without knowing the engine. Beside it: cron schedules a tick claims
-- and advances, counting semaphores, and admission control for starts
-- (concurrency, debounce, singleton). Members of a tenant read its runs and
-- schedules with workflow.read and manage them with workflow.admin (asked
-- through better_supabase.can and tenant_ids_with). Where Supabase Realtime
-- is there, every status change of a run pings the run's topic and its
-- tenant's.

grant usage on schema better_supabase to anon, authenticated, service_role;

-- ---------------------------------------------------------------- tables

create table if not exists better_supabase.workflow_runs (
  id uuid primary key default gen_random_uuid(),
  engine text not null check (char_length(engine) between 1 and 100),
  external_id text not null check (char_length(external_id) between 1 and 200),
  definition text not null check (char_length(definition) between 1 and 200),
  tenant_id uuid,
  actor_id uuid references auth.users (id) on delete set null,
  status text not null default 'queued'
    check (status in ('queued', 'running', 'waiting', 'completed', 'failed', 'cancelled')),
  attributes jsonb not null default '{}',
  error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  started_at timestamptz,
  completed_at timestamptz,
  cancel_requested_at timestamptz,
  constraint workflow_runs_engine_external_key unique (engine, external_id)
);


create index if not exists workflow_runs_created_at_idx on better_supabase.workflow_runs (created_at desc, id desc);
create index if not exists workflow_runs_external_id_idx on better_supabase.workflow_runs (external_id);
create index if not exists workflow_runs_tenant_idx on better_supabase.workflow_runs (tenant_id, created_at desc);
create index if not exists workflow_runs_actor_idx on better_supabase.workflow_runs (actor_id, created_at desc);
create index if not exists workflow_runs_status_idx on better_supabase.workflow_runs (status, completed_at);

do $upgrade$
begin
  -- Tables an earlier version made: the idempotency key under the name
  -- record_workflow_run names, actors that are users, a default status,
  -- no object check on attributes (upstream has none).
  if exists (select from pg_catalog.pg_constraint where conrelid = 'better_supabase.workflow_runs'::pg_catalog.regclass
             and conname = 'workflow_runs_engine_external_id_key') then
    alter table better_supabase.workflow_runs rename constraint workflow_runs_engine_external_id_key to workflow_runs_engine_external_key;
  end if;
  if not exists (select from pg_catalog.pg_constraint where conrelid = 'better_supabase.workflow_runs'::pg_catalog.regclass
                 and contype = 'f') then
    update better_supabase.workflow_runs r set actor_id = null
    where r.actor_id is not null and not exists (select from auth.users u where u.id = r.actor_id);
    alter table better_supabase.workflow_runs add constraint workflow_runs_actor_id_fkey
      foreign key (actor_id) references auth.users (id) on delete set null;
  end if;
  alter table better_supabase.workflow_runs alter column status set default 'queued';
  alter table better_supabase.workflow_runs drop constraint if exists workflow_runs_attributes_check;
end
$upgrade$;

-- A schedule starts its workflow at next_run_at; the tick leases it
-- (locked_until), starts the run and moves next_run_at on by its cron.
create table if not exists better_supabase.workflow_schedules (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid,
  name text not null check (char_length(name) between 1 and 200),
  workflow text not null check (char_length(workflow) between 1 and 200),
  input jsonb not null default '[]',
  cron text not null check (char_length(cron) between 1 and 200),
  timezone text not null default 'UTC',
  next_run_at timestamptz not null,
  last_run_at timestamptz,
  locked_until timestamptz,
  paused boolean not null default false,
  created_by uuid references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  -- One schedule per name in a tenant, and per name among those without.
  constraint workflow_schedules_tenant_name_key unique nulls not distinct (tenant_id, name)
);
create index if not exists workflow_schedules_due_idx on better_supabase.workflow_schedules (next_run_at) where not paused;
create index if not exists workflow_schedules_created_by_idx on better_supabase.workflow_schedules (created_by);

-- A counting semaphore: at most max holders per key, each until it
-- releases or its lease ends.
create table if not exists better_supabase.workflow_semaphores (
  key text not null check (char_length(key) between 1 and 200),
  holder text not null check (char_length(holder) between 1 and 200),
  acquired_at timestamptz not null default now(),
  expires_at timestamptz not null,
  primary key (key, holder)
);

-- A start waiting for admission under its key.
create table if not exists better_supabase.workflow_start_requests (
  id uuid primary key default gen_random_uuid(),
  key text not null check (char_length(key) between 1 and 200),
  workflow text not null check (char_length(workflow) between 1 and 200),
  input jsonb not null default '[]',
  tenant_id uuid,
  actor_id uuid references auth.users (id) on delete set null,
  concurrency integer check (concurrency > 0),
  status text not null default 'pending' check (status in ('pending', 'started', 'superseded', 'dropped')),
  not_before timestamptz not null default now(),
  claimed_until timestamptz,
  run_id text,
  created_at timestamptz not null default now(),
  started_at timestamptz
);
create index if not exists workflow_start_requests_key_idx on better_supabase.workflow_start_requests (key, status);
create index if not exists workflow_start_requests_due_idx on better_supabase.workflow_start_requests (not_before) where status = 'pending';
create index if not exists workflow_start_requests_actor_idx on better_supabase.workflow_start_requests (actor_id);

alter table better_supabase.workflow_runs enable row level security;
alter table better_supabase.workflow_schedules enable row level security;
alter table better_supabase.workflow_semaphores enable row level security;
alter table better_supabase.workflow_start_requests enable row level security;

do $policies$
declare
  t text;
begin
  -- The service role does everything. On Supabase it bypasses row-level
  -- security anyway; where supabase-base had to create it without
  -- BYPASSRLS (the installing role was not a superuser), this gives it
  -- the same reach.
  foreach t in array array['workflow_runs', 'workflow_schedules', 'workflow_semaphores', 'workflow_start_requests'] loop
    if not exists (select from pg_catalog.pg_policies where schemaname = 'better_supabase' and tablename = t and policyname = t || '_service_all') then
      execute pg_catalog.format('create policy %I on better_supabase.%I for all to service_role using (true) with check (true)', t || '_service_all', t);
    end if;
  end loop;
  -- A signed-in user reads the runs it started, and those of the tenants
  -- where it holds workflow.read; schedules only through the tenant.
  drop policy if exists workflow_runs_actor_read on better_supabase.workflow_runs;
  drop policy if exists workflow_runs_read on better_supabase.workflow_runs;
  create policy workflow_runs_read on better_supabase.workflow_runs
    for select to authenticated
    using (actor_id = (select auth.uid())
           or tenant_id in (select better_supabase.tenant_ids_with('workflow.read')));
  drop policy if exists workflow_schedules_read on better_supabase.workflow_schedules;
  create policy workflow_schedules_read on better_supabase.workflow_schedules
    for select to authenticated
    using (tenant_id in (select better_supabase.tenant_ids_with('workflow.read')));
end
$policies$;

-- Only these grants count: default privileges may have granted more
-- (TRUNCATE, which row-level security does not stop, among them). anon
-- gets nothing; signed-in users read runs and schedules (row-level
-- security decides which) and write only through the functions.
revoke all on table better_supabase.workflow_runs, better_supabase.workflow_schedules,
  better_supabase.workflow_semaphores, better_supabase.workflow_start_requests
  from anon, authenticated, service_role;
grant select on table better_supabase.workflow_runs, better_supabase.workflow_schedules to authenticated;
grant all on table better_supabase.workflow_runs, better_supabase.workflow_schedules,
  better_supabase.workflow_semaphores, better_supabase.workflow_start_requests
  to service_role;

-- --------------------------------------------------------------- helpers

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

-- _workflow_schedule_json is the public shape of a schedule.
create or replace function better_supabase._workflow_schedule_json(s better_supabase.workflow_schedules)
returns jsonb language sql immutable set search_path = '' as $$
  select jsonb_build_object(
    'id', s.id,
    'tenant', s.tenant_id,
    'name', s.name,
    'workflow', s.workflow,
    'input', s.input,
    'cron', s.cron,
    'timezone', s.timezone,
    'nextRunAt', s.next_run_at,
    'lastRunAt', s.last_run_at,
    'paused', s.paused,
    'createdBy', s.created_by,
    'createdAt', s.created_at)
$$;

-- _uuid_or_null reads text as a uuid, or gives null when it is not one.
create or replace function better_supabase._uuid_or_null(value text)
returns uuid language sql immutable set search_path = '' as $$
  select case when value ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
              then value::uuid end
$$;

-- _workflow_admin: may the caller manage what belongs to tenant? The
-- service role may; a member needs workflow.admin there. Nothing without a
-- tenant belongs to a member.
create or replace function better_supabase._workflow_admin(tenant uuid)
returns boolean language sql stable security definer set search_path = '' as $$
  select better_supabase._caller_is_service()
      or (tenant is not null and coalesce(better_supabase.can('tenant', tenant, 'workflow.admin'), false))
$$;

-- _workflow_runs_changed pings on every status change of a run: the run's
-- topic workflow-run:<id> and, for a tenant's run, workflow-runs:<tenant>.
-- Without Realtime (plain Postgres) it sends nothing.
create or replace function better_supabase._workflow_runs_changed()
returns trigger language plpgsql security definer set search_path = '' as $$
declare
  payload jsonb;
begin
  if tg_op = 'UPDATE' and old.status is not distinct from new.status then
    return null;
  end if;
  if pg_catalog.to_regprocedure('realtime.send(jsonb,text,text,boolean)') is null then
    return null;
  end if;
  payload := jsonb_build_object('id', new.id, 'status', new.status);
  execute 'select realtime.send($1, $2, $3, true)' using payload, 'status', 'workflow-run:' || new.id::text;
  if new.tenant_id is not null then
    execute 'select realtime.send($1, $2, $3, true)' using payload, 'status', 'workflow-runs:' || new.tenant_id::text;
  end if;
  return null;
end
$$;
drop trigger if exists workflow_runs_status_ping on better_supabase.workflow_runs;
create trigger workflow_runs_status_ping
  after insert or update of status on better_supabase.workflow_runs
  for each row execute function better_supabase._workflow_runs_changed();

-- ---------------------------------------------------------- run registry

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
) returns uuid language plpgsql security invoker set search_path = '' as $$
#variable_conflict use_column
declare
  v_id uuid;
begin
  -- (engine, external_id) is the idempotency key: a run reported again is
  -- updated. Definition and status follow the report; tenant, actor and
  -- started_at keep their first value; attributes merge (new keys win);
  -- an error is replaced only by another.
  insert into better_supabase.workflow_runs as w
    (engine, external_id, definition, status, tenant_id, actor_id, attributes, error, started_at, completed_at)
  values (record_workflow_run.engine, record_workflow_run.external_id, record_workflow_run.definition,
          record_workflow_run.status, record_workflow_run.tenant, record_workflow_run.actor,
          coalesce(record_workflow_run.attributes, '{}'::jsonb), left(record_workflow_run.error, 4000),
          record_workflow_run.started_at, record_workflow_run.completed_at)
  on conflict on constraint workflow_runs_engine_external_key do update set
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
  if w.id is null then
    return null;
  end if;
  -- Who may ask comes before whether there is anything to cancel: the
  -- service role, the run's actor, or workflow.admin in its tenant. A run
  -- without an actor is nobody's own.
  if not (better_supabase._workflow_admin(w.tenant_id)
          or (w.actor_id is not null and w.actor_id = (select auth.uid()))) then
    raise exception 'you may not cancel workflow run %', w.id
      using errcode = '42501', hint = 'WORKFLOW_FORBIDDEN';
  end if;
  -- A finished run comes back as it is. Otherwise the first request's
  -- time stays, and the run is touched (updatedAt) by every request; the
  -- engine cancels and then records the outcome.
  if w.status in ('completed', 'failed', 'cancelled') then
    return better_supabase._workflow_run_json(w);
  end if;
  update better_supabase.workflow_runs r
  set cancel_requested_at = coalesce(r.cancel_requested_at, now()), updated_at = now()
  where r.id = w.id
  returning * into w;
  return better_supabase._workflow_run_json(w);
end
$$;

create or replace function better_supabase.purge_workflow_runs(
  older_than interval default '30 days',
  batch integer default 1000
) returns integer language plpgsql security invoker set search_path = '' as $$
#variable_conflict use_column
declare
  v_window interval := coalesce(purge_workflow_runs.older_than, interval '30 days');
  v_batch integer := greatest(coalesce(purge_workflow_runs.batch, 1000), 1);
  n integer;
begin
  with doomed as (
    select r.id from better_supabase.workflow_runs r
    where r.status in ('completed', 'failed', 'cancelled')
      and coalesce(r.completed_at, r.updated_at) < now() - v_window
    limit v_batch
    for update skip locked
  )
  delete from better_supabase.workflow_runs r using doomed d where r.id = d.id;
  get diagnostics n = row_count;
  -- Settled start requests of the same age go too, and leases that ran
  -- out; only the runs are counted.
  with doomed as (
    select q.id from better_supabase.workflow_start_requests q
    where q.status <> 'pending' and q.created_at < now() - v_window
    limit v_batch
    for update skip locked
  )
  delete from better_supabase.workflow_start_requests q using doomed d where q.id = d.id;
  delete from better_supabase.workflow_semaphores s where s.expires_at < now();
  return n;
end
$$;

-- ------------------------------------------------------------- schedules

create or replace function better_supabase.create_workflow_schedule(
  name text,
  workflow text,
  cron text,
  next_run timestamptz,
  payload jsonb default '{}',
  timezone text default 'UTC',
  tenant uuid default null
) returns jsonb language plpgsql security definer set search_path = '' as $$
#variable_conflict use_column
declare
  s better_supabase.workflow_schedules;
begin
  if not better_supabase._workflow_admin(create_workflow_schedule.tenant) then
    raise exception 'you may not schedule workflows in this tenant'
      using errcode = '42501', hint = 'WORKFLOW_FORBIDDEN';
  end if;
  -- The cron expression is the tick's to read; it is stored as given. A
  -- schedule of the same tenant and name is replaced in place (same id),
  -- and loses any lease a tick held on it.
  insert into better_supabase.workflow_schedules as x
    (tenant_id, name, workflow, input, cron, timezone, next_run_at, created_by)
  values (create_workflow_schedule.tenant, create_workflow_schedule.name, create_workflow_schedule.workflow,
          coalesce(create_workflow_schedule.payload -> 'input', '[]'::jsonb), create_workflow_schedule.cron,
          coalesce(create_workflow_schedule.timezone, 'UTC'), create_workflow_schedule.next_run, (select auth.uid()))
  on conflict on constraint workflow_schedules_tenant_name_key do update set
    workflow = excluded.workflow,
    input = excluded.input,
    cron = excluded.cron,
    timezone = excluded.timezone,
    next_run_at = excluded.next_run_at,
    locked_until = null
  returning * into s;
  return better_supabase._workflow_schedule_json(s);
end
$$;

create or replace function better_supabase.workflow_schedules_list(tenant uuid default null)
returns jsonb language sql stable security invoker set search_path = '' as $$
  select coalesce(jsonb_agg(better_supabase._workflow_schedule_json(s) order by s.name, s.id), '[]'::jsonb)
  from better_supabase.workflow_schedules s
  where workflow_schedules_list.tenant is null or s.tenant_id = workflow_schedules_list.tenant
$$;

create or replace function better_supabase.pause_workflow_schedule(schedule uuid, paused boolean default true)
returns boolean language plpgsql security definer set search_path = '' as $$
#variable_conflict use_column
begin
  -- false when there is no such schedule the caller manages.
  update better_supabase.workflow_schedules s
  set paused = coalesce(pause_workflow_schedule.paused, true)
  where s.id = pause_workflow_schedule.schedule
    and better_supabase._workflow_admin(s.tenant_id);
  return found;
end
$$;

create or replace function better_supabase.remove_workflow_schedule(schedule uuid)
returns boolean language plpgsql security definer set search_path = '' as $$
#variable_conflict use_column
begin
  delete from better_supabase.workflow_schedules s
  where s.id = remove_workflow_schedule.schedule
    and better_supabase._workflow_admin(s.tenant_id);
  return found;
end
$$;

create or replace function better_supabase.claim_due_workflow_schedules(lease integer default 60, batch integer default 50)
returns jsonb language sql volatile security invoker set search_path = '' as $$
  -- The earliest due schedules nobody holds, each leased for lease seconds
  -- (at least one), at most batch (at least one); fireAt is the run time
  -- the tick starts the run for.
  with due as (
    select s.id from better_supabase.workflow_schedules s
    where not s.paused
      and s.next_run_at <= now()
      and (s.locked_until is null or s.locked_until < now())
    order by s.next_run_at, s.id
    limit greatest(coalesce(claim_due_workflow_schedules.batch, 50), 1)
    for update skip locked
  ), leased as (
    update better_supabase.workflow_schedules s
    set locked_until = now() + pg_catalog.make_interval(secs => greatest(coalesce(claim_due_workflow_schedules.lease, 60), 1))
    from due where s.id = due.id
    returning s.*
  )
  select coalesce(jsonb_agg(
           better_supabase._workflow_schedule_json(l::better_supabase.workflow_schedules)
             || jsonb_build_object('fireAt', l.next_run_at)
           order by l.next_run_at, l.id), '[]'::jsonb)
  from leased l
$$;

create or replace function better_supabase.advance_workflow_schedule(schedule uuid, fired timestamptz, next_run timestamptz)
returns boolean language plpgsql security invoker set search_path = '' as $$
#variable_conflict use_column
begin
  -- Only from the fire time still stored: a second tick that fired the
  -- same time finds the schedule moved on and gets false.
  update better_supabase.workflow_schedules s
  set last_run_at = advance_workflow_schedule.fired,
      next_run_at = advance_workflow_schedule.next_run,
      locked_until = null
  where s.id = advance_workflow_schedule.schedule
    and s.next_run_at = advance_workflow_schedule.fired;
  return found;
end
$$;

-- ------------------------------------------------------------ semaphores

create or replace function better_supabase.acquire_workflow_semaphore(key text, holder text, max integer, ttl interval default '5 minutes')
returns boolean language plpgsql security invoker set search_path = '' as $$
#variable_conflict use_column
declare
  v_until timestamptz := now() + coalesce(acquire_workflow_semaphore.ttl, interval '5 minutes');
  v_held integer;
begin
  -- One key at a time, so that two holders cannot both take the last slot.
  perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('better_supabase.workflow_semaphore'),
                                           pg_catalog.hashtext(acquire_workflow_semaphore.key));
  delete from better_supabase.workflow_semaphores s
  where s.key = acquire_workflow_semaphore.key and s.expires_at < now();
  -- A holder that holds a slot already renews it.
  update better_supabase.workflow_semaphores s set expires_at = v_until
  where s.key = acquire_workflow_semaphore.key and s.holder = acquire_workflow_semaphore.holder;
  if found then
    return true;
  end if;
  select count(*) into v_held from better_supabase.workflow_semaphores s where s.key = acquire_workflow_semaphore.key;
  if v_held >= greatest(coalesce(acquire_workflow_semaphore.max, 1), 1) then
    return false;
  end if;
  insert into better_supabase.workflow_semaphores (key, holder, expires_at)
  values (acquire_workflow_semaphore.key, acquire_workflow_semaphore.holder, v_until);
  return true;
end
$$;

create or replace function better_supabase.release_workflow_semaphore(key text, holder text)
returns boolean language plpgsql security invoker set search_path = '' as $$
#variable_conflict use_column
begin
  delete from better_supabase.workflow_semaphores s
  where s.key = release_workflow_semaphore.key and s.holder = release_workflow_semaphore.holder;
  return found;
end
$$;

-- ------------------------------------------------------------- admission

create or replace function better_supabase.workflow_admission_active(key text)
returns integer language sql stable security invoker set search_path = '' as $$
  -- The starts of key that take a slot: a request under a live claim, and
  -- a started one until its run finishes (a run no engine ever reports
  -- stops counting after a day).
  select count(*)::integer from better_supabase.workflow_start_requests q
  where q.key = workflow_admission_active.key
    and ((q.status = 'pending' and q.claimed_until >= now())
         or (q.status = 'started'
             and q.started_at > now() - interval '1 day'
             and not exists (select from better_supabase.workflow_runs r
                             where r.external_id = q.run_id and r.status in ('completed', 'failed', 'cancelled'))))
$$;

create or replace function better_supabase.request_workflow_start(
  key text,
  workflow text,
  payload jsonb default '{}',
  tenant uuid default null,
  actor uuid default null,
  concurrency integer default null,
  debounce interval default null,
  singleton boolean default false
) returns jsonb language plpgsql security invoker set search_path = '' as $$
#variable_conflict use_column
declare
  v_single boolean := coalesce(request_workflow_start.singleton, false);
  v_id uuid;
begin
  perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('better_supabase.workflow_admission'),
                                           pg_catalog.hashtext(request_workflow_start.key));
  -- A singleton is dropped, and nothing stored, while its key has a run
  -- going or a request waiting.
  if v_single and (better_supabase.workflow_admission_active(request_workflow_start.key) > 0
                   or exists (select from better_supabase.workflow_start_requests q
                              where q.key = request_workflow_start.key and q.status = 'pending')) then
    return jsonb_build_object('id', null, 'status', 'dropped');
  end if;
  -- A debounced request replaces the waiting ones nobody has claimed.
  if request_workflow_start.debounce is not null then
    update better_supabase.workflow_start_requests q set status = 'superseded'
    where q.key = request_workflow_start.key and q.status = 'pending'
      and (q.claimed_until is null or q.claimed_until < now());
  end if;
  insert into better_supabase.workflow_start_requests (key, workflow, input, tenant_id, actor_id, concurrency, not_before)
  values (request_workflow_start.key, request_workflow_start.workflow,
          coalesce(request_workflow_start.payload -> 'input', '[]'::jsonb),
          request_workflow_start.tenant, request_workflow_start.actor,
          case when v_single then 1 else request_workflow_start.concurrency end,
          now() + coalesce(request_workflow_start.debounce, interval '0'))
  returning id into v_id;
  return jsonb_build_object('id', v_id, 'status', 'pending');
end
$$;

create or replace function better_supabase.claim_workflow_start_requests(lease integer default 60, batch integer default 50)
returns jsonb language plpgsql volatile security invoker set search_path = '' as $$
#variable_conflict use_column
declare
  q better_supabase.workflow_start_requests;
  v_batch integer := greatest(coalesce(claim_workflow_start_requests.batch, 50), 1);
  v_lease interval := pg_catalog.make_interval(secs => greatest(coalesce(claim_workflow_start_requests.lease, 60), 1));
  v_out jsonb := '[]'::jsonb;
  v_taken integer := 0;
begin
  -- Oldest first, each only while its key has room; a request whose key
  -- is full waits for the next call.
  for q in
    select * from better_supabase.workflow_start_requests r
    where r.status = 'pending'
      and r.not_before <= now()
      and (r.claimed_until is null or r.claimed_until < now())
    order by r.created_at, r.id
    for update skip locked
  loop
    exit when v_taken >= v_batch;
    perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('better_supabase.workflow_admission'),
                                             pg_catalog.hashtext(q.key));
    if q.concurrency is null or better_supabase.workflow_admission_active(q.key) < q.concurrency then
      update better_supabase.workflow_start_requests r set claimed_until = now() + v_lease where r.id = q.id;
      v_out := v_out || jsonb_build_array(jsonb_build_object(
        'id', q.id, 'key', q.key, 'workflow', q.workflow, 'input', q.input,
        'tenant', q.tenant_id, 'actor', q.actor_id));
      v_taken := v_taken + 1;
    end if;
  end loop;
  return v_out;
end
$$;

create or replace function better_supabase.mark_workflow_start_request(request uuid, run text)
returns boolean language plpgsql security invoker set search_path = '' as $$
#variable_conflict use_column
begin
  update better_supabase.workflow_start_requests q
  set status = 'started', run_id = mark_workflow_start_request.run, started_at = now(), claimed_until = null
  where q.id = mark_workflow_start_request.request and q.status = 'pending';
  return found;
end
$$;

-- ---------------------------------------------------------------- rights

revoke all on function
  better_supabase._workflow_run_json(better_supabase.workflow_runs),
  better_supabase._workflow_schedule_json(better_supabase.workflow_schedules),
  better_supabase._uuid_or_null(text),
  better_supabase._workflow_admin(uuid),
  better_supabase._workflow_runs_changed(),
  better_supabase.record_workflow_run(text, text, text, text, uuid, uuid, jsonb, text, timestamptz, timestamptz),
  better_supabase.workflow_runs_list(uuid, text, text, integer, timestamptz),
  better_supabase.workflow_run_get(text),
  better_supabase.request_workflow_cancel(text),
  better_supabase.purge_workflow_runs(interval, integer),
  better_supabase.create_workflow_schedule(text, text, text, timestamptz, jsonb, text, uuid),
  better_supabase.workflow_schedules_list(uuid),
  better_supabase.pause_workflow_schedule(uuid, boolean),
  better_supabase.remove_workflow_schedule(uuid),
  better_supabase.claim_due_workflow_schedules(integer, integer),
  better_supabase.advance_workflow_schedule(uuid, timestamptz, timestamptz),
  better_supabase.acquire_workflow_semaphore(text, text, integer, interval),
  better_supabase.release_workflow_semaphore(text, text),
  better_supabase.workflow_admission_active(text),
  better_supabase.request_workflow_start(text, text, jsonb, uuid, uuid, integer, interval, boolean),
  better_supabase.claim_workflow_start_requests(integer, integer),
  better_supabase.mark_workflow_start_request(uuid, text)
-- Also from the API roles: default privileges may have granted them
-- every new function.
from public, anon, authenticated, service_role;
-- The shape helpers run with the caller's rights inside the readers.
grant execute on function
  better_supabase._workflow_run_json(better_supabase.workflow_runs),
  better_supabase._workflow_schedule_json(better_supabase.workflow_schedules),
  better_supabase._uuid_or_null(text),
  better_supabase.workflow_runs_list(uuid, text, text, integer, timestamptz),
  better_supabase.workflow_run_get(text),
  better_supabase.request_workflow_cancel(text),
  better_supabase.create_workflow_schedule(text, text, text, timestamptz, jsonb, text, uuid),
  better_supabase.workflow_schedules_list(uuid),
  better_supabase.pause_workflow_schedule(uuid, boolean),
  better_supabase.remove_workflow_schedule(uuid)
to authenticated, service_role;
grant execute on function
  better_supabase.record_workflow_run(text, text, text, text, uuid, uuid, jsonb, text, timestamptz, timestamptz),
  better_supabase.purge_workflow_runs(interval, integer),
  better_supabase.claim_due_workflow_schedules(integer, integer),
  better_supabase.advance_workflow_schedule(uuid, timestamptz, timestamptz),
  better_supabase.acquire_workflow_semaphore(text, text, integer, interval),
  better_supabase.release_workflow_semaphore(text, text),
  better_supabase.workflow_admission_active(text),
  better_supabase.request_workflow_start(text, text, jsonb, uuid, uuid, integer, interval, boolean),
  better_supabase.claim_workflow_start_requests(integer, integer),
  better_supabase.mark_workflow_start_request(uuid, text)
to service_role;

-- Where Supabase Realtime is there, members may listen on a run's topic
-- when they may read the run, and on a tenant's topic with workflow.read
-- there. The pings carry the run's id and status only.
do $realtime$
begin
  if pg_catalog.to_regclass('realtime.messages') is not null then
    drop policy if exists workflow_runs_receive on realtime.messages;
    create policy workflow_runs_receive on realtime.messages for select to authenticated
      using (
        realtime.messages.extension = 'broadcast'
        and ((
              (select realtime.topic()) like 'workflow-run:%'
              and exists (select from better_supabase.workflow_runs r
                          where 'workflow-run:' || r.id::text = (select realtime.topic())))
          or (
              (select realtime.topic()) like 'workflow-runs:%'
              and exists (select from better_supabase.tenant_ids_with('workflow.read') t
                          where 'workflow-runs:' || t::text = (select realtime.topic())))));
  end if;
end
$realtime$;
