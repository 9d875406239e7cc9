-- bsadapter block: knowledge
-- version: 1
-- requires: ai-chat, ai-files, jobs, vector-search, access
--
-- Retrieval documents, laid out as better-supabase's knowledge module lays
-- them out. A document belongs to a tenant and to one scope: the whole
-- organization, an agent, a project, a chat, or one user. The app splits a
-- document into chunks and embeds them; the database keeps each chunk's
-- text with a full-text vector ('simple' configuration) and its embedding
-- (vector(1536) of pgvector, in schema extensions), and answers hybrid
-- searches: the best vector matches and the best text matches, each
-- ranked, fused by reciprocal rank fusion (1 / (60 + rank) per ranking).
--
-- Writing chunks again keeps the embedding of every chunk whose text (by
-- its md5) and model are unchanged; the others wait for the embed job,
-- queued in knowledge_embed (one waiting job per document) through
-- better_supabase.enqueue_job. The worker reads pending_knowledge_chunks,
-- embeds, and stores the vectors with set_knowledge_embeddings, each with
-- the md5 of the text it embedded, so a vector of text rewritten meanwhile
-- is not taken.
--
-- Reading goes through row-level security: a document's owner, members
-- holding ai.read for organization and agent knowledge, members holding
-- ai.admin for all of a tenant's knowledge, and whoever may read a chat for
-- that chat's knowledge. Changing a document takes the service role, its
-- owner, or ai.admin in its tenant. Unlike upstream, a document without an
-- owner (organization knowledge the server added) is changed by the service
-- role and ai.admin only: upstream's check lets any signed-in user rewrite
-- or delete it.

grant usage on schema better_supabase to anon, authenticated, service_role;

-- ---------------------------------------------------------------- tables

create table if not exists better_supabase.knowledge_documents (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null,
  owner_id uuid references auth.users (id) on delete cascade,
  scope text not null default 'user' check (scope in ('organization', 'agent', 'project', 'chat', 'user')),
  scope_id uuid,
  file_id uuid references better_supabase.ai_files (id) on delete cascade,
  title text not null check (length(title) between 1 and 500),
  source text,
  metadata jsonb not null default '{}' check (jsonb_typeof(metadata) = 'object'),
  status text not null default 'pending' check (status in ('pending', 'ready', 'failed')),
  error text,
  chunk_count integer not null default 0,
  embedding_model text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- Only organization knowledge has no scope id.
  check ((scope = 'organization') = (scope_id is null))
);
create index if not exists knowledge_documents_scope_idx
  on better_supabase.knowledge_documents (organization_id, scope, scope_id);
create index if not exists knowledge_documents_owner_idx
  on better_supabase.knowledge_documents (owner_id) where owner_id is not null;
create index if not exists knowledge_documents_file_idx
  on better_supabase.knowledge_documents (file_id) where file_id is not null;
create index if not exists knowledge_documents_pending_idx
  on better_supabase.knowledge_documents (updated_at) where status = 'pending';

create table if not exists better_supabase.knowledge_chunks (
  document_id uuid not null references better_supabase.knowledge_documents (id) on delete cascade,
  idx integer not null check (idx >= 0),
  content text not null check (length(content) > 0),
  token_count integer,
  embedding extensions.vector(1536),
  -- The md5 of the text the embedding was made from.
  embedding_hash text,
  metadata jsonb not null default '{}',
  tsv tsvector generated always as (to_tsvector('simple'::regconfig, content)) stored,
  primary key (document_id, idx)
);
create index if not exists knowledge_chunks_embedding_idx
  on better_supabase.knowledge_chunks using hnsw (embedding extensions.vector_cosine_ops);
create index if not exists knowledge_chunks_tsv_idx on better_supabase.knowledge_chunks using gin (tsv);
create index if not exists knowledge_chunks_unembedded_idx
  on better_supabase.knowledge_chunks (document_id, idx) where embedding is null;

-- Signed-in users read through row-level security and change nothing
-- directly; the service role (BYPASSRLS) does everything.
do $tables$
declare
  t text;
