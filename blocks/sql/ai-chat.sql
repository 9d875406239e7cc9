-- bsadapter block: ai-chat
-- version: 2
-- requires: streams
--
-- Chats, their messages as a tree (edits and regenerations branch it; the
-- chat's current leaf says which branch is shown) and the runs that answer
-- them, one streaming answer per chat at a time.

grant usage on schema better_supabase to anon, authenticated, service_role;

-- _ai_parts_valid says whether parts is an array of canonical parts: objects
-- whose type is one of the nine of ai-message-v1.json.
create or replace function better_supabase._ai_parts_valid(parts jsonb)
returns boolean language sql immutable set search_path = '' as $$
  -- CASE, not AND: jsonb_array_elements fails on anything but an array.
  select case when jsonb_typeof(parts) = 'array' then not exists (
    select from jsonb_array_elements(parts) as e(p)
    where jsonb_typeof(e.p) <> 'object'
       or coalesce(e.p ->> 'type', '') not in
          ('text', 'reasoning', 'file', 'tool-call', 'tool-result', 'tool-approval', 'source', 'data', 'step'))
  else false end
$$;

create table if not exists better_supabase.ai_chats (
  id uuid primary key default gen_random_uuid(),
  owner_id uuid references auth.users (id) on delete cascade,
  tenant_id uuid,
  title text,
  current_leaf_id text,
  active_stream_id text,
  active_run_id uuid,
  metadata jsonb not null default '{}' check (jsonb_typeof(metadata) = 'object'),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index if not exists ai_chats_owner_id_idx on better_supabase.ai_chats (owner_id);

create table if not exists better_supabase.ai_messages (
  chat_id uuid not null references better_supabase.ai_chats (id) on delete cascade,
  id text not null check (char_length(id) between 1 and 200),
  parent_id text,
  role text not null check (role in ('system', 'user', 'assistant', 'tool')),
  parts jsonb not null default '[]' check (better_supabase._ai_parts_valid(parts)),
  format text not null default 'canonical',
  native jsonb,
  metadata jsonb not null default '{}' check (jsonb_typeof(metadata) = 'object'),
  status text not null default 'complete' check (status in ('complete', 'aborted', 'error')),
  model text,
  seq bigint generated always as identity,
  created_at timestamptz not null default now(),
  primary key (chat_id, id),
  foreign key (chat_id, parent_id) references better_supabase.ai_messages (chat_id, id)
);
create index if not exists ai_messages_siblings_idx on better_supabase.ai_messages (chat_id, parent_id, seq);

create table if not exists better_supabase.ai_runs (
  id uuid primary key default gen_random_uuid(),
  chat_id uuid not null references better_supabase.ai_chats (id) on delete cascade,
  stream_id text,
  message_id text,
  model text,
  engine text not null default 'ai-sdk',
  external_run_id text,
  status text not null default 'queued'
    check (status in ('queued', 'running', 'cancel_requested', 'completed', 'failed', 'cancelled')),
  usage jsonb,
  generation_id text,
  cost_micro_usd bigint,
  error text,
  created_at timestamptz not null default now(),
  started_at timestamptz,
  ended_at timestamptz
);
create index if not exists ai_runs_chat_stream_idx on better_supabase.ai_runs (chat_id, stream_id, created_at);

alter table better_supabase.ai_chats enable row level security;
alter table better_supabase.ai_messages enable row level security;
alter table better_supabase.ai_runs enable row level security;

do $policies$
declare
  t text;
begin
  -- The service role does everything. On Supabase it bypasses row-level
  -- security anyway; where supabase-base had to create it without
  -- BYPASSRLS (the installing role was not a superuser), this gives it
  -- the same reach.
  foreach t in array array['ai_chats','ai_messages','ai_runs'] loop
    if not exists (select from pg_catalog.pg_policies where schemaname = 'better_supabase' and tablename = t and policyname = t || '_service_all') then
      execute pg_catalog.format('create policy %I on better_supabase.%I for all to service_role using (true) with check (true)', t || '_service_all', t);
    end if;
  end loop;
  if not exists (select from pg_catalog.pg_policies where schemaname = 'better_supabase' and tablename = 'ai_chats' and policyname = 'ai_chats_owner_all') then
    create policy ai_chats_owner_all on better_supabase.ai_chats
      for all to authenticated
      using (owner_id = (select auth.uid()))
      with check (owner_id = (select auth.uid()));
  end if;
  if not exists (select from pg_catalog.pg_policies where schemaname = 'better_supabase' and tablename = 'ai_messages' and policyname = 'ai_messages_owner_read') then
    create policy ai_messages_owner_read on better_supabase.ai_messages
      for select to authenticated
      using (exists (select from better_supabase.ai_chats c where c.id = ai_messages.chat_id and c.owner_id = (select auth.uid())));
  end if;
  if not exists (select from pg_catalog.pg_policies where schemaname = 'better_supabase' and tablename = 'ai_runs' and policyname = 'ai_runs_owner_read') then
    create policy ai_runs_owner_read on better_supabase.ai_runs
      for select to authenticated
      using (exists (select from better_supabase.ai_chats c where c.id = ai_runs.chat_id and c.owner_id = (select auth.uid())));
  end if;
end
$policies$;

-- Only these grants count: default privileges may have granted more
-- (TRUNCATE, which row-level security does not stop, among them).
revoke all on table better_supabase.ai_chats, better_supabase.ai_messages, better_supabase.ai_runs
  from anon, authenticated, service_role;
-- Owners create, edit and delete their chats, but the run columns
-- (active_stream_id, active_run_id) are the server's: claim and release
-- set them. A user who could write them would point a chat at another
-- user's stream or run, which stop and claim then act on.
grant select, delete on table better_supabase.ai_chats to authenticated;
grant insert (id, owner_id, tenant_id, title, current_leaf_id, metadata, created_at, updated_at),
      update (id, owner_id, tenant_id, title, current_leaf_id, metadata, created_at, updated_at)
  on table better_supabase.ai_chats to authenticated;
grant select on table better_supabase.ai_messages, better_supabase.ai_runs to authenticated;
grant all on table better_supabase.ai_chats, better_supabase.ai_messages, better_supabase.ai_runs to service_role;

-- _ai_chat returns the chat when the caller may use it (the service role,
-- or the chat's owner), locked when lock is true; otherwise it fails as if
-- the chat did not exist, so that other users' chats stay invisible.
create or replace function better_supabase._ai_chat(chat uuid, lock boolean)
returns better_supabase.ai_chats language plpgsql security definer set search_path = '' as $$
declare
  c better_supabase.ai_chats;
begin
  if lock then
    select * into c from better_supabase.ai_chats where id = _ai_chat.chat for update;
  else
    select * into c from better_supabase.ai_chats where id = _ai_chat.chat;
  end if;
  if c.id is null or not (better_supabase._caller_is_service() or c.owner_id = (select auth.uid())) then
    raise exception 'chat % not found', _ai_chat.chat
      using errcode = 'P0002', hint = 'AI_CHAT_NOT_FOUND';
  end if;
  return c;
end
$$;

-- _ai_message_check validates a message the caller passes in.
create or replace function better_supabase._ai_message_check(message jsonb, role text, id text)
returns void language plpgsql immutable set search_path = '' as $$
begin
  if jsonb_typeof(message) is distinct from 'object' then
    raise exception 'the message must be a JSON object'
      using errcode = '22023', hint = 'AI_MESSAGE_INVALID';
  end if;
  if message ->> 'role' is distinct from _ai_message_check.role then
    raise exception 'the message must have role %, not %', _ai_message_check.role, coalesce(message ->> 'role', 'none')
      using errcode = '22023', hint = 'AI_MESSAGE_INVALID';
  end if;
  if coalesce(_ai_message_check.id, '') = '' then
    raise exception 'the message must have a non-empty id'
      using errcode = '22023', hint = 'AI_MESSAGE_INVALID';
  end if;
  if char_length(_ai_message_check.id) > 200 then
    raise exception 'the message id is longer than 200 characters'
      using errcode = '22023', hint = 'AI_MESSAGE_INVALID';
  end if;
  if not coalesce(better_supabase._ai_parts_valid(message -> 'parts'), false) then
    raise exception 'the message must have a parts array of canonical parts (objects whose type is one of the nine)'
      using errcode = '22023', hint = 'AI_MESSAGE_INVALID';
  end if;
  if message ? 'metadata' and jsonb_typeof(message -> 'metadata') not in ('object', 'null') then
    raise exception 'the message metadata must be an object'
      using errcode = '22023', hint = 'AI_MESSAGE_INVALID';
  end if;
end
$$;

create or replace function better_supabase.append_ai_user_message(
  chat uuid,
  message jsonb,
  trigger text default 'submit-message',
  message_id text default null
) returns jsonb language plpgsql security definer set search_path = '' as $$
#variable_conflict use_column
declare
  c better_supabase.ai_chats;
  v_id text := coalesce(nullif(append_ai_user_message.message_id, ''),
                        case when jsonb_typeof(append_ai_user_message.message -> 'id') = 'string'
                             then append_ai_user_message.message ->> 'id' end);
  v_parts jsonb := append_ai_user_message.message -> 'parts';
  v_meta jsonb := coalesce(nullif(append_ai_user_message.message -> 'metadata', 'null'::jsonb), '{}'::jsonb);
  v_old record;
  v_found boolean;
  v_target text;
  v_new text;
begin
  perform better_supabase._ai_message_check(append_ai_user_message.message, 'user', v_id);
  if append_ai_user_message.trigger is null
     or append_ai_user_message.trigger not in ('submit-message', 'regenerate-message') then
    raise exception 'trigger must be submit-message or regenerate-message, not %', coalesce(append_ai_user_message.trigger, 'null')
      using errcode = '22023', hint = 'AI_MESSAGE_INVALID';
  end if;
  c := better_supabase._ai_chat(append_ai_user_message.chat, true);

  select m.parent_id, m.parts, m.role into v_old
  from better_supabase.ai_messages m
  where m.chat_id = c.id and m.id = v_id;
  v_found := found;

  if append_ai_user_message.trigger = 'regenerate-message' then
    -- Store nothing; move the leaf back to the message being answered
    -- again, so that the new answer becomes a sibling of the old one.
    if v_found then
      v_target := v_id;
    else
      select case when m.role = 'assistant' then m.parent_id else m.id end into v_target
      from better_supabase.ai_messages m
      where m.chat_id = c.id and m.id = c.current_leaf_id;
    end if;
    update better_supabase.ai_chats set current_leaf_id = v_target, updated_at = now() where id = c.id;
    return jsonb_build_object(
      'message_id', v_target,
      'parent_id', (select m.parent_id from better_supabase.ai_messages m where m.chat_id = c.id and m.id = v_target),
      'created', false);
  end if;

  if v_found and v_old.role <> 'user' then
    raise exception 'message % of chat % is a % message, not a user message', v_id, c.id, v_old.role
      using errcode = '22023', hint = 'AI_MESSAGE_INVALID';
  end if;
  if v_found then
    if v_old.parts = v_parts then
      return jsonb_build_object('message_id', v_id, 'parent_id', v_old.parent_id, 'created', false);
    end if;
    -- An edit: the new text becomes a sibling of the original.
    v_new := gen_random_uuid()::text;
    insert into better_supabase.ai_messages (chat_id, id, parent_id, role, parts, metadata)
    values (c.id, v_new, v_old.parent_id, 'user', v_parts, v_meta);
    update better_supabase.ai_chats set current_leaf_id = v_new, updated_at = now() where id = c.id;
    return jsonb_build_object('message_id', v_new, 'parent_id', v_old.parent_id, 'created', true);
  end if;

  insert into better_supabase.ai_messages (chat_id, id, parent_id, role, parts, metadata)
  values (c.id, v_id, c.current_leaf_id, 'user', v_parts, v_meta);
  update better_supabase.ai_chats set current_leaf_id = v_id, updated_at = now() where id = c.id;
  return jsonb_build_object('message_id', v_id, 'parent_id', c.current_leaf_id, 'created', true);
end
$$;

create or replace function better_supabase.save_ai_assistant_message(
  chat uuid,
  message jsonb,
  parent_id text,
  status text default 'complete',
  model text default null,
  format text default 'canonical',
  native jsonb default null,
  run uuid default null
) returns jsonb language plpgsql security definer set search_path = '' as $$
#variable_conflict use_column
declare
  c better_supabase.ai_chats;
  v_id text := case when jsonb_typeof(save_ai_assistant_message.message -> 'id') = 'string'
                    then save_ai_assistant_message.message ->> 'id' end;
  v_parent text;
  v_created boolean;
begin
  perform better_supabase._ai_message_check(save_ai_assistant_message.message, 'assistant', v_id);
  if save_ai_assistant_message.status is null
     or save_ai_assistant_message.status not in ('complete', 'aborted', 'error') then
    raise exception 'status must be complete, aborted or error, not %', coalesce(save_ai_assistant_message.status, 'null')
      using errcode = '22023', hint = 'AI_MESSAGE_INVALID';
  end if;
  c := better_supabase._ai_chat(save_ai_assistant_message.chat, true);
  insert into better_supabase.ai_messages as m
    (chat_id, id, parent_id, role, parts, metadata, format, native, status, model)
  values (c.id, v_id, save_ai_assistant_message.parent_id, 'assistant',
          save_ai_assistant_message.message -> 'parts',
          coalesce(nullif(save_ai_assistant_message.message -> 'metadata', 'null'::jsonb), '{}'::jsonb),
          coalesce(save_ai_assistant_message.format, 'canonical'),
          save_ai_assistant_message.native,
          save_ai_assistant_message.status,
          save_ai_assistant_message.model)
  on conflict (chat_id, id) do update set
    parts = excluded.parts,
    metadata = excluded.metadata,
    format = excluded.format,
    native = excluded.native,
    status = excluded.status,
    model = coalesce(excluded.model, m.model)
  -- Never over another role's message: its parts would become the answer.
  where m.role = 'assistant'
  returning m.parent_id, (m.xmax = 0) into v_parent, v_created;
  if not found then
    raise exception 'message % of chat % is not an assistant message; an answer needs an id of its own', v_id, c.id
      using errcode = '22023', hint = 'AI_MESSAGE_INVALID';
  end if;
  update better_supabase.ai_chats set current_leaf_id = v_id, updated_at = now() where id = c.id;
  if save_ai_assistant_message.run is not null then
    update better_supabase.ai_runs r set message_id = v_id
    where r.id = save_ai_assistant_message.run and r.chat_id = c.id;
  end if;
  return jsonb_build_object('message_id', v_id, 'parent_id', v_parent, 'created', v_created);
end
$$;

create or replace function better_supabase.ai_message_path(
  chat uuid,
  leaf text default null,
  include_native boolean default false
) returns jsonb language plpgsql stable security definer set search_path = '' as $$
#variable_conflict use_column
declare
  c better_supabase.ai_chats;
  v_path jsonb;
begin
  c := better_supabase._ai_chat(ai_message_path.chat, false);
  with recursive path as (
    select m.id, m.parent_id, 0 as depth
    from better_supabase.ai_messages m
    where m.chat_id = c.id and m.id = coalesce(ai_message_path.leaf, c.current_leaf_id)
    union all
    select m.id, m.parent_id, p.depth + 1
    from better_supabase.ai_messages m
    join path p on m.chat_id = c.id and m.id = p.parent_id
  )
  select coalesce(jsonb_agg(jsonb_build_object(
      'id', m.id,
      'parent_id', m.parent_id,
      'role', m.role,
      'parts', m.parts,
      'metadata', m.metadata,
      'format', m.format,
      'native', case when ai_message_path.include_native then m.native end,
      'model', m.model,
      'status', m.status,
      'created_at', m.created_at,
      'sibling_count', (select count(*) from better_supabase.ai_messages s
                        where s.chat_id = c.id and s.parent_id is not distinct from m.parent_id),
      'sibling_index', (select count(*) from better_supabase.ai_messages s
                        where s.chat_id = c.id and s.parent_id is not distinct from m.parent_id and s.seq < m.seq)
    ) order by p.depth desc), '[]'::jsonb)
  into v_path
  from path p
  join better_supabase.ai_messages m on m.chat_id = c.id and m.id = p.id;
  return v_path;
end
$$;

create or replace function better_supabase.claim_ai_chat_stream(
  chat uuid,
  stream text,
  model text default null,
  message_id text default null,
  engine text default 'ai-sdk',
  external_run_id text default null
) returns jsonb language plpgsql security definer set search_path = '' as $$
#variable_conflict use_column
declare
  c better_supabase.ai_chats;
  r better_supabase.ai_runs;
  v_run uuid;
begin
  if coalesce(claim_ai_chat_stream.stream, '') = '' then
    raise exception 'stream must be a non-empty stream id'
      using errcode = '22023', hint = 'AI_RUN_INVALID';
  end if;
  c := better_supabase._ai_chat(claim_ai_chat_stream.chat, true);
  if c.active_stream_id = claim_ai_chat_stream.stream then
    return jsonb_build_object('claimed', true, 'stream_id', c.active_stream_id, 'run_id', c.active_run_id);
  end if;
  if c.active_stream_id is not null then
    select * into r from better_supabase.ai_runs where id = c.active_run_id and chat_id = c.id;
    if r.id is not null
       and r.status in ('queued', 'running', 'cancel_requested')
       and coalesce(r.started_at, r.created_at) > now() - interval '10 minutes'
       and not exists (select from better_supabase.streams s
                       where s.id = c.active_stream_id and s.closed_at is not null) then
      return jsonb_build_object('claimed', false, 'stream_id', c.active_stream_id, 'run_id', c.active_run_id);
    end if;
    -- The previous answer is stale (finished, closed or abandoned).
    update better_supabase.ai_runs set status = 'cancelled', ended_at = coalesce(ended_at, now())
    where id = c.active_run_id and chat_id = c.id and status in ('queued', 'running', 'cancel_requested');
  end if;
  insert into better_supabase.ai_runs (chat_id, stream_id, message_id, model, engine, external_run_id, status, started_at)
  values (c.id, claim_ai_chat_stream.stream, claim_ai_chat_stream.message_id, claim_ai_chat_stream.model,
          coalesce(claim_ai_chat_stream.engine, 'ai-sdk'), claim_ai_chat_stream.external_run_id, 'running', now())
  returning id into v_run;
  update better_supabase.ai_chats
  set active_stream_id = claim_ai_chat_stream.stream, active_run_id = v_run, updated_at = now()
  where id = c.id;
  return jsonb_build_object('claimed', true, 'stream_id', claim_ai_chat_stream.stream, 'run_id', v_run);
end
$$;

create or replace function better_supabase.release_ai_chat_stream(
  chat uuid,
  stream text,
  status text default 'completed',
  usage jsonb default null,
  generation_id text default null,
  error text default null,
  cost_micro_usd bigint default null
) returns boolean language plpgsql security definer set search_path = '' as $$
#variable_conflict use_column
declare
  c better_supabase.ai_chats;
begin
  if release_ai_chat_stream.status is null
     or release_ai_chat_stream.status not in ('completed', 'failed', 'cancelled') then
    raise exception 'status must be completed, failed or cancelled, not %', coalesce(release_ai_chat_stream.status, 'null')
      using errcode = '22023', hint = 'AI_RUN_INVALID';
  end if;
  c := better_supabase._ai_chat(release_ai_chat_stream.chat, true);
  update better_supabase.ai_runs r set
    status = release_ai_chat_stream.status,
    usage = coalesce(release_ai_chat_stream.usage, r.usage),
    generation_id = coalesce(release_ai_chat_stream.generation_id, r.generation_id),
    error = coalesce(left(release_ai_chat_stream.error, 4000), r.error),
    cost_micro_usd = coalesce(release_ai_chat_stream.cost_micro_usd, r.cost_micro_usd),
    ended_at = now()
  where r.id = (select x.id from better_supabase.ai_runs x
                where x.chat_id = c.id and x.stream_id = release_ai_chat_stream.stream
                order by x.created_at desc limit 1);
  if c.active_stream_id is distinct from release_ai_chat_stream.stream then
    return false;
  end if;
  update better_supabase.ai_chats
  set active_stream_id = null, active_run_id = null, updated_at = now()
  where id = c.id;
  return true;
end
$$;

create or replace function better_supabase.request_ai_chat_stop(chat uuid)
returns jsonb language plpgsql security definer set search_path = '' as $$
#variable_conflict use_column
declare
  c better_supabase.ai_chats;
  v_wake boolean;
begin
  c := better_supabase._ai_chat(request_ai_chat_stop.chat, true);
  -- Only a stream this chat claimed counts: the stop never reaches
  -- another chat's run or stream.
  if c.active_stream_id is null or not exists (
       select from better_supabase.ai_runs r
       where r.chat_id = c.id and r.stream_id = c.active_stream_id) then
    return null;
  end if;
  update better_supabase.ai_runs set status = 'cancel_requested'
  where id = c.active_run_id and chat_id = c.id and status in ('queued', 'running');
  -- The writer learns of the stop from its next append.
  update better_supabase.streams s set cancel_requested_at = now()
  where s.id = c.active_stream_id and s.cancel_requested_at is null and s.closed_at is null
  returning s.wake into v_wake;
  if v_wake then
    perform better_supabase._stream_ping(c.active_stream_id, 'cancel', '{}'::jsonb);
  end if;
  return jsonb_build_object('stream_id', c.active_stream_id, 'run_id', c.active_run_id);
end
$$;

revoke all on function
  better_supabase._ai_parts_valid(jsonb),
  better_supabase._ai_chat(uuid, boolean),
  better_supabase._ai_message_check(jsonb, text, text),
  better_supabase.append_ai_user_message(uuid, jsonb, text, text),
  better_supabase.save_ai_assistant_message(uuid, jsonb, text, text, text, text, jsonb, uuid),
  better_supabase.ai_message_path(uuid, text, boolean),
  better_supabase.claim_ai_chat_stream(uuid, text, text, text, text, text),
  better_supabase.release_ai_chat_stream(uuid, text, text, jsonb, text, text, bigint),
  better_supabase.request_ai_chat_stop(uuid)
-- Also from the API roles: default privileges may have granted them
-- every new function.
from public, anon, authenticated, service_role;
-- The CHECK on ai_messages.parts runs as whoever writes the row.
grant execute on function better_supabase._ai_parts_valid(jsonb) to authenticated, service_role;
grant execute on function
  better_supabase.append_ai_user_message(uuid, jsonb, text, text),
  better_supabase.ai_message_path(uuid, text, boolean),
  better_supabase.request_ai_chat_stop(uuid)
to authenticated, service_role;
grant execute on function
  better_supabase.save_ai_assistant_message(uuid, jsonb, text, text, text, text, jsonb, uuid),
  better_supabase.claim_ai_chat_stream(uuid, text, text, text, text, text),
  better_supabase.release_ai_chat_stream(uuid, text, text, jsonb, text, text, bigint)
to service_role;
