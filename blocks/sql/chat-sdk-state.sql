-- bsadapter block: chat-sdk-state
-- version: 1
-- requires: supabase-base
--
-- Storage for the Chat SDK's StateAdapter, laid out as better-supabase's
-- chat-sdk-state module lays it out, so that a bot needs no Redis: which
-- threads it follows, one lock per thread proven by a token, a key-value
-- cache, capped lists and a message queue per thread. Every row carries a
-- key prefix, so that several bots can share the tables without seeing
-- each other. Beside them, the workspaces that installed a bot, each with
-- a credential_ref that names its token in a credential provider (the
-- token itself is never stored here).
--
-- Time is the server's clock_timestamp(), read at each statement, so that
-- a lock taken early in a long transaction does not expire early. A row
-- whose expiry has passed reads as absent; purge_chat_state() removes such
-- rows in batches (from a scheduler such as pg_cron).
--
-- Only the service role may call any of it: a bot's server holds the key.

grant usage on schema better_supabase to anon, authenticated, service_role;

create table if not exists better_supabase.chat_state_subscriptions (
  key_prefix text not null,
  thread_id text not null,
  created_at timestamptz not null default now(),
  primary key (key_prefix, thread_id)
);

create table if not exists better_supabase.chat_state_locks (
  key_prefix text not null,
  thread_id text not null,
  token text not null,
  expires_at timestamptz not null,
  updated_at timestamptz not null default now(),
  primary key (key_prefix, thread_id)
);
create index if not exists chat_state_locks_expires_idx on better_supabase.chat_state_locks (expires_at);

create table if not exists better_supabase.chat_state_cache (
  key_prefix text not null,
  cache_key text not null,
  value jsonb not null,
  -- null: the value never expires.
  expires_at timestamptz,
  updated_at timestamptz not null default now(),
  primary key (key_prefix, cache_key)
);
create index if not exists chat_state_cache_expires_idx on better_supabase.chat_state_cache (expires_at)
  where expires_at is not null;

-- A list is its rows under one (key_prefix, list_key); the identity
-- column orders them, oldest first.
create table if not exists better_supabase.chat_state_lists (
  id bigint generated always as identity primary key,
  key_prefix text not null,
  list_key text not null,
  value jsonb not null,
  expires_at timestamptz
);
create index if not exists chat_state_lists_key_idx on better_supabase.chat_state_lists (key_prefix, list_key, id);
create index if not exists chat_state_lists_expires_idx on better_supabase.chat_state_lists (expires_at)
  where expires_at is not null;