begin
  foreach t in array array['knowledge_documents', 'knowledge_chunks'] loop
    execute pg_catalog.format('alter table better_supabase.%I enable row level security', t);
    execute pg_catalog.format('revoke all on table better_supabase.%I from public, anon, authenticated, service_role', t);
    execute pg_catalog.format('grant all on table better_supabase.%I to service_role', t);
    execute pg_catalog.format('grant select on table better_supabase.%I to authenticated', t);
  end loop;
end
$tables$;

drop policy if exists knowledge_documents_read on better_supabase.knowledge_documents;
create policy knowledge_documents_read on better_supabase.knowledge_documents
  for select to authenticated
  using (
    owner_id = (select auth.uid())
    or (scope in ('organization', 'agent')
        and organization_id in (select better_supabase.tenant_ids_with('ai.read')))
    or organization_id in (select better_supabase.tenant_ids_with('ai.admin'))
    or (scope = 'chat' and better_supabase.ai_chat_can_read(scope_id))
  );

-- A chunk is visible with its document, so searches inherit the scopes.
drop policy if exists knowledge_chunks_read on better_supabase.knowledge_chunks;
create policy knowledge_chunks_read on better_supabase.knowledge_chunks
  for select to authenticated
  using (exists (select from better_supabase.knowledge_documents d where d.id = knowledge_chunks.document_id));

-- ---------------------------------------------------------------- helpers

-- _knowledge_may_change says whether the caller may change document d: the
-- service role, its owner, or a member holding ai.admin in its tenant.
-- A document without owner is no one's to change but the admins'.
create or replace function better_supabase._knowledge_may_change(d better_supabase.knowledge_documents)
returns boolean language sql stable security definer set search_path = '' as $$
  select better_supabase._caller_is_service()
    or coalesce(d.owner_id = (select auth.uid()), false)
    or coalesce(better_supabase.can('tenant', d.organization_id, 'ai.admin'), false)
$$;

-- _knowledge_queue_embed asks for the document's embed job; a job still
-- waiting for the document stands for this one too.
create or replace function better_supabase._knowledge_queue_embed(document uuid)
returns void language sql security definer set search_path = '' as $$
  select better_supabase.enqueue_job(
    queue => 'knowledge_embed',
    payload => jsonb_build_object('document_id', _knowledge_queue_embed.document),
    dedupe_key => 'knowledge:' || _knowledge_queue_embed.document::text,
    dedupe_running => false);
$$;

-- _knowledge_items accepts a JSON array, or an object holding it under
-- items (how some clients send lists).
create or replace function better_supabase._knowledge_items(v jsonb)
returns jsonb language sql immutable set search_path = '' as $$
  select case when jsonb_typeof(_knowledge_items.v) = 'object' then _knowledge_items.v -> 'items' else _knowledge_items.v end
$$;

-- ---------------------------------------------------------------- documents

-- create_knowledge_document adds a document in tenant for the caller, who
-- needs ai.create there (and ai.admin for organization and agent
-- knowledge); the service role creates for owner (none: no owner). User
-- knowledge is its owner's (scope_id defaults to the owner); chat
-- knowledge needs a chat the caller may read; a file must be a ready file
-- of the tenant that is the caller's or that an admin attaches.
create or replace function better_supabase.create_knowledge_document(
  tenant uuid,
  title text,
  scope text default 'user',
  scope_id uuid default null,
  file_id uuid default null,
  source text default null,
  metadata jsonb default '{}',
  owner uuid default null
) returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  service boolean := better_supabase._caller_is_service();
  who uuid := case when service then create_knowledge_document.owner else (select auth.uid()) end;
  sid uuid := create_knowledge_document.scope_id;
  admin boolean := coalesce(better_supabase.can('tenant', create_knowledge_document.tenant, 'ai.admin'), false);
  d better_supabase.knowledge_documents;
