-- bsadapter block: jobs
-- version: 1
-- requires: supabase-base
-- mode: custom
--
-- A stand-in for better-supabase's jobs module (a queue on Supabase
-- Queues), for a database that has none: the two functions other blocks
-- call, with upstream's signatures.
--
-- better_supabase.enqueue_job(queue, payload, delay, max_attempts,
-- dedupe_key, dedupe_running) adds a message {payload, max_attempts[,
-- dedupe_key]} that becomes visible after delay seconds, and returns its
-- id. Given a dedupe key, it returns the id of a message of the same queue
-- and key that is still there instead (with dedupe_running false, only one
-- no worker has claimed yet).
--
-- better_supabase.claim_jobs(queue, lease, batch) takes up to batch
-- visible messages of the queue in id order, counts the attempt (the first
-- claim is attempt 1), hides each for lease seconds and returns (id,
-- attempts, enqueued_at, visible_until, message). A message claimed more
-- often than its max_attempts lost its worker on the last attempt: it is
-- removed instead of returned.
--
-- The messages are rows of better_supabase._standin_jobs, which the service
-- role may read (read_ct counts the claims, vt is when the message is
-- visible again). Both functions are the service role's alone. Where the
-- database has a jobs module of its own (either function exists and this
-- module did not make it), nothing of this module runs.

do $jobs$
declare
  mark constant text := 'bsadapter jobs stand-in';
  theirs boolean;
begin
  select coalesce(bool_or(p is not null and coalesce(pg_catalog.obj_description(p, 'pg_proc'), '') <> mark), false)
  into theirs
  from (values (pg_catalog.to_regprocedure('better_supabase.enqueue_job(text,jsonb,integer,integer,text,boolean)')),
               (pg_catalog.to_regprocedure('better_supabase.claim_jobs(text,integer,integer)'))) f(p);
  if theirs then
    return;
  end if;

  create table if not exists better_supabase._standin_jobs (
    id bigint generated always as identity primary key,
    queue text not null check (pg_catalog.char_length(queue) between 1 and 200),
    payload jsonb,
    max_attempts integer,
    dedupe_key text,
    dedupe_running boolean not null default true,
    read_ct integer not null default 0,
    enqueued_at timestamptz not null default now(),
    vt timestamptz not null default now(),
    message jsonb not null
  );
  create index if not exists _standin_jobs_visible_idx on better_supabase._standin_jobs (queue, vt, id);
  create index if not exists _standin_jobs_dedupe_idx on better_supabase._standin_jobs (queue, dedupe_key)
    where dedupe_key is not null;
  execute pg_catalog.format('comment on table better_supabase._standin_jobs is %L', mark);
  alter table better_supabase._standin_jobs enable row level security;
  revoke all on table better_supabase._standin_jobs from public, anon, authenticated, service_role;
  execute pg_catalog.format('revoke all on sequence %s from public, anon, authenticated, service_role',
    pg_catalog.pg_get_serial_sequence('better_supabase._standin_jobs', 'id'));
  grant select on table better_supabase._standin_jobs to service_role;
  if not exists (select from pg_catalog.pg_policies where schemaname = 'better_supabase'
                 and tablename = '_standin_jobs' and policyname = 'standin_jobs_service_read') then
    create policy standin_jobs_service_read on better_supabase._standin_jobs
      for select to service_role using (true);
  end if;

  create or replace function better_supabase.enqueue_job(
    queue text,
    payload jsonb default '{}',
    delay integer default 0,
    max_attempts integer default 5,
    dedupe_key text default null,
    dedupe_running boolean default true
  ) returns bigint language plpgsql volatile security definer set search_path = '' as $fn$
  #variable_conflict use_column
  declare
    found_id bigint;
  begin
    if enqueue_job.queue is null or pg_catalog.char_length(enqueue_job.queue) not between 1 and 200 then
      raise exception 'enqueue_job: the queue name must be 1 to 200 characters' using errcode = '22023';
    end if;
    if enqueue_job.dedupe_key is not null then
      -- Two enqueues with one key wait for each other, so only one adds.
      perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext(enqueue_job.queue), pg_catalog.hashtext(enqueue_job.dedupe_key));
      select j.id into found_id
      from better_supabase._standin_jobs j
      where j.queue = enqueue_job.queue
        and j.dedupe_key = enqueue_job.dedupe_key
        and (coalesce(enqueue_job.dedupe_running, true) or j.read_ct = 0)
      order by j.id
      limit 1;
      if found_id is not null then
        return found_id;
      end if;
    end if;
    insert into better_supabase._standin_jobs as j
      (queue, payload, max_attempts, dedupe_key, dedupe_running, vt, message)
    values (enqueue_job.queue, enqueue_job.payload, enqueue_job.max_attempts, enqueue_job.dedupe_key,
            coalesce(enqueue_job.dedupe_running, true),
            pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => greatest(enqueue_job.delay, 0)),
            pg_catalog.jsonb_build_object('payload', enqueue_job.payload, 'max_attempts', enqueue_job.max_attempts)
              || case when enqueue_job.dedupe_key is null then '{}'::jsonb
                      else pg_catalog.jsonb_build_object('dedupe_key', enqueue_job.dedupe_key) end)
    returning j.id into found_id;
    return found_id;
  end
  $fn$;
  execute pg_catalog.format('comment on function better_supabase.enqueue_job(text, jsonb, integer, integer, text, boolean) is %L', mark);

  create or replace function better_supabase.claim_jobs(queue text, lease integer default 300, batch integer default 1)
  returns table (id bigint, attempts integer, enqueued_at timestamptz, visible_until timestamptz, message jsonb)
  language plpgsql volatile security definer set search_path = '' as $fn$
  #variable_conflict use_column
  declare
    picked bigint;
    claimed better_supabase._standin_jobs;
  begin
    for picked in
      select j.id from better_supabase._standin_jobs j
      where j.queue = claim_jobs.queue and j.vt <= pg_catalog.clock_timestamp()
      order by j.id
      limit greatest(coalesce(claim_jobs.batch, 1), 0)
      for update skip locked
    loop
      update better_supabase._standin_jobs j
      set read_ct = j.read_ct + 1,
          vt = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => coalesce(claim_jobs.lease, 300))
      where j.id = picked
      returning j.* into claimed;
      if claimed.read_ct > coalesce(claimed.max_attempts, 5) then
        delete from better_supabase._standin_jobs j where j.id = picked;
        continue;
      end if;
      id := claimed.id;
      attempts := claimed.read_ct;
      enqueued_at := claimed.enqueued_at;
      visible_until := claimed.vt;
      message := claimed.message;
      return next;
    end loop;
  end
  $fn$;
  execute pg_catalog.format('comment on function better_supabase.claim_jobs(text, integer, integer) is %L', mark);

  revoke all on function
    better_supabase.enqueue_job(text, jsonb, integer, integer, text, boolean),
    better_supabase.claim_jobs(text, integer, integer)
  from public, anon, authenticated, service_role;
  grant execute on function
    better_supabase.enqueue_job(text, jsonb, integer, integer, text, boolean),
    better_supabase.claim_jobs(text, integer, integer)
  to service_role;
end
$jobs$;