-- A thread's queue, ordered as the lists are. expires_at is the entry's
-- own (the SDK's expiresAt), so every entry has one.
create table if not exists better_supabase.chat_state_queues (
  id bigint generated always as identity primary key,
  key_prefix text not null,
  thread_id text not null,
  value jsonb not null,
  expires_at timestamptz not null
);
create index if not exists chat_state_queues_thread_idx on better_supabase.chat_state_queues (key_prefix, thread_id, id);
create index if not exists chat_state_queues_expires_idx on better_supabase.chat_state_queues (expires_at);

-- One row per (adapter, workspace). Uninstalling marks the row and drops
-- its credential_ref but keeps it, so that a reinstall finds its tenant
-- again.
create table if not exists better_supabase.chat_installations (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid,
  adapter text not null check (length(adapter) between 1 and 100),
  external_id text not null check (length(external_id) between 1 and 500),
  credential_ref jsonb check (credential_ref is null or (jsonb_typeof(credential_ref) = 'object' and credential_ref ? 'provider')),
  metadata jsonb not null default '{}'::jsonb,
  installed_by uuid references auth.users (id) on delete set null,
  installed_at timestamptz not null default now(),
  uninstalled_at timestamptz,
  unique (adapter, external_id)
);
create index if not exists chat_installations_tenant_idx on better_supabase.chat_installations (tenant_id);
create index if not exists chat_installations_installed_by_idx on better_supabase.chat_installations (installed_by);

do $policies$
declare
  t text;
begin
  foreach t in array array['chat_state_subscriptions', 'chat_state_locks', 'chat_state_cache',
                           'chat_state_lists', 'chat_state_queues', 'chat_installations'] loop
    execute pg_catalog.format('alter table better_supabase.%I enable row level security', t);
    -- Nobody but the service role reads or writes these rows. On Supabase
    -- it bypasses row-level security; where supabase-base had to create
    -- it without BYPASSRLS, this policy gives it the same reach.
    if not exists (select from pg_catalog.pg_policies where schemaname = 'better_supabase' and tablename = t and policyname = t || '_service_all') then
      execute pg_catalog.format('create policy %I on better_supabase.%I for all to service_role using (true) with check (true)', t || '_service_all', t);
    end if;
  end loop;
end
$policies$;

-- Only these grants count: default privileges may have granted more.
revoke all on table
  better_supabase.chat_state_subscriptions, better_supabase.chat_state_locks, better_supabase.chat_state_cache,
  better_supabase.chat_state_lists, better_supabase.chat_state_queues, better_supabase.chat_installations
from public, anon, authenticated, service_role;
grant all on table
  better_supabase.chat_state_subscriptions, better_supabase.chat_state_locks, better_supabase.chat_state_cache,
  better_supabase.chat_state_lists, better_supabase.chat_state_queues, better_supabase.chat_installations
to service_role;

-- Subscriptions.

create or replace function better_supabase.chat_state_subscribe(prefix text, thread_id text)
returns void
language sql
set search_path = ''
as $$
  insert into better_supabase.chat_state_subscriptions (key_prefix, thread_id)
  values (chat_state_subscribe.prefix, chat_state_subscribe.thread_id)
  on conflict (key_prefix, thread_id) do nothing;
$$;

create or replace function better_supabase.chat_state_unsubscribe(prefix text, thread_id text)
returns void
language sql
set search_path = ''
as $$
  delete from better_supabase.chat_state_subscriptions s
  where (s.key_prefix, s.thread_id) = (chat_state_unsubscribe.prefix, chat_state_unsubscribe.thread_id);
$$;

create or replace function better_supabase.chat_state_is_subscribed(prefix text, thread_id text)
returns boolean
language sql
stable
set search_path = ''
as $$
  select exists (
    select from better_supabase.chat_state_subscriptions s
    where (s.key_prefix, s.thread_id) = (chat_state_is_subscribed.prefix, chat_state_is_subscribed.thread_id)
  );
$$;

-- Locks. A TTL under a millisecond counts as one, so a lock is never
-- born expired.

-- The lock, as {thread_id, token, expires_at}, when the thread had none or
-- only an expired one; null while someone else holds it. Racing callers
-- meet on the primary key: one inserts, the others find a live lock.
create or replace function better_supabase.chat_state_acquire_lock(prefix text, thread_id text, token text, ttl_ms integer)
returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  taken better_supabase.chat_state_locks;
begin
  insert into better_supabase.chat_state_locks as cur (key_prefix, thread_id, token, expires_at)
  values (chat_state_acquire_lock.prefix, chat_state_acquire_lock.thread_id, chat_state_acquire_lock.token,
          pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => greatest(coalesce(chat_state_acquire_lock.ttl_ms, 0), 1) / 1000.0))
  -- Named by its constraint: the parameters share the columns' names.
  on conflict on constraint chat_state_locks_pkey do update
    set token = excluded.token, expires_at = excluded.expires_at, updated_at = pg_catalog.clock_timestamp()
    where cur.expires_at <= pg_catalog.clock_timestamp()
  returning * into taken;
  if taken.token is null then
    return null;
  end if;
  return pg_catalog.jsonb_build_object('thread_id', taken.thread_id, 'token', taken.token, 'expires_at', taken.expires_at);
end
$$;

-- True when the token holds a live lock on the thread, which now expires
-- ttl_ms from now. An expired lock is not revived.
create or replace function better_supabase.chat_state_extend_lock(prefix text, thread_id text, token text, ttl_ms integer)
returns boolean
language plpgsql
set search_path = ''
as $$
begin
  update better_supabase.chat_state_locks l
  set expires_at = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => greatest(coalesce(chat_state_extend_lock.ttl_ms, 0), 1) / 1000.0),
      updated_at = pg_catalog.clock_timestamp()
  where (l.key_prefix, l.thread_id, l.token) = (chat_state_extend_lock.prefix, chat_state_extend_lock.thread_id, chat_state_extend_lock.token)
    and l.expires_at > pg_catalog.clock_timestamp();
  return found;
end
$$;