begin
  if not service and (who is null
      or not coalesce(better_supabase.can('tenant', create_knowledge_document.tenant, 'ai.create'), false)) then
    raise exception 'you may not add knowledge to tenant %', create_knowledge_document.tenant
      using errcode = '42501', hint = 'KNOWLEDGE_FORBIDDEN';
  end if;
  if create_knowledge_document.scope in ('organization', 'agent') and not (service or admin) then
    raise exception 'adding % knowledge takes ai.admin', create_knowledge_document.scope
      using errcode = '42501', hint = 'KNOWLEDGE_FORBIDDEN';
  end if;
  if create_knowledge_document.scope = 'user' then
    sid := coalesce(sid, who);
    if sid is null or sid is distinct from who then
      raise exception 'user knowledge is filed under its owner'
        using errcode = '22023', hint = 'KNOWLEDGE_SCOPE';
    end if;
  end if;
  if create_knowledge_document.scope is null
     or create_knowledge_document.scope not in ('organization', 'agent', 'project', 'chat', 'user')
     or (create_knowledge_document.scope = 'organization') <> (sid is null) then
    raise exception 'scope % with scope_id %: organization knowledge takes no scope_id, the other scopes need one',
      coalesce(create_knowledge_document.scope, 'null'), coalesce(sid::text, 'null')
      using errcode = '22023', hint = 'KNOWLEDGE_SCOPE';
  end if;
  if create_knowledge_document.scope = 'chat' and not service and not better_supabase.ai_chat_can_read(sid) then
    raise exception 'chat % not found', sid using errcode = 'P0002', hint = 'AI_CHAT_NOT_FOUND';
  end if;
  if create_knowledge_document.file_id is not null and not exists (
    select from better_supabase.ai_files f
    where f.id = create_knowledge_document.file_id
      and f.organization_id = create_knowledge_document.tenant
      and f.status = 'ready'
      and (service or admin or coalesce(f.owner_id = (select auth.uid()), false))
  ) then
    raise exception 'file % not found', create_knowledge_document.file_id
      using errcode = 'P0002', hint = 'AI_FILE_NOT_FOUND';
  end if;
  insert into better_supabase.knowledge_documents as x
    (organization_id, owner_id, scope, scope_id, file_id, title, source, metadata)
  values (create_knowledge_document.tenant, who, create_knowledge_document.scope, sid,
          create_knowledge_document.file_id, create_knowledge_document.title,
          create_knowledge_document.source, coalesce(create_knowledge_document.metadata, '{}'::jsonb))
  returning x.* into d;
  return to_jsonb(d);
end
$$;

-- get_knowledge_document returns the document when the caller may read it,
-- else null.
create or replace function better_supabase.get_knowledge_document(document_id uuid)
returns jsonb language sql stable security invoker set search_path = '' as $$
  select to_jsonb(d) from better_supabase.knowledge_documents d where d.id = get_knowledge_document.document_id
$$;

-- list_knowledge_documents lists the documents of tenant the caller may
-- read, newest first, narrowed to a scope and a scope id when given; at
-- least one and at most 1000.
create or replace function better_supabase.list_knowledge_documents(
  tenant uuid,
  scope text default null,
  scope_id uuid default null,
  max_rows integer default 100
) returns jsonb language sql stable security invoker set search_path = '' as $$
  select coalesce(jsonb_agg(to_jsonb(d) order by d.created_at desc), '[]'::jsonb)
  from (
    select * from better_supabase.knowledge_documents x
    where x.organization_id = list_knowledge_documents.tenant
      and (list_knowledge_documents.scope is null or x.scope = list_knowledge_documents.scope)
      and (list_knowledge_documents.scope_id is null or x.scope_id = list_knowledge_documents.scope_id)
    order by x.created_at desc
    limit least(greatest(coalesce(list_knowledge_documents.max_rows, 1), 1), 1000)
  ) d
$$;

-- delete_knowledge_document deletes the document with its chunks; false
-- when it does not exist or the caller may not change it.
create or replace function better_supabase.delete_knowledge_document(document_id uuid)
returns boolean language plpgsql security definer set search_path = '' as $$
declare
  d better_supabase.knowledge_documents;
