-- bsadapter block: ai-cache
-- version: 1
-- requires: supabase-base
--
-- A cache of model results, laid out as better-supabase's ai-cache module
-- lays it out, for the cache middleware an AI SDK adapter puts in front of
-- a model: the application derives a key from the request (typically the
-- hex SHA-256 of the model, the prompt and the settings), stores the
-- result under it for a TTL, and reads it back instead of calling the
-- model again. Each entry may name a tenant and a model, so that a tenant's
-- or a model's entries can be dropped at once; nothing checks that the
-- tenant exists.
--
-- The TTL is whole seconds, at least one; more than a week is cut to a
-- week. A read counts a hit on a live entry; an expired entry reads as
-- absent until it is set again or purge_ai_cache() removes it (in batches,
-- from a scheduler such as pg_cron). Time is now(): one transaction sees
-- one time.
--
-- Entries hold prompts and outputs, so only the service role may call any
-- of it, and nothing but the grants guard it. The api schema carries the
-- same four functions for a Data API that exposes that schema.

grant usage on schema better_supabase to anon, authenticated, service_role;

create table if not exists better_supabase.ai_cache_entries (
  key text primary key check (pg_catalog.char_length(key) between 1 and 256),
  organization_id uuid,
  kind text not null default 'generate' check (kind in ('generate', 'stream', 'embed', 'other')),
  model text check (pg_catalog.char_length(model) <= 200),
  -- A MiB of JSON text at most, counted in bytes.
  value jsonb not null check (pg_catalog.octet_length(value::text) <= 1048576),
  hits integer not null default 0,
  created_at timestamptz not null default now(),
  last_hit_at timestamptz,
  expires_at timestamptz not null
);
create index if not exists ai_cache_entries_expires_idx on better_supabase.ai_cache_entries (expires_at);
create index if not exists ai_cache_entries_organization_idx on better_supabase.ai_cache_entries (organization_id);
create index if not exists ai_cache_entries_model_idx on better_supabase.ai_cache_entries (model) where model is not null;

alter table better_supabase.ai_cache_entries enable row level security;
do $policies$
begin
  -- Nobody but the service role reads or writes entries. On Supabase it
  -- bypasses row-level security; where supabase-base had to create it
  -- without BYPASSRLS, this policy gives it the same reach.
  if not exists (select from pg_catalog.pg_policies
                 where schemaname = 'better_supabase' and tablename = 'ai_cache_entries' and policyname = 'ai_cache_entries_service_all') then
    create policy ai_cache_entries_service_all on better_supabase.ai_cache_entries
      for all to service_role using (true) with check (true);
  end if;
end
$policies$;

-- Only these grants count: default privileges may have granted more.
revoke all on table better_supabase.ai_cache_entries from public, anon, authenticated, service_role;
grant all on table better_supabase.ai_cache_entries to service_role;

-- The live entry under key, with its value, after counting this read as a
-- hit; null when there is none, it expired, or key is null.
create or replace function better_supabase.ai_cache_get(key text)
returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  hit better_supabase.ai_cache_entries;
begin
  update better_supabase.ai_cache_entries c
  set hits = c.hits + 1, last_hit_at = now()
  where c.key = ai_cache_get.key and c.expires_at > now()
  returning c.* into hit;
  if not found then
    return null;
  end if;
  -- Every column, as JSON.
  return pg_catalog.to_jsonb(hit);
end
$$;

-- Stores value under key for ttl seconds (at most a week), replacing
-- whatever the key held, expired or not: tenant, kind and model are the
-- call's (a missing tenant clears the old one), and the hits start again.
-- Returns the entry without its value. A ttl under one second (or none)
-- is 22023 AI_CACHE_INVALID; a key, model or value out of bounds breaks
-- the table's checks.
create or replace function better_supabase.ai_cache_set(
  key text, value jsonb, ttl integer,
  tenant uuid default null, kind text default 'generate', model text default null)
returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  stored better_supabase.ai_cache_entries;
begin
  if coalesce(ai_cache_set.ttl < 1, true) then
    raise exception 'ai_cache_set: ttl is % seconds; give at least one second', coalesce(ai_cache_set.ttl::text, 'null')
      using errcode = '22023', hint = 'AI_CACHE_INVALID';
  end if;
  insert into better_supabase.ai_cache_entries as cur (key, organization_id, kind, model, value, expires_at)
  values (ai_cache_set.key, ai_cache_set.tenant, coalesce(ai_cache_set.kind, 'generate'), ai_cache_set.model, ai_cache_set.value,
          now() + pg_catalog.make_interval(secs => least(ai_cache_set.ttl, 604800)))
  -- Named by its constraint: the parameters share the columns' names.
  on conflict on constraint ai_cache_entries_pkey do update
    set organization_id = excluded.organization_id, kind = excluded.kind, model = excluded.model,
        value = excluded.value, hits = 0, created_at = now(), last_hit_at = null, expires_at = excluded.expires_at
  returning cur.* into stored;
  return pg_catalog.to_jsonb(stored) - 'value';
