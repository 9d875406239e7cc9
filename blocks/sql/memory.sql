-- bsadapter block: memory
-- version: 2
-- requires: ai-chat, vector-search, access
--
-- Memory for AI assistants, laid out as better-supabase's memory module
-- lays it out. Three kinds of it:
--
-- - core memory: small files under /memories that the model reads and
--   edits with the memory tool's commands (view, create, str_replace,
--   insert, delete, rename), each write moving the file's version on, so
--   a write that names a stale version fails;
-- - archival memory: facts saved one by one and found again by a hybrid
--   search (cosine distance to an embedding and full text, fused by
--   reciprocal rank fusion); a fact replaced by a newer one is superseded,
--   not deleted, and no longer found;
-- - message embeddings, so an assistant can recall the caller's earlier
--   chats (never a temporary chat's messages).
--
-- Core and archival memory live in a namespace, given as ns: {"scope":
-- "user"} (the default: the caller's own), "agent" with agent_id, "chat"
-- with chat_id, "project" with project_id (each also the caller's), or
-- "organization" (no owner; changed by ai.admin or the server). Every call
-- of a signed-in user needs ai.read in the tenant; the service role names
-- the owner in ns.owner_id. Embeddings are vector(1536), made by a worker
-- from pending_memory_embeddings and stored with the md5 of the text they
-- were made from, so a vector of text edited meanwhile is not taken.
--
-- Beside them, memory_documents keeps versioned documents under an opaque
-- scope key for agent runtimes; the service role's alone.
--
-- Where upstream has defects, the block differs (docs/blocks.md): a fact
-- without an owner is forgotten only by the service role or ai.admin (any
-- signed-in user could forget it upstream), forgetting a fact forgets the
-- facts it superseded with it (upstream brings them back), and no file
-- can sit at /memories itself, the root of the listing.

grant usage on schema better_supabase to anon, authenticated, service_role;

-- ---------------------------------------------------------------- tables

create table if not exists better_supabase.memories (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null,
  owner_id uuid references auth.users (id) on delete cascade,
  scope text not null default 'user' check (scope in ('user', 'agent', 'chat', 'project', 'organization')),
  agent_id uuid,
  chat_id uuid references better_supabase.ai_chats (id) on delete cascade,
  project_id uuid references better_supabase.ai_projects (id) on delete cascade,
  kind text not null check (kind in ('core', 'archival')),
  path text check (path ~ '^/memories(/[A-Za-z0-9._ -]+)*$' and path !~ '(^|/)[.]{1,2}(/|$)'),
  content text not null check (length(content) <= 100000),
  version integer not null default 1,
  embedding extensions.vector(1536),
  embedding_model text,
  source_message_id text,
  -- The fact that replaced this one; forgetting it forgets this one too.
  superseded_by uuid references better_supabase.memories (id) on delete cascade,
  tsv tsvector generated always as (to_tsvector('simple'::regconfig, content)) stored,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- Core memory is files, archival memory is not.
  check ((kind = 'core') = (path is not null)),
  -- Organization memory is nobody's; everything else is somebody's.
  check ((scope = 'organization') = (owner_id is null))
);
-- One live file per path in each namespace.
create unique index if not exists memories_path_idx
  on better_supabase.memories (organization_id, owner_id, scope, agent_id, chat_id, project_id, path) nulls not distinct
  where path is not null and superseded_by is null;
create index if not exists memories_owner_idx on better_supabase.memories (owner_id, organization_id) where owner_id is not null;
create index if not exists memories_tenant_idx on better_supabase.memories (organization_id, scope);
create index if not exists memories_chat_idx on better_supabase.memories (chat_id) where chat_id is not null;
create index if not exists memories_project_idx on better_supabase.memories (project_id) where project_id is not null;
create index if not exists memories_superseded_idx on better_supabase.memories (superseded_by) where superseded_by is not null;
create index if not exists memories_embedding_idx on better_supabase.memories using hnsw (embedding extensions.vector_cosine_ops);
create index if not exists memories_tsv_idx on better_supabase.memories using gin (tsv);

create table if not exists better_supabase.ai_message_embeddings (
  chat_id uuid not null references better_supabase.ai_chats (id) on delete cascade,
  message_id text not null,
  user_id uuid not null references auth.users (id) on delete cascade,
  organization_id uuid not null,
  embedding extensions.vector(1536) not null,
  embedding_model text,
  created_at timestamptz not null default now(),
  primary key (chat_id, message_id)
);
create index if not exists ai_message_embeddings_user_idx on better_supabase.ai_message_embeddings (user_id, organization_id);
create index if not exists ai_message_embeddings_embedding_idx
  on better_supabase.ai_message_embeddings using hnsw (embedding extensions.vector_cosine_ops);

create table if not exists better_supabase.memory_documents (
  scope_key text not null check (length(scope_key) <= 4096),
  path text not null check (length(path) <= 1024),
  content text not null check (length(content) <= 100000),
  version bigint not null default 1,
  expires_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (scope_key, path)
);
create index if not exists memory_documents_expires_idx on better_supabase.memory_documents (expires_at) where expires_at is not null;

-- Signed-in users read their own memory (and their tenant's organization
-- memory) and their own message embeddings; they change nothing directly.
-- memory_documents are the service role's alone.
do $tables$
declare
  t text;
begin
  foreach t in array array['memories', 'ai_message_embeddings', 'memory_documents'] loop
    execute pg_catalog.format('alter table better_supabase.%I enable row level security', t);
    execute pg_catalog.format('revoke all on table better_supabase.%I from public, anon, authenticated, service_role', t);
    execute pg_catalog.format('grant all on table better_supabase.%I to service_role', t);
  end loop;
  grant select on table better_supabase.memories, better_supabase.ai_message_embeddings to authenticated;
end
$tables$;

drop policy if exists memories_read on better_supabase.memories;
create policy memories_read on better_supabase.memories
  for select to authenticated
  using (owner_id = (select auth.uid())
         or (scope = 'organization' and organization_id in (select better_supabase.tenant_ids_with('ai.read'))));

drop policy if exists ai_message_embeddings_read on better_supabase.ai_message_embeddings;
create policy ai_message_embeddings_read on better_supabase.ai_message_embeddings
  for select to authenticated
  using (user_id = (select auth.uid()));

-- ---------------------------------------------------------------- helpers

-- A namespace resolved for one call: the tenant and the columns a memory
-- of it has.
do $type$
begin
  if pg_catalog.to_regtype('better_supabase.memory_namespace') is null then
    create type better_supabase.memory_namespace as (
      tenant uuid, scope text, agent_id uuid, chat_id uuid, project_id uuid, owner_id uuid);
  end if;
end
$type$;

-- _memory_namespace resolves ns for a call in tenant: it refuses a caller
-- without ai.read there (MEMORY_FORBIDDEN), a namespace that lacks its id
-- or names one it does not take (MEMORY_NAMESPACE), and, when the call
-- changes memory, organization memory to all but ai.admin and the server.
create or replace function better_supabase._memory_namespace(tenant uuid, ns jsonb, changes boolean)
returns better_supabase.memory_namespace language plpgsql stable security definer set search_path = '' as $$
declare
  service boolean := better_supabase._caller_is_service();
  n better_supabase.memory_namespace;
begin
  -- The ids are cast first: a malformed one fails before anything else.
  n.tenant := _memory_namespace.tenant;
  n.scope := coalesce(_memory_namespace.ns ->> 'scope', 'user');
  n.agent_id := (_memory_namespace.ns ->> 'agent_id')::uuid;
  n.chat_id := (_memory_namespace.ns ->> 'chat_id')::uuid;
  n.project_id := (_memory_namespace.ns ->> 'project_id')::uuid;
  n.owner_id := case when n.scope = 'organization' then null
                     when service then (_memory_namespace.ns ->> 'owner_id')::uuid
                     else (select auth.uid()) end;
  if not service and ((select auth.uid()) is null
      or not coalesce(better_supabase.can('tenant', _memory_namespace.tenant, 'ai.read'), false)) then
    raise exception 'memory of tenant % takes ai.read', _memory_namespace.tenant
      using errcode = '42501', hint = 'MEMORY_FORBIDDEN';
  end if;
  if n.scope not in ('user', 'agent', 'chat', 'project', 'organization')
     or (n.scope = 'agent') <> (n.agent_id is not null)
     or (n.scope = 'chat') <> (n.chat_id is not null)
     or (n.scope = 'project') <> (n.project_id is not null)
     or (n.scope <> 'organization' and n.owner_id is null) then
    raise exception 'ns % names no memory namespace: scope user, agent (agent_id), chat (chat_id), project (project_id) or organization', _memory_namespace.ns
      using errcode = '22023', hint = 'MEMORY_NAMESPACE';
  end if;
  if _memory_namespace.changes and n.scope = 'organization' and not service
     and not coalesce(better_supabase.can('tenant', _memory_namespace.tenant, 'ai.admin'), false) then
    raise exception 'changing organization memory takes ai.admin'
      using errcode = '42501', hint = 'MEMORY_FORBIDDEN';
  end if;
  return n;
end
$$;

-- _memory_in says whether m is a live memory of namespace n.
create or replace function better_supabase._memory_in(m better_supabase.memories, n better_supabase.memory_namespace)
returns boolean language sql immutable set search_path = '' as $$
  select m.organization_id = n.tenant and m.scope = n.scope
     and m.owner_id is not distinct from n.owner_id
     and m.agent_id is not distinct from n.agent_id
     and m.chat_id is not distinct from n.chat_id
     and m.project_id is not distinct from n.project_id
     and m.superseded_by is null
$$;

-- _memory_check_path refuses what is not a path under /memories
-- (MEMORY_PATH). A file never sits at /memories itself, the root
-- directory (file true): the root would hide every other file.
create or replace function better_supabase._memory_check_path(path text, file boolean)
returns void language plpgsql immutable set search_path = '' as $$
begin
  if _memory_check_path.path is null or length(_memory_check_path.path) > 500
     or _memory_check_path.path !~ '^/memories(/[A-Za-z0-9._ -]+)*$'
     or _memory_check_path.path ~ '(^|/)[.]{1,2}(/|$)' then
    raise exception '% is not a path under /memories', coalesce(_memory_check_path.path, 'null')
      using errcode = '22023', hint = 'MEMORY_PATH';
  end if;
  if _memory_check_path.file and _memory_check_path.path = '/memories' then
    raise exception '/memories is the root directory, not a file'
      using errcode = '22023', hint = 'MEMORY_PATH';
  end if;
end
$$;

-- _memory_under is the LIKE pattern of everything below directory path.
create or replace function better_supabase._memory_under(path text)
returns text language sql immutable set search_path = '' as $$
  select replace(replace(replace(_memory_under.path, '\', '\\'), '_', '\_'), '%', '\%') || '/%'
$$;

-- _memory_doc is a memory as the functions return it.
create or replace function better_supabase._memory_doc(m better_supabase.memories)
returns jsonb language sql immutable set search_path = '' as $$
  select jsonb_build_object('id', m.id, 'organization_id', m.organization_id, 'owner_id', m.owner_id,
    'scope', m.scope, 'agent_id', m.agent_id, 'chat_id', m.chat_id, 'project_id', m.project_id,
    'kind', m.kind, 'path', m.path, 'content', m.content, 'version', m.version,
    'embedding_model', m.embedding_model, 'source_message_id', m.source_message_id,
    'created_at', m.created_at, 'updated_at', m.updated_at)
$$;

-- _memory_too_large refuses content over 100000 characters.
create or replace function better_supabase._memory_too_large(content text)
returns void language plpgsql immutable set search_path = '' as $$
begin
  if length(_memory_too_large.content) > 100000 then
    raise exception 'memory content is limited to 100000 characters, not %', length(_memory_too_large.content)
      using errcode = '22023', hint = 'MEMORY_TOO_LARGE';
  end if;
end
$$;

-- _memory_file returns the live file at path of namespace n, locked, or
-- fails with MEMORY_NOT_FOUND.
create or replace function better_supabase._memory_file(n better_supabase.memory_namespace, path text)
returns better_supabase.memories language plpgsql security definer set search_path = '' as $$
declare
  m better_supabase.memories;
begin
  select * into m from better_supabase.memories x
  where better_supabase._memory_in(x, n) and x.path = _memory_file.path
  for update;
  if m.id is null then
    raise exception '% not found', _memory_file.path using errcode = 'P0002', hint = 'MEMORY_NOT_FOUND';
  end if;
  return m;
end
$$;

-- _memory_rewrite stores new content for file m (version on, embedding
-- dropped) and returns it.
create or replace function better_supabase._memory_rewrite(m better_supabase.memories, content text)
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  r better_supabase.memories;
begin
  perform better_supabase._memory_too_large(_memory_rewrite.content);
  update better_supabase.memories x
  set content = _memory_rewrite.content, version = x.version + 1, embedding = null, updated_at = now()
  where x.id = m.id
  returning x.* into r;
  return better_supabase._memory_doc(r);
end
$$;

-- ---------------------------------------------------------------- core memory

-- memory_view shows the file at path ({type: file, path, content, version,
-- updated_at}), else the directory there ({type: directory, path, entries:
-- [{path, size, updated_at}]} of every file below, by path); null when
-- nothing is there, except for /memories, which is always a directory.
create or replace function better_supabase.memory_view(tenant uuid, path text default '/memories', ns jsonb default '{}')
returns jsonb language plpgsql stable security definer set search_path = '' as $$
declare
  n better_supabase.memory_namespace := better_supabase._memory_namespace(memory_view.tenant, memory_view.ns, false);
  m better_supabase.memories;
  entries jsonb;
begin
  perform better_supabase._memory_check_path(memory_view.path, false);
  select * into m from better_supabase.memories x
  where better_supabase._memory_in(x, n) and x.path = memory_view.path;
  if m.id is not null then
    return jsonb_build_object('type', 'file', 'path', m.path, 'content', m.content, 'version', m.version, 'updated_at', m.updated_at);
  end if;
  select jsonb_agg(jsonb_build_object('path', x.path, 'size', length(x.content), 'updated_at', x.updated_at) order by x.path)
  into entries
  from better_supabase.memories x
  where better_supabase._memory_in(x, n) and x.path like better_supabase._memory_under(memory_view.path);
  if entries is null and memory_view.path <> '/memories' then
    return null;
  end if;
  return jsonb_build_object('type', 'directory', 'path', memory_view.path, 'entries', coalesce(entries, '[]'::jsonb));
end
$$;

-- memory_create writes the file at path: a new one at version 1, or new
-- content for the one there. expected_version 0 wants no file there yet,
-- another number that version (MEMORY_CONFLICT otherwise; MEMORY_NOT_FOUND
-- when there is no file at all).
create or replace function better_supabase.memory_create(tenant uuid, path text, content text, ns jsonb default '{}', expected_version integer default null)
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  n better_supabase.memory_namespace := better_supabase._memory_namespace(memory_create.tenant, memory_create.ns, true);
  m better_supabase.memories;
begin
  perform better_supabase._memory_check_path(memory_create.path, true);
  perform better_supabase._memory_too_large(memory_create.content);
  select * into m from better_supabase.memories x
  where better_supabase._memory_in(x, n) and x.path = memory_create.path
  for update;
  if m.id is not null then
    if memory_create.expected_version is not null and memory_create.expected_version <> m.version then
      raise exception '% is at version %, not %', memory_create.path, m.version, memory_create.expected_version
        using errcode = '40001', hint = 'MEMORY_CONFLICT';
    end if;
    return better_supabase._memory_rewrite(m, memory_create.content);
  end if;
  if coalesce(memory_create.expected_version, 0) <> 0 then
    raise exception '% not found', memory_create.path using errcode = 'P0002', hint = 'MEMORY_NOT_FOUND';
  end if;
  insert into better_supabase.memories as x (organization_id, owner_id, scope, agent_id, chat_id, project_id, kind, path, content)
  values (n.tenant, n.owner_id, n.scope, n.agent_id, n.chat_id, n.project_id, 'core', memory_create.path, memory_create.content)
  returning x.* into m;
  return better_supabase._memory_doc(m);
end
$$;

-- memory_str_replace replaces old_text, which must occur exactly once in
-- the file (MEMORY_NO_MATCH, MEMORY_AMBIGUOUS), with new_text (null: '').
create or replace function better_supabase.memory_str_replace(tenant uuid, path text, old_text text, new_text text, ns jsonb default '{}')
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  n better_supabase.memory_namespace := better_supabase._memory_namespace(memory_str_replace.tenant, memory_str_replace.ns, true);
  m better_supabase.memories;
  times integer;
begin
  perform better_supabase._memory_check_path(memory_str_replace.path, true);
  m := better_supabase._memory_file(n, memory_str_replace.path);
  if coalesce(length(memory_str_replace.old_text), 0) = 0 then
    raise exception 'old_text is empty' using errcode = '22023', hint = 'MEMORY_NO_MATCH';
  end if;
  times := (length(m.content) - length(replace(m.content, memory_str_replace.old_text, ''))) / length(memory_str_replace.old_text);
  if times = 0 then
    raise exception 'old_text does not occur in %', memory_str_replace.path using errcode = '22023', hint = 'MEMORY_NO_MATCH';
  elsif times > 1 then
    raise exception 'old_text occurs % times in %', times, memory_str_replace.path using errcode = '22023', hint = 'MEMORY_AMBIGUOUS';
  end if;
  return better_supabase._memory_rewrite(m, replace(m.content, memory_str_replace.old_text, coalesce(memory_str_replace.new_text, '')));
end
$$;

-- memory_insert inserts insert_text (its lines) after line insert_line of
-- the file, 0 meaning before the first; a line outside the file is
-- MEMORY_LINE.
create or replace function better_supabase.memory_insert(tenant uuid, path text, insert_line integer, insert_text text, ns jsonb default '{}')
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  n better_supabase.memory_namespace := better_supabase._memory_namespace(memory_insert.tenant, memory_insert.ns, true);
  m better_supabase.memories;
  lines text[];
begin
  perform better_supabase._memory_check_path(memory_insert.path, true);
  m := better_supabase._memory_file(n, memory_insert.path);
  lines := case when m.content = '' then array[]::text[] else string_to_array(m.content, E'\n') end;
  if memory_insert.insert_line < 0 or memory_insert.insert_line > coalesce(array_length(lines, 1), 0) then
    raise exception 'line % is outside % (% lines)', memory_insert.insert_line, memory_insert.path, coalesce(array_length(lines, 1), 0)
      using errcode = '22023', hint = 'MEMORY_LINE';
  end if;
  -- As measured upstream, a null insert_line slices nothing on either side:
  -- the file becomes insert_text alone.
  return better_supabase._memory_rewrite(m, array_to_string(
    lines[1:memory_insert.insert_line]
    || string_to_array(coalesce(memory_insert.insert_text, ''), E'\n')
    || lines[memory_insert.insert_line + 1:], E'\n'));
end
$$;

-- memory_delete deletes the file at path and every file below it, and
-- returns how many.
create or replace function better_supabase.memory_delete(tenant uuid, path text, ns jsonb default '{}')
returns integer language plpgsql security definer set search_path = '' as $$
declare
  n better_supabase.memory_namespace := better_supabase._memory_namespace(memory_delete.tenant, memory_delete.ns, true);
  gone integer;
begin
  perform better_supabase._memory_check_path(memory_delete.path, false);
  delete from better_supabase.memories x
  where better_supabase._memory_in(x, n)
    and (x.path = memory_delete.path or x.path like better_supabase._memory_under(memory_delete.path));
  get diagnostics gone = row_count;
  return gone;
end
$$;

-- memory_rename moves the file or directory at old_path to new_path, and
-- returns how many files moved (each a version on). new_path must be free
-- (MEMORY_EXISTS) and not old_path or below it (MEMORY_PATH).
create or replace function better_supabase.memory_rename(tenant uuid, old_path text, new_path text, ns jsonb default '{}')
returns integer language plpgsql security definer set search_path = '' as $$
declare
  n better_supabase.memory_namespace := better_supabase._memory_namespace(memory_rename.tenant, memory_rename.ns, true);
  moved integer;
begin
  perform better_supabase._memory_check_path(memory_rename.old_path, false);
  perform better_supabase._memory_check_path(memory_rename.new_path, false);
  if memory_rename.new_path = memory_rename.old_path
     or memory_rename.new_path like better_supabase._memory_under(memory_rename.old_path) then
    raise exception 'cannot move % into itself', memory_rename.old_path using errcode = '22023', hint = 'MEMORY_PATH';
  end if;
  if exists (select from better_supabase.memories x
             where better_supabase._memory_in(x, n)
               and (x.path = memory_rename.new_path or x.path like better_supabase._memory_under(memory_rename.new_path))) then
    raise exception '% exists already', memory_rename.new_path using errcode = '23505', hint = 'MEMORY_EXISTS';
  end if;
  update better_supabase.memories x
  set path = memory_rename.new_path || substr(x.path, length(memory_rename.old_path) + 1),
      version = x.version + 1, updated_at = now()
  where better_supabase._memory_in(x, n)
    and (x.path = memory_rename.old_path or x.path like better_supabase._memory_under(memory_rename.old_path));
  get diagnostics moved = row_count;
  if moved = 0 then
    raise exception '% not found', memory_rename.old_path using errcode = 'P0002', hint = 'MEMORY_NOT_FOUND';
  end if;
  return moved;
end
$$;

-- memory_list lists the live memories of a kind in the namespace, by path
-- then newest first; at least one and at most 1000.
create or replace function better_supabase.memory_list(tenant uuid, ns jsonb default '{}', kind text default 'core', max_rows integer default 200)
returns jsonb language plpgsql stable security definer set search_path = '' as $$
declare
  n better_supabase.memory_namespace := better_supabase._memory_namespace(memory_list.tenant, memory_list.ns, false);
  listed jsonb;
begin
  select coalesce(jsonb_agg(better_supabase._memory_doc(m) order by m.path, m.created_at desc), '[]'::jsonb)
  into listed
  from (
    select * from better_supabase.memories x
    where better_supabase._memory_in(x, n) and x.kind = memory_list.kind
    order by x.path, x.created_at desc
    limit least(greatest(coalesce(memory_list.max_rows, 1), 1), 1000)
  ) m;
  return listed;
end
$$;

-- ---------------------------------------------------------------- archival memory

-- memory_save saves a fact (not empty: MEMORY_EMPTY), with its embedding
-- when the caller has one.
create or replace function better_supabase.memory_save(
  tenant uuid,
  content text,
  ns jsonb default '{}',
  embedding extensions.vector default null,
  model text default null,
  source_message_id text default null
) returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  n better_supabase.memory_namespace := better_supabase._memory_namespace(memory_save.tenant, memory_save.ns, true);
  m better_supabase.memories;
begin
  if coalesce(length(memory_save.content), 0) = 0 then
    raise exception 'a fact needs content' using errcode = '22023', hint = 'MEMORY_EMPTY';
  end if;
  perform better_supabase._memory_too_large(memory_save.content);
  insert into better_supabase.memories as x
    (organization_id, owner_id, scope, agent_id, chat_id, project_id, kind, content, embedding, embedding_model, source_message_id)
  values (n.tenant, n.owner_id, n.scope, n.agent_id, n.chat_id, n.project_id, 'archival', memory_save.content,
          memory_save.embedding, memory_save.model, memory_save.source_message_id)
  returning x.* into m;
  return better_supabase._memory_doc(m);
end
$$;

-- memory_search finds the namespace's live facts: the 4k nearest to
-- query_embedding and the 4k best full-text matches of query_text (k 1 to
-- 100), fused by reciprocal rank fusion, best first. Each comes with its
-- score and its cosine similarity to the query (null without a vector).
-- It puts hnsw.iterative_scan back before returning.
create or replace function better_supabase.memory_search(
  tenant uuid,
  query_embedding extensions.vector default null,
  query_text text default null,
  ns jsonb default '{}',
  k integer default 8
) returns jsonb language plpgsql volatile security definer set search_path = '' as $$
declare
  n better_supabase.memory_namespace := better_supabase._memory_namespace(memory_search.tenant, memory_search.ns, false);
  pool integer := least(greatest(coalesce(memory_search.k, 1), 1) * 4, 400);
  was text := current_setting('hnsw.iterative_scan', true);
  hits jsonb;
begin
  perform set_config('hnsw.iterative_scan', 'relaxed_order', true);
  with facts as materialized (
    select x.id from better_supabase.memories x
    where better_supabase._memory_in(x, n) and x.kind = 'archival'
  ),
  near as materialized (
    select x.id, x.embedding operator(extensions.<=>) memory_search.query_embedding as distance
    from better_supabase.memories x
    where memory_search.query_embedding is not null and x.embedding is not null
      and x.id in (select id from facts)
    order by x.embedding operator(extensions.<=>) memory_search.query_embedding
    limit pool
  ),
  texts as materialized (
    select x.id, ts_rank_cd(x.tsv, q.query) as relevance
    from better_supabase.memories x, websearch_to_tsquery('simple'::regconfig, memory_search.query_text) q(query)
    where memory_search.query_text is not null and x.tsv @@ q.query
      and x.id in (select id from facts)
    order by relevance desc
    limit pool
  ),
  fused as (
    select coalesce(v.id, t.id) as id, v.distance,
           coalesce(1.0 / (60 + v.place), 0) + coalesce(1.0 / (60 + t.place), 0) as score
    from (select id, distance, rank() over (order by distance) as place from near) v
    full join (select id, rank() over (order by relevance desc) as place from texts) t on t.id = v.id
    order by score desc, id
    limit least(greatest(coalesce(memory_search.k, 1), 1), 100)
  )
  select coalesce(jsonb_agg(better_supabase._memory_doc(x) || jsonb_build_object('score', f.score, 'similarity', 1 - f.distance)
                            order by f.score desc, f.id), '[]'::jsonb)
  into hits
  from fused f join better_supabase.memories x on x.id = f.id;
  perform set_config('hnsw.iterative_scan', coalesce(nullif(was, ''), 'off'), true);
  return hits;
end
$$;

-- memory_forget forgets a memory (true), or with superseded_by marks it
-- replaced by that one, so searches and lists no longer show it. The
-- service role, its owner, or for organization memory ai.admin in its
-- tenant may; anyone else gets false. Forgetting a memory forgets the
-- ones it superseded.
create or replace function better_supabase.memory_forget(memory_id uuid, superseded_by uuid default null)
returns boolean language plpgsql security definer set search_path = '' as $$
declare
  m better_supabase.memories;
begin
  select * into m from better_supabase.memories x where x.id = memory_forget.memory_id for update;
  if m.id is null or not (better_supabase._caller_is_service()
      or coalesce(m.owner_id = (select auth.uid()), false)
      or (m.scope = 'organization' and coalesce(better_supabase.can('tenant', m.organization_id, 'ai.admin'), false))) then
    return false;
  end if;
  if memory_forget.superseded_by is null then
    delete from better_supabase.memories x where x.id = m.id;
  else
    update better_supabase.memories x set superseded_by = memory_forget.superseded_by, updated_at = now() where x.id = m.id;
  end if;
  return true;
end
$$;

-- ---------------------------------------------------------------- embeddings

-- set_memory_embedding stores a memory's embedding (true), unless
-- content_hash is given and its content's md5 is no longer that (null).
create or replace function better_supabase.set_memory_embedding(memory_id uuid, embedding extensions.vector, model text default null, content_hash text default null)
returns boolean language sql security definer set search_path = '' as $$
  update better_supabase.memories x
  set embedding = set_memory_embedding.embedding, embedding_model = set_memory_embedding.model
  where x.id = set_memory_embedding.memory_id
    and (set_memory_embedding.content_hash is null or md5(x.content) = set_memory_embedding.content_hash)
  returning true
$$;

-- set_memory_embeddings stores many ([{id, hash, embedding}], or
-- {"items": list}); an item whose memory's md5 is no longer hash keeps
-- waiting. Returns how many it stored.
create or replace function better_supabase.set_memory_embeddings(items jsonb, model text default null)
returns integer language plpgsql security definer set search_path = '' as $$
declare
  list jsonb := case when jsonb_typeof(set_memory_embeddings.items) = 'object' then set_memory_embeddings.items -> 'items'
                     else set_memory_embeddings.items end;
  stored integer;
begin
  update better_supabase.memories x
  set embedding = (e.item ->> 'embedding')::extensions.vector(1536), embedding_model = set_memory_embeddings.model
  from jsonb_array_elements(case when jsonb_typeof(list) = 'array' then list else '[]'::jsonb end) e(item)
  where x.id = (e.item ->> 'id')::uuid and md5(x.content) = e.item ->> 'hash';
  get diagnostics stored = row_count;
  return stored;
end
$$;

-- pending_memory_embeddings lists up to batch live memories without an
-- embedding (1 to 2048), least recently updated first, each with the md5
-- of its content to hand back with the vector.
create or replace function better_supabase.pending_memory_embeddings(batch integer default 64)
returns jsonb language sql stable security definer set search_path = '' as $$
  select coalesce(jsonb_agg(jsonb_build_object('id', m.id, 'content', m.content, 'hash', md5(m.content)) order by m.updated_at, m.id), '[]'::jsonb)
  from (
    select x.id, x.content, x.updated_at from better_supabase.memories x
    where x.embedding is null and x.superseded_by is null
    order by x.updated_at, x.id
    limit least(greatest(coalesce(pending_memory_embeddings.batch, 1), 1), 2048)
  ) m
$$;

-- set_ai_message_embedding stores (or replaces) a message's embedding;
-- false for a temporary chat's message, which is never kept.
create or replace function better_supabase.set_ai_message_embedding(
  chat_id uuid,
  message_id text,
  user_id uuid,
  tenant uuid,
  embedding extensions.vector,
  model text default null
) returns boolean language plpgsql security definer set search_path = '' as $$
begin
  if exists (select from better_supabase.ai_chats c where c.id = set_ai_message_embedding.chat_id and c.is_temporary) then
    return false;
  end if;
  insert into better_supabase.ai_message_embeddings as e (chat_id, message_id, user_id, organization_id, embedding, embedding_model)
  values (set_ai_message_embedding.chat_id, set_ai_message_embedding.message_id, set_ai_message_embedding.user_id,
          set_ai_message_embedding.tenant, set_ai_message_embedding.embedding, set_ai_message_embedding.model)
  on conflict on constraint ai_message_embeddings_pkey
  do update set embedding = excluded.embedding, embedding_model = excluded.embedding_model;
  return true;
end
$$;

-- recall_ai_messages returns the k (1 to 50) messages of the caller (the
-- service role: of owner) in tenant nearest to query_embedding, outside
-- exclude_chat, as [{chat_id, message_id, similarity}]; [] without a user.
create or replace function better_supabase.recall_ai_messages(
  tenant uuid,
  query_embedding extensions.vector,
  k integer default 5,
  exclude_chat uuid default null,
  owner uuid default null
) returns jsonb language plpgsql volatile security definer set search_path = '' as $$
declare
  who uuid := case when better_supabase._caller_is_service() then recall_ai_messages.owner else (select auth.uid()) end;
  was text := current_setting('hnsw.iterative_scan', true);
  found_messages jsonb;
begin
  if who is null then
    return '[]'::jsonb;
  end if;
  perform set_config('hnsw.iterative_scan', 'relaxed_order', true);
  select coalesce(jsonb_agg(jsonb_build_object('chat_id', r.chat_id, 'message_id', r.message_id, 'similarity', 1 - r.distance)
                            order by r.distance), '[]'::jsonb)
  into found_messages
  from (
    select e.chat_id, e.message_id, e.embedding operator(extensions.<=>) recall_ai_messages.query_embedding as distance
    from better_supabase.ai_message_embeddings e
    where e.user_id = who and e.organization_id = recall_ai_messages.tenant
      and e.chat_id is distinct from recall_ai_messages.exclude_chat
    order by e.embedding operator(extensions.<=>) recall_ai_messages.query_embedding
    limit least(greatest(coalesce(recall_ai_messages.k, 1), 1), 50)
  ) r;
  perform set_config('hnsw.iterative_scan', coalesce(nullif(was, ''), 'off'), true);
  return found_messages;
end
$$;

-- ---------------------------------------------------------------- documents

-- memory_document_read returns {content, version} of a live document (the
-- version as text), or null.
create or replace function better_supabase.memory_document_read(scope_key text, path text)
returns jsonb language sql stable security definer set search_path = '' as $$
  select jsonb_build_object('content', d.content, 'version', d.version::text)
  from better_supabase.memory_documents d
  where d.scope_key = memory_document_read.scope_key and d.path = memory_document_read.path
    and (d.expires_at is null or d.expires_at > now())
$$;

-- memory_document_write writes a document if its version is still
-- expected_version (null: if there is none yet, an expired one counting as
-- none), else MEMORY_DOCUMENT_CONFLICT; expires_in seconds from now, or
-- never. Returns {content, version}.
create or replace function better_supabase.memory_document_write(scope_key text, path text, content text, expected_version text default null, expires_in integer default null)
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  d better_supabase.memory_documents;
  expiry timestamptz := now() + make_interval(secs => memory_document_write.expires_in);
begin
  perform better_supabase._memory_too_large(memory_document_write.content);
  delete from better_supabase.memory_documents x
  where x.scope_key = memory_document_write.scope_key and x.path = memory_document_write.path and x.expires_at <= now();
  if memory_document_write.expected_version is null then
    insert into better_supabase.memory_documents as x (scope_key, path, content, expires_at)
    values (memory_document_write.scope_key, memory_document_write.path, memory_document_write.content, expiry)
    on conflict on constraint memory_documents_pkey do nothing
    returning x.* into d;
  else
    update better_supabase.memory_documents x
    set content = memory_document_write.content, version = x.version + 1, expires_at = expiry, updated_at = now()
    where x.scope_key = memory_document_write.scope_key and x.path = memory_document_write.path
      and x.version::text = memory_document_write.expected_version
    returning x.* into d;
  end if;
  if d.scope_key is null then
    raise exception '% changed since version %', memory_document_write.path, coalesce(memory_document_write.expected_version, 'none')
      using errcode = '40001', hint = 'MEMORY_DOCUMENT_CONFLICT';
  end if;
  return jsonb_build_object('content', d.content, 'version', d.version::text);
end
$$;

-- purge_memory_documents deletes up to batch expired documents (1 to
-- 10000) and returns how many.
create or replace function better_supabase.purge_memory_documents(batch integer default 1000)
returns integer language plpgsql security definer set search_path = '' as $$
declare
  gone integer;
begin
  delete from better_supabase.memory_documents x
  where (x.scope_key, x.path) in (
    select y.scope_key, y.path from better_supabase.memory_documents y
    where y.expires_at <= now()
    limit least(greatest(coalesce(purge_memory_documents.batch, 1), 1), 10000));
  get diagnostics gone = row_count;
  return gone;
end
$$;


-- ---------------------------------------------------------------- api

-- The same functions in schema api, for a Data API that exposes that
-- schema: each calls its better_supabase function as the caller, with the
-- same rights.
create schema if not exists api;
grant usage on schema api to anon, authenticated, service_role;

create or replace function api.memory_view(tenant uuid, path text default '/memories', ns jsonb default '{}')
returns jsonb language sql security invoker set search_path = '' as $$ select better_supabase.memory_view($1, $2, $3) $$;
create or replace function api.memory_create(tenant uuid, path text, content text, ns jsonb default '{}', expected_version integer default null)
returns jsonb language sql security invoker set search_path = '' as $$ select better_supabase.memory_create($1, $2, $3, $4, $5) $$;
create or replace function api.memory_str_replace(tenant uuid, path text, old_text text, new_text text, ns jsonb default '{}')
returns jsonb language sql security invoker set search_path = '' as $$ select better_supabase.memory_str_replace($1, $2, $3, $4, $5) $$;
create or replace function api.memory_insert(tenant uuid, path text, insert_line integer, insert_text text, ns jsonb default '{}')
returns jsonb language sql security invoker set search_path = '' as $$ select better_supabase.memory_insert($1, $2, $3, $4, $5) $$;
create or replace function api.memory_delete(tenant uuid, path text, ns jsonb default '{}')
returns integer language sql security invoker set search_path = '' as $$ select better_supabase.memory_delete($1, $2, $3) $$;
create or replace function api.memory_rename(tenant uuid, old_path text, new_path text, ns jsonb default '{}')
returns integer language sql security invoker set search_path = '' as $$ select better_supabase.memory_rename($1, $2, $3, $4) $$;
create or replace function api.memory_list(tenant uuid, ns jsonb default '{}', kind text default 'core', max_rows integer default 200)
returns jsonb language sql security invoker set search_path = '' as $$ select better_supabase.memory_list($1, $2, $3, $4) $$;
create or replace function api.memory_save(tenant uuid, content text, ns jsonb default '{}', embedding extensions.vector default null,
  model text default null, source_message_id text default null)
returns jsonb language sql security invoker set search_path = '' as $$ select better_supabase.memory_save($1, $2, $3, $4, $5, $6) $$;
create or replace function api.memory_search(tenant uuid, query_embedding extensions.vector default null, query_text text default null,
  ns jsonb default '{}', k integer default 8)
returns jsonb language sql security invoker set search_path = '' as $$ select better_supabase.memory_search($1, $2, $3, $4, $5) $$;
create or replace function api.memory_forget(memory_id uuid, superseded_by uuid default null)
returns boolean language sql security invoker set search_path = '' as $$ select better_supabase.memory_forget($1, $2) $$;
create or replace function api.set_memory_embedding(memory_id uuid, embedding extensions.vector, model text default null, content_hash text default null)
returns boolean language sql security invoker set search_path = '' as $$ select better_supabase.set_memory_embedding($1, $2, $3, $4) $$;
create or replace function api.set_memory_embeddings(items jsonb, model text default null)
returns integer language sql security invoker set search_path = '' as $$ select better_supabase.set_memory_embeddings($1, $2) $$;
create or replace function api.pending_memory_embeddings(batch integer default 64)
returns jsonb language sql security invoker set search_path = '' as $$ select better_supabase.pending_memory_embeddings($1) $$;
create or replace function api.set_ai_message_embedding(chat_id uuid, message_id text, user_id uuid, tenant uuid,
  embedding extensions.vector, model text default null)
returns boolean language sql security invoker set search_path = '' as $$ select better_supabase.set_ai_message_embedding($1, $2, $3, $4, $5, $6) $$;
create or replace function api.recall_ai_messages(tenant uuid, query_embedding extensions.vector, k integer default 5,
  exclude_chat uuid default null, owner uuid default null)
returns jsonb language sql security invoker set search_path = '' as $$ select better_supabase.recall_ai_messages($1, $2, $3, $4, $5) $$;
create or replace function api.memory_document_read(scope_key text, path text)
returns jsonb language sql security invoker set search_path = '' as $$ select better_supabase.memory_document_read($1, $2) $$;
create or replace function api.memory_document_write(scope_key text, path text, content text, expected_version text default null,
  expires_in integer default null)
returns jsonb language sql security invoker set search_path = '' as $$ select better_supabase.memory_document_write($1, $2, $3, $4, $5) $$;
create or replace function api.purge_memory_documents(batch integer default 1000)
returns integer language sql security invoker set search_path = '' as $$ select better_supabase.purge_memory_documents($1) $$;

-- ---------------------------------------------------------------- grants

do $grants$
declare
  -- The block's own functions, each by name: the signed-in users', the
  -- server's, and the helpers no role calls directly. The api schema has
  -- the users' and the server's, with the same rights.
  users text[] := array[
    'memory_view(uuid,text,jsonb)', 'memory_create(uuid,text,text,jsonb,integer)',
    'memory_str_replace(uuid,text,text,text,jsonb)', 'memory_insert(uuid,text,integer,text,jsonb)',
    'memory_delete(uuid,text,jsonb)', 'memory_rename(uuid,text,text,jsonb)', 'memory_list(uuid,jsonb,text,integer)',
    'memory_save(uuid,text,jsonb,extensions.vector,text,text)',
    'memory_search(uuid,extensions.vector,text,jsonb,integer)', 'memory_forget(uuid,uuid)',
    'recall_ai_messages(uuid,extensions.vector,integer,uuid,uuid)'];
  server text[] := array[
    'set_memory_embedding(uuid,extensions.vector,text,text)', 'set_memory_embeddings(jsonb,text)',
    'pending_memory_embeddings(integer)', 'set_ai_message_embedding(uuid,text,uuid,uuid,extensions.vector,text)',
    'memory_document_read(text,text)', 'memory_document_write(text,text,text,text,integer)',
    'purge_memory_documents(integer)'];
  helpers text[] := array[
    '_memory_namespace(uuid,jsonb,boolean)', '_memory_in(better_supabase.memories,better_supabase.memory_namespace)',
    '_memory_check_path(text,boolean)', '_memory_under(text)', '_memory_doc(better_supabase.memories)',
    '_memory_too_large(text)', '_memory_file(better_supabase.memory_namespace,text)',
    '_memory_rewrite(better_supabase.memories,text)'];
  name text;
begin
  -- Also from the API roles: default privileges may have granted them
  -- every new function.
  foreach name in array users || server || helpers loop
    execute pg_catalog.format('revoke all on function better_supabase.%s from public, anon, authenticated, service_role', name);
  end loop;
  foreach name in array users loop
    execute pg_catalog.format('grant execute on function better_supabase.%s to authenticated, service_role', name);
  end loop;
  foreach name in array server loop
    execute pg_catalog.format('grant execute on function better_supabase.%s to service_role', name);
  end loop;
  foreach name in array users || server loop
    execute pg_catalog.format('revoke all on function api.%s from public, anon, authenticated, service_role', name);
    execute pg_catalog.format('grant execute on function api.%s to service_role', name);
  end loop;
  foreach name in array users loop
    execute pg_catalog.format('grant execute on function api.%s to authenticated', name);
  end loop;
end
$grants$;