begin
  select * into d from better_supabase.knowledge_documents x where x.id = delete_knowledge_document.document_id for update;
  if d.id is null or not better_supabase._knowledge_may_change(d) then
    return false;
  end if;
  delete from better_supabase.knowledge_documents x where x.id = d.id;
  return true;
end
$$;

-- ---------------------------------------------------------------- chunks

-- write_knowledge_chunks replaces the document's chunks with chunks, a list
-- of {content, tokens, metadata} (at most 10000), idx 0, 1, ... in order. A
-- chunk keeps its embedding when its text is unchanged and model is null or
-- the document's model. The document is ready when every chunk has an
-- embedding, else pending with its embed job queued; model, when given,
-- becomes the document's model.
create or replace function better_supabase.write_knowledge_chunks(document_id uuid, chunks jsonb, model text default null)
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  d better_supabase.knowledge_documents;
  items jsonb := better_supabase._knowledge_items(write_knowledge_chunks.chunks);
  n integer;
  same_model boolean;
begin
  select * into d from better_supabase.knowledge_documents x where x.id = write_knowledge_chunks.document_id for update;
  if d.id is null or not better_supabase._knowledge_may_change(d) then
    raise exception 'document % not found', write_knowledge_chunks.document_id
      using errcode = 'P0002', hint = 'KNOWLEDGE_NOT_FOUND';
  end if;
  if jsonb_typeof(items) is distinct from 'array' or jsonb_array_length(items) > 10000 then
    raise exception 'chunks must be a list of at most 10000 chunks'
      using errcode = '22023', hint = 'KNOWLEDGE_CHUNKS';
  end if;
  n := jsonb_array_length(items);
  same_model := write_knowledge_chunks.model is null or write_knowledge_chunks.model is not distinct from d.embedding_model;
  insert into better_supabase.knowledge_chunks as c (document_id, idx, content, token_count, metadata)
  select d.id, (e.ord - 1)::integer, e.item ->> 'content', (e.item ->> 'tokens')::integer,
         coalesce(e.item -> 'metadata', '{}'::jsonb)
  from jsonb_array_elements(items) with ordinality e(item, ord)
  on conflict on constraint knowledge_chunks_pkey do update
  set content = excluded.content,
      token_count = excluded.token_count,
      metadata = excluded.metadata,
      embedding = case when same_model and c.embedding_hash = md5(excluded.content) then c.embedding end,
      embedding_hash = case when same_model and c.embedding_hash = md5(excluded.content) then c.embedding_hash end;
  delete from better_supabase.knowledge_chunks c where c.document_id = d.id and c.idx >= n;
  update better_supabase.knowledge_documents x
  set status = case when exists (select from better_supabase.knowledge_chunks c
                                 where c.document_id = x.id and c.embedding is null)
                    then 'pending' else 'ready' end,
      error = null,
      chunk_count = n,
      embedding_model = coalesce(write_knowledge_chunks.model, x.embedding_model),
      updated_at = now()
  where x.id = d.id
  returning x.* into d;
  if d.status = 'pending' then
    perform better_supabase._knowledge_queue_embed(d.id);
  end if;
  return to_jsonb(d);
end
$$;

-- pending_knowledge_chunks lists, for the worker, up to batch chunks of the
-- document that wait for an embedding (1 to 2048, by idx), each with the
-- md5 of its text to hand back with the vector.
create or replace function better_supabase.pending_knowledge_chunks(document_id uuid, batch integer default 64)
returns jsonb language sql stable security definer set search_path = '' as $$
  select coalesce(jsonb_agg(jsonb_build_object('idx', c.idx, 'content', c.content, 'hash', md5(c.content)) order by c.idx), '[]'::jsonb)
  from (
    select x.idx, x.content from better_supabase.knowledge_chunks x
    where x.document_id = pending_knowledge_chunks.document_id and x.embedding is null
    order by x.idx
    limit least(greatest(coalesce(pending_knowledge_chunks.batch, 1), 1), 2048)
  ) c
