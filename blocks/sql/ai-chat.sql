-- bsadapter block: ai-chat
-- version: 2
-- requires: streams, access
--
-- Conversations for AI chat apps, laid out as better-supabase's ai-chat
-- module lays them out. A chat belongs to one owner in one tenant and holds
-- its messages as a tree: an edited prompt or a regenerated answer adds a
-- sibling, and the chat's current leaf says which branch is shown. Runs
-- record the answers being generated (one streaming at a time per chat,
-- claimed compare-and-set), with their steps, tool approvals and questions
-- for the user. Around them: projects, read-only share links, feedback,
-- a model catalog, moderation events, and the sandboxes and harness
-- sessions coding agents keep per chat.
--
-- Tenancy comes from the access functions better_supabase.can and
-- better_supabase.tenant_ids_with (and tenant_entitlements for plans).
-- Signed-in users read through row-level security and write only through
-- the functions; anon reaches nothing but a share link's branch.

grant usage on schema better_supabase to anon, authenticated, service_role;

-- ---------------------------------------------------------------- tables

create table if not exists better_supabase.ai_projects (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null,
  owner_id uuid not null references auth.users (id) on delete cascade,
  name text not null check (length(name) between 1 and 200),
  instructions text not null default '' check (length(instructions) <= 20000),
  default_model text check (length(default_model) <= 200),
  pinned boolean not null default false,
  archived_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index if not exists ai_projects_owner_idx on better_supabase.ai_projects (owner_id, organization_id);

create table if not exists better_supabase.ai_chats (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null,
  owner_id uuid not null references auth.users (id) on delete cascade,
  project_id uuid references better_supabase.ai_projects (id) on delete set null,
  agent_id text check (length(agent_id) <= 200),
  title text not null default '' check (length(title) <= 300),
  model text check (length(model) <= 200),
  visibility text not null default 'private' check (visibility in ('private', 'organization')),
  pinned boolean not null default false,
  archived_at timestamptz,
  is_temporary boolean not null default false,
  expires_at timestamptz,
  current_leaf_id text,
  active_stream_id text,
  active_run_id uuid,
  -- clock_timestamp, not now: two messages of one transaction still order.
  last_message_at timestamptz not null default clock_timestamp(),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  search_tsv tsvector generated always as (to_tsvector('simple'::regconfig, title)) stored,
  -- A temporary chat always knows when it goes.
  check (not is_temporary or expires_at is not null)
);
create index if not exists ai_chats_owner_idx on better_supabase.ai_chats (owner_id, last_message_at desc, id desc);
create index if not exists ai_chats_tenant_idx on better_supabase.ai_chats (organization_id);
create index if not exists ai_chats_project_idx on better_supabase.ai_chats (project_id);
create index if not exists ai_chats_expires_idx on better_supabase.ai_chats (expires_at) where is_temporary;
create index if not exists ai_chats_search_idx on better_supabase.ai_chats using gin (search_tsv);

create table if not exists better_supabase.ai_messages (
  chat_id uuid not null references better_supabase.ai_chats (id) on delete cascade,
  id text not null check (length(id) between 1 and 200),
  parent_id text,
  owner_id uuid not null,
  role text not null check (role in ('system', 'user', 'assistant', 'tool')),
  -- An array whose objects carry one of the nine canonical part types.
  parts jsonb not null default '[]' check (
    jsonb_typeof(parts) = 'array'
    and not jsonb_path_exists(parts,
      '$[*] ? (!(@.type like_regex "^(text|reasoning|file|tool-call|tool-result|tool-approval|source|data|step)$"))')
  ),
  format text not null default 'canonical' check (length(format) between 1 and 50),
  native jsonb,
  metadata jsonb not null default '{}' check (jsonb_typeof(metadata) = 'object'),
  model text,
  status text not null default 'complete' check (status in ('complete', 'aborted', 'error')),
  seq bigint generated always as identity,
  created_at timestamptz not null default now(),
  search_tsv tsvector generated always as (
    to_tsvector('simple'::regconfig, jsonb_path_query_array(parts, '$[*] ? (@.type == "text").text'))
  ) stored,
  primary key (chat_id, id),
  foreign key (chat_id, parent_id) references better_supabase.ai_messages (chat_id, id) on delete cascade
);
create index if not exists ai_messages_parent_idx on better_supabase.ai_messages (chat_id, parent_id);
create index if not exists ai_messages_owner_idx on better_supabase.ai_messages (owner_id);
create index if not exists ai_messages_search_idx on better_supabase.ai_messages using gin (search_tsv);

create table if not exists better_supabase.ai_runs (
  id uuid primary key default gen_random_uuid(),
  chat_id uuid not null references better_supabase.ai_chats (id) on delete cascade,
  owner_id uuid not null,
  assistant_message_id text,
  stream_id text,
  engine text not null default 'ai-sdk' check (length(engine) between 1 and 50),
  external_run_id text check (length(external_run_id) <= 200),
  model text,
  status text not null default 'running'
    check (status in ('queued', 'running', 'cancel_requested', 'completed', 'failed', 'cancelled')),
  provider_generation_id text,
  usage jsonb not null default '{}' check (jsonb_typeof(usage) = 'object'),
  cost_micro_usd bigint check (cost_micro_usd >= 0),
  error text,
  started_at timestamptz not null default now(),
  ended_at timestamptz
);
create index if not exists ai_runs_chat_idx on better_supabase.ai_runs (chat_id, started_at desc);
create index if not exists ai_runs_owner_idx on better_supabase.ai_runs (owner_id);
create index if not exists ai_runs_generation_idx on better_supabase.ai_runs (provider_generation_id)
  where provider_generation_id is not null;
create index if not exists ai_runs_external_idx on better_supabase.ai_runs (engine, external_run_id)
  where external_run_id is not null;

create table if not exists better_supabase.ai_tool_approvals (
  approval_id text primary key check (length(approval_id) between 1 and 200),
  chat_id uuid not null references better_supabase.ai_chats (id) on delete cascade,
  owner_id uuid not null,
  run_id uuid references better_supabase.ai_runs (id) on delete set null,
  message_id text,
  tool text not null check (length(tool) between 1 and 200),
  tool_call_id text not null,
  input jsonb,
  decision text check (decision in ('approved', 'denied')),
  reason text check (length(reason) <= 2000),
  signature text,
  decided_by uuid,
  decided_at timestamptz,
  created_at timestamptz not null default now()
);
create index if not exists ai_tool_approvals_chat_idx on better_supabase.ai_tool_approvals (chat_id);
create index if not exists ai_tool_approvals_run_idx on better_supabase.ai_tool_approvals (run_id);
create index if not exists ai_tool_approvals_owner_idx on better_supabase.ai_tool_approvals (owner_id);

create table if not exists better_supabase.ai_tool_policies (
  organization_id uuid not null,
  tool text not null check (length(tool) between 1 and 200),
  policy text not null check (policy in ('auto', 'ask', 'deny')),
  updated_at timestamptz not null default now(),
  primary key (organization_id, tool)
);

create table if not exists better_supabase.ai_pending_inputs (
  id uuid primary key default gen_random_uuid(),
  chat_id uuid not null references better_supabase.ai_chats (id) on delete cascade,
  owner_id uuid not null,
  run_id uuid references better_supabase.ai_runs (id) on delete set null,
  tool_call_id text,
  question text not null check (length(question) between 1 and 2000),
  schema jsonb,
  answer jsonb,
  answered_at timestamptz,
  created_at timestamptz not null default now()
);
create index if not exists ai_pending_inputs_chat_idx on better_supabase.ai_pending_inputs (chat_id);
create index if not exists ai_pending_inputs_run_idx on better_supabase.ai_pending_inputs (run_id);
create index if not exists ai_pending_inputs_owner_idx on better_supabase.ai_pending_inputs (owner_id);

create table if not exists better_supabase.ai_message_sources (
  chat_id uuid not null,
  message_id text not null,
  source_id text not null,
  source_type text not null default 'url' check (source_type in ('url', 'document')),
  url text,
  title text,
  provider_metadata jsonb,
  primary key (chat_id, message_id, source_id),
  foreign key (chat_id, message_id) references better_supabase.ai_messages (chat_id, id) on delete cascade
);

create table if not exists better_supabase.ai_message_feedback (
  chat_id uuid not null,
  message_id text not null,
  user_id uuid not null references auth.users (id) on delete cascade,
  rating smallint not null check (rating in (-1, 1)),
  reason text check (length(reason) <= 200),
  comment text check (length(comment) <= 4000),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (chat_id, message_id, user_id),
  foreign key (chat_id, message_id) references better_supabase.ai_messages (chat_id, id) on delete cascade
);
create index if not exists ai_message_feedback_user_idx on better_supabase.ai_message_feedback (user_id);

create table if not exists better_supabase.ai_chat_shares (
  id uuid primary key default gen_random_uuid(),
  chat_id uuid not null references better_supabase.ai_chats (id) on delete cascade,
  -- The SHA-256 of the link's token; the token itself is never stored.
  token_hash text not null unique check (token_hash ~ '^[0-9a-f]{64}$'),
  leaf_id text not null,
  created_by uuid not null references auth.users (id) on delete cascade,
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);
create index if not exists ai_chat_shares_chat_idx on better_supabase.ai_chat_shares (chat_id);
create index if not exists ai_chat_shares_created_by_idx on better_supabase.ai_chat_shares (created_by);

create table if not exists better_supabase.ai_model_catalog (
  model_id text primary key check (length(model_id) between 1 and 200),
  provider text not null default '',
  name text not null default '',
  pricing jsonb not null default '{}',
  capabilities jsonb not null default '{}',
  -- Entitlements of which a tenant needs one; empty: every tenant.
  plans text[] not null default '{}',
  enabled boolean not null default true,
  refreshed_at timestamptz not null default now()
);

create table if not exists better_supabase.ai_moderation_events (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null,
  chat_id uuid references better_supabase.ai_chats (id) on delete set null,
  message_id text,
  user_id uuid references auth.users (id) on delete set null,
  stage text not null check (stage in ('input', 'output', 'tool')),
  category text not null check (length(category) between 1 and 100),
  score real,
  action text not null check (action in ('allow', 'flag', 'redact', 'block')),
  created_at timestamptz not null default now()
);
create index if not exists ai_moderation_events_tenant_idx on better_supabase.ai_moderation_events (organization_id, created_at desc);
create index if not exists ai_moderation_events_chat_idx on better_supabase.ai_moderation_events (chat_id);
create index if not exists ai_moderation_events_user_idx on better_supabase.ai_moderation_events (user_id);

create table if not exists better_supabase.ai_run_steps (
  id uuid primary key default gen_random_uuid(),
  run_id uuid not null references better_supabase.ai_runs (id) on delete cascade,
  chat_id uuid not null references better_supabase.ai_chats (id) on delete cascade,
  owner_id uuid not null,
  step_key text not null check (length(step_key) between 1 and 200),
  label text not null check (length(label) between 1 and 300),
  status text not null default 'running' check (status in ('running', 'done', 'error', 'skipped')),
  detail jsonb not null default '{}' check (jsonb_typeof(detail) = 'object'),
  started_at timestamptz not null default now(),
  ended_at timestamptz,
  unique (run_id, step_key)
);
create index if not exists ai_run_steps_chat_idx on better_supabase.ai_run_steps (chat_id);
create index if not exists ai_run_steps_owner_idx on better_supabase.ai_run_steps (owner_id);

create table if not exists better_supabase.ai_harness_sessions (
  chat_id uuid not null references better_supabase.ai_chats (id) on delete cascade,
  harness_id text not null check (length(harness_id) between 1 and 200),
  owner_id uuid not null,
  resume_state jsonb,
  continue_state jsonb,
  status text not null default 'active' check (status in ('active', 'idle', 'stopped', 'error')),
  -- Who drives the session's sandbox now, and until when.
  lock_holder text check (length(lock_holder) <= 200),
  locked_until timestamptz,
  last_active_at timestamptz not null default now(),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (chat_id, harness_id)
);
create index if not exists ai_harness_sessions_owner_idx on better_supabase.ai_harness_sessions (owner_id);
create index if not exists ai_harness_sessions_idle_idx on better_supabase.ai_harness_sessions (last_active_at)
  where status = 'active';

create table if not exists better_supabase.ai_sandboxes (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null,
  user_id uuid references auth.users (id) on delete cascade,
  chat_id uuid,
  harness_id text check (length(harness_id) between 1 and 200),
  provider text not null check (provider ~ '^[a-z0-9][a-z0-9._-]{0,63}$'),
  sandbox_id text not null check (length(sandbox_id) between 1 and 200),
  container_id text check (length(container_id) <= 200),
  status text not null default 'running' check (status in ('running', 'stopping', 'stopped')),
  metadata jsonb not null default '{}' check (jsonb_typeof(metadata) = 'object'),
  idle_seconds integer not null default 600 check (idle_seconds > 0),
  error text check (length(error) <= 4000),
  last_used_at timestamptz not null default now(),
  expires_at timestamptz,
  stopped_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (provider, sandbox_id)
);
create index if not exists ai_sandboxes_open_idx on better_supabase.ai_sandboxes (last_used_at) where status <> 'stopped';
create index if not exists ai_sandboxes_chat_idx on better_supabase.ai_sandboxes (chat_id);
create index if not exists ai_sandboxes_harness_idx on better_supabase.ai_sandboxes (chat_id, harness_id)
  where harness_id is not null;
create index if not exists ai_sandboxes_tenant_idx on better_supabase.ai_sandboxes (organization_id);
create index if not exists ai_sandboxes_user_idx on better_supabase.ai_sandboxes (user_id);

-- ------------------------------------------------------- rights and RLS

do $rights$
declare
  t text;
  every text[] := array['ai_projects', 'ai_chats', 'ai_messages', 'ai_runs', 'ai_tool_approvals',
    'ai_tool_policies', 'ai_pending_inputs', 'ai_message_sources', 'ai_message_feedback',
    'ai_chat_shares', 'ai_model_catalog', 'ai_moderation_events', 'ai_run_steps',
    'ai_harness_sessions', 'ai_sandboxes'];
  -- The tables signed-in users may read (what the policies below let
  -- through); they write nothing directly.
  readable text[] := array['ai_projects', 'ai_chats', 'ai_messages', 'ai_runs', 'ai_tool_approvals',
    'ai_pending_inputs', 'ai_message_sources', 'ai_message_feedback', 'ai_run_steps', 'ai_sandboxes'];
begin
  foreach t in array every loop
    execute pg_catalog.format('alter table better_supabase.%I enable row level security', t);
    -- Only these grants count: default privileges may have granted more
    -- (TRUNCATE, which row-level security does not stop, among them).
    execute pg_catalog.format('revoke all on table better_supabase.%I from public, anon, authenticated, service_role', t);
    execute pg_catalog.format('grant all on table better_supabase.%I to service_role', t);
    if t = any (readable) then
      execute pg_catalog.format('grant select on table better_supabase.%I to authenticated', t);
    end if;
    -- On Supabase the service role bypasses row-level security; where
    -- supabase-base had to create it without BYPASSRLS (the installing
    -- role was not a superuser), this policy gives it the same reach.
    if not exists (select from pg_catalog.pg_policies
                   where schemaname = 'better_supabase' and tablename = t and policyname = t || '_service_all') then
      execute pg_catalog.format(
        'create policy %I on better_supabase.%I for all to service_role using (true) with check (true)',
        t || '_service_all', t);
    end if;
  end loop;
end
$rights$;

-- The read policies, replaced on every install so that an upgrade brings
-- their current text.
drop policy if exists ai_projects_owner_read on better_supabase.ai_projects;
create policy ai_projects_owner_read on better_supabase.ai_projects for select to authenticated
  using (owner_id = (select auth.uid()));

-- A chat is read by its owner and, once shared with the organization, by
-- the tenant's members holding ai_chat.read.
drop policy if exists ai_chats_read on better_supabase.ai_chats;
create policy ai_chats_read on better_supabase.ai_chats for select to authenticated
  using (
    owner_id = (select auth.uid())
    or (visibility = 'organization'
        and organization_id in (select better_supabase.tenant_ids_with('ai_chat.read')))
  );

-- Messages and cited sources follow their chat: whoever sees the chat
-- (through the policy above) sees them.
drop policy if exists ai_messages_read on better_supabase.ai_messages;
create policy ai_messages_read on better_supabase.ai_messages for select to authenticated
  using (chat_id in (select c.id from better_supabase.ai_chats c));

drop policy if exists ai_message_sources_read on better_supabase.ai_message_sources;
create policy ai_message_sources_read on better_supabase.ai_message_sources for select to authenticated
  using (chat_id in (select c.id from better_supabase.ai_chats c));

drop policy if exists ai_runs_owner_read on better_supabase.ai_runs;
create policy ai_runs_owner_read on better_supabase.ai_runs for select to authenticated
  using (owner_id = (select auth.uid()));

drop policy if exists ai_tool_approvals_owner_read on better_supabase.ai_tool_approvals;
create policy ai_tool_approvals_owner_read on better_supabase.ai_tool_approvals for select to authenticated
  using (owner_id = (select auth.uid()));

drop policy if exists ai_pending_inputs_owner_read on better_supabase.ai_pending_inputs;
create policy ai_pending_inputs_owner_read on better_supabase.ai_pending_inputs for select to authenticated
  using (owner_id = (select auth.uid()));

drop policy if exists ai_message_feedback_own_read on better_supabase.ai_message_feedback;
create policy ai_message_feedback_own_read on better_supabase.ai_message_feedback for select to authenticated
  using (user_id = (select auth.uid()));

drop policy if exists ai_run_steps_owner_read on better_supabase.ai_run_steps;
create policy ai_run_steps_owner_read on better_supabase.ai_run_steps for select to authenticated
  using (owner_id = (select auth.uid()));

-- A sandbox is seen by the user it runs for and by the tenant's admins.
drop policy if exists ai_sandboxes_read on better_supabase.ai_sandboxes;
create policy ai_sandboxes_read on better_supabase.ai_sandboxes for select to authenticated
  using (user_id = (select auth.uid())
         or organization_id in (select better_supabase.tenant_ids_with('ai_chat.admin')));

-- Harness sessions carry resume state (credentials, sandbox ids among it):
-- only the service role reads them, through load_ai_harness_session.
drop policy if exists ai_harness_sessions_owner_read on better_supabase.ai_harness_sessions;

-- -------------------------------------------------------------- helpers

-- _ai_may(tenant, permission) is the access check, false for an unknown
-- tenant or no caller.
create or replace function better_supabase._ai_may(tenant uuid, permission text)
returns boolean language sql stable set search_path = '' as $$
  select coalesce(better_supabase.can('tenant', _ai_may.tenant, _ai_may.permission), false)
$$;

-- The JSON documents the functions return, one per table.
create or replace function better_supabase._ai_chat_doc(c better_supabase.ai_chats)
returns jsonb language sql stable set search_path = '' as $$
  select jsonb_build_object(
    'id', c.id, 'organization_id', c.organization_id, 'owner_id', c.owner_id,
    'project_id', c.project_id, 'agent_id', c.agent_id, 'title', c.title, 'model', c.model,
    'visibility', c.visibility, 'pinned', c.pinned, 'archived_at', c.archived_at,
    'is_temporary', c.is_temporary, 'expires_at', c.expires_at,
    'current_leaf_id', c.current_leaf_id, 'active_stream_id', c.active_stream_id,
    'active_run_id', c.active_run_id, 'last_message_at', c.last_message_at,
    'created_at', c.created_at, 'updated_at', c.updated_at)
$$;

create or replace function better_supabase._ai_project_doc(p better_supabase.ai_projects)
returns jsonb language sql stable set search_path = '' as $$
  select jsonb_build_object(
    'id', p.id, 'organization_id', p.organization_id, 'owner_id', p.owner_id, 'name', p.name,
    'instructions', p.instructions, 'default_model', p.default_model, 'pinned', p.pinned,
    'archived_at', p.archived_at, 'created_at', p.created_at, 'updated_at', p.updated_at)
$$;

create or replace function better_supabase._ai_run_doc(r better_supabase.ai_runs)
returns jsonb language sql stable set search_path = '' as $$
  select jsonb_build_object(
    'id', r.id, 'chat_id', r.chat_id, 'owner_id', r.owner_id,
    'assistant_message_id', r.assistant_message_id, 'stream_id', r.stream_id, 'engine', r.engine,
    'external_run_id', r.external_run_id, 'model', r.model, 'status', r.status, 'usage', r.usage,
    'cost_micro_usd', r.cost_micro_usd, 'error', r.error, 'started_at', r.started_at,
    'ended_at', r.ended_at)
$$;

create or replace function better_supabase._ai_approval_doc(a better_supabase.ai_tool_approvals)
returns jsonb language sql stable set search_path = '' as $$
  select jsonb_build_object(
    'approval_id', a.approval_id, 'chat_id', a.chat_id, 'run_id', a.run_id,
    'message_id', a.message_id, 'tool', a.tool, 'tool_call_id', a.tool_call_id, 'input', a.input,
    'decision', a.decision, 'reason', a.reason, 'signature', a.signature,
    'decided_by', a.decided_by, 'decided_at', a.decided_at, 'created_at', a.created_at)
$$;

create or replace function better_supabase._ai_input_doc(i better_supabase.ai_pending_inputs)
returns jsonb language sql stable set search_path = '' as $$
  select jsonb_build_object(
    'id', i.id, 'chat_id', i.chat_id, 'run_id', i.run_id, 'tool_call_id', i.tool_call_id,
    'question', i.question, 'schema', i.schema, 'answer', i.answer,
    'answered_at', i.answered_at, 'created_at', i.created_at)
$$;

create or replace function better_supabase._ai_step_doc(s better_supabase.ai_run_steps)
returns jsonb language sql stable set search_path = '' as $$
  select jsonb_build_object(
    'id', s.id, 'run_id', s.run_id, 'chat_id', s.chat_id, 'step_key', s.step_key,
    'label', s.label, 'status', s.status, 'detail', s.detail,
    'started_at', s.started_at, 'ended_at', s.ended_at)
$$;

create or replace function better_supabase._ai_model_doc(m better_supabase.ai_model_catalog)
returns jsonb language sql stable set search_path = '' as $$
  select jsonb_build_object(
    'model_id', m.model_id, 'provider', m.provider, 'name', m.name, 'pricing', m.pricing,
    'capabilities', m.capabilities, 'plans', to_jsonb(m.plans), 'enabled', m.enabled,
    'refreshed_at', m.refreshed_at)
$$;

create or replace function better_supabase._ai_moderation_doc(e better_supabase.ai_moderation_events)
returns jsonb language sql stable set search_path = '' as $$
  select jsonb_build_object(
    'id', e.id, 'organization_id', e.organization_id, 'chat_id', e.chat_id,
    'message_id', e.message_id, 'user_id', e.user_id, 'stage', e.stage, 'category', e.category,
    'score', e.score, 'action', e.action, 'created_at', e.created_at)
$$;

create or replace function better_supabase._ai_sandbox_doc(s better_supabase.ai_sandboxes)
returns jsonb language sql stable set search_path = '' as $$
  select jsonb_build_object(
    'id', s.id, 'organization_id', s.organization_id, 'user_id', s.user_id, 'chat_id', s.chat_id,
    'harness_id', s.harness_id, 'provider', s.provider, 'sandbox_id', s.sandbox_id,
    'container_id', s.container_id, 'status', s.status, 'metadata', s.metadata,
    'idle_seconds', s.idle_seconds, 'error', s.error, 'last_used_at', s.last_used_at,
    'expires_at', s.expires_at, 'stopped_at', s.stopped_at, 'created_at', s.created_at,
    'updated_at', s.updated_at)
$$;

-- A harness session's document names the sandbox it drives: the most
-- recently used one of its chat and harness that is not stopped.
create or replace function better_supabase._ai_harness_doc(h better_supabase.ai_harness_sessions)
returns jsonb language sql stable set search_path = '' as $$
  select jsonb_build_object(
    'chat_id', h.chat_id, 'harness_id', h.harness_id, 'owner_id', h.owner_id,
    'resume_state', h.resume_state, 'continue_state', h.continue_state,
    'sandbox_id', (select s.sandbox_id from better_supabase.ai_sandboxes s
                   where s.chat_id = h.chat_id and s.harness_id = h.harness_id and s.status <> 'stopped'
                   order by s.last_used_at desc limit 1),
    'status', h.status, 'lock_holder', h.lock_holder, 'locked_until', h.locked_until,
    'last_active_at', h.last_active_at, 'created_at', h.created_at, 'updated_at', h.updated_at)
$$;

-- _ai_chat_notify sends an event without content to the chat's private
-- Realtime topic (ai-chat:<chat>) and, when list is true, to the owner's
-- sidebar topic (ai-chats:<owner>). Without Realtime it does nothing.
create or replace function better_supabase._ai_chat_notify(chat uuid, owner uuid, event text, payload jsonb, list boolean)
returns void language plpgsql security definer set search_path = '' as $$
declare
  body jsonb := coalesce(_ai_chat_notify.payload, '{}'::jsonb) || jsonb_build_object('chatId', _ai_chat_notify.chat);
begin
  if pg_catalog.to_regprocedure('realtime.send(jsonb,text,text,boolean)') is null then
    return;
  end if;
  execute 'select realtime.send($1, $2, $3, true)' using body, _ai_chat_notify.event, 'ai-chat:' || _ai_chat_notify.chat::text;
  if _ai_chat_notify.list and _ai_chat_notify.owner is not null then
    execute 'select realtime.send($1, $2, $3, true)' using body, _ai_chat_notify.event, 'ai-chats:' || _ai_chat_notify.owner::text;
  end if;
end
$$;

-- ai_chat_can_read says whether the caller may read the chat: the service
-- role, its owner, or, for a chat shared with its organization, a member
-- holding ai_chat.read.
create or replace function better_supabase.ai_chat_can_read(chat uuid)
returns boolean language sql stable security definer set search_path = '' as $$
  select exists (
    select from better_supabase.ai_chats c
    where c.id = ai_chat_can_read.chat
      and (better_supabase._caller_is_service()
           or c.owner_id = (select auth.uid())
           or (c.visibility = 'organization' and better_supabase._ai_may(c.organization_id, 'ai_chat.read')))
  )
$$;

-- _ai_own_chat returns the chat locked for update when the caller may
-- change it (the service role or its owner); otherwise it fails as if the
-- chat did not exist, so other users' chats stay invisible.
create or replace function better_supabase._ai_own_chat(chat uuid)
returns better_supabase.ai_chats language plpgsql security definer set search_path = '' as $$
declare
  c better_supabase.ai_chats;
begin
  select * into c from better_supabase.ai_chats x where x.id = _ai_own_chat.chat for update;
  if c.id is null or not (better_supabase._caller_is_service() or c.owner_id = (select auth.uid())) then
    raise exception 'chat % not found', _ai_own_chat.chat using errcode = 'P0002', hint = 'AI_CHAT_NOT_FOUND';
  end if;
  return c;
end
$$;

-- _ai_server_only refuses a caller that is not the service role.
create or replace function better_supabase._ai_server_only(what text)
returns void language plpgsql stable set search_path = '' as $$
begin
  if not better_supabase._caller_is_service() then
    raise exception 'only the server may %', _ai_server_only.what using errcode = '42501', hint = 'AI_CHAT_FORBIDDEN';
  end if;
end
$$;

-- _ai_audit records an event in the audit log (better_supabase.audit_event,
-- of the access module or better-supabase's own).
create or replace function better_supabase._ai_audit(
  event text, target text, record text, tenant uuid, label text, detail jsonb, idempotency text
) returns void language plpgsql security definer set search_path = '' as $$
begin
  perform better_supabase.audit_event(
    event_type => _ai_audit.event,
    category => 'ai',
    target_type => _ai_audit.target,
    record_id => _ai_audit.record,
    target_label => _ai_audit.label,
    tenant => _ai_audit.tenant,
    metadata => coalesce(_ai_audit.detail, '{}'::jsonb),
    idempotency_key => _ai_audit.idempotency);
end
$$;

-- ---------------------------------------------------------------- chats

-- create_ai_chat starts a chat in tenant for the caller (who needs
-- ai_chat.create there) or, for the service role, for fields.owner_id.
-- fields: id (the client's uuid, so a retry finds the same chat), title,
-- model, project_id, agent_id, visibility (organization needs
-- ai_chat.share) and is_temporary (the chat expires after a day and stays
-- out of the list).
create or replace function better_supabase.create_ai_chat(tenant uuid, fields jsonb default '{}')
returns jsonb language plpgsql security definer set search_path = '' as $$
#variable_conflict use_column
declare
  f jsonb := coalesce(create_ai_chat.fields, '{}'::jsonb);
  service boolean := better_supabase._caller_is_service();
  -- The casts run first: a malformed field fails before anything else.
  want_project uuid := (f ->> 'project_id')::uuid;
  is_temp boolean := coalesce((f ->> 'is_temporary')::boolean, false);
  vis text := coalesce(f ->> 'visibility', 'private');
  owner uuid := (select auth.uid());
  new_chat uuid;
  c better_supabase.ai_chats;
begin
  if service then
    owner := coalesce((f ->> 'owner_id')::uuid, owner);
  elsif not better_supabase._ai_may(create_ai_chat.tenant, 'ai_chat.create') then
    raise exception 'you may not start chats in this tenant' using errcode = '42501', hint = 'AI_CHAT_FORBIDDEN';
  end if;
  if owner is null then
    raise exception 'a chat needs an owner' using errcode = '42501', hint = 'AI_CHAT_FORBIDDEN';
  end if;
  if vis = 'organization' and not (service or better_supabase._ai_may(create_ai_chat.tenant, 'ai_chat.share')) then
    raise exception 'you may not share chats in this tenant' using errcode = '42501', hint = 'AI_CHAT_FORBIDDEN';
  end if;
  new_chat := coalesce((f ->> 'id')::uuid, gen_random_uuid());
  select * into c from better_supabase.ai_chats x where x.id = new_chat;
  if c.id is not null then
    -- A retry: the chat as it is, whatever this call asked for.
    if c.owner_id <> owner then
      raise exception 'chat % exists', new_chat using errcode = '23505', hint = 'AI_CHAT_EXISTS';
    end if;
    return better_supabase._ai_chat_doc(c);
  end if;
  if want_project is not null and not exists (
    select from better_supabase.ai_projects p
    where p.id = want_project and p.owner_id = owner and p.organization_id = create_ai_chat.tenant
  ) then
    raise exception 'project % not found', want_project using errcode = 'P0002', hint = 'AI_PROJECT_NOT_FOUND';
  end if;
  insert into better_supabase.ai_chats as x
    (id, organization_id, owner_id, project_id, agent_id, title, model, visibility, is_temporary, expires_at)
  values (new_chat, create_ai_chat.tenant, owner, want_project, f ->> 'agent_id',
          coalesce(f ->> 'title', ''), f ->> 'model', vis, is_temp,
          case when is_temp then now() + interval '1 day' end)
  returning * into c;
  if not is_temp then
    perform better_supabase._ai_chat_notify(c.id, c.owner_id, 'chat.created', '{}'::jsonb, true);
  end if;
  return better_supabase._ai_chat_doc(c);
end
$$;

-- update_ai_chat changes a chat of the caller's: the keys present in fields
-- among title, model, project_id, agent_id, visibility, pinned, archived,
-- and is_temporary = false, which keeps a temporary chat for good.
create or replace function better_supabase.update_ai_chat(chat uuid, fields jsonb)
returns jsonb language plpgsql security definer set search_path = '' as $$
#variable_conflict use_column
declare
  f jsonb := coalesce(update_ai_chat.fields, '{}'::jsonb);
  want_project uuid := (f ->> 'project_id')::uuid;
  c better_supabase.ai_chats;
  keep_temporary boolean;
begin
  c := better_supabase._ai_own_chat(update_ai_chat.chat);
  if want_project is not null and not exists (
    select from better_supabase.ai_projects p
    where p.id = want_project and p.owner_id = c.owner_id and p.organization_id = c.organization_id
  ) then
    raise exception 'project % not found', want_project using errcode = 'P0002', hint = 'AI_PROJECT_NOT_FOUND';
  end if;
  if f ->> 'visibility' = 'organization' and c.visibility <> 'organization'
     and not (better_supabase._caller_is_service() or better_supabase._ai_may(c.organization_id, 'ai_chat.share')) then
    raise exception 'you may not share chats in this tenant' using errcode = '42501', hint = 'AI_CHAT_FORBIDDEN';
  end if;
  keep_temporary := c.is_temporary and coalesce((f ->> 'is_temporary')::boolean, true);
  update better_supabase.ai_chats x set
    title = case when f ? 'title' then coalesce(f ->> 'title', '') else x.title end,
    model = case when f ? 'model' then f ->> 'model' else x.model end,
    project_id = case when f ? 'project_id' then want_project else x.project_id end,
    agent_id = case when f ? 'agent_id' then f ->> 'agent_id' else x.agent_id end,
    visibility = case when f ? 'visibility' then coalesce(f ->> 'visibility', 'private') else x.visibility end,
    pinned = case when f ? 'pinned' then coalesce((f ->> 'pinned')::boolean, false) else x.pinned end,
    archived_at = case
      when not f ? 'archived' then x.archived_at
      when coalesce((f ->> 'archived')::boolean, false) then coalesce(x.archived_at, now())
      else null end,
    is_temporary = keep_temporary,
    expires_at = case when keep_temporary then x.expires_at end,
    updated_at = now()
  where x.id = c.id
  returning * into c;
  perform better_supabase._ai_chat_notify(c.id, c.owner_id, 'chat.updated', '{}'::jsonb, not c.is_temporary);
  return better_supabase._ai_chat_doc(c);
end
$$;

-- delete_ai_chat removes a chat with everything in it: its owner, the
-- service role or a tenant admin (ai_chat.admin). False when there is no
-- such chat.
create or replace function better_supabase.delete_ai_chat(chat uuid)
returns boolean language plpgsql security definer set search_path = '' as $$
declare
  c better_supabase.ai_chats;
begin
  select * into c from better_supabase.ai_chats x where x.id = delete_ai_chat.chat for update;
  if c.id is null then
    return false;
  end if;
  if not (better_supabase._caller_is_service() or c.owner_id = (select auth.uid())
          or better_supabase._ai_may(c.organization_id, 'ai_chat.admin')) then
    raise exception 'chat % not found', delete_ai_chat.chat using errcode = 'P0002', hint = 'AI_CHAT_NOT_FOUND';
  end if;
  delete from better_supabase.ai_chats x where x.id = c.id;
  perform better_supabase._ai_chat_notify(c.id, c.owner_id, 'chat.deleted', '{}'::jsonb, true);
  return true;
end
$$;

-- get_ai_chat returns a chat the caller may read.
create or replace function better_supabase.get_ai_chat(chat uuid)
returns jsonb language plpgsql stable security definer set search_path = '' as $$
declare
  c better_supabase.ai_chats;
begin
  if not better_supabase.ai_chat_can_read(get_ai_chat.chat) then
    raise exception 'chat % not found', get_ai_chat.chat using errcode = 'P0002', hint = 'AI_CHAT_NOT_FOUND';
  end if;
  select * into c from better_supabase.ai_chats x where x.id = get_ai_chat.chat;
  return better_supabase._ai_chat_doc(c);
end
$$;

-- list_ai_chats pages through the caller's own chats, most recent activity
-- first, as {items, next}; next (or null on the last page) is passed as
-- after for the page that follows. search matches titles and the text of
-- messages; temporary chats never appear; archived = null lists both.
create or replace function better_supabase.list_ai_chats(
  tenant uuid default null,
  search text default null,
  project uuid default null,
  pinned boolean default null,
  archived boolean default false,
  after text default null,
  size integer default 50
) returns jsonb language plpgsql stable security definer set search_path = '' as $$
#variable_conflict use_column
declare
  me uuid := (select auth.uid());
  q tsquery;
  after_at timestamptz;
  after_id uuid;
  page_size integer := least(greatest(coalesce(list_ai_chats.size, 50), 1), 200);
  items jsonb;
  next_cursor text;
begin
  if me is null then
    return jsonb_build_object('items', '[]'::jsonb, 'next', null);
  end if;
  if nullif(btrim(list_ai_chats.search), '') is not null then
    q := websearch_to_tsquery('simple'::regconfig, list_ai_chats.search);
  end if;
  if list_ai_chats.after is not null then
    after_at := split_part(list_ai_chats.after, '|', 1)::timestamptz;
    after_id := split_part(list_ai_chats.after, '|', 2)::uuid;
  end if;
  -- One row more than the page, to know whether another page follows.
  select coalesce(jsonb_agg(better_supabase._ai_chat_doc(c) order by c.last_message_at desc, c.id desc), '[]'::jsonb)
  into items
  from (
    select * from better_supabase.ai_chats x
    where x.owner_id = me
      and not x.is_temporary
      and (list_ai_chats.tenant is null or x.organization_id = list_ai_chats.tenant)
      and (list_ai_chats.project is null or x.project_id = list_ai_chats.project)
      and (list_ai_chats.pinned is null or x.pinned = list_ai_chats.pinned)
      and (list_ai_chats.archived is null or (x.archived_at is not null) = list_ai_chats.archived)
      and (after_at is null or (x.last_message_at, x.id) < (after_at, after_id))
      and (q is null
           or x.search_tsv @@ q
           or exists (select from better_supabase.ai_messages m where m.chat_id = x.id and m.search_tsv @@ q))
    order by x.last_message_at desc, x.id desc
    limit page_size + 1
  ) c;
  if jsonb_array_length(items) > page_size then
    items := items - page_size;
    next_cursor := (items -> (page_size - 1) ->> 'last_message_at') || '|' || (items -> (page_size - 1) ->> 'id');
  end if;
  return jsonb_build_object('items', items, 'next', next_cursor);
end
$$;

-- purge_ai_chats deletes up to batch temporary chats that expired and
-- returns how many.
create or replace function better_supabase.purge_ai_chats(batch integer default 1000)
returns integer language plpgsql security definer set search_path = '' as $$
declare
  n integer;
begin
  perform better_supabase._ai_server_only('purge chats');
  with due as (
    select x.id from better_supabase.ai_chats x
    where x.is_temporary and x.expires_at <= now()
    limit greatest(coalesce(purge_ai_chats.batch, 1000), 1)
  )
  delete from better_supabase.ai_chats c using due where c.id = due.id;
  get diagnostics n = row_count;
  return n;
end
$$;

-- ------------------------------------------------------------- projects

-- save_ai_project creates a project in tenant (id null; the caller needs
-- ai_chat.create there) or changes one of the caller's own. fields: name,
-- instructions, default_model, pinned, archived.
create or replace function better_supabase.save_ai_project(id uuid, tenant uuid, fields jsonb)
returns jsonb language plpgsql security definer set search_path = '' as $$
#variable_conflict use_column
declare
  f jsonb := coalesce(save_ai_project.fields, '{}'::jsonb);
  p better_supabase.ai_projects;
begin
  if save_ai_project.id is null then
    if (select auth.uid()) is null or not better_supabase._ai_may(save_ai_project.tenant, 'ai_chat.create') then
      raise exception 'you may not create projects in this tenant' using errcode = '42501', hint = 'AI_CHAT_FORBIDDEN';
    end if;
    insert into better_supabase.ai_projects (organization_id, owner_id, name, instructions, default_model, pinned)
    values (save_ai_project.tenant, (select auth.uid()), f ->> 'name', coalesce(f ->> 'instructions', ''),
            f ->> 'default_model', coalesce((f ->> 'pinned')::boolean, false))
    returning * into p;
    return better_supabase._ai_project_doc(p);
  end if;
  update better_supabase.ai_projects x set
    name = coalesce(f ->> 'name', x.name),
    instructions = case when f ? 'instructions' then coalesce(f ->> 'instructions', '') else x.instructions end,
    default_model = case when f ? 'default_model' then f ->> 'default_model' else x.default_model end,
    pinned = case when f ? 'pinned' then coalesce((f ->> 'pinned')::boolean, false) else x.pinned end,
    archived_at = case
      when not f ? 'archived' then x.archived_at
      when coalesce((f ->> 'archived')::boolean, false) then coalesce(x.archived_at, now())
      else null end,
    updated_at = now()
  where x.id = save_ai_project.id and x.owner_id = (select auth.uid())
  returning * into p;
  if p.id is null then
    raise exception 'project % not found', save_ai_project.id using errcode = 'P0002', hint = 'AI_PROJECT_NOT_FOUND';
  end if;
  return better_supabase._ai_project_doc(p);
end
$$;

-- delete_ai_project removes one of the caller's projects; its chats stay,
-- in no project.
create or replace function better_supabase.delete_ai_project(id uuid)
returns boolean language plpgsql security definer set search_path = '' as $$
declare
  n integer;
begin
  delete from better_supabase.ai_projects x
  where x.id = delete_ai_project.id and x.owner_id = (select auth.uid());
  get diagnostics n = row_count;
  return n > 0;
end
$$;

-- list_ai_projects lists the caller's projects in tenant, pinned first,
-- then the most recently changed.
create or replace function better_supabase.list_ai_projects(tenant uuid)
returns jsonb language sql stable security definer set search_path = '' as $$
  select coalesce(jsonb_agg(better_supabase._ai_project_doc(p) order by p.pinned desc, p.updated_at desc), '[]'::jsonb)
  from better_supabase.ai_projects p
  where p.owner_id = (select auth.uid()) and p.organization_id = list_ai_projects.tenant
$$;

-- ------------------------------------------------------------- messages

-- ai_message_path_of returns the branch that ends at leaf, root first,
-- each message with its place among its siblings (sibling_index counts
-- the older ones, of sibling_count). It checks nothing: its callers do.
create or replace function better_supabase.ai_message_path_of(chat uuid, leaf text, include_native boolean)
returns jsonb language sql stable security definer set search_path = '' as $$
  with recursive branch as (
    select m.*, 0 as depth from better_supabase.ai_messages m
    where m.chat_id = ai_message_path_of.chat and m.id = ai_message_path_of.leaf
    union all
    select m.*, b.depth + 1 from better_supabase.ai_messages m
    join branch b on m.chat_id = b.chat_id and m.id = b.parent_id
    where b.depth < 10000
  )
  select coalesce(jsonb_agg(jsonb_build_object(
      'id', b.id, 'parent_id', b.parent_id, 'role', b.role, 'parts', b.parts, 'metadata', b.metadata,
      'format', b.format, 'native', case when ai_message_path_of.include_native then b.native end,
      'model', b.model, 'status', b.status, 'created_at', b.created_at,
      'sibling_count', s.n, 'sibling_index', s.older)
    order by b.depth desc), '[]'::jsonb)
  from branch b
  cross join lateral (
    select count(*) as n, count(*) filter (where o.seq < b.seq) as older
    from better_supabase.ai_messages o
    where o.chat_id = b.chat_id and o.parent_id is not distinct from b.parent_id
  ) s
$$;

-- ai_message_path returns the branch the chat shows, or the one that ends
-- at leaf, root first; native (the SDK's own message) only when asked.
create or replace function better_supabase.ai_message_path(chat uuid, leaf text default null, include_native boolean default false)
returns jsonb language plpgsql stable security definer set search_path = '' as $$
declare
  tip text;
begin
  if not better_supabase.ai_chat_can_read(ai_message_path.chat) then
    raise exception 'chat % not found', ai_message_path.chat using errcode = 'P0002', hint = 'AI_CHAT_NOT_FOUND';
  end if;
  select coalesce(ai_message_path.leaf, c.current_leaf_id) into tip
  from better_supabase.ai_chats c where c.id = ai_message_path.chat;
  if tip is null then
    return '[]'::jsonb;
  end if;
  return better_supabase.ai_message_path_of(ai_message_path.chat, tip, coalesce(ai_message_path.include_native, false));
end
$$;

-- ai_message_siblings lists the versions of a message (the messages with
-- its parent), oldest first.
create or replace function better_supabase.ai_message_siblings(chat uuid, message_id text)
returns jsonb language plpgsql stable security definer set search_path = '' as $$
declare
  m better_supabase.ai_messages;
begin
  if not better_supabase.ai_chat_can_read(ai_message_siblings.chat) then
    raise exception 'chat % not found', ai_message_siblings.chat using errcode = 'P0002', hint = 'AI_CHAT_NOT_FOUND';
  end if;
  select * into m from better_supabase.ai_messages x
  where x.chat_id = ai_message_siblings.chat and x.id = ai_message_siblings.message_id;
  if m.id is null then
    raise exception 'message % not found', ai_message_siblings.message_id using errcode = 'P0002', hint = 'AI_MESSAGE_NOT_FOUND';
  end if;
  return (
    select coalesce(jsonb_agg(jsonb_build_object('id', x.id, 'role', x.role, 'created_at', x.created_at) order by x.seq), '[]'::jsonb)
    from better_supabase.ai_messages x
    where x.chat_id = m.chat_id and x.parent_id is not distinct from m.parent_id
  );
end
$$;

-- switch_ai_branch shows the branch through message_id: the leaf becomes
-- its newest descendant, taking the most recent child at every turn.
create or replace function better_supabase.switch_ai_branch(chat uuid, message_id text)
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  c better_supabase.ai_chats;
  tip text := switch_ai_branch.message_id;
  child text;
  turns integer := 0;
begin
  c := better_supabase._ai_own_chat(switch_ai_branch.chat);
  if not exists (select from better_supabase.ai_messages x where x.chat_id = c.id and x.id = tip) then
    raise exception 'message % not found', tip using errcode = 'P0002', hint = 'AI_MESSAGE_NOT_FOUND';
  end if;
  loop
    select x.id into child from better_supabase.ai_messages x
    where x.chat_id = c.id and x.parent_id = tip
    order by x.seq desc limit 1;
    exit when child is null or turns >= 10000;
    tip := child;
    child := null;
    turns := turns + 1;
  end loop;
  update better_supabase.ai_chats x set current_leaf_id = tip, updated_at = now() where x.id = c.id;
  perform better_supabase._ai_chat_notify(c.id, null, 'leaf.changed', jsonb_build_object('leafId', tip), false);
  return jsonb_build_object('leaf_id', tip);
end
$$;

-- append_ai_user_message stores the user's message and makes it the leaf;
-- {message_id, parent_id, created} says where the answer goes (under
-- message_id).
--   submit-message: a new id goes under the current leaf, or, with
--     message_id, beside that message as a new version of it, under the
--     client's id. An id the chat has with the same parts is a retry and
--     stores nothing; with other parts it is an edit, stored beside the
--     original under a fresh id.
--   regenerate-message: stores nothing; the leaf moves to the user message
--     whose answer is regenerated (message_id, else the current leaf: a
--     user message itself, or the parent of an answer).
create or replace function better_supabase.append_ai_user_message(
  chat uuid,
  message jsonb,
  trigger text default 'submit-message',
  message_id text default null
) returns jsonb language plpgsql security definer set search_path = '' as $$
#variable_conflict use_column
declare
  c better_supabase.ai_chats;
  known better_supabase.ai_messages;
  new_id text;
  parent text;
begin
  c := better_supabase._ai_own_chat(append_ai_user_message.chat);
  if coalesce(append_ai_user_message.trigger, 'submit-message') = 'regenerate-message' then
    select * into known from better_supabase.ai_messages x
    where x.chat_id = c.id and x.id = coalesce(append_ai_user_message.message_id, c.current_leaf_id);
    if known.id is null then
      raise exception 'no message % to regenerate', coalesce(append_ai_user_message.message_id, c.current_leaf_id)
        using errcode = 'P0002', hint = 'AI_MESSAGE_NOT_FOUND';
    end if;
    parent := case when known.role = 'user' then known.id else known.parent_id end;
    update better_supabase.ai_chats x set current_leaf_id = parent, updated_at = now() where x.id = c.id;
    perform better_supabase._ai_chat_notify(c.id, null, 'leaf.changed', jsonb_build_object('leafId', parent), false);
    return jsonb_build_object('message_id', parent, 'parent_id', parent, 'created', false);
  end if;
  if append_ai_user_message.trigger <> 'submit-message' then
    raise exception 'unknown trigger %', append_ai_user_message.trigger using errcode = '22023', hint = 'AI_MESSAGE_INVALID';
  end if;
  if jsonb_typeof(append_ai_user_message.message) is distinct from 'object'
     or append_ai_user_message.message ->> 'role' is distinct from 'user'
     or coalesce(append_ai_user_message.message ->> 'id', '') = ''
     or jsonb_typeof(append_ai_user_message.message -> 'parts') is distinct from 'array' then
    raise exception 'a user message needs an id, role user and a parts array' using errcode = '22023', hint = 'AI_MESSAGE_INVALID';
  end if;
  new_id := append_ai_user_message.message ->> 'id';
  select * into known from better_supabase.ai_messages x where x.chat_id = c.id and x.id = new_id;
  if known.id is not null then
    if known.parts = append_ai_user_message.message -> 'parts' then
      return jsonb_build_object('message_id', known.id, 'parent_id', known.parent_id, 'created', false);
    end if;
    parent := known.parent_id;
    new_id := gen_random_uuid()::text;
  elsif append_ai_user_message.message_id is not null then
    select * into known from better_supabase.ai_messages x
    where x.chat_id = c.id and x.id = append_ai_user_message.message_id;
    if known.id is null then
      raise exception 'message % not found', append_ai_user_message.message_id using errcode = 'P0002', hint = 'AI_MESSAGE_NOT_FOUND';
    end if;
    parent := known.parent_id;
  else
    parent := c.current_leaf_id;
  end if;
  insert into better_supabase.ai_messages (chat_id, id, parent_id, owner_id, role, parts, metadata)
  values (c.id, new_id, parent, c.owner_id, 'user', append_ai_user_message.message -> 'parts',
          case when jsonb_typeof(append_ai_user_message.message -> 'metadata') = 'object'
               then append_ai_user_message.message -> 'metadata' else '{}'::jsonb end);
  update better_supabase.ai_chats x
  set current_leaf_id = new_id, last_message_at = clock_timestamp(), updated_at = now()
  where x.id = c.id;
  perform better_supabase._ai_chat_notify(c.id, c.owner_id, 'message.saved', jsonb_build_object('messageId', new_id), not c.is_temporary);
  return jsonb_build_object('message_id', new_id, 'parent_id', parent, 'created', true);
end
$$;

-- save_ai_assistant_message stores an answer under parent_id (the service
-- role only) and makes it the leaf. It upserts by id, so the server saves
-- at the end and again after a resumed stream: parts, metadata, format,
-- native and status are replaced, the parent and (without a new one) the
-- model kept. Source parts are copied to ai_message_sources; run links the
-- answer to its run. The result names the parent the answer is stored
-- under.
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
  msg_id text := save_ai_assistant_message.message ->> 'id';
  msg_role text := coalesce(save_ai_assistant_message.message ->> 'role', 'assistant');
  stored_parent text;
  inserted boolean;
begin
  perform better_supabase._ai_server_only('save answers');
  select * into c from better_supabase.ai_chats x where x.id = save_ai_assistant_message.chat for update;
  if c.id is null then
    raise exception 'chat % not found', save_ai_assistant_message.chat using errcode = 'P0002', hint = 'AI_CHAT_NOT_FOUND';
  end if;
  if coalesce(msg_id, '') = '' or msg_role = 'user'
     or jsonb_typeof(save_ai_assistant_message.message -> 'parts') is distinct from 'array' then
    raise exception 'an answer needs an id, a role other than user and a parts array' using errcode = '22023', hint = 'AI_MESSAGE_INVALID';
  end if;
  if save_ai_assistant_message.parent_id is not null and not exists (
    select from better_supabase.ai_messages x where x.chat_id = c.id and x.id = save_ai_assistant_message.parent_id
  ) then
    raise exception 'message % not found', save_ai_assistant_message.parent_id using errcode = 'P0002', hint = 'AI_MESSAGE_NOT_FOUND';
  end if;
  -- An answer never overwrites the user's own words: the id of a user
  -- message is not an answer's to take.
  if exists (select from better_supabase.ai_messages x where x.chat_id = c.id and x.id = msg_id and x.role = 'user') then
    raise exception 'message % is a user message', msg_id using errcode = '22023', hint = 'AI_MESSAGE_INVALID';
  end if;
  insert into better_supabase.ai_messages as x
    (chat_id, id, parent_id, owner_id, role, parts, metadata, format, native, model, status)
  values (c.id, msg_id, save_ai_assistant_message.parent_id, c.owner_id, msg_role,
          save_ai_assistant_message.message -> 'parts',
          case when jsonb_typeof(save_ai_assistant_message.message -> 'metadata') = 'object'
               then save_ai_assistant_message.message -> 'metadata' else '{}'::jsonb end,
          coalesce(save_ai_assistant_message.format, 'canonical'), save_ai_assistant_message.native,
          save_ai_assistant_message.model, coalesce(save_ai_assistant_message.status, 'complete'))
  on conflict (chat_id, id) do update set
    parts = excluded.parts,
    metadata = excluded.metadata,
    format = excluded.format,
    native = excluded.native,
    model = coalesce(excluded.model, x.model),
    status = excluded.status
  returning x.parent_id, (x.xmax = 0) into stored_parent, inserted;
  delete from better_supabase.ai_message_sources s where s.chat_id = c.id and s.message_id = msg_id;
  insert into better_supabase.ai_message_sources (chat_id, message_id, source_id, source_type, url, title, provider_metadata)
  select distinct on (p ->> 'id') c.id, msg_id, p ->> 'id', coalesce(p ->> 'sourceType', 'url'),
         p ->> 'url', p ->> 'title', p -> 'providerMetadata'
  from jsonb_array_elements(save_ai_assistant_message.message -> 'parts') p
  where p ->> 'type' = 'source' and coalesce(p ->> 'id', '') <> ''
    and coalesce(p ->> 'sourceType', 'url') in ('url', 'document')
  order by p ->> 'id';
  update better_supabase.ai_chats x
  set current_leaf_id = msg_id, last_message_at = clock_timestamp(), updated_at = now()
  where x.id = c.id;
  if save_ai_assistant_message.run is not null then
    update better_supabase.ai_runs r set assistant_message_id = msg_id
    where r.id = save_ai_assistant_message.run and r.chat_id = c.id;
  end if;
  perform better_supabase._ai_chat_notify(c.id, c.owner_id, 'message.saved', jsonb_build_object('messageId', msg_id), not c.is_temporary);
  return jsonb_build_object('message_id', msg_id, 'parent_id', stored_parent, 'created', inserted);
end
$$;

-- ------------------------------------------------------------------ runs

-- claim_ai_chat_stream claims the chat for one answer's stream (the
-- service role only) and starts its run: {claimed, stream_id, run_id}.
-- Claiming the active stream again is a no-op. Another stream keeps the
-- chat while its run is unfinished, younger than ten minutes, and its
-- stream not closed: then claimed is false and the active stream and run
-- are named. Otherwise the old run is cancelled and the chat taken over.
-- external_run_id is a durable engine's own id for the run.
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
  active better_supabase.ai_runs;
  new_run uuid;
begin
  perform better_supabase._ai_server_only('stream answers');
  -- A run without a stream could never be released (release finds runs
  -- by their stream), and the chat would not even count as claimed.
  if claim_ai_chat_stream.stream is null then
    raise exception 'a claim needs a stream id' using errcode = '22023', hint = 'AI_RUN_INVALID';
  end if;
  select * into c from better_supabase.ai_chats x where x.id = claim_ai_chat_stream.chat for update;
  if c.id is null then
    raise exception 'chat % not found', claim_ai_chat_stream.chat using errcode = 'P0002', hint = 'AI_CHAT_NOT_FOUND';
  end if;
  if c.active_stream_id is not null then
    if c.active_stream_id = claim_ai_chat_stream.stream then
      return jsonb_build_object('claimed', true, 'stream_id', c.active_stream_id, 'run_id', c.active_run_id);
    end if;
    select * into active from better_supabase.ai_runs r where r.id = c.active_run_id;
    if active.id is not null
       and active.status in ('queued', 'running', 'cancel_requested')
       and active.started_at > now() - interval '10 minutes'
       and not exists (select from better_supabase.streams s where s.id = c.active_stream_id and s.closed_at is not null) then
      return jsonb_build_object('claimed', false, 'stream_id', c.active_stream_id, 'run_id', c.active_run_id);
    end if;
    update better_supabase.ai_runs r set status = 'cancelled', ended_at = now()
    where r.id = c.active_run_id and r.ended_at is null;
  end if;
  insert into better_supabase.ai_runs (chat_id, owner_id, assistant_message_id, stream_id, engine, external_run_id, model)
  values (c.id, c.owner_id, claim_ai_chat_stream.message_id, claim_ai_chat_stream.stream,
          coalesce(claim_ai_chat_stream.engine, 'ai-sdk'), claim_ai_chat_stream.external_run_id,
          coalesce(claim_ai_chat_stream.model, c.model))
  returning id into new_run;
  update better_supabase.ai_chats x
  set active_stream_id = claim_ai_chat_stream.stream, active_run_id = new_run, updated_at = now()
  where x.id = c.id;
  perform better_supabase._ai_chat_notify(c.id, null, 'stream.started',
    jsonb_build_object('streamId', claim_ai_chat_stream.stream, 'runId', new_run), false);
  return jsonb_build_object('claimed', true, 'stream_id', claim_ai_chat_stream.stream, 'run_id', new_run);
end
$$;

-- release_ai_chat_stream ends the stream's run (the service role only)
-- with its status (completed, failed or cancelled), usage, the gateway's
-- generation id, error and cost, and frees the chat when this stream
-- still holds it (then true). A run that has ended already keeps its
-- outcome: a late second release does not rewrite it.
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
  outcome text := coalesce(release_ai_chat_stream.status, 'completed');
  freed boolean;
begin
  perform better_supabase._ai_server_only('stream answers');
  if outcome not in ('completed', 'failed', 'cancelled') then
    raise exception 'a run ends completed, failed or cancelled, not %', outcome using errcode = '22023', hint = 'AI_RUN_INVALID';
  end if;
  update better_supabase.ai_runs r set
    status = outcome,
    usage = coalesce(release_ai_chat_stream.usage, r.usage),
    provider_generation_id = coalesce(release_ai_chat_stream.generation_id, r.provider_generation_id),
    error = release_ai_chat_stream.error,
    cost_micro_usd = coalesce(release_ai_chat_stream.cost_micro_usd, r.cost_micro_usd),
    ended_at = now()
  where r.chat_id = release_ai_chat_stream.chat and r.stream_id = release_ai_chat_stream.stream
    and r.ended_at is null;
  update better_supabase.ai_chats x set active_stream_id = null, active_run_id = null, updated_at = now()
  where x.id = release_ai_chat_stream.chat and x.active_stream_id = release_ai_chat_stream.stream
  returning true into freed;
  if coalesce(freed, false) then
    perform better_supabase._ai_chat_notify(release_ai_chat_stream.chat, null, 'stream.ended',
      jsonb_build_object('streamId', release_ai_chat_stream.stream, 'status', outcome), false);
  end if;
  return coalesce(freed, false);
end
$$;

-- request_ai_chat_stop asks the streaming answer to stop: its run becomes
-- cancel_requested and its stream's cancel flag is set, which the writer
-- reads on its next append. {stream_id, run_id}, or null when nothing
-- streams. The flag is set whoever opened the stream: the chat's owner may
-- stop its answer even when the server opened the stream without owner.
create or replace function better_supabase.request_ai_chat_stop(chat uuid)
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  c better_supabase.ai_chats;
  wakes boolean;
begin
  c := better_supabase._ai_own_chat(request_ai_chat_stop.chat);
  if c.active_stream_id is null then
    return null;
  end if;
  update better_supabase.ai_runs r set status = 'cancel_requested'
  where r.id = c.active_run_id and r.status in ('queued', 'running');
  update better_supabase.streams s set cancel_requested_at = now()
  where s.id = c.active_stream_id and s.cancel_requested_at is null and s.closed_at is null
  returning s.wake into wakes;
  if coalesce(wakes, false) and pg_catalog.to_regprocedure('realtime.send(jsonb,text,text,boolean)') is not null then
    execute 'select realtime.send($1, $2, $3, true)' using '{}'::jsonb, 'cancel', 'stream:' || c.active_stream_id;
  end if;
  perform better_supabase._ai_chat_notify(c.id, null, 'stream.stopping', jsonb_build_object('streamId', c.active_stream_id), false);
  return jsonb_build_object('stream_id', c.active_stream_id, 'run_id', c.active_run_id);
end
$$;

-- attach_ai_run records a durable engine's run id on a run claimed before
-- the engine started it (the service role only).
create or replace function better_supabase.attach_ai_run(run uuid, external_run_id text)
returns boolean language plpgsql security definer set search_path = '' as $$
declare
  n integer;
begin
  perform better_supabase._ai_server_only('record runs');
  update better_supabase.ai_runs r set external_run_id = attach_ai_run.external_run_id where r.id = attach_ai_run.run;
  get diagnostics n = row_count;
  return n > 0;
end
$$;

-- get_ai_run returns a run of a chat the caller may read.
create or replace function better_supabase.get_ai_run(run uuid)
returns jsonb language plpgsql stable security definer set search_path = '' as $$
declare
  r better_supabase.ai_runs;
begin
  select * into r from better_supabase.ai_runs x where x.id = get_ai_run.run;
  if r.id is null or not better_supabase.ai_chat_can_read(r.chat_id) then
    raise exception 'run % not found', get_ai_run.run using errcode = 'P0002', hint = 'AI_RUN_NOT_FOUND';
  end if;
  return better_supabase._ai_run_doc(r);
end
$$;

-- list_ai_runs lists runs, newest first: a chat's (one the caller may
-- read), else the caller's own (every run for the service role); active
-- true keeps the unfinished ones, false the finished.
create or replace function better_supabase.list_ai_runs(chat uuid default null, active boolean default null, size integer default 50)
returns jsonb language plpgsql stable security definer set search_path = '' as $$
declare
  service boolean := better_supabase._caller_is_service();
begin
  if list_ai_runs.chat is not null and not better_supabase.ai_chat_can_read(list_ai_runs.chat) then
    raise exception 'chat % not found', list_ai_runs.chat using errcode = 'P0002', hint = 'AI_CHAT_NOT_FOUND';
  end if;
  return (
    select coalesce(jsonb_agg(better_supabase._ai_run_doc(r) order by r.started_at desc), '[]'::jsonb)
    from (
      select * from better_supabase.ai_runs x
      where case when list_ai_runs.chat is not null then x.chat_id = list_ai_runs.chat
                 else service or x.owner_id = (select auth.uid()) end
        and (list_ai_runs.active is null
             or (x.status in ('queued', 'running', 'cancel_requested')) = list_ai_runs.active)
      order by x.started_at desc
      limit least(greatest(coalesce(list_ai_runs.size, 50), 1), 200)
    ) r
  );
end
$$;

-- record_ai_run_step records one step of a run's progress (the service
-- role only): step {key, label, status, detail}. The key makes it
-- idempotent: a later call with the same key updates the step and merges
-- its detail.
create or replace function better_supabase.record_ai_run_step(run uuid, step jsonb)
returns jsonb language plpgsql security definer set search_path = '' as $$
#variable_conflict use_column
declare
  r better_supabase.ai_runs;
  s better_supabase.ai_run_steps;
  step_status text := coalesce(record_ai_run_step.step ->> 'status', 'running');
  step_detail jsonb := coalesce(record_ai_run_step.step -> 'detail', '{}'::jsonb);
  step_label text := nullif(record_ai_run_step.step ->> 'label', '');
begin
  perform better_supabase._ai_server_only('record runs');
  select * into r from better_supabase.ai_runs x where x.id = record_ai_run_step.run;
  if r.id is null then
    raise exception 'run % not found', record_ai_run_step.run using errcode = 'P0002', hint = 'AI_RUN_NOT_FOUND';
  end if;
  if coalesce(record_ai_run_step.step ->> 'key', '') = ''
     or step_status not in ('running', 'done', 'error', 'skipped')
     or jsonb_typeof(step_detail) <> 'object' then
    raise exception 'a step needs a key, a status among running, done, error and skipped, and an object as detail'
      using errcode = '22023', hint = 'AI_RUN_STEP_INVALID';
  end if;
  insert into better_supabase.ai_run_steps as x (run_id, chat_id, owner_id, step_key, label, status, detail, ended_at)
  values (r.id, r.chat_id, r.owner_id, record_ai_run_step.step ->> 'key',
          coalesce(step_label, record_ai_run_step.step ->> 'key'), step_status, step_detail,
          case when step_status <> 'running' then now() end)
  on conflict (run_id, step_key) do update set
    label = coalesce(step_label, x.label),
    status = excluded.status,
    detail = x.detail || excluded.detail,
    ended_at = case when excluded.status <> 'running' then coalesce(x.ended_at, now()) end
  returning * into s;
  perform better_supabase._ai_chat_notify(r.chat_id, null, 'run.step',
    jsonb_build_object('runId', r.id, 'key', s.step_key, 'status', s.status), false);
  return better_supabase._ai_step_doc(s);
end
$$;

-- list_ai_run_steps lists a run's steps in the order they started.
create or replace function better_supabase.list_ai_run_steps(run uuid)
returns jsonb language plpgsql stable security definer set search_path = '' as $$
declare
  r better_supabase.ai_runs;
begin
  select * into r from better_supabase.ai_runs x where x.id = list_ai_run_steps.run;
  if r.id is null or not better_supabase.ai_chat_can_read(r.chat_id) then
    raise exception 'run % not found', list_ai_run_steps.run using errcode = 'P0002', hint = 'AI_RUN_NOT_FOUND';
  end if;
  return (
    select coalesce(jsonb_agg(better_supabase._ai_step_doc(s) order by s.started_at, s.id), '[]'::jsonb)
    from better_supabase.ai_run_steps s where s.run_id = r.id
  );
end
$$;

-- set_ai_run_cost records the cost the gateway reports later for a
-- generation id (the service role only), merging usage.
create or replace function better_supabase.set_ai_run_cost(generation_id text, cost_micro_usd bigint, usage jsonb default null)
returns boolean language plpgsql security definer set search_path = '' as $$
#variable_conflict use_column
declare
  n integer;
begin
  perform better_supabase._ai_server_only('record costs');
  update better_supabase.ai_runs r set
    cost_micro_usd = set_ai_run_cost.cost_micro_usd,
    usage = r.usage || coalesce(set_ai_run_cost.usage, '{}'::jsonb)
  where r.provider_generation_id = set_ai_run_cost.generation_id;
  get diagnostics n = row_count;
  return n > 0;
end
$$;

-- ------------------------------------------------- approvals and policies

-- record_ai_tool_approval records a tool call that waits for a person (the
-- service role only): approval {approval_id, tool, tool_call_id, input,
-- run_id, message_id, signature}. A retry returns the stored approval.
create or replace function better_supabase.record_ai_tool_approval(chat uuid, approval jsonb)
returns jsonb language plpgsql security definer set search_path = '' as $$
#variable_conflict use_column
declare
  c better_supabase.ai_chats;
  a better_supabase.ai_tool_approvals;
  j jsonb := record_ai_tool_approval.approval;
begin
  perform better_supabase._ai_server_only('record approvals');
  select * into c from better_supabase.ai_chats x where x.id = record_ai_tool_approval.chat;
  if c.id is null then
    raise exception 'chat % not found', record_ai_tool_approval.chat using errcode = 'P0002', hint = 'AI_CHAT_NOT_FOUND';
  end if;
  insert into better_supabase.ai_tool_approvals
    (approval_id, chat_id, owner_id, run_id, message_id, tool, tool_call_id, input, signature)
  values (j ->> 'approval_id', c.id, c.owner_id, (j ->> 'run_id')::uuid, j ->> 'message_id',
          j ->> 'tool', j ->> 'tool_call_id', j -> 'input', j ->> 'signature')
  on conflict (approval_id) do nothing;
  select * into a from better_supabase.ai_tool_approvals x where x.approval_id = j ->> 'approval_id';
  if a.chat_id <> c.id then
    raise exception 'approval % belongs to another chat', a.approval_id using errcode = '23505', hint = 'AI_APPROVAL_EXISTS';
  end if;
  perform better_supabase._ai_chat_notify(c.id, null, 'approval.requested', jsonb_build_object('approvalId', a.approval_id), false);
  return better_supabase._ai_approval_doc(a);
end
$$;

-- decide_ai_tool_approval approves or denies a waiting tool call, once:
-- the chat's owner or the service role. The same decision again returns
-- the approval; the other one is refused.
create or replace function better_supabase.decide_ai_tool_approval(approval_id text, approved boolean, reason text default null)
returns jsonb language plpgsql security definer set search_path = '' as $$
#variable_conflict use_column
declare
  a better_supabase.ai_tool_approvals;
  verdict text := case when decide_ai_tool_approval.approved then 'approved' else 'denied' end;
  tenant uuid;
begin
  select * into a from better_supabase.ai_tool_approvals x where x.approval_id = decide_ai_tool_approval.approval_id for update;
  if a.approval_id is null or not (better_supabase._caller_is_service() or a.owner_id = (select auth.uid())) then
    raise exception 'approval % not found', decide_ai_tool_approval.approval_id using errcode = 'P0002', hint = 'AI_APPROVAL_NOT_FOUND';
  end if;
  if decide_ai_tool_approval.approved is null then
    raise exception 'approved must be true or false' using errcode = '22023', hint = 'AI_APPROVAL_INVALID';
  end if;
  if a.decision is not null then
    if a.decision = verdict then
      return better_supabase._ai_approval_doc(a);
    end if;
    raise exception 'approval % was %', a.approval_id, a.decision using errcode = 'P0001', hint = 'AI_APPROVAL_DECIDED';
  end if;
  update better_supabase.ai_tool_approvals x set
    decision = verdict, reason = decide_ai_tool_approval.reason, decided_by = (select auth.uid()), decided_at = now()
  where x.approval_id = a.approval_id
  returning * into a;
  perform better_supabase._ai_chat_notify(a.chat_id, null, 'approval.decided',
    jsonb_build_object('approvalId', a.approval_id, 'decision', verdict), false);
  select c.organization_id into tenant from better_supabase.ai_chats c where c.id = a.chat_id;
  perform better_supabase._ai_audit('ai_tool_approval.decided', 'ai_tool_approval', a.approval_id, tenant, a.tool,
    jsonb_build_object('organizationId', tenant::text, 'chatId', a.chat_id, 'approvalId', a.approval_id,
                       'tool', a.tool, 'decision', verdict),
    'ai_tool_approval.decided:' || a.approval_id);
  return better_supabase._ai_approval_doc(a);
end
$$;

-- get_ai_tool_approvals lists a readable chat's approvals, oldest first,
-- only those named in ids when given.
create or replace function better_supabase.get_ai_tool_approvals(chat uuid, ids text[] default null)
returns jsonb language plpgsql stable security definer set search_path = '' as $$
begin
  if not better_supabase.ai_chat_can_read(get_ai_tool_approvals.chat) then
    raise exception 'chat % not found', get_ai_tool_approvals.chat using errcode = 'P0002', hint = 'AI_CHAT_NOT_FOUND';
  end if;
  return (
    select coalesce(jsonb_agg(better_supabase._ai_approval_doc(a) order by a.created_at), '[]'::jsonb)
    from better_supabase.ai_tool_approvals a
    where a.chat_id = get_ai_tool_approvals.chat
      and (get_ai_tool_approvals.ids is null or a.approval_id = any (get_ai_tool_approvals.ids))
  );
end
$$;

-- list_pending_ai_tool_approvals is the caller's approval inbox: undecided
-- approvals across their chats, newest first, each with chat_title.
create or replace function better_supabase.list_pending_ai_tool_approvals(size integer default 50)
returns jsonb language sql stable security definer set search_path = '' as $$
  select coalesce(jsonb_agg(w.doc order by w.created_at desc), '[]'::jsonb)
  from (
    select better_supabase._ai_approval_doc(a) || jsonb_build_object('chat_title', c.title) as doc, a.created_at
    from better_supabase.ai_tool_approvals a
    join better_supabase.ai_chats c on c.id = a.chat_id
    where a.owner_id = (select auth.uid()) and a.decision is null
    order by a.created_at desc
    limit least(greatest(coalesce(list_pending_ai_tool_approvals.size, 50), 1), 200)
  ) w
$$;

-- set_ai_tool_policy says whether a tool runs by itself (auto), asks
-- first (ask) or never runs (deny) in a tenant: the service role or a
-- tenant admin (ai_chat.admin). A null policy removes the rule.
create or replace function better_supabase.set_ai_tool_policy(tenant uuid, tool text, policy text)
returns jsonb language plpgsql security definer set search_path = '' as $$
#variable_conflict use_column
begin
  if not (better_supabase._caller_is_service() or better_supabase._ai_may(set_ai_tool_policy.tenant, 'ai_chat.admin')) then
    raise exception 'you may not set tool policies in this tenant' using errcode = '42501', hint = 'AI_CHAT_FORBIDDEN';
  end if;
  if set_ai_tool_policy.policy is null then
    delete from better_supabase.ai_tool_policies p
    where p.organization_id = set_ai_tool_policy.tenant and p.tool = set_ai_tool_policy.tool;
  else
    insert into better_supabase.ai_tool_policies (organization_id, tool, policy)
    values (set_ai_tool_policy.tenant, set_ai_tool_policy.tool, set_ai_tool_policy.policy)
    on conflict (organization_id, tool) do update set policy = excluded.policy, updated_at = now();
  end if;
  perform better_supabase._ai_audit('ai_tool_policy.set', 'ai_tool_policy', set_ai_tool_policy.tool,
    set_ai_tool_policy.tenant, null,
    jsonb_build_object('organizationId', set_ai_tool_policy.tenant::text, 'tool', set_ai_tool_policy.tool,
                       'policy', set_ai_tool_policy.policy),
    null);
  return jsonb_build_object('tool', set_ai_tool_policy.tool, 'policy', set_ai_tool_policy.policy);
end
$$;

-- ai_tool_policies_for returns a tenant's rules as {tool: policy}, for its
-- members holding ai_chat.read (and the service role); {} for others.
create or replace function better_supabase.ai_tool_policies_for(tenant uuid)
returns jsonb language plpgsql stable security definer set search_path = '' as $$
begin
  if not (better_supabase._caller_is_service() or better_supabase._ai_may(ai_tool_policies_for.tenant, 'ai_chat.read')) then
    return '{}'::jsonb;
  end if;
  return (
    select coalesce(jsonb_object_agg(p.tool, p.policy), '{}'::jsonb)
    from better_supabase.ai_tool_policies p where p.organization_id = ai_tool_policies_for.tenant
  );
end
$$;

-- ------------------------------------------------------- pending inputs

-- open_ai_pending_input records a question the model asks the user mid-run
-- (the service role only): input {question, schema, run_id, tool_call_id}.
create or replace function better_supabase.open_ai_pending_input(chat uuid, input jsonb)
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  c better_supabase.ai_chats;
  i better_supabase.ai_pending_inputs;
begin
  perform better_supabase._ai_server_only('ask questions');
  select * into c from better_supabase.ai_chats x where x.id = open_ai_pending_input.chat;
  if c.id is null then
    raise exception 'chat % not found', open_ai_pending_input.chat using errcode = 'P0002', hint = 'AI_CHAT_NOT_FOUND';
  end if;
  insert into better_supabase.ai_pending_inputs (chat_id, owner_id, run_id, tool_call_id, question, schema)
  values (c.id, c.owner_id, (open_ai_pending_input.input ->> 'run_id')::uuid,
          open_ai_pending_input.input ->> 'tool_call_id', open_ai_pending_input.input ->> 'question',
          open_ai_pending_input.input -> 'schema')
  returning * into i;
  perform better_supabase._ai_chat_notify(c.id, null, 'input.requested', jsonb_build_object('inputId', i.id), false);
  return better_supabase._ai_input_doc(i);
end
$$;

-- answer_ai_pending_input answers a question once: the chat's owner or the
-- service role.
create or replace function better_supabase.answer_ai_pending_input(id uuid, answer jsonb)
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  i better_supabase.ai_pending_inputs;
begin
  select * into i from better_supabase.ai_pending_inputs x where x.id = answer_ai_pending_input.id for update;
  if i.id is null or not (better_supabase._caller_is_service() or i.owner_id = (select auth.uid())) then
    raise exception 'question % not found', answer_ai_pending_input.id using errcode = 'P0002', hint = 'AI_INPUT_NOT_FOUND';
  end if;
  if i.answered_at is not null then
    raise exception 'question % was answered', i.id using errcode = 'P0001', hint = 'AI_INPUT_ANSWERED';
  end if;
  update better_supabase.ai_pending_inputs x
  set answer = coalesce(answer_ai_pending_input.answer, 'null'::jsonb), answered_at = now()
  where x.id = i.id
  returning * into i;
  perform better_supabase._ai_chat_notify(i.chat_id, null, 'input.answered', jsonb_build_object('inputId', i.id), false);
  return better_supabase._ai_input_doc(i);
end
$$;

-- ------------------------------------------------------------- feedback

-- rate_ai_message rates a message 1 or -1, with an optional reason and
-- comment: one rating per user, by anyone who may read the chat. A null
-- rating takes the caller's back.
create or replace function better_supabase.rate_ai_message(chat uuid, message_id text, rating integer, reason text default null, comment text default null)
returns jsonb language plpgsql security definer set search_path = '' as $$
#variable_conflict use_column
declare
  me uuid := (select auth.uid());
begin
  if me is null or not better_supabase.ai_chat_can_read(rate_ai_message.chat) then
    raise exception 'chat % not found', rate_ai_message.chat using errcode = 'P0002', hint = 'AI_CHAT_NOT_FOUND';
  end if;
  if not exists (select from better_supabase.ai_messages m
                 where m.chat_id = rate_ai_message.chat and m.id = rate_ai_message.message_id) then
    raise exception 'message % not found', rate_ai_message.message_id using errcode = 'P0002', hint = 'AI_MESSAGE_NOT_FOUND';
  end if;
  if rate_ai_message.rating is null then
    delete from better_supabase.ai_message_feedback f
    where f.chat_id = rate_ai_message.chat and f.message_id = rate_ai_message.message_id and f.user_id = me;
    return null;
  end if;
  insert into better_supabase.ai_message_feedback (chat_id, message_id, user_id, rating, reason, comment)
  values (rate_ai_message.chat, rate_ai_message.message_id, me, rate_ai_message.rating,
          rate_ai_message.reason, rate_ai_message.comment)
  on conflict (chat_id, message_id, user_id) do update set
    rating = excluded.rating, reason = excluded.reason, comment = excluded.comment, updated_at = now();
  return jsonb_build_object('chat_id', rate_ai_message.chat, 'message_id', rate_ai_message.message_id,
    'rating', rate_ai_message.rating, 'reason', rate_ai_message.reason, 'comment', rate_ai_message.comment);
end
$$;

-- -------------------------------------------------------------- sharing

-- share_ai_chat makes a read-only link to the branch that ends at leaf
-- (default: the one the chat shows), for the chat's owner holding
-- ai_chat.share. The token comes back this once; only its SHA-256 stays.
create or replace function better_supabase.share_ai_chat(chat uuid, leaf text default null)
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  c better_supabase.ai_chats;
  tip text;
  -- 64 hex digits, 244 of their bits random.
  token text := pg_catalog.translate(gen_random_uuid()::text || gen_random_uuid()::text, '-', '');
  s better_supabase.ai_chat_shares;
begin
  select * into c from better_supabase.ai_chats x where x.id = share_ai_chat.chat;
  if c.id is null or c.owner_id is distinct from (select auth.uid()) then
    raise exception 'chat % not found', share_ai_chat.chat using errcode = 'P0002', hint = 'AI_CHAT_NOT_FOUND';
  end if;
  if not better_supabase._ai_may(c.organization_id, 'ai_chat.share') then
    raise exception 'you may not share chats in this tenant' using errcode = '42501', hint = 'AI_CHAT_FORBIDDEN';
  end if;
  tip := coalesce(share_ai_chat.leaf, c.current_leaf_id);
  if tip is null or not exists (select from better_supabase.ai_messages m where m.chat_id = c.id and m.id = tip) then
    raise exception 'no message % to share', tip using errcode = 'P0002', hint = 'AI_MESSAGE_NOT_FOUND';
  end if;
  insert into better_supabase.ai_chat_shares (chat_id, token_hash, leaf_id, created_by)
  values (c.id, encode(sha256(convert_to(token, 'UTF8')), 'hex'), tip, (select auth.uid()))
  returning * into s;
  perform better_supabase._ai_audit('ai_chat.shared', 'ai_chat_share', s.id::text, c.organization_id, null,
    jsonb_build_object('chatId', c.id, 'shareId', s.id, 'organizationId', c.organization_id::text,
                       'ownerId', c.owner_id, 'leafId', tip),
    'ai_chat.shared:' || s.id::text);
  return jsonb_build_object('id', s.id, 'token', token, 'leaf_id', s.leaf_id, 'created_at', s.created_at);
end
$$;

-- revoke_ai_chat_share revokes a link: whoever made it, the chat's owner
-- or the service role. False when there is no such live link of theirs.
create or replace function better_supabase.revoke_ai_chat_share(id uuid)
returns boolean language plpgsql security definer set search_path = '' as $$
declare
  revoked_chat uuid;
  ch better_supabase.ai_chats;
begin
  update better_supabase.ai_chat_shares s set revoked_at = now()
  where s.id = revoke_ai_chat_share.id
    and s.revoked_at is null
    and (better_supabase._caller_is_service()
         or s.created_by = (select auth.uid())
         or exists (select from better_supabase.ai_chats c where c.id = s.chat_id and c.owner_id = (select auth.uid())))
  returning s.chat_id into revoked_chat;
  if revoked_chat is null then
    return false;
  end if;
  select * into ch from better_supabase.ai_chats x where x.id = revoked_chat;
  perform better_supabase._ai_audit('ai_chat.share_revoked', 'ai_chat_share', revoke_ai_chat_share.id::text,
    ch.organization_id, null,
    jsonb_build_object('chatId', ch.id, 'shareId', revoke_ai_chat_share.id, 'organizationId', ch.organization_id::text,
                       'ownerId', ch.owner_id),
    null);
  return true;
end
$$;

-- list_ai_chat_shares lists a chat's links, newest first, without tokens:
-- for the chat's owner and the service role (others get an empty list).
create or replace function better_supabase.list_ai_chat_shares(chat uuid)
returns jsonb language sql stable security definer set search_path = '' as $$
  select coalesce(jsonb_agg(jsonb_build_object(
      'id', s.id, 'leaf_id', s.leaf_id, 'created_by', s.created_by,
      'created_at', s.created_at, 'revoked_at', s.revoked_at) order by s.created_at desc), '[]'::jsonb)
  from better_supabase.ai_chat_shares s
  join better_supabase.ai_chats c on c.id = s.chat_id
  where s.chat_id = list_ai_chat_shares.chat
    and (better_supabase._caller_is_service() or c.owner_id = (select auth.uid()))
$$;

-- get_shared_ai_chat returns what a link shows, to anyone holding its
-- token: {chat: {id, title, model, created_at}, leaf_id, messages}; null
-- for a token that names no live link.
create or replace function better_supabase.get_shared_ai_chat(token text)
returns jsonb language plpgsql stable security definer set search_path = '' as $$
declare
  s better_supabase.ai_chat_shares;
  c better_supabase.ai_chats;
begin
  if get_shared_ai_chat.token is null or get_shared_ai_chat.token !~ '^[0-9a-f]{64}$' then
    return null;
  end if;
  select * into s from better_supabase.ai_chat_shares x
  where x.token_hash = encode(sha256(convert_to(get_shared_ai_chat.token, 'UTF8')), 'hex') and x.revoked_at is null;
  if s.id is null then
    return null;
  end if;
  select * into c from better_supabase.ai_chats x where x.id = s.chat_id;
  return jsonb_build_object(
    'chat', jsonb_build_object('id', c.id, 'title', c.title, 'model', c.model, 'created_at', c.created_at),
    'leaf_id', s.leaf_id,
    'messages', better_supabase.ai_message_path_of(c.id, s.leaf_id, false));
end
$$;

-- --------------------------------------------------------------- models

-- upsert_ai_models stores models from the gateway (the service role only):
-- models is an array, or an object holding one under "models"; each
-- element {id, provider, name, pricing, capabilities, plans, enabled}.
-- A known model takes the new provider, name, pricing and capabilities,
-- and plans and enabled when the element gives them. prune deletes the
-- models the list does not name. Returns how many it stored.
create or replace function better_supabase.upsert_ai_models(models jsonb, prune boolean default false)
returns integer language plpgsql security definer set search_path = '' as $$
#variable_conflict use_column
declare
  list jsonb := case jsonb_typeof(upsert_ai_models.models)
    when 'array' then upsert_ai_models.models
    when 'object' then coalesce(upsert_ai_models.models -> 'models', '[]'::jsonb)
    else '[]'::jsonb end;
  n integer;
begin
  perform better_supabase._ai_server_only('update the model catalog');
  insert into better_supabase.ai_model_catalog as m (model_id, provider, name, pricing, capabilities, plans, enabled)
  select e ->> 'id',
         coalesce(e ->> 'provider', split_part(e ->> 'id', '/', 1)),
         coalesce(e ->> 'name', e ->> 'id'),
         coalesce(e -> 'pricing', '{}'::jsonb),
         coalesce(e -> 'capabilities', '{}'::jsonb),
         coalesce(array(select jsonb_array_elements_text(e -> 'plans')), '{}'::text[]),
         coalesce((e ->> 'enabled')::boolean, true)
  from jsonb_array_elements(list) e
  where coalesce(e ->> 'id', '') <> ''
  on conflict (model_id) do update set
    provider = excluded.provider,
    name = excluded.name,
    pricing = excluded.pricing,
    capabilities = excluded.capabilities,
    -- Whether the element gave plans or enabled is known only from the
    -- list itself.
    plans = case when exists (select from jsonb_array_elements(list) e
                              where e ->> 'id' = excluded.model_id and jsonb_typeof(e -> 'plans') = 'array')
                 then excluded.plans else m.plans end,
    enabled = case when exists (select from jsonb_array_elements(list) e
                                where e ->> 'id' = excluded.model_id and jsonb_typeof(e -> 'enabled') = 'boolean')
                   then excluded.enabled else m.enabled end,
    refreshed_at = now();
  get diagnostics n = row_count;
  if upsert_ai_models.prune then
    delete from better_supabase.ai_model_catalog m
    where m.model_id not in (select e ->> 'id' from jsonb_array_elements(list) e where e ->> 'id' is not null);
  end if;
  return n;
end
$$;

-- allowed_ai_models lists the models a tenant may pick: the enabled ones
-- without plans, and, for a tenant the caller reads (ai_chat.read), those
-- whose plans meet the tenant's entitlements.
create or replace function better_supabase.allowed_ai_models(tenant uuid default null)
returns jsonb language plpgsql stable security definer set search_path = '' as $$
declare
  t uuid := allowed_ai_models.tenant;
begin
  if t is not null and not (better_supabase._caller_is_service() or better_supabase._ai_may(t, 'ai_chat.read')) then
    t := null;
  end if;
  return (
    select coalesce(jsonb_agg(better_supabase._ai_model_doc(m) order by m.provider, m.name), '[]'::jsonb)
    from better_supabase.ai_model_catalog m
    where m.enabled
      and (cardinality(m.plans) = 0
           or (t is not null and m.plans && better_supabase.tenant_entitlements(t)))
  );
end
$$;

-- ----------------------------------------------------------- moderation

-- record_ai_moderation_event records what moderation decided (the service
-- role only): event {organization_id, stage, category, action, chat_id,
-- message_id, user_id, score}.
create or replace function better_supabase.record_ai_moderation_event(event jsonb)
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  j jsonb := record_ai_moderation_event.event;
  e better_supabase.ai_moderation_events;
begin
  perform better_supabase._ai_server_only('record moderation');
  insert into better_supabase.ai_moderation_events
    (organization_id, chat_id, message_id, user_id, stage, category, score, action)
  values ((j ->> 'organization_id')::uuid, (j ->> 'chat_id')::uuid, j ->> 'message_id', (j ->> 'user_id')::uuid,
          j ->> 'stage', j ->> 'category', (j ->> 'score')::real, j ->> 'action')
  returning * into e;
  return better_supabase._ai_moderation_doc(e);
end
$$;

-- list_ai_moderation_events lists a tenant's moderation decisions, newest
-- first: the service role or a member holding ai_chat.moderate.
create or replace function better_supabase.list_ai_moderation_events(tenant uuid, size integer default 100)
returns jsonb language plpgsql stable security definer set search_path = '' as $$
begin
  if not (better_supabase._caller_is_service() or better_supabase._ai_may(list_ai_moderation_events.tenant, 'ai_chat.moderate')) then
    raise exception 'you may not review moderation in this tenant' using errcode = '42501', hint = 'AI_CHAT_FORBIDDEN';
  end if;
  return (
    select coalesce(jsonb_agg(better_supabase._ai_moderation_doc(e) order by e.created_at desc), '[]'::jsonb)
    from (
      select * from better_supabase.ai_moderation_events x
      where x.organization_id = list_ai_moderation_events.tenant
      order by x.created_at desc
      limit least(greatest(coalesce(list_ai_moderation_events.size, 100), 1), 1000)
    ) e
  );
end
$$;

-- ------------------------------------------------------------ sandboxes

-- register_ai_sandbox records a sandbox or container the app started in a
-- tenant, or marks a known one used and running again (service role).
-- fields: user_id, chat_id, harness_id, container_id, metadata (merged),
-- idle_seconds, expires_at. A sandbox of another tenant is refused.
create or replace function better_supabase.register_ai_sandbox(tenant uuid, provider text, sandbox_id text, fields jsonb default '{}')
returns jsonb language plpgsql security definer set search_path = '' as $$
#variable_conflict use_column
declare
  f jsonb := coalesce(register_ai_sandbox.fields, '{}'::jsonb);
  s better_supabase.ai_sandboxes;
begin
  insert into better_supabase.ai_sandboxes as cur
    (organization_id, user_id, chat_id, harness_id, provider, sandbox_id, container_id, metadata, idle_seconds, expires_at)
  values (register_ai_sandbox.tenant, (f ->> 'user_id')::uuid, (f ->> 'chat_id')::uuid, f ->> 'harness_id',
          register_ai_sandbox.provider, register_ai_sandbox.sandbox_id, f ->> 'container_id',
          coalesce(f -> 'metadata', '{}'::jsonb), coalesce((f ->> 'idle_seconds')::integer, 600),
          (f ->> 'expires_at')::timestamptz)
  on conflict (provider, sandbox_id) do update set
    container_id = coalesce(excluded.container_id, cur.container_id),
    chat_id = coalesce(excluded.chat_id, cur.chat_id),
    harness_id = coalesce(excluded.harness_id, cur.harness_id),
    metadata = cur.metadata || excluded.metadata,
    idle_seconds = excluded.idle_seconds,
    expires_at = coalesce(excluded.expires_at, cur.expires_at),
    status = 'running',
    error = null,
    stopped_at = null,
    last_used_at = now(),
    updated_at = now()
  where cur.organization_id = excluded.organization_id
  returning * into s;
  if s.id is null then
    raise exception 'sandbox % belongs to another tenant', register_ai_sandbox.sandbox_id
      using errcode = '42501', hint = 'AI_SANDBOX_FORBIDDEN';
  end if;
  return better_supabase._ai_sandbox_doc(s);
end
$$;

-- touch_ai_sandbox marks a running sandbox used now (service role); false
-- when it does not run.
create or replace function better_supabase.touch_ai_sandbox(id uuid)
returns boolean language plpgsql security definer set search_path = '' as $$
declare
  n integer;
begin
  update better_supabase.ai_sandboxes s set last_used_at = now(), updated_at = now()
  where s.id = touch_ai_sandbox.id and s.status = 'running';
  get diagnostics n = row_count;
  return n > 0;
end
$$;

-- ai_sandbox_for finds a chat's running sandbox of a provider again, to
-- reuse it (service role): the most recently used one that has not
-- expired, or null.
create or replace function better_supabase.ai_sandbox_for(chat_id uuid, provider text)
returns jsonb language sql stable security definer set search_path = '' as $$
  select better_supabase._ai_sandbox_doc(s)
  from better_supabase.ai_sandboxes s
  where s.chat_id = ai_sandbox_for.chat_id and s.provider = ai_sandbox_for.provider and s.status = 'running'
    and (s.expires_at is null or s.expires_at > now())
  order by s.last_used_at desc
  limit 1
$$;

-- list_ai_sandboxes lists a tenant's sandboxes (of one chat when given),
-- newest first, as far as row-level security shows them to the caller.
create or replace function better_supabase.list_ai_sandboxes(tenant uuid, chat_id uuid default null)
returns jsonb language sql stable security invoker set search_path = '' as $$
  -- Every column, as _ai_sandbox_doc has them; this function runs with the
  -- caller's rights, which do not reach the definer's helpers.
  select coalesce(jsonb_agg(to_jsonb(s) order by s.created_at desc), '[]'::jsonb)
  from better_supabase.ai_sandboxes s
  where s.organization_id = list_ai_sandboxes.tenant
    and (list_ai_sandboxes.chat_id is null or s.chat_id = list_ai_sandboxes.chat_id)
$$;

-- idle_ai_sandboxes claims up to batch sandboxes to stop (service role),
-- marking them stopping: running ones unused for their idle_seconds or
-- past expires_at, and stopping ones whose stopper claimed them more than
-- lease_seconds ago and never finished. A sandbox whose harness session is
-- locked by a turn is left alone.
create or replace function better_supabase.idle_ai_sandboxes(batch integer default 50, lease_seconds integer default 300)
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  claimed jsonb;
begin
  with due as (
    select s.id from better_supabase.ai_sandboxes s
    where ((s.status = 'running'
            and (s.last_used_at + make_interval(secs => s.idle_seconds) <= now() or s.expires_at <= now()))
           or (s.status = 'stopping'
               and s.updated_at <= now() - make_interval(secs => greatest(idle_ai_sandboxes.lease_seconds, 1))))
      and not exists (
        select from better_supabase.ai_harness_sessions h
        where h.chat_id = s.chat_id and h.harness_id = s.harness_id and h.locked_until > now())
    order by s.last_used_at
    limit least(greatest(idle_ai_sandboxes.batch, 1), 500)
    for update skip locked
  ), marked as (
    update better_supabase.ai_sandboxes s set status = 'stopping', updated_at = now()
    from due where s.id = due.id
    returning s.*
  )
  select coalesce(jsonb_agg(better_supabase._ai_sandbox_doc(marked::better_supabase.ai_sandboxes)), '[]'::jsonb)
  into claimed from marked;
  return claimed;
end
$$;

-- finish_ai_sandbox_stop ends a stop the caller claimed (service role):
-- stopped, or back to running with the error, so that the next claim
-- tries again. A harness's last sandbox stopping stops its session too.
-- False when the sandbox is not being stopped (a turn used it since).
create or replace function better_supabase.finish_ai_sandbox_stop(id uuid, stopped boolean, error text default null)
returns boolean language plpgsql security definer set search_path = '' as $$
declare
  s better_supabase.ai_sandboxes;
begin
  update better_supabase.ai_sandboxes x set
    status = case when finish_ai_sandbox_stop.stopped then 'stopped' else 'running' end,
    stopped_at = case when finish_ai_sandbox_stop.stopped then now() end,
    error = left(finish_ai_sandbox_stop.error, 4000),
    updated_at = now()
  where x.id = finish_ai_sandbox_stop.id and x.status = 'stopping'
  returning * into s;
  if s.id is null then
    return false;
  end if;
  if finish_ai_sandbox_stop.stopped and s.harness_id is not null then
    update better_supabase.ai_harness_sessions h set status = 'stopped', updated_at = now()
    where h.chat_id = s.chat_id and h.harness_id = s.harness_id
      and h.status in ('active', 'idle')
      and not exists (select from better_supabase.ai_sandboxes o
                      where o.chat_id = s.chat_id and o.harness_id = s.harness_id and o.status <> 'stopped');
  end if;
  return true;
end
$$;

-- ----------------------------------------------------- harness sessions

-- load_ai_harness_session returns a harness session's state, or null (the
-- service role only).
create or replace function better_supabase.load_ai_harness_session(chat uuid, harness text)
returns jsonb language plpgsql stable security definer set search_path = '' as $$
declare
  h better_supabase.ai_harness_sessions;