-- True when the token held the thread's lock (live or expired), which is
-- now gone; any other token leaves the lock alone.
create or replace function better_supabase.chat_state_release_lock(prefix text, thread_id text, token text)
returns boolean
language plpgsql
set search_path = ''
as $$
begin
  delete from better_supabase.chat_state_locks l
  where (l.key_prefix, l.thread_id, l.token) = (chat_state_release_lock.prefix, chat_state_release_lock.thread_id, chat_state_release_lock.token);
  return found;
end
$$;

-- Drops the thread's lock whoever holds it; true when there was one.
create or replace function better_supabase.chat_state_force_release_lock(prefix text, thread_id text)
returns boolean
language plpgsql
set search_path = ''
as $$
begin
  delete from better_supabase.chat_state_locks l
  where (l.key_prefix, l.thread_id) = (chat_state_force_release_lock.prefix, chat_state_force_release_lock.thread_id);
  return found;
end
$$;

-- The cache. A TTL that is null or not positive means the value stays
-- until it is replaced or deleted.

-- {"value": v} for a live key, null for a missing or expired one: a
-- stored JSON null comes back as {"value": null}, never as a miss.
create or replace function better_supabase.chat_state_get(prefix text, key text)
returns jsonb
language sql
set search_path = ''
as $$
  select pg_catalog.jsonb_build_object('value', c.value)
  from better_supabase.chat_state_cache c
  where (c.key_prefix, c.cache_key) = (chat_state_get.prefix, chat_state_get.key)
    and (c.expires_at is null or c.expires_at > pg_catalog.clock_timestamp());
$$;

create or replace function better_supabase.chat_state_set(prefix text, key text, value jsonb, ttl_ms integer default null)
returns void
language sql
set search_path = ''
as $$
  insert into better_supabase.chat_state_cache (key_prefix, cache_key, value, expires_at)
  values (chat_state_set.prefix, chat_state_set.key, chat_state_set.value,
          case when chat_state_set.ttl_ms > 0
               then pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => chat_state_set.ttl_ms / 1000.0) end)
  on conflict (key_prefix, cache_key) do update
    set value = excluded.value, expires_at = excluded.expires_at, updated_at = pg_catalog.clock_timestamp();
$$;

-- Stores the value only where the key holds nothing live, and says
-- whether it did. An expired value counts as nothing.
create or replace function better_supabase.chat_state_set_if_not_exists(prefix text, key text, value jsonb, ttl_ms integer default null)
returns boolean
language plpgsql
set search_path = ''
as $$
begin
  insert into better_supabase.chat_state_cache as cur (key_prefix, cache_key, value, expires_at)
  values (chat_state_set_if_not_exists.prefix, chat_state_set_if_not_exists.key, chat_state_set_if_not_exists.value,
          case when chat_state_set_if_not_exists.ttl_ms > 0
               then pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => chat_state_set_if_not_exists.ttl_ms / 1000.0) end)
  on conflict on constraint chat_state_cache_pkey do update
    set value = excluded.value, expires_at = excluded.expires_at, updated_at = pg_catalog.clock_timestamp()
    where cur.expires_at <= pg_catalog.clock_timestamp();
  return found;
end
$$;

create or replace function better_supabase.chat_state_delete(prefix text, key text)
returns void
language sql
set search_path = ''
as $$
  delete from better_supabase.chat_state_cache c
  where (c.key_prefix, c.cache_key) = (chat_state_delete.prefix, chat_state_delete.key);
$$;

-- Lists.

-- Appends value; with max_length > 0 only the newest max_length entries
-- stay. The list's expiry is one for all its entries: each append sets it
-- to ttl_ms from now, or clears it when ttl_ms is null or not positive. A
-- list whose expiry has passed is gone: an append to it starts a new list
-- (its old entries are deleted first, never revived by the new expiry).
create or replace function better_supabase.chat_state_append_to_list(prefix text, key text, value jsonb, max_length integer default null, ttl_ms integer default null)
returns void
language plpgsql
set search_path = ''
as $$
declare
  until timestamptz;