$$;

-- set_knowledge_embeddings stores embeddings, a list of {idx, hash,
-- embedding}: a vector is taken only while the chunk's text still has that
-- md5. The document turns ready once no chunk waits; model, when given,
-- becomes its model. Returns how many chunks still wait.
create or replace function better_supabase.set_knowledge_embeddings(document_id uuid, embeddings jsonb, model text default null)
returns integer language plpgsql security definer set search_path = '' as $$
declare
  waiting integer;
begin
  update better_supabase.knowledge_chunks c
  set embedding = (e.item ->> 'embedding')::extensions.vector(1536),
      embedding_hash = e.item ->> 'hash'
  from jsonb_array_elements(coalesce(better_supabase._knowledge_items(set_knowledge_embeddings.embeddings), '[]'::jsonb)) e(item)
  where c.document_id = set_knowledge_embeddings.document_id
    and c.idx = (e.item ->> 'idx')::integer
    and md5(c.content) = e.item ->> 'hash';
  select count(*)::integer into waiting from better_supabase.knowledge_chunks c
  where c.document_id = set_knowledge_embeddings.document_id and c.embedding is null;
  update better_supabase.knowledge_documents x
  set status = case when waiting = 0 then 'ready' else x.status end,
      embedding_model = coalesce(set_knowledge_embeddings.model, x.embedding_model),
      updated_at = now()
  where x.id = set_knowledge_embeddings.document_id;
  return waiting;
end
$$;

-- fail_knowledge_document marks the document failed with error (its first
-- 2000 characters); true, or null when there is no such document.
create or replace function better_supabase.fail_knowledge_document(document_id uuid, error text)
returns boolean language sql security definer set search_path = '' as $$
  update better_supabase.knowledge_documents x
  set status = 'failed', error = left(fail_knowledge_document.error, 2000), updated_at = now()
  where x.id = fail_knowledge_document.document_id
  returning true
$$;

-- pending_knowledge_documents lists the ids of up to batch documents that
-- wait for embeddings (1 to 1000), least recently updated first, for a
-- worker that drains without jobs.
create or replace function better_supabase.pending_knowledge_documents(batch integer default 10)
returns jsonb language sql stable security definer set search_path = '' as $$
  select coalesce(jsonb_agg(d.id order by d.updated_at), '[]'::jsonb)
  from (
    select x.id, x.updated_at from better_supabase.knowledge_documents x
    where x.status = 'pending'
    order by x.updated_at
    limit least(greatest(coalesce(pending_knowledge_documents.batch, 1), 1), 1000)
  ) d
$$;

-- reembed_knowledge drops the embeddings of the documents of tenant (every
-- tenant when null) that have chunks and that model did not embed (all of
-- them when model is null), marks them pending with their embed job queued,
-- and returns how many. A document keeps its model until new vectors come.
create or replace function better_supabase.reembed_knowledge(tenant uuid default null, model text default null)
returns integer language plpgsql security definer set search_path = '' as $$
declare
  doc uuid;
  n integer := 0;
begin
  for doc in
    update better_supabase.knowledge_documents x
    set status = 'pending', updated_at = now()
    where (reembed_knowledge.tenant is null or x.organization_id = reembed_knowledge.tenant)
      and (reembed_knowledge.model is null or x.embedding_model is distinct from reembed_knowledge.model)
      and x.chunk_count > 0
    returning x.id
  loop
    update better_supabase.knowledge_chunks c set embedding = null, embedding_hash = null where c.document_id = doc;
    perform better_supabase._knowledge_queue_embed(doc);
    n := n + 1;
  end loop;
  return n;
end
$$;

-- ---------------------------------------------------------------- search