begin
  perform better_supabase._ai_server_only('read harness sessions');
  select * into h from better_supabase.ai_harness_sessions x
  where x.chat_id = load_ai_harness_session.chat and x.harness_id = load_ai_harness_session.harness;
  if h.chat_id is null then
    return null;
  end if;
  return better_supabase._ai_harness_doc(h);
end
$$;

-- _ai_harness_row makes sure the session row exists and returns it locked,
-- after the checks both save and lock make.
create or replace function better_supabase._ai_harness_row(chat uuid, harness text)
returns better_supabase.ai_harness_sessions language plpgsql security definer set search_path = '' as $$
declare
  c better_supabase.ai_chats;
  h better_supabase.ai_harness_sessions;
begin
  select * into c from better_supabase.ai_chats x where x.id = _ai_harness_row.chat;
  if c.id is null then
    raise exception 'chat % not found', _ai_harness_row.chat using errcode = 'P0002', hint = 'AI_CHAT_NOT_FOUND';
  end if;
  insert into better_supabase.ai_harness_sessions (chat_id, harness_id, owner_id)
  values (c.id, _ai_harness_row.harness, c.owner_id)
  on conflict (chat_id, harness_id) do nothing;
  select * into h from better_supabase.ai_harness_sessions x
  where x.chat_id = c.id and x.harness_id = _ai_harness_row.harness
  for update;
  return h;