begin
  delete from better_supabase.chat_state_lists l
  where (l.key_prefix, l.list_key) = (chat_state_append_to_list.prefix, chat_state_append_to_list.key)
    and l.expires_at <= pg_catalog.clock_timestamp();
  if chat_state_append_to_list.ttl_ms > 0 then
    until := pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => chat_state_append_to_list.ttl_ms / 1000.0);
  end if;
  insert into better_supabase.chat_state_lists (key_prefix, list_key, value, expires_at)
  values (chat_state_append_to_list.prefix, chat_state_append_to_list.key, chat_state_append_to_list.value, until);
  if chat_state_append_to_list.max_length > 0 then
    delete from better_supabase.chat_state_lists l
    where l.id in (
      select o.id from better_supabase.chat_state_lists o
      where (o.key_prefix, o.list_key) = (chat_state_append_to_list.prefix, chat_state_append_to_list.key)
      order by o.id desc
      offset chat_state_append_to_list.max_length
    );
  end if;
  update better_supabase.chat_state_lists l set expires_at = until
  where (l.key_prefix, l.list_key) = (chat_state_append_to_list.prefix, chat_state_append_to_list.key)
    and l.expires_at is distinct from until;
end
$$;

-- The list's live values, oldest first; [] for a missing list.
create or replace function better_supabase.chat_state_get_list(prefix text, key text)
returns jsonb
language sql
set search_path = ''
as $$
  select coalesce(pg_catalog.jsonb_agg(l.value order by l.id), '[]'::jsonb)
  from better_supabase.chat_state_lists l
  where (l.key_prefix, l.list_key) = (chat_state_get_list.prefix, chat_state_get_list.key)
    and (l.expires_at is null or l.expires_at > pg_catalog.clock_timestamp());
$$;

-- Queues. An entry whose expires_at has passed neither counts nor
-- dequeues; enqueue and dequeue delete the thread's expired entries.

-- Adds entry to the thread's queue; with max_size > 0 only the newest
-- max_size live entries stay. Returns how many live entries the queue
-- holds.
create or replace function better_supabase.chat_state_enqueue(prefix text, thread_id text, entry jsonb, expires_at timestamptz, max_size integer default null)
returns integer
language plpgsql
set search_path = ''
as $$
declare
  depth integer;
begin
  delete from better_supabase.chat_state_queues q
  where (q.key_prefix, q.thread_id) = (chat_state_enqueue.prefix, chat_state_enqueue.thread_id)
    and q.expires_at <= pg_catalog.clock_timestamp();
  insert into better_supabase.chat_state_queues (key_prefix, thread_id, value, expires_at)
  values (chat_state_enqueue.prefix, chat_state_enqueue.thread_id, chat_state_enqueue.entry, chat_state_enqueue.expires_at);
  -- The cap counts live entries only: an entry that arrives expired (or
  -- any that expired meanwhile) takes no place and pushes out no live
  -- one. It stays a row until the next enqueue, dequeue or purge.
  if chat_state_enqueue.max_size > 0 then
    delete from better_supabase.chat_state_queues q
    where q.id in (
      select o.id from better_supabase.chat_state_queues o
      where (o.key_prefix, o.thread_id) = (chat_state_enqueue.prefix, chat_state_enqueue.thread_id)
        and o.expires_at > pg_catalog.clock_timestamp()
      order by o.id desc
      offset chat_state_enqueue.max_size
    );
  end if;
  select count(*)::integer into depth
  from better_supabase.chat_state_queues q
  where (q.key_prefix, q.thread_id) = (chat_state_enqueue.prefix, chat_state_enqueue.thread_id)
    and q.expires_at > pg_catalog.clock_timestamp();
  return depth;
end
$$;

-- Takes the thread's oldest live entry off the queue and returns it, or
-- null. Workers dequeueing at once each take a different entry: one skips
-- the entry another has locked.
create or replace function better_supabase.chat_state_dequeue(prefix text, thread_id text)
returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  taken jsonb;
begin
  delete from better_supabase.chat_state_queues q
  where (q.key_prefix, q.thread_id) = (chat_state_dequeue.prefix, chat_state_dequeue.thread_id)
    and q.expires_at <= pg_catalog.clock_timestamp();
  delete from better_supabase.chat_state_queues q
  where q.id = (
    select o.id from better_supabase.chat_state_queues o
    where (o.key_prefix, o.thread_id) = (chat_state_dequeue.prefix, chat_state_dequeue.thread_id)
    order by o.id
    limit 1
    for update skip locked
  )
  returning q.value into taken;
  return taken;