-- knowledge_search searches the chunks of tenant the caller may read: the
-- 4k nearest by cosine distance to query_embedding and the 4k best
-- full-text matches of query_text (websearch syntax; k between 1 and 100,
-- at most 400 candidates each), fused by reciprocal rank fusion, best
-- first (ties by document and idx). Chunks that match equally (the same
-- distance, the same text rank) share a rank, so they score alike. scopes
-- narrows to a list of {scope, id} (id null: every id of the scope), filter
-- to documents whose metadata contains it. Returns a list of {document_id,
-- idx, content, metadata, title, score}.
create or replace function better_supabase.knowledge_search(
  tenant uuid,
  query_embedding extensions.vector default null,
  query_text text default null,
  scopes jsonb default null,
  k integer default 8,
  filter jsonb default null
) returns jsonb language plpgsql stable security invoker set search_path = '' as $$
declare
  was text := current_setting('hnsw.iterative_scan', true);
  wanted integer := least(greatest(coalesce(knowledge_search.k, 1), 1), 100);
  pool integer := least(greatest(coalesce(knowledge_search.k, 1), 1) * 4, 400);
  wanted_scopes jsonb := case when jsonb_typeof(knowledge_search.scopes) = 'object' then knowledge_search.scopes -> 'items'
                               else knowledge_search.scopes end;
  hits jsonb;
begin
  -- An index scan that meets chunks the caller may not read keeps going
  -- until it has enough.
  perform set_config('hnsw.iterative_scan', 'relaxed_order', true);
  with docs as materialized (
    select d.id, d.title from better_supabase.knowledge_documents d
    where d.organization_id = knowledge_search.tenant
      and (wanted_scopes is null or exists (
        select from jsonb_array_elements(wanted_scopes) s(item)
        where s.item ->> 'scope' = d.scope
          and (s.item ->> 'id' is null or (s.item ->> 'id')::uuid = d.scope_id)))
      and (knowledge_search.filter is null or d.metadata @> knowledge_search.filter)
  ),
  near as materialized (
    select c.document_id, c.idx, c.embedding operator(extensions.<=>) knowledge_search.query_embedding as distance
    from better_supabase.knowledge_chunks c
    where knowledge_search.query_embedding is not null
      and c.embedding is not null
      and c.document_id in (select id from docs)
    order by c.embedding operator(extensions.<=>) knowledge_search.query_embedding
    limit pool
  ),
  texts as materialized (
    select c.document_id, c.idx, ts_rank_cd(c.tsv, q.query) as relevance
    from better_supabase.knowledge_chunks c,
         websearch_to_tsquery('simple'::regconfig, knowledge_search.query_text) q(query)
    where knowledge_search.query_text is not null
      and c.tsv @@ q.query
      and c.document_id in (select id from docs)
    order by relevance desc
    limit pool
  ),
  fused as (
    select coalesce(v.document_id, t.document_id) as document_id, coalesce(v.idx, t.idx) as idx,
           coalesce(1.0 / (60 + v.place), 0) + coalesce(1.0 / (60 + t.place), 0) as score
    from (select n.document_id, n.idx, rank() over (order by n.distance) as place from near n) v
    full join (select x.document_id, x.idx, rank() over (order by x.relevance desc) as place from texts x) t
      on t.document_id = v.document_id and t.idx = v.idx
  ),
  best as (
    select f.document_id, f.idx, c.content, c.metadata, docs.title, f.score
    from fused f
    join better_supabase.knowledge_chunks c on c.document_id = f.document_id and c.idx = f.idx
    join docs on docs.id = f.document_id
    order by f.score desc, f.document_id, f.idx
    limit wanted
  )
  select coalesce(jsonb_agg(jsonb_build_object('document_id', b.document_id, 'idx', b.idx, 'content', b.content,
                                               'metadata', b.metadata, 'title', b.title, 'score', b.score)
                            order by b.score desc, b.document_id, b.idx), '[]'::jsonb)
  into hits
  from best b;
  perform set_config('hnsw.iterative_scan', coalesce(was, 'off'), true);
  return hits;
end
$$;


-- ---------------------------------------------------------------- api

