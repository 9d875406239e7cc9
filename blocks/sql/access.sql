-- bsadapter block: access
-- version: 3
-- requires: supabase-base
-- mode: custom
--
-- A small stand-in for better-supabase's tenant, access and audit modules,
-- for a database that has none: the blocks ask better_supabase.can(scope,
-- id, permission), better_supabase.tenant_ids_with(permission) and
-- better_supabase.can_user(member, scope, id, permission) who may do
-- what, log through better_supabase.audit_event(...) and read plans
-- through better_supabase.tenant_entitlements(tenant). Here a user holds a
-- permission in a tenant when better_supabase.tenant_permissions has the
-- row (tenant_id, user_id, permission); permissions are independent of one
-- another. Audit events are rows of better_supabase.audit_events, laid out
-- as the columns of better-supabase's audit log that its semantic events
-- fill. Each function is created only where the database lacks it (a
-- better-supabase project keeps its own), or replaced where this module
-- made it before (its comment says so).

grant usage on schema better_supabase to anon, authenticated, service_role;

do $access$
declare
  mark constant text := 'bsadapter access stand-in';
  -- Whether this module may (re)define the function: it is missing, or
  -- this module made it.
  ours_or_missing constant text :=
    'select p is null or coalesce(pg_catalog.obj_description(p, ''pg_proc''), '''') = $1 '
    'from pg_catalog.to_regprocedure($2) p';
  ok boolean;
begin
  execute ours_or_missing into ok using mark, 'better_supabase.can(text,uuid,text)';
  if ok then
    -- The grants table exists only where the stand-in decides.
    create table if not exists better_supabase.tenant_permissions (
      tenant_id uuid not null,
      user_id uuid not null references auth.users (id) on delete cascade,
      permission text not null check (pg_catalog.char_length(permission) between 1 and 200),
      granted_at timestamptz not null default now(),
      primary key (tenant_id, user_id, permission)
    );
    create index if not exists tenant_permissions_user_idx
      on better_supabase.tenant_permissions (user_id, permission);
    alter table better_supabase.tenant_permissions enable row level security;
    -- The server grants and revokes; members learn what they hold only
    -- through can() and tenant_ids_with().
    revoke all on table better_supabase.tenant_permissions from anon, authenticated, service_role;
    grant select, insert, update, delete on table better_supabase.tenant_permissions to service_role;
    if not exists (select from pg_catalog.pg_policies where schemaname = 'better_supabase'
                   and tablename = 'tenant_permissions' and policyname = 'tenant_permissions_service_all') then
      create policy tenant_permissions_service_all on better_supabase.tenant_permissions
        for all to service_role using (true) with check (true);
    end if;

    create or replace function better_supabase.can(scope text, scope_id uuid, permission text)
    returns boolean language sql stable security definer set search_path = '' as $fn$
      select coalesce(can.scope = 'tenant' and exists (
        select from better_supabase.tenant_permissions g
        where g.tenant_id = can.scope_id
          and g.user_id = (select auth.uid())
          and g.permission = can.permission), false)
    $fn$;
    execute pg_catalog.format('comment on function better_supabase.can(text, uuid, text) is %L', mark);
    revoke all on function better_supabase.can(text, uuid, text) from public, anon, authenticated, service_role;
    grant execute on function better_supabase.can(text, uuid, text) to anon, authenticated, service_role;
  end if;

  execute ours_or_missing into ok using mark, 'better_supabase.tenant_ids_with(text)';
  if ok and pg_catalog.to_regclass('better_supabase.tenant_permissions') is not null then
    create or replace function better_supabase.tenant_ids_with(permission text)
    returns setof uuid language sql stable security definer set search_path = '' as $fn$
      select g.tenant_id from better_supabase.tenant_permissions g
      where g.user_id = (select auth.uid()) and g.permission = tenant_ids_with.permission
    $fn$;
  elsif ok then
    -- The database decides can() itself but cannot list tenants: no
    -- tenant is listed, so tenant reads fall back to what is the caller's
    -- own.
    create or replace function better_supabase.tenant_ids_with(permission text)
    returns setof uuid language sql stable security definer set search_path = '' as $fn$
      select null::uuid where false
    $fn$;
  end if;
  if ok then
    execute pg_catalog.format('comment on function better_supabase.tenant_ids_with(text) is %L', mark);
    revoke all on function better_supabase.tenant_ids_with(text) from public, anon, authenticated, service_role;
    grant execute on function better_supabase.tenant_ids_with(text) to anon, authenticated, service_role;
  end if;

  -- The same question asked for another user (the access module's
  -- can_user): blocks that act for someone else, such as a run registry
  -- keeping a run's tenant only when its actor may start runs there, ask it.
  execute ours_or_missing into ok using mark, 'better_supabase.can_user(uuid,text,uuid,text)';
  if ok and pg_catalog.to_regclass('better_supabase.tenant_permissions') is not null then
    create or replace function better_supabase.can_user(member uuid, scope text, scope_id uuid, permission text)
    returns boolean language sql stable security definer set search_path = '' as $fn$
      select coalesce(can_user.scope = 'tenant' and exists (
        select from better_supabase.tenant_permissions g
        where g.tenant_id = can_user.scope_id
          and g.user_id = can_user.member
          and g.permission = can_user.permission), false)
    $fn$;
  elsif ok then
    -- The database decides can() itself and has no table to read: no
    -- answer for anyone else.
    create or replace function better_supabase.can_user(member uuid, scope text, scope_id uuid, permission text)
    returns boolean language sql stable security definer set search_path = '' as $fn$
      select false
    $fn$;
  end if;
  if ok then
    execute pg_catalog.format('comment on function better_supabase.can_user(uuid, text, uuid, text) is %L', mark);
    -- Who holds what is not for members to ask about each other: the
    -- blocks' own functions (run as their owner) and the server ask.
    revoke all on function better_supabase.can_user(uuid, text, uuid, text) from public, anon, authenticated, service_role;
    grant execute on function better_supabase.can_user(uuid, text, uuid, text) to service_role;
  end if;

  -- Audit events: one row each, for the server (the service role) to read.
  execute ours_or_missing into ok using mark,
    'better_supabase.audit_event(text,text,text,text,text,text,uuid,jsonb,text,jsonb,uuid,text,text,text)';
  if ok then
    create table if not exists better_supabase.audit_events (
      id bigint generated always as identity primary key,
      op text not null default 'event',
      event_type text,
      category text,
      outcome text,
      source text,
      target_type text,
      record_id text,
      target_label text,
      organization_id uuid,
      metadata jsonb,
      idempotency_key text,
      actor_id uuid,
      actor_role text,
      summary text,
      correlation_id text,
      occurred_at timestamptz not null default now()
    );
    -- An event given an idempotency key is recorded once per tenant.
    create unique index if not exists audit_events_idempotency_idx on better_supabase.audit_events (idempotency_key, organization_id)
      nulls not distinct where idempotency_key is not null;
    create index if not exists audit_events_occurred_at_idx on better_supabase.audit_events (occurred_at);
    alter table better_supabase.audit_events enable row level security;
    revoke all on table better_supabase.audit_events from public, anon, authenticated, service_role;
    grant select on table better_supabase.audit_events to service_role;
    if not exists (select from pg_catalog.pg_policies where schemaname = 'better_supabase'
                   and tablename = 'audit_events' and policyname = 'audit_events_service_read') then
      create policy audit_events_service_read on better_supabase.audit_events
        for select to service_role using (true);
    end if;

    -- A function that writes: volatile (version 1 recorded nothing and was
    -- stable).
    create or replace function better_supabase.audit_event(
      event_type text,
      category text default null,
      outcome text default 'success',
      source text default null,
      target_type text default null,
      record_id text default null,
      tenant uuid default null,
      metadata jsonb default '{}',
      idempotency_key text default null,
      restricted jsonb default null,
      actor_id uuid default null,
      summary text default null,
      target_label text default null,
      correlation_id text default null
    ) returns text language plpgsql volatile security definer set search_path = '' as $fn$
    -- The arguments share the columns' names; the columns are meant in
    -- the conflict target, the arguments are always qualified.
    #variable_conflict use_column
    declare
      claims jsonb := nullif(pg_catalog.current_setting('request.jwt.claims', true), '')::jsonb;
      recorded bigint;
    begin
      -- restricted (details only some readers may see) is not kept: the
      -- stand-in has no such readers.
      insert into better_supabase.audit_events (event_type, category, outcome, source, target_type, record_id,
        target_label, organization_id, metadata, idempotency_key, actor_id, actor_role, summary, correlation_id)
      values (audit_event.event_type, audit_event.category, coalesce(audit_event.outcome, 'success'), audit_event.source,
        audit_event.target_type, audit_event.record_id, audit_event.target_label, audit_event.tenant,
        coalesce(audit_event.metadata, '{}'::jsonb), audit_event.idempotency_key,
        coalesce(audit_event.actor_id, (select auth.uid())), coalesce(claims ->> 'role', session_user::text),
        audit_event.summary, audit_event.correlation_id)
      on conflict (idempotency_key, organization_id) where idempotency_key is not null do nothing
      returning id into recorded;
      if recorded is null and audit_event.idempotency_key is not null then
        select e.id into recorded from better_supabase.audit_events e
        where e.idempotency_key = audit_event.idempotency_key
          and e.organization_id is not distinct from audit_event.tenant;
      end if;
      return recorded::text;
    end
    $fn$;
    execute pg_catalog.format('comment on function better_supabase.audit_event(text, text, text, text, text, text, uuid, jsonb, text, jsonb, uuid, text, text, text) is %L', mark);
    revoke all on function better_supabase.audit_event(text, text, text, text, text, text, uuid, jsonb, text, jsonb, uuid, text, text, text)
      from public, anon, authenticated, service_role;
    grant execute on function better_supabase.audit_event(text, text, text, text, text, text, uuid, jsonb, text, jsonb, uuid, text, text, text)
      to service_role;
  end if;

  -- No billing here: no tenant has a plan's features.
  execute ours_or_missing into ok using mark, 'better_supabase.tenant_entitlements(uuid)';
  if ok then
    create or replace function better_supabase.tenant_entitlements(tenant uuid)
    returns text[] language sql stable security definer set search_path = '' as $fn$
      select '{}'::text[]
    $fn$;
    execute pg_catalog.format('comment on function better_supabase.tenant_entitlements(uuid) is %L', mark);
    revoke all on function better_supabase.tenant_entitlements(uuid) from public, anon, authenticated, service_role;
    grant execute on function better_supabase.tenant_entitlements(uuid) to authenticated, service_role;
  end if;
end
$access$;