end
$$;

-- save_ai_harness_session saves what a coding-agent harness needs to pick
-- the chat up again (the service role only). fields: resume_state,
-- continue_state, status, sandbox_id (with sandbox_provider, default
-- "harness"); an absent key keeps its value. sandbox_id registers the
-- session's sandbox, null stops it. A session another holder has locked
-- is refused.
create or replace function better_supabase.save_ai_harness_session(chat uuid, harness text, fields jsonb, holder text default null)
returns jsonb language plpgsql security definer set search_path = '' as $$
#variable_conflict use_column
declare
  f jsonb := save_ai_harness_session.fields;
  new_status text := save_ai_harness_session.fields ->> 'status';
  c better_supabase.ai_chats;
  h better_supabase.ai_harness_sessions;
  n integer;
begin
  perform better_supabase._ai_server_only('save harness sessions');
  if coalesce(save_ai_harness_session.harness, '') = '' then
    raise exception 'a harness session needs a harness id' using errcode = '22023', hint = 'AI_HARNESS_INVALID';
  end if;
  if jsonb_typeof(f) is distinct from 'object'
     or (new_status is not null and new_status not in ('active', 'idle', 'stopped', 'error')) then
    raise exception 'fields must be an object, its status active, idle, stopped or error' using errcode = '22023', hint = 'AI_HARNESS_INVALID';
  end if;
  h := better_supabase._ai_harness_row(save_ai_harness_session.chat, save_ai_harness_session.harness);
  if h.locked_until > now() and h.lock_holder is distinct from save_ai_harness_session.holder then
    raise exception 'harness session % is locked by another holder', h.harness_id using errcode = '55P03', hint = 'AI_HARNESS_LOCKED';
  end if;
  update better_supabase.ai_harness_sessions x set
    resume_state = case when f ? 'resume_state' then f -> 'resume_state' else x.resume_state end,
    continue_state = case when f ? 'continue_state' then f -> 'continue_state' else x.continue_state end,
    -- Without a status, a save is a turn at work: an idle session wakes.
    status = coalesce(new_status, case when x.status = 'idle' then 'active' else x.status end),
    last_active_at = now(),
    updated_at = now()
  where x.chat_id = h.chat_id and x.harness_id = h.harness_id
  returning * into h;
  if f ? 'sandbox_id' then
    if coalesce(f ->> 'sandbox_id', '') = '' then
      update better_supabase.ai_sandboxes s set status = 'stopped', stopped_at = now(), updated_at = now()
      where s.chat_id = h.chat_id and s.harness_id = h.harness_id and s.status <> 'stopped';
    else
      select * into c from better_supabase.ai_chats x where x.id = h.chat_id;
      insert into better_supabase.ai_sandboxes as cur (organization_id, user_id, chat_id, harness_id, provider, sandbox_id)
      values (c.organization_id, c.owner_id, c.id, h.harness_id,
              coalesce(nullif(f ->> 'sandbox_provider', ''), 'harness'), f ->> 'sandbox_id')
      on conflict (provider, sandbox_id) do update set
        chat_id = excluded.chat_id,
        harness_id = excluded.harness_id,
        status = 'running',
        error = null,
        stopped_at = null,
        last_used_at = now(),
        updated_at = now()
      where cur.organization_id = excluded.organization_id;
      get diagnostics n = row_count;
      if n = 0 then
        raise exception 'sandbox % belongs to another tenant', f ->> 'sandbox_id'
          using errcode = '42501', hint = 'AI_SANDBOX_FORBIDDEN';
      end if;
    end if;
  elsif new_status is null then
    update better_supabase.ai_sandboxes s set last_used_at = now(), updated_at = now()
    where s.chat_id = h.chat_id and s.harness_id = h.harness_id and s.status = 'running';
  end if;
  return better_supabase._ai_harness_doc(h);