-- The same functions in schema api, for a Data API that exposes that
-- schema: each calls its better_supabase function as the caller, with the
-- same rights.
create schema if not exists api;
grant usage on schema api to anon, authenticated, service_role;

create or replace function api.create_knowledge_document(tenant uuid, title text, scope text default 'user',
  scope_id uuid default null, file_id uuid default null, source text default null, metadata jsonb default '{}',
  owner uuid default null)
returns jsonb language sql security invoker set search_path = '' as $$
  select better_supabase.create_knowledge_document($1, $2, $3, $4, $5, $6, $7, $8)
$$;
create or replace function api.write_knowledge_chunks(document_id uuid, chunks jsonb, model text default null)
returns jsonb language sql security invoker set search_path = '' as $$
  select better_supabase.write_knowledge_chunks($1, $2, $3)
$$;
create or replace function api.get_knowledge_document(document_id uuid)
returns jsonb language sql stable security invoker set search_path = '' as $$
  select better_supabase.get_knowledge_document($1)
$$;
create or replace function api.list_knowledge_documents(tenant uuid, scope text default null,
  scope_id uuid default null, max_rows integer default 100)
returns jsonb language sql stable security invoker set search_path = '' as $$
  select better_supabase.list_knowledge_documents($1, $2, $3, $4)
$$;
create or replace function api.delete_knowledge_document(document_id uuid)
returns boolean language sql security invoker set search_path = '' as $$
  select better_supabase.delete_knowledge_document($1)
$$;
create or replace function api.knowledge_search(tenant uuid, query_embedding extensions.vector default null,
  query_text text default null, scopes jsonb default null, k integer default 8, filter jsonb default null)
returns jsonb language sql stable security invoker set search_path = '' as $$
  select better_supabase.knowledge_search($1, $2, $3, $4, $5, $6)
$$;
create or replace function api.pending_knowledge_chunks(document_id uuid, batch integer default 64)
returns jsonb language sql stable security invoker set search_path = '' as $$
  select better_supabase.pending_knowledge_chunks($1, $2)
$$;
create or replace function api.set_knowledge_embeddings(document_id uuid, embeddings jsonb, model text default null)
returns integer language sql security invoker set search_path = '' as $$
  select better_supabase.set_knowledge_embeddings($1, $2, $3)
$$;
create or replace function api.fail_knowledge_document(document_id uuid, error text)
returns boolean language sql security invoker set search_path = '' as $$
  select better_supabase.fail_knowledge_document($1, $2)
$$;
create or replace function api.pending_knowledge_documents(batch integer default 10)
returns jsonb language sql stable security invoker set search_path = '' as $$
  select better_supabase.pending_knowledge_documents($1)
$$;
create or replace function api.reembed_knowledge(tenant uuid default null, model text default null)
returns integer language sql security invoker set search_path = '' as $$
  select better_supabase.reembed_knowledge($1, $2)
$$;

-- ---------------------------------------------------------------- grants

do $grants$
declare
  -- The block's own functions, each by name: the signed-in users', the
  -- server's, and the helpers no role calls directly. The api schema has
  -- the users' and the server's, with the same rights.
  users text[] := array[
    'create_knowledge_document(uuid,text,text,uuid,uuid,text,jsonb,uuid)',
    'get_knowledge_document(uuid)', 'list_knowledge_documents(uuid,text,uuid,integer)',
    'delete_knowledge_document(uuid)', 'write_knowledge_chunks(uuid,jsonb,text)',
    'knowledge_search(uuid,extensions.vector,text,jsonb,integer,jsonb)'];
  server text[] := array[
    'pending_knowledge_chunks(uuid,integer)', 'set_knowledge_embeddings(uuid,jsonb,text)',
    'fail_knowledge_document(uuid,text)', 'pending_knowledge_documents(integer)', 'reembed_knowledge(uuid,text)'];
  helpers text[] := array[
    '_knowledge_may_change(better_supabase.knowledge_documents)', '_knowledge_queue_embed(uuid)', '_knowledge_items(jsonb)'];
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
