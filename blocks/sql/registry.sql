-- bsadapter registry: runs before every module, in the module's transaction.
--
-- Schema better_supabase holds every block; better_supabase.modules records
-- which module is installed at which version.

create schema if not exists better_supabase;

create table if not exists better_supabase.modules (
  name text primary key,
  version integer not null check (version > 0),
  installed_at timestamptz not null default now()
);
alter table better_supabase.modules enable row level security;

do $registry$
begin
  -- Nobody but the installer touches the registry; default privileges may
  -- have granted the API roles more, where they exist already.
  if (select count(*) from pg_catalog.pg_roles where rolname in ('anon', 'authenticated', 'service_role')) = 3
     and exists (select from pg_catalog.pg_class c
                 where c.oid = 'better_supabase.modules'::pg_catalog.regclass and c.relacl is not null) then
    revoke all on table better_supabase.modules from anon, authenticated, service_role;
  end if;
  if pg_catalog.to_regprocedure('better_supabase._caller_is_service()') is null then
    -- Whether the caller acts as the service role. Inside a SECURITY
    -- DEFINER function current_user is the definer, but the role setting
    -- still names the role the caller switched to (as PostgREST does); a
    -- direct login is judged by session_user. A JWT claim alone never
    -- counts: any session can set request.jwt.claims.
    execute $fn$
      create function better_supabase._caller_is_service() returns boolean
      language sql stable set search_path = '' as $body$
        select coalesce((
          select r.rolsuper or r.rolbypassrls
              or case when exists (select from pg_catalog.pg_roles s where s.rolname = 'service_role')
                      then pg_catalog.pg_has_role(r.oid, 'service_role', 'MEMBER') else false end
          from pg_catalog.pg_roles r
          where r.rolname = coalesce(nullif(pg_catalog.current_setting('role'), 'none'), session_user::text)
        ), false)
      $body$
    $fn$;
    revoke all on function better_supabase._caller_is_service() from public;
    -- Default privileges may have granted it to the API roles, where
    -- they exist already.
    if (select count(*) from pg_catalog.pg_roles where rolname in ('anon', 'authenticated', 'service_role')) = 3 then
      revoke all on function better_supabase._caller_is_service() from anon, authenticated, service_role;
    end if;
  end if;
end
$registry$;
