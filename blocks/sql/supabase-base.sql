-- bsadapter block: supabase-base
-- version: 1
-- requires:
--
-- The few Supabase pieces the blocks rely on, for a database that is not a
-- Supabase one: the roles anon, authenticated and service_role, schema auth
-- with a users table, and auth.uid(), auth.jwt() and auth.role() reading the
-- request.jwt.claims setting the way Supabase does. Every statement leaves
-- an existing piece alone, so running it twice changes nothing. It is not
-- for Supabase itself (it would touch auth.users, which Supabase's
-- migration role does not own): Install skips it there, and the printed
-- SQL runs it only where those pieces are missing.

do $base$
begin
  -- Roles belong to the whole cluster: another run may be creating them
  -- in another database right now, so losing that race is fine.
  begin
    if not exists (select from pg_catalog.pg_roles where rolname = 'anon') then
      create role anon nologin noinherit;
    end if;
  exception when duplicate_object or unique_violation then null;
  end;
  begin
    if not exists (select from pg_catalog.pg_roles where rolname = 'authenticated') then
      create role authenticated nologin noinherit;
    end if;
  exception when duplicate_object or unique_violation then null;
  end;
  begin
    if not exists (select from pg_catalog.pg_roles where rolname = 'service_role') then
      -- Only a superuser may grant BYPASSRLS; otherwise the blocks give
      -- service_role a policy on each of their tables instead.
      if (select rolsuper from pg_catalog.pg_roles where rolname = current_user) then
        create role service_role nologin noinherit bypassrls;
      else
        create role service_role nologin noinherit;
      end if;
    end if;
  exception when duplicate_object or unique_violation then null;
  end;
  -- The installing role may switch to the three roles (SET ROLE), as
  -- Supabase's authenticator does; a superuser may anyway.
  if not (select rolsuper from pg_catalog.pg_roles where rolname = current_user) then
    if not pg_catalog.pg_has_role(current_user, 'anon', 'MEMBER') then
      execute pg_catalog.format('grant anon to %I', current_user);
    end if;
    if not pg_catalog.pg_has_role(current_user, 'authenticated', 'MEMBER') then
      execute pg_catalog.format('grant authenticated to %I', current_user);
    end if;
    if not pg_catalog.pg_has_role(current_user, 'service_role', 'MEMBER') then
      execute pg_catalog.format('grant service_role to %I', current_user);
    end if;
  end if;
end
$base$;

create schema if not exists auth;
grant usage on schema auth to anon, authenticated, service_role;

create table if not exists auth.users (
  id uuid primary key default gen_random_uuid(),
  email text,
  raw_user_meta_data jsonb not null default '{}',
  created_at timestamptz not null default now()
);
alter table auth.users enable row level security;
grant all on table auth.users to service_role;
do $base$
begin
  -- For a service_role created without BYPASSRLS (see above).
  if not exists (select from pg_catalog.pg_policies where schemaname = 'auth' and tablename = 'users' and policyname = 'users_service_all') then
    create policy users_service_all on auth.users for all to service_role using (true) with check (true);
  end if;
end
$base$;

do $base$
begin
  if pg_catalog.to_regprocedure('auth.jwt()') is null then
    execute $fn$
      create or replace function auth.jwt() returns jsonb
      language sql stable set search_path = '' as $body$
        select coalesce(
          nullif(pg_catalog.current_setting('request.jwt.claim', true), ''),
          nullif(pg_catalog.current_setting('request.jwt.claims', true), '')
        )::jsonb
      $body$
    $fn$;
  end if;
  if pg_catalog.to_regprocedure('auth.uid()') is null then
    execute $fn$
      create or replace function auth.uid() returns uuid
      language sql stable set search_path = '' as $body$
        select coalesce(
          nullif(pg_catalog.current_setting('request.jwt.claim.sub', true), ''),
          nullif(pg_catalog.current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub'
        )::uuid
      $body$
    $fn$;
  end if;
  if pg_catalog.to_regprocedure('auth.role()') is null then
    execute $fn$
      create or replace function auth.role() returns text
      language sql stable set search_path = '' as $body$
        select coalesce(
          nullif(pg_catalog.current_setting('request.jwt.claim.role', true), ''),
          nullif(pg_catalog.current_setting('request.jwt.claims', true), '')::jsonb ->> 'role'
        )
      $body$
    $fn$;
  end if;
end
$base$;

grant execute on function auth.jwt(), auth.uid(), auth.role() to anon, authenticated, service_role;