end
$$;

-- lock_ai_harness_session takes a harness session's lock for ttl_seconds
-- (the service role only), so that two turns never drive one sandbox:
-- true when holder holds it now (taken, renewed or expired before), false
-- while another holder does.
create or replace function better_supabase.lock_ai_harness_session(chat uuid, harness text, holder text, ttl_seconds integer default 300)
returns boolean language plpgsql security definer set search_path = '' as $$
declare
  h better_supabase.ai_harness_sessions;
begin
  perform better_supabase._ai_server_only('lock harness sessions');
  if coalesce(lock_ai_harness_session.harness, '') = '' then
    raise exception 'a harness session needs a harness id' using errcode = '22023', hint = 'AI_HARNESS_INVALID';
  end if;
  if coalesce(lock_ai_harness_session.holder, '') = ''
     or coalesce(lock_ai_harness_session.ttl_seconds, 0) not between 1 and 86400 then
    raise exception 'a lock needs a holder and a ttl of 1 to 86400 seconds' using errcode = '22023', hint = 'AI_HARNESS_INVALID';
  end if;
  h := better_supabase._ai_harness_row(lock_ai_harness_session.chat, lock_ai_harness_session.harness);
  if h.locked_until > now() and h.lock_holder is distinct from lock_ai_harness_session.holder then
    return false;
  end if;
  update better_supabase.ai_harness_sessions x set
    lock_holder = lock_ai_harness_session.holder,
    locked_until = now() + make_interval(secs => lock_ai_harness_session.ttl_seconds),
    updated_at = now()
  where x.chat_id = h.chat_id and x.harness_id = h.harness_id;
  return true;
