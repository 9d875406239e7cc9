-- bsadapter registry: runs before every module, in the module's transaction.
--
-- Schema better_supabase holds every block; better_supabase.modules records
-- which module is installed at which version and in which mode (managed:
-- better-supabase's own SQL; custom: an implementation of its contract),
-- in the layout better-supabase's modules give it.

create schema if not exists better_supabase;

create table if not exists better_supabase.modules (
  name text primary key,
  version integer not null check (version > 0),
  mode text not null default 'managed',
  installed_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
-- Registries written before the table had a mode and updated_at.
alter table better_supabase.modules add column if not exists mode text not null default 'managed';
alter table better_supabase.modules add column if not exists updated_at timestamptz not null default now();
alter table better_supabase.modules enable row level security;

do $registry$
begin
  -- The installer writes the registry; the service role may read it, and
  -- nobody else may touch it (default privileges may have granted the API
  -- roles more, where they exist already).
  if (select count(*) from pg_catalog.pg_roles where rolname in ('anon', 'authenticated', 'service_role')) = 3 then
    revoke all on table better_supabase.modules from anon, authenticated, service_role;
    grant select on table better_supabase.modules to service_role;
    if not exists (select from pg_catalog.pg_policies where schemaname = 'better_supabase'
                   and tablename = 'modules' and policyname = 'modules_service_read') then
      -- For a service_role created without BYPASSRLS.
      create policy modules_service_read on better_supabase.modules for select to service_role using (true);
    end if;
  end if;
  -- Whether the caller counts as the service role, decided as better-supabase
  -- decides it: by the role claim of the request's JWT (PostgREST sets
  -- request.jwt.claims from a token it verified), else by the login role
  -- (a direct connection of the server's own admin roles, or of any
  -- superuser).
  execute $fn$
    create or replace function better_supabase._caller_is_service() returns boolean
    language sql stable set search_path = '' as $body$
      select case
        when nullif(nullif(pg_catalog.current_setting('request.jwt.claims', true), '')::jsonb ->> 'role', '') is not null
          then nullif(pg_catalog.current_setting('request.jwt.claims', true), '')::jsonb ->> 'role'
               in ('service_role', 'postgres', 'supabase_admin')
        else session_user::text in ('service_role', 'postgres', 'supabase_admin')
          or coalesce((select r.rolsuper from pg_catalog.pg_roles r where r.rolname = session_user), false)
      end
    $body$
  $fn$;
  revoke all on function better_supabase._caller_is_service() from public;
  -- Default privileges may have granted it to the API roles, where they
  -- exist already.
  if (select count(*) from pg_catalog.pg_roles where rolname in ('anon', 'authenticated', 'service_role')) = 3 then
    revoke all on function better_supabase._caller_is_service() from anon, authenticated, service_role;
  end if;
end
$registry$;
