-- bsadapter block: streams
-- version: 1
-- requires: supabase-base
--
-- Resumable output: a stream is an append-only list of text chunks that a
-- writer appends to in batches (retries are no-ops) and readers page
-- through, with close and cancel flags. Chunks never travel over Realtime;
-- when Supabase Realtime is there, writes send a ping on topic stream:<id>.

grant usage on schema better_supabase to anon, authenticated, service_role;

create table if not exists better_supabase.streams (
  id text primary key check (char_length(id) between 1 and 200),
  tenant_id uuid,
  owner_id uuid references auth.users (id) on delete cascade,
  kind text not null default 'default' check (char_length(kind) between 1 and 100),
  wake boolean not null default true,
  created_at timestamptz not null default now(),
  closed_at timestamptz,
  cancel_requested_at timestamptz,
  expires_at timestamptz not null default now() + interval '1 day'
);
create index if not exists streams_owner_id_idx on better_supabase.streams (owner_id);
create index if not exists streams_tenant_id_idx on better_supabase.streams (tenant_id);
create index if not exists streams_expires_at_idx on better_supabase.streams (expires_at);
create index if not exists streams_closed_at_idx on better_supabase.streams (closed_at);

create table if not exists better_supabase.stream_chunks (
  stream_id text not null references better_supabase.streams (id) on delete cascade,
  idx integer not null check (idx >= 0),
  data text not null,
  primary key (stream_id, idx)
);

alter table better_supabase.streams enable row level security;
alter table better_supabase.stream_chunks enable row level security;

do $policies$
declare
  t text;
begin
  -- The service role does everything. On Supabase it bypasses row-level
  -- security anyway; where supabase-base had to create it without
  -- BYPASSRLS (the installing role was not a superuser), this gives it
  -- the same reach.
  foreach t in array array['streams','stream_chunks'] loop
    if not exists (select from pg_catalog.pg_policies where schemaname = 'better_supabase' and tablename = t and policyname = t || '_service_all') then
      execute pg_catalog.format('create policy %I on better_supabase.%I for all to service_role using (true) with check (true)', t || '_service_all', t);
    end if;
  end loop;
  if not exists (select from pg_catalog.pg_policies where schemaname = 'better_supabase' and tablename = 'streams' and policyname = 'streams_owner_read') then
    create policy streams_owner_read on better_supabase.streams
      for select to authenticated
      using (owner_id = (select auth.uid()));
  end if;
  if not exists (select from pg_catalog.pg_policies where schemaname = 'better_supabase' and tablename = 'stream_chunks' and policyname = 'stream_chunks_owner_read') then
    create policy stream_chunks_owner_read on better_supabase.stream_chunks
      for select to authenticated
      using (exists (
        select from better_supabase.streams s
        where s.id = stream_chunks.stream_id and s.owner_id = (select auth.uid())
      ));
  end if;
end
$policies$;

-- Only these grants count: default privileges may have granted more
-- (TRUNCATE, which row-level security does not stop, among them). anon
-- gets nothing; a signed-in user reads, and row-level security shows it
-- its own streams.
revoke all on table better_supabase.streams, better_supabase.stream_chunks from anon, authenticated, service_role;
grant select on table better_supabase.streams, better_supabase.stream_chunks to authenticated;
grant all on table better_supabase.streams, better_supabase.stream_chunks to service_role;

-- _stream_ping sends a Realtime broadcast on the stream's private topic, so
-- that readers wake and read; the streams block sends an empty payload (the
-- chunks never travel over Realtime). Without Supabase Realtime (plain
-- Postgres) it does nothing.
create or replace function better_supabase._stream_ping(stream_id text, event text, payload jsonb)
returns void language plpgsql security definer set search_path = '' as $$
begin
  if pg_catalog.to_regprocedure('realtime.send(jsonb,text,text,boolean)') is not null then
    execute 'select realtime.send($1, $2, $3, true)'
      using coalesce(payload, '{}'::jsonb), event, 'stream:' || _stream_ping.stream_id;
  end if;
end
$$;

create or replace function better_supabase.stream_open(
  stream_id text,
  owner uuid default null,
  tenant uuid default null,
  kind text default 'default',
  ttl interval default '1 day',
  wake boolean default true
) returns boolean language plpgsql security invoker set search_path = '' as $$
#variable_conflict use_column
declare
  n integer;
begin
  -- A null kind, wake or ttl means its default.
  insert into better_supabase.streams (id, owner_id, tenant_id, kind, wake, expires_at)
  values (stream_open.stream_id, stream_open.owner, stream_open.tenant,
          coalesce(stream_open.kind, 'default'), coalesce(stream_open.wake, true),
          now() + coalesce(stream_open.ttl, interval '1 day'))
  on conflict (id) do nothing;
  get diagnostics n = row_count;
  return n > 0;