end
$$;

create or replace function better_supabase.chat_state_queue_depth(prefix text, thread_id text)
returns integer
language sql
set search_path = ''
as $$
  select count(*)::integer
  from better_supabase.chat_state_queues q
  where (q.key_prefix, q.thread_id) = (chat_state_queue_depth.prefix, chat_state_queue_depth.thread_id)
    and q.expires_at > pg_catalog.clock_timestamp();
$$;

-- Deletes expired locks, cache values, list entries and queue entries, of
-- each kind at most batch rows (at least one), and returns how many went.
-- Subscriptions never expire.
create or replace function better_supabase.purge_chat_state(batch integer default 5000)
returns integer
language plpgsql
set search_path = ''
as $$
declare
  size integer := greatest(coalesce(purge_chat_state.batch, 5000), 1);
  total integer := 0;
  n integer;
begin
  delete from better_supabase.chat_state_locks l
  where (l.key_prefix, l.thread_id) in (
    select o.key_prefix, o.thread_id from better_supabase.chat_state_locks o
    where o.expires_at <= pg_catalog.clock_timestamp() limit size);
  get diagnostics n = row_count;
  total := total + n;
  delete from better_supabase.chat_state_cache c
  where (c.key_prefix, c.cache_key) in (
    select o.key_prefix, o.cache_key from better_supabase.chat_state_cache o
    where o.expires_at <= pg_catalog.clock_timestamp() limit size);
  get diagnostics n = row_count;
  total := total + n;
  delete from better_supabase.chat_state_lists l
  where l.id in (
    select o.id from better_supabase.chat_state_lists o
    where o.expires_at <= pg_catalog.clock_timestamp() limit size);
  get diagnostics n = row_count;
  total := total + n;
  delete from better_supabase.chat_state_queues q
  where q.id in (
    select o.id from better_supabase.chat_state_queues o
    where o.expires_at <= pg_catalog.clock_timestamp() limit size);
  get diagnostics n = row_count;
  return total + n;
end
$$;

-- Installations.

-- Records that a workspace installed the bot, or installed it again, and
-- returns the row plus previous_credential_ref: the ref the row held
-- before when this call replaced it with another (the caller revokes that
-- credential), else null. A reinstall keeps the tenant and installer it
-- had unless new ones are given, and merges the metadata.
create or replace function better_supabase.chat_install(adapter text, external_id text, tenant uuid default null, credential_ref jsonb default null, installed_by uuid default null, metadata jsonb default '{}'::jsonb)
returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  before jsonb;
  saved better_supabase.chat_installations;
begin
  -- The row lock keeps the ref read here the one this call replaces.
  select i.credential_ref into before
  from better_supabase.chat_installations i
  where (i.adapter, i.external_id) = (chat_install.adapter, chat_install.external_id)
  for update;
  insert into better_supabase.chat_installations as cur (tenant_id, adapter, external_id, credential_ref, installed_by, metadata)
  values (chat_install.tenant, chat_install.adapter, chat_install.external_id, chat_install.credential_ref,
          chat_install.installed_by, coalesce(chat_install.metadata, '{}'::jsonb))
  on conflict on constraint chat_installations_adapter_external_id_key do update
    set tenant_id = coalesce(excluded.tenant_id, cur.tenant_id),
        credential_ref = excluded.credential_ref,
        installed_by = coalesce(excluded.installed_by, cur.installed_by),
        metadata = cur.metadata || excluded.metadata,
        installed_at = pg_catalog.clock_timestamp(),
        uninstalled_at = null
  returning * into saved;
  return pg_catalog.to_jsonb(saved) || pg_catalog.jsonb_build_object('previous_credential_ref',
    case when before is distinct from saved.credential_ref then before end);
end
$$;

-- The workspace's row, installed or not; null when it never installed.
create or replace function better_supabase.chat_installation(adapter text, external_id text)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select pg_catalog.to_jsonb(i)
  from better_supabase.chat_installations i
  where (i.adapter, i.external_id) = (chat_installation.adapter, chat_installation.external_id);
$$;

