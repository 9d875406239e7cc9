-- bsadapter block: pg-net
-- version: 1
-- requires: supabase-base
-- mode: custom
--
-- A stand-in for Supabase's pg_net extension, for a database without it:
-- net.http_post(url, body, params, headers, timeout_milliseconds) with
-- pg_net's signature and defaults. It sends nothing: every call becomes a
-- row of net._standin_requests, and the row's id is what the call returns
-- (pg_net returns its request's id the same way), so tests can see what a
-- block would have posted. The service role may read that table; nobody
-- else may touch it.
--
-- Where the database has pg_net of its own (the extension, or a
-- net.http_post this module did not make), nothing of this module runs.

do $pgnet$
declare
  mark constant text := 'bsadapter pg_net stand-in';
  post regprocedure := pg_catalog.to_regprocedure('net.http_post(text,jsonb,jsonb,jsonb,integer)');
begin
  if exists (select from pg_catalog.pg_extension where extname = 'pg_net')
     or (post is not null and coalesce(pg_catalog.obj_description(post, 'pg_proc'), '') <> mark) then
    return;
  end if;

  create schema if not exists net;
  revoke all on schema net from public, anon, authenticated, service_role;
  grant usage on schema net to service_role;

  create table if not exists net._standin_requests (
    id bigint generated always as identity primary key,
    url text not null,
    body jsonb,
    params jsonb,
    headers jsonb,
    timeout_milliseconds integer,
    created_at timestamptz not null default now()
  );
  execute pg_catalog.format('comment on table net._standin_requests is %L', mark);
  alter table net._standin_requests enable row level security;
  revoke all on table net._standin_requests from public, anon, authenticated, service_role;
  execute pg_catalog.format('revoke all on sequence %s from public, anon, authenticated, service_role',
    pg_catalog.pg_get_serial_sequence('net._standin_requests', 'id'));
  grant select on table net._standin_requests to service_role;
  if not exists (select from pg_catalog.pg_policies where schemaname = 'net'
                 and tablename = '_standin_requests' and policyname = 'standin_requests_service_read') then
    create policy standin_requests_service_read on net._standin_requests
      for select to service_role using (true);
  end if;

  -- pg_net's defaults: an empty JSON body and query, a JSON content type,
  -- five seconds. Like pg_net's, the function runs as its owner.
  create or replace function net.http_post(
    url text,
    body jsonb default '{}'::jsonb,
    params jsonb default '{}'::jsonb,
    headers jsonb default '{"Content-Type": "application/json"}'::jsonb,
    timeout_milliseconds integer default 5000
  ) returns bigint language plpgsql volatile security definer set search_path = '' as $fn$
  declare
    made bigint;
  begin
    if http_post.url is null then
      raise exception 'net.http_post: the url is null' using errcode = '22004';
    end if;
    insert into net._standin_requests (url, body, params, headers, timeout_milliseconds)
    values (http_post.url, http_post.body, http_post.params, http_post.headers, http_post.timeout_milliseconds)
    returning id into made;
    return made;
  end
  $fn$;
  execute pg_catalog.format('comment on function net.http_post(text, jsonb, jsonb, jsonb, integer) is %L', mark);
  revoke all on function net.http_post(text, jsonb, jsonb, jsonb, integer) from public, anon, authenticated, service_role;
  grant execute on function net.http_post(text, jsonb, jsonb, jsonb, integer) to service_role;
end
$pgnet$;