end
$$;

-- unlock_ai_harness_session releases the lock when holder holds it (the
-- service role only).
create or replace function better_supabase.unlock_ai_harness_session(chat uuid, harness text, holder text)
returns boolean language plpgsql security definer set search_path = '' as $$
declare
  n integer;
begin
  perform better_supabase._ai_server_only('unlock harness sessions');
  update better_supabase.ai_harness_sessions x set lock_holder = null, locked_until = null, updated_at = now()
  where x.chat_id = unlock_ai_harness_session.chat and x.harness_id = unlock_ai_harness_session.harness
    and x.lock_holder = unlock_ai_harness_session.holder;
  get diagnostics n = row_count;
  return n > 0;
end
$$;

-- ------------------------------------------------------------- Realtime

-- Where Supabase Realtime runs, a chat's readers may join ai-chat:<chat>
-- and every user their own ai-chats:<user>; the events carry ids only.
do $realtime$
begin
  if pg_catalog.to_regclass('realtime.messages') is null then
    return;
  end if;
  execute 'drop policy if exists bs_ai_chat_receive on realtime.messages';
  execute $p$
    create policy bs_ai_chat_receive on realtime.messages for select to authenticated
    using (
      realtime.messages.extension = 'broadcast'
      and (select realtime.topic()) ~ '^ai-chat:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
      and better_supabase.ai_chat_can_read(substr((select realtime.topic()), 9)::uuid)
    )
  $p$;
  execute 'drop policy if exists bs_ai_chats_receive on realtime.messages';
  execute $p$
    create policy bs_ai_chats_receive on realtime.messages for select to authenticated
    using (
      realtime.messages.extension = 'broadcast'
      and (select realtime.topic()) = 'ai-chats:' || (select auth.uid())::text
    )
  $p$;