-- The installations, newest first, of one tenant and one adapter when
-- given; uninstalled ones only when asked for.
create or replace function better_supabase.list_chat_installations(tenant uuid default null, adapter text default null, include_uninstalled boolean default false)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select coalesce(pg_catalog.jsonb_agg(pg_catalog.to_jsonb(i) order by i.installed_at desc), '[]'::jsonb)
  from better_supabase.chat_installations i
  where (list_chat_installations.tenant is null or i.tenant_id = list_chat_installations.tenant)
    and (list_chat_installations.adapter is null or i.adapter = list_chat_installations.adapter)
    and (i.uninstalled_at is null or coalesce(list_chat_installations.include_uninstalled, false));
$$;

-- Marks a live installation uninstalled and clears its credential_ref;
-- returns the row plus previous_credential_ref, the ref it held, for the
-- caller to revoke. Null when the workspace has no live installation.
create or replace function better_supabase.chat_uninstall(adapter text, external_id text)
returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  held jsonb;
  saved better_supabase.chat_installations;
begin
  select i.credential_ref into held
  from better_supabase.chat_installations i
  where (i.adapter, i.external_id) = (chat_uninstall.adapter, chat_uninstall.external_id)
    and i.uninstalled_at is null
  for update;
  if not found then
    return null;
  end if;
  update better_supabase.chat_installations i
  set uninstalled_at = pg_catalog.clock_timestamp(), credential_ref = null
  where (i.adapter, i.external_id) = (chat_uninstall.adapter, chat_uninstall.external_id)
  returning * into saved;
  return pg_catalog.to_jsonb(saved) || pg_catalog.jsonb_build_object('previous_credential_ref', held);
end
$$;

revoke all on function
  better_supabase.chat_state_subscribe(text, text),
  better_supabase.chat_state_unsubscribe(text, text),
  better_supabase.chat_state_is_subscribed(text, text),
  better_supabase.chat_state_acquire_lock(text, text, text, integer),
  better_supabase.chat_state_extend_lock(text, text, text, integer),
  better_supabase.chat_state_release_lock(text, text, text),
  better_supabase.chat_state_force_release_lock(text, text),
  better_supabase.chat_state_get(text, text),
  better_supabase.chat_state_set(text, text, jsonb, integer),
  better_supabase.chat_state_set_if_not_exists(text, text, jsonb, integer),
  better_supabase.chat_state_delete(text, text),
  better_supabase.chat_state_append_to_list(text, text, jsonb, integer, integer),
  better_supabase.chat_state_get_list(text, text),
  better_supabase.chat_state_enqueue(text, text, jsonb, timestamptz, integer),
  better_supabase.chat_state_dequeue(text, text),
  better_supabase.chat_state_queue_depth(text, text),
  better_supabase.purge_chat_state(integer),
  better_supabase.chat_install(text, text, uuid, jsonb, uuid, jsonb),
  better_supabase.chat_installation(text, text),
  better_supabase.list_chat_installations(uuid, text, boolean),
  better_supabase.chat_uninstall(text, text)
-- Also from the API roles: default privileges may have granted them
-- every new function.
from public, anon, authenticated, service_role;
grant execute on function
  better_supabase.chat_state_subscribe(text, text),
  better_supabase.chat_state_unsubscribe(text, text),
  better_supabase.chat_state_is_subscribed(text, text),
  better_supabase.chat_state_acquire_lock(text, text, text, integer),
  better_supabase.chat_state_extend_lock(text, text, text, integer),
  better_supabase.chat_state_release_lock(text, text, text),
  better_supabase.chat_state_force_release_lock(text, text),
  better_supabase.chat_state_get(text, text),
  better_supabase.chat_state_set(text, text, jsonb, integer),
  better_supabase.chat_state_set_if_not_exists(text, text, jsonb, integer),
  better_supabase.chat_state_delete(text, text),
  better_supabase.chat_state_append_to_list(text, text, jsonb, integer, integer),
  better_supabase.chat_state_get_list(text, text),
  better_supabase.chat_state_enqueue(text, text, jsonb, timestamptz, integer),
  better_supabase.chat_state_dequeue(text, text),
  better_supabase.chat_state_queue_depth(text, text),
  better_supabase.purge_chat_state(integer),
  better_supabase.chat_install(text, text, uuid, jsonb, uuid, jsonb),
  better_supabase.chat_installation(text, text),
  better_supabase.list_chat_installations(uuid, text, boolean),
  better_supabase.chat_uninstall(text, text)
to service_role;