end
$$;

create or replace function better_supabase.stream_append(
  stream_id text,
  from_idx integer,
  chunks text[]
) returns jsonb language plpgsql security invoker set search_path = ''
-- Every lookup here is by key. A plan cached while the tables were small
-- would scan them whole for the rest of the session (until the next
-- ANALYZE); with sequential scans off, the cached plans use the keys.
set enable_seqscan = off as $$
#variable_conflict use_column
declare
  st record;
  v_next integer;
  v_count integer := coalesce(pg_catalog.cardinality(stream_append.chunks), 0);
  v_new integer;
begin
  -- Chunk i goes to from_idx + i whatever the array's subscripts: an
  -- array that does not start at 1, or has more than one dimension, is
  -- read as the flat list of its elements.
  if pg_catalog.array_lower(stream_append.chunks, 1) is distinct from 1
     or pg_catalog.array_ndims(stream_append.chunks) > 1 then
    stream_append.chunks := array(select u.t from unnest(stream_append.chunks) with ordinality as u(t, o) order by u.o);
  end if;
  -- The row lock orders concurrent writers of one stream and makes the
  -- closed check and the computed next agree with the insert.
  select s.closed_at, s.cancel_requested_at, s.wake into st
  from better_supabase.streams s
  where s.id = stream_append.stream_id
  for no key update;
  if not found then
    raise exception 'stream % not found', stream_append.stream_id
      using errcode = 'P0002', hint = 'STREAM_NOT_FOUND';
  end if;
  if st.closed_at is not null then
    raise exception 'stream % is closed', stream_append.stream_id
      using errcode = 'P0001', hint = 'STREAM_CLOSED';
  end if;
  -- ORDER BY ... LIMIT 1 rather than max(): a plan made while the stream
  -- was empty would otherwise read every index entry of the stream.
  select c.idx + 1 into v_next
  from better_supabase.stream_chunks c
  where c.stream_id = stream_append.stream_id
  order by c.stream_id desc, c.idx desc
  limit 1;
  v_next := coalesce(v_next, 0);
  if stream_append.from_idx is null then
    -- No place to put chunks at; an empty batch reports where the stream is.
    if v_count > 0 then
      raise exception 'stream %: append without an index', stream_append.stream_id
        using errcode = 'not_null_violation';
    end if;
    return jsonb_build_object('next', v_next, 'cancelled', st.cancel_requested_at is not null);
  end if;
  if stream_append.from_idx < 0 or stream_append.from_idx > v_next then
    raise exception 'stream %: append at index % would leave a gap (next index is %)',
        stream_append.stream_id, stream_append.from_idx, v_next
      using errcode = 'P0001', hint = 'STREAM_GAP';
  end if;
  v_new := greatest(v_next, stream_append.from_idx + v_count);
  if v_new > v_next then
    -- Indexes below v_next are stored already: the first write wins, so
    -- only the chunks past them go in.
    insert into better_supabase.stream_chunks (stream_id, idx, data)
    select stream_append.stream_id, v_next + u.o - 1, u.t
    from unnest(stream_append.chunks[(v_next - stream_append.from_idx + 1):v_count]) with ordinality as u(t, o)
    on conflict do nothing;
  end if;
  -- An empty batch wakes nobody; without Realtime (plain Postgres) skip
  -- even the call.
  if st.wake and v_count > 0 and pg_catalog.to_regnamespace('realtime') is not null then
    perform better_supabase._stream_ping(stream_append.stream_id, 'append', '{}'::jsonb);
  end if;
  return jsonb_build_object('next', v_new, 'cancelled', st.cancel_requested_at is not null);
end
$$;

create or replace function better_supabase.stream_read(
  stream_id text,
  from_idx integer default 0,
  max integer default 1000
) returns jsonb language plpgsql stable security invoker set search_path = ''
set enable_seqscan = off as $$
#variable_conflict use_column
declare
  st record;
  v_from integer := greatest(coalesce(stream_read.from_idx, 0), 0);
  v_max integer := least(greatest(coalesce(stream_read.max, 1000), 0), 10000);
  v_chunks jsonb;
  v_count integer;
  v_total integer;
begin
  select s.closed_at, s.cancel_requested_at into st
  from better_supabase.streams s
  where s.id = stream_read.stream_id;
  if not found then
    return jsonb_build_object('found', false, 'chunks', '[]'::jsonb, 'next', v_from, 'done', true, 'cancelled', false);
  end if;
  select coalesce(jsonb_agg(p.data order by p.idx), '[]'::jsonb), count(*) into v_chunks, v_count
  from (
    select c.idx, c.data from better_supabase.stream_chunks c
    where c.stream_id = stream_read.stream_id and c.idx >= v_from
    order by c.idx
    limit v_max
  ) p;
  select c.idx + 1 into v_total
  from better_supabase.stream_chunks c
  where c.stream_id = stream_read.stream_id
  order by c.stream_id desc, c.idx desc
  limit 1;
  v_total := coalesce(v_total, 0);
  return jsonb_build_object(
    'found', true,
    'chunks', v_chunks,
    'next', v_from + v_count,
    'done', st.closed_at is not null and v_from + v_count >= v_total,
    'cancelled', st.cancel_requested_at is not null);