end
$realtime$;

-- ------------------------------------------------------------ functions

-- Who may call what. Everything is revoked first, from the API roles too:
-- default privileges may have granted them every new function.
do $grants$
declare
  f regprocedure;
  -- Callable by signed-in users; the functions check the caller.
  users text[] := array[
    'ai_chat_can_read(uuid)', 'create_ai_chat(uuid,jsonb)', 'update_ai_chat(uuid,jsonb)',
    'delete_ai_chat(uuid)', 'get_ai_chat(uuid)', 'list_ai_chats(uuid,text,uuid,boolean,boolean,text,integer)',
    'save_ai_project(uuid,uuid,jsonb)', 'delete_ai_project(uuid)', 'list_ai_projects(uuid)',
    'ai_message_path(uuid,text,boolean)', 'ai_message_siblings(uuid,text)', 'switch_ai_branch(uuid,text)',
    'append_ai_user_message(uuid,jsonb,text,text)', 'request_ai_chat_stop(uuid)',
    'get_ai_run(uuid)', 'list_ai_runs(uuid,boolean,integer)', 'list_ai_run_steps(uuid)',
    'decide_ai_tool_approval(text,boolean,text)', 'get_ai_tool_approvals(uuid,text[])',
    'list_pending_ai_tool_approvals(integer)', 'set_ai_tool_policy(uuid,text,text)',
    'ai_tool_policies_for(uuid)', 'answer_ai_pending_input(uuid,jsonb)',
    'rate_ai_message(uuid,text,integer,text,text)', 'share_ai_chat(uuid,text)',
    'revoke_ai_chat_share(uuid)', 'list_ai_chat_shares(uuid)', 'allowed_ai_models(uuid)',
    'list_ai_moderation_events(uuid,integer)', 'list_ai_sandboxes(uuid,uuid)'];
  -- The server's alone.
  server text[] := array[
    'ai_message_path_of(uuid,text,boolean)', 'save_ai_assistant_message(uuid,jsonb,text,text,text,text,jsonb,uuid)',
    'claim_ai_chat_stream(uuid,text,text,text,text,text)',
    'release_ai_chat_stream(uuid,text,text,jsonb,text,text,bigint)', 'purge_ai_chats(integer)',
    'attach_ai_run(uuid,text)', 'record_ai_run_step(uuid,jsonb)', 'set_ai_run_cost(text,bigint,jsonb)',
    'record_ai_tool_approval(uuid,jsonb)', 'open_ai_pending_input(uuid,jsonb)',
    'upsert_ai_models(jsonb,boolean)', 'record_ai_moderation_event(jsonb)',
    'register_ai_sandbox(uuid,text,text,jsonb)', 'touch_ai_sandbox(uuid)', 'ai_sandbox_for(uuid,text)',
    'idle_ai_sandboxes(integer,integer)', 'finish_ai_sandbox_stop(uuid,boolean,text)',
    'load_ai_harness_session(uuid,text)', 'save_ai_harness_session(uuid,text,jsonb,text)',
    'lock_ai_harness_session(uuid,text,text,integer)', 'unlock_ai_harness_session(uuid,text,text)'];
  -- Called by the functions above only.
  helpers text[] := array[
    '_ai_approval_doc', '_ai_audit', '_ai_chat_doc', '_ai_chat_notify', '_ai_harness_doc', '_ai_harness_row',
    '_ai_input_doc', '_ai_may', '_ai_model_doc', '_ai_moderation_doc', '_ai_own_chat', '_ai_project_doc',
    '_ai_run_doc', '_ai_sandbox_doc', '_ai_server_only', '_ai_step_doc'];
  name text;
begin
  for f in
    select p.oid::regprocedure from pg_catalog.pg_proc p
    join pg_catalog.pg_namespace n on n.oid = p.pronamespace
    -- This module's functions by name, not by a pattern: other modules'
    -- (ai-cache's ai_cache_get, ...) keep their own grants.
    where n.nspname = 'better_supabase'
      and p.proname = any (helpers || array['get_shared_ai_chat']
        || array(select pg_catalog.split_part(x, '(', 1) from pg_catalog.unnest(users || server) x))
  loop
    execute pg_catalog.format('revoke all on function %s from public, anon, authenticated, service_role', f);
  end loop;
  foreach name in array users loop
    execute pg_catalog.format('grant execute on function better_supabase.%s to authenticated, service_role', name);
  end loop;
  foreach name in array server loop
    execute pg_catalog.format('grant execute on function better_supabase.%s to service_role', name);
  end loop;
  -- A share link is read by whoever holds its token, signed in or not.
  execute 'grant execute on function better_supabase.get_shared_ai_chat(text) to anon, authenticated, service_role';
end
$grants$;