end
$$;

-- Deletes the entries that match every criterion given (a key, a tenant,
-- a model), expired ones too, and returns how many. Naming none is 22023
-- AI_CACHE_INVALID: clearing the whole cache takes a statement of its own.
create or replace function better_supabase.ai_cache_delete(key text default null, tenant uuid default null, model text default null)
returns integer
language plpgsql
set search_path = ''
as $$
declare
  n integer;
begin
  if ai_cache_delete.key is null and ai_cache_delete.tenant is null and ai_cache_delete.model is null then
    raise exception 'ai_cache_delete: name a key, a tenant or a model'
      using errcode = '22023', hint = 'AI_CACHE_INVALID';
  end if;
  delete from better_supabase.ai_cache_entries c
  where (ai_cache_delete.key is null or c.key = ai_cache_delete.key)
    and (ai_cache_delete.tenant is null or c.organization_id = ai_cache_delete.tenant)
    and (ai_cache_delete.model is null or c.model = ai_cache_delete.model);
  get diagnostics n = row_count;
  return n;
end
$$;

-- Deletes up to batch expired entries, those that expired first, and
-- returns how many. A batch under one (or none) is one; more than 50000 is
-- 50000. Entries another purge holds are left to it.
create or replace function better_supabase.purge_ai_cache(batch integer default 5000)
returns integer
language plpgsql
set search_path = ''
as $$
declare
  n integer;
begin
  delete from better_supabase.ai_cache_entries c
  where c.key in (
    select o.key from better_supabase.ai_cache_entries o
    where o.expires_at <= now()
    order by o.expires_at
    limit least(greatest(coalesce(purge_ai_cache.batch, 1), 1), 50000)
    for update skip locked);
  get diagnostics n = row_count;
  return n;
end
$$;

-- The Data API's entry points: the same calls, as the caller.
create schema if not exists api;
grant usage on schema api to anon, authenticated, service_role;

create or replace function api.ai_cache_get(key text)
returns jsonb
language sql
set search_path = ''
as $$ select better_supabase.ai_cache_get(ai_cache_get.key) $$;

create or replace function api.ai_cache_set(
  key text, value jsonb, ttl integer,
  tenant uuid default null, kind text default 'generate', model text default null)
returns jsonb
language sql
set search_path = ''
as $$
  select better_supabase.ai_cache_set(ai_cache_set.key, ai_cache_set.value, ai_cache_set.ttl,
                                      ai_cache_set.tenant, ai_cache_set.kind, ai_cache_set.model)
$$;

create or replace function api.ai_cache_delete(key text default null, tenant uuid default null, model text default null)
returns integer
language sql
set search_path = ''
as $$ select better_supabase.ai_cache_delete(ai_cache_delete.key, ai_cache_delete.tenant, ai_cache_delete.model) $$;

create or replace function api.purge_ai_cache(batch integer default 5000)
returns integer
language sql
set search_path = ''
as $$ select better_supabase.purge_ai_cache(purge_ai_cache.batch) $$;

revoke execute on function
  better_supabase.ai_cache_get(text),
  better_supabase.ai_cache_set(text, jsonb, integer, uuid, text, text),
  better_supabase.ai_cache_delete(text, uuid, text),
  better_supabase.purge_ai_cache(integer),
  api.ai_cache_get(text),
  api.ai_cache_set(text, jsonb, integer, uuid, text, text),
  api.ai_cache_delete(text, uuid, text),
  api.purge_ai_cache(integer)
-- Also from the API roles: default privileges may have granted them
-- every new function.
from public, anon, authenticated, service_role;
grant execute on function
  better_supabase.ai_cache_get(text),
  better_supabase.ai_cache_set(text, jsonb, integer, uuid, text, text),
  better_supabase.ai_cache_delete(text, uuid, text),
  better_supabase.purge_ai_cache(integer),
  api.ai_cache_get(text),
  api.ai_cache_set(text, jsonb, integer, uuid, text, text),
  api.ai_cache_delete(text, uuid, text),
  api.purge_ai_cache(integer)
to service_role;