end
$$;

create or replace function better_supabase.stream_status(stream_id text)
returns jsonb language sql stable security invoker set search_path = ''
set enable_seqscan = off as $$
  select jsonb_build_object(
    'next', coalesce((select c.idx + 1 from better_supabase.stream_chunks c where c.stream_id = s.id
                      order by c.stream_id desc, c.idx desc limit 1), 0),
    'closed', s.closed_at is not null,
    'cancelled', s.cancel_requested_at is not null,
    'kind', s.kind,
    'expires_at', s.expires_at)
  from better_supabase.streams s
  where s.id = stream_status.stream_id
$$;

create or replace function better_supabase.stream_close(stream_id text)
returns boolean language plpgsql security invoker set search_path = '' as $$
#variable_conflict use_column
declare
  v_wake boolean;
begin
  update better_supabase.streams s set closed_at = now()
  where s.id = stream_close.stream_id and s.closed_at is null
  returning s.wake into v_wake;
  if not found then
    return false;
  end if;
  if v_wake then
    perform better_supabase._stream_ping(stream_close.stream_id, 'close', '{}'::jsonb);
  end if;
  return true;
end
$$;

create or replace function better_supabase.stream_cancel(stream_id text)
returns boolean language plpgsql security definer set search_path = '' as $$
#variable_conflict use_column
declare
  v_wake boolean;
begin
  update better_supabase.streams s set cancel_requested_at = now()
  where s.id = stream_cancel.stream_id
    and s.cancel_requested_at is null
    and s.closed_at is null
    and (better_supabase._caller_is_service() or s.owner_id = (select auth.uid()))
  returning s.wake into v_wake;
  if not found then
    return false;
  end if;
  if v_wake then
    perform better_supabase._stream_ping(stream_cancel.stream_id, 'cancel', '{}'::jsonb);
  end if;
  return true;
end
$$;

create or replace function better_supabase.purge_streams(
  older_than interval default '1 day',
  batch integer default 1000
) returns integer language plpgsql security invoker set search_path = '' as $$
#variable_conflict use_column
declare
  n integer;
begin
  -- A batch below one still deletes one stream, so a purge loop always
  -- moves on.
  with doomed as (
    select s.id from better_supabase.streams s
    where s.expires_at <= now()
       or s.closed_at <= now() - coalesce(purge_streams.older_than, interval '1 day')
    limit greatest(coalesce(purge_streams.batch, 1000), 1)
    for update skip locked
  )
  delete from better_supabase.streams s using doomed d where s.id = d.id;
  get diagnostics n = row_count;
  return n;
end
$$;

revoke all on function
  better_supabase._stream_ping(text, text, jsonb),
  better_supabase.stream_open(text, uuid, uuid, text, interval, boolean),
  better_supabase.stream_append(text, integer, text[]),
  better_supabase.stream_read(text, integer, integer),
  better_supabase.stream_status(text),
  better_supabase.stream_close(text),
  better_supabase.stream_cancel(text),
  better_supabase.purge_streams(interval, integer)
-- Also from the API roles: default privileges may have granted them
-- every new function.
from public, anon, authenticated, service_role;
grant execute on function
  better_supabase.stream_open(text, uuid, uuid, text, interval, boolean),
  better_supabase.stream_append(text, integer, text[]),
  better_supabase.stream_close(text),
  better_supabase.purge_streams(interval, integer)
to service_role;
grant execute on function
  better_supabase.stream_read(text, integer, integer),
  better_supabase.stream_status(text)
to authenticated, service_role;
grant execute on function better_supabase.stream_cancel(text) to authenticated, service_role;
-- The writer's functions run with the service role's rights and ping
-- through this helper.
grant execute on function better_supabase._stream_ping(text, text, jsonb) to service_role;

-- Where Supabase Realtime is there, a stream's owner may listen on the
-- stream's private topic (the pings carry nothing; chunks are read through
-- row-level security).
do $realtime$
begin
  if pg_catalog.to_regclass('realtime.messages') is not null then
    drop policy if exists streams_owner_receive on realtime.messages;
    create policy streams_owner_receive on realtime.messages for select to authenticated
      using (
        realtime.messages.extension = 'broadcast'
        and (select realtime.topic()) like 'stream:%'
        and exists (
          select from better_supabase.streams s
          where 'stream:' || s.id = (select realtime.topic())
            and s.owner_id = (select auth.uid())));
  end if;
end
$realtime$;
