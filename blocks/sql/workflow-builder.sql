-- bsadapter block: workflow-builder
-- version: 1
-- requires: workflows, access
-- mode: managed
--
-- The visual builder's store, on top of the run registry (workflows): a
-- tenant's workflow definitions, each an engine-neutral node graph in
-- numbered versions (at most one draft the editor saves, at most one
-- published version runs start from, the rest archived; a version leaves
-- draft for good, and only its compiled form may still be added), the
-- triggers that start runs (a webhook trigger's token is kept as its
-- SHA-256 only), credentials named by a credential_ref a credential
-- provider resolves (never the secret), the step library the deployment
-- syncs from code, the status of every node of a run, and alerts that
-- fire once per run when it fails or stays unfinished too long.
--
-- Who may do what (scope tenant, asked through better_supabase.can and
-- tenant_ids_with): workflow.read reads definitions and credentials, and
-- through the definitions their versions, triggers and alerts;
-- workflow.edit saves definitions, drafts and triggers and rotates webhook
-- tokens; workflow.publish publishes; workflow.run asks what a run starts
-- from; workflow.admin removes definitions and manages credentials and
-- alerts. The service role may do all of it; what has no tenant is the
-- service role's alone. Runs, node runs and tokens are written by the
-- server only.

grant usage on schema better_supabase to anon, authenticated, service_role;

-- ---------------------------------------------------------------- tables

create table if not exists better_supabase.workflow_definitions (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid,
  slug text not null check (slug ~ '^[a-z0-9][a-z0-9-]{0,99}$'),
  name text not null check (char_length(name) between 1 and 200),
  description text check (char_length(description) <= 2000),
  created_by uuid references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- One definition per slug in a tenant, and per slug among those without.
  constraint workflow_definitions_tenant_slug_key unique nulls not distinct (tenant_id, slug)
);
create index if not exists workflow_definitions_created_by_idx on better_supabase.workflow_definitions (created_by);

create table if not exists better_supabase.workflow_versions (
  id uuid primary key default gen_random_uuid(),
  definition_id uuid not null references better_supabase.workflow_definitions (id) on delete cascade,
  version integer not null check (version > 0),
  graph jsonb not null default '{"nodes": [], "edges": []}',
  compiled jsonb,
  status text not null default 'draft' check (status in ('draft', 'published', 'archived')),
  created_by uuid references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  published_at timestamptz,
  constraint workflow_versions_definition_version_key unique (definition_id, version)
);
create unique index if not exists workflow_versions_one_draft_idx
  on better_supabase.workflow_versions (definition_id) where status = 'draft';
create unique index if not exists workflow_versions_one_published_idx
  on better_supabase.workflow_versions (definition_id) where status = 'published';
create index if not exists workflow_versions_created_by_idx on better_supabase.workflow_versions (created_by);

-- Settings of schedule, event, form and chat triggers stay in config for
-- the app to bind; an event trigger listens for config.type.
create table if not exists better_supabase.workflow_triggers (
  id uuid primary key default gen_random_uuid(),
  definition_id uuid not null references better_supabase.workflow_definitions (id) on delete cascade,
  kind text not null check (kind in ('manual', 'webhook', 'schedule', 'event', 'form', 'chat')),
  config jsonb not null default '{}',
  enabled boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index if not exists workflow_triggers_definition_idx on better_supabase.workflow_triggers (definition_id);

-- A webhook trigger's live token, as its SHA-256; one per trigger.
create table if not exists better_supabase.workflow_webhook_tokens (
  token_hash bytea primary key,
  trigger_id uuid not null unique references better_supabase.workflow_triggers (id) on delete cascade,
  created_at timestamptz not null default now()
);

-- A credential's row names its secret (credential_ref, resolved by a
-- credential provider at run time) and never holds it. The reference is an
-- object with a provider: upstream's check lets a reference without one
-- through (its test is null there), which no provider could resolve.
create table if not exists better_supabase.workflow_credentials (
  id uuid primary key default gen_random_uuid(),
  tenant_id uuid,
  kind text not null check (char_length(kind) between 1 and 100),
  name text not null check (char_length(name) between 1 and 200),
  credential_ref jsonb not null
    constraint workflow_credentials_credential_ref_check
    check (coalesce(jsonb_typeof(credential_ref -> 'provider') = 'string', false)),
  scopes text[] not null default '{}',
  created_by uuid references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  constraint workflow_credentials_tenant_name_key unique nulls not distinct (tenant_id, name)
);
create index if not exists workflow_credentials_created_by_idx on better_supabase.workflow_credentials (created_by);

-- The palette: the steps the deployment provides, which a published
-- graph's step nodes must name.
create table if not exists better_supabase.workflow_step_library (
  name text primary key check (name ~ '^[A-Za-z][A-Za-z0-9_.-]{0,99}$'),
  title text not null check (char_length(title) between 1 and 200),
  description text,
  input_schema jsonb not null default '{}',
  output_schema jsonb not null default '{}',
  credential_kind text,
  updated_at timestamptz not null default now()
);

-- Each node's latest status in a run, as the engine reports it.
create table if not exists better_supabase.workflow_node_runs (
  run_id uuid not null references better_supabase.workflow_runs (id) on delete cascade,
  node_id text not null check (char_length(node_id) between 1 and 100),
  status text not null check (status in ('running', 'waiting', 'completed', 'failed', 'skipped')),
  attempts integer not null default 0,
  output jsonb,
  error text,
  started_at timestamptz,
  ended_at timestamptz,
  primary key (run_id, node_id)
);

-- A failed alert fires when a run of its definition fails; a slow one when
-- such a run is still unfinished threshold after it was created. A slow
-- alert needs a positive threshold: upstream's check passes a missing one
-- (its test is null there), and such an alert could never fire.
create table if not exists better_supabase.workflow_alerts (
  id uuid primary key default gen_random_uuid(),
  definition_id uuid not null references better_supabase.workflow_definitions (id) on delete cascade,
  on_event text not null check (on_event in ('failed', 'slow')),
  threshold interval,
  channel jsonb not null default '{}',
  created_by uuid references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  constraint workflow_alerts_threshold_check
    check (on_event <> 'slow' or coalesce(threshold > interval '0', false))
);
create index if not exists workflow_alerts_definition_idx on better_supabase.workflow_alerts (definition_id);
create index if not exists workflow_alerts_created_by_idx on better_supabase.workflow_alerts (created_by);

-- One row per alert and run it fired for: an alert fires once per run.
create table if not exists better_supabase.workflow_alert_fires (
  alert_id uuid not null references better_supabase.workflow_alerts (id) on delete cascade,
  run_id uuid not null references better_supabase.workflow_runs (id) on delete cascade,
  fired_at timestamptz not null default now(),
  primary key (alert_id, run_id)
);
create index if not exists workflow_alert_fires_run_idx on better_supabase.workflow_alert_fires (run_id);

-- ------------------------------------------------- rights on the tables

alter table better_supabase.workflow_definitions enable row level security;
alter table better_supabase.workflow_versions enable row level security;
alter table better_supabase.workflow_triggers enable row level security;
alter table better_supabase.workflow_webhook_tokens enable row level security;
alter table better_supabase.workflow_credentials enable row level security;
alter table better_supabase.workflow_step_library enable row level security;
alter table better_supabase.workflow_node_runs enable row level security;
alter table better_supabase.workflow_alerts enable row level security;
alter table better_supabase.workflow_alert_fires enable row level security;

-- Only these grants count: default privileges may have granted more.
-- Signed-in users read what row-level security shows them and write only
-- through the functions; tokens and fires are the server's alone.
revoke all on table
  better_supabase.workflow_definitions, better_supabase.workflow_versions, better_supabase.workflow_triggers,
  better_supabase.workflow_webhook_tokens, better_supabase.workflow_credentials, better_supabase.workflow_step_library,
  better_supabase.workflow_node_runs, better_supabase.workflow_alerts, better_supabase.workflow_alert_fires
  from anon, authenticated, service_role;
grant select on table
  better_supabase.workflow_definitions, better_supabase.workflow_versions, better_supabase.workflow_triggers,
  better_supabase.workflow_credentials, better_supabase.workflow_step_library, better_supabase.workflow_node_runs,
  better_supabase.workflow_alerts
  to authenticated;
grant all on table
  better_supabase.workflow_definitions, better_supabase.workflow_versions, better_supabase.workflow_triggers,
  better_supabase.workflow_webhook_tokens, better_supabase.workflow_credentials, better_supabase.workflow_step_library,
  better_supabase.workflow_node_runs, better_supabase.workflow_alerts, better_supabase.workflow_alert_fires
  to service_role;

do $policies$
declare
  t text;
begin
  -- The service role reaches every row, also where it was created without
  -- BYPASSRLS (the installing role was not a superuser).
  foreach t in array array['workflow_definitions', 'workflow_versions', 'workflow_triggers', 'workflow_webhook_tokens',
                           'workflow_credentials', 'workflow_step_library', 'workflow_node_runs', 'workflow_alerts',
                           'workflow_alert_fires'] loop
    if not exists (select from pg_catalog.pg_policies where schemaname = 'better_supabase' and tablename = t
                   and policyname = t || '_service_all') then
      execute pg_catalog.format('create policy %I on better_supabase.%I for all to service_role using (true) with check (true)',
                                t || '_service_all', t);
    end if;
  end loop;

  -- Definitions and credentials by the tenant's workflow.read; versions,
  -- triggers and alerts through the definitions the reader sees; node runs
  -- through the runs the reader sees (the run's actor, or workflow.read in
  -- its tenant); the step library for everyone signed in.
  drop policy if exists workflow_definitions_read on better_supabase.workflow_definitions;
  create policy workflow_definitions_read on better_supabase.workflow_definitions for select to authenticated
    using (tenant_id in (select better_supabase.tenant_ids_with('workflow.read')));
  drop policy if exists workflow_credentials_read on better_supabase.workflow_credentials;
  create policy workflow_credentials_read on better_supabase.workflow_credentials for select to authenticated
    using (tenant_id in (select better_supabase.tenant_ids_with('workflow.read')));
  drop policy if exists workflow_versions_read on better_supabase.workflow_versions;
  create policy workflow_versions_read on better_supabase.workflow_versions for select to authenticated
    using (definition_id in (select d.id from better_supabase.workflow_definitions d));
  drop policy if exists workflow_triggers_read on better_supabase.workflow_triggers;
  create policy workflow_triggers_read on better_supabase.workflow_triggers for select to authenticated
    using (definition_id in (select d.id from better_supabase.workflow_definitions d));
  drop policy if exists workflow_alerts_read on better_supabase.workflow_alerts;
  create policy workflow_alerts_read on better_supabase.workflow_alerts for select to authenticated
    using (definition_id in (select d.id from better_supabase.workflow_definitions d));
  drop policy if exists workflow_node_runs_read on better_supabase.workflow_node_runs;
  create policy workflow_node_runs_read on better_supabase.workflow_node_runs for select to authenticated
    using (run_id in (select r.id from better_supabase.workflow_runs r));
  drop policy if exists workflow_step_library_read on better_supabase.workflow_step_library;
  create policy workflow_step_library_read on better_supabase.workflow_step_library for select to authenticated
    using (true);
end
$policies$;

-- --------------------------------------------------------------- helpers

-- _workflow_token_hash is what a webhook token is kept as: its SHA-256
-- (the same bytes as pgcrypto's digest(token, 'sha256')).
create or replace function better_supabase._workflow_token_hash(token text)
returns bytea language sql stable set search_path = '' as $$
  select pg_catalog.sha256(pg_catalog.convert_to(token, pg_catalog.getdatabaseencoding()))
$$;

-- _workflow_new_token makes a webhook token: wfh_ and 24 random bytes in
-- hex, from pgcrypto. pgcrypto is used where the database has it (Supabase
-- keeps it in schema extensions); a database without it gets it in schema
-- extensions, as upstream creates it.
do $crypto$
declare
  crypto text;
begin
  select n.nspname into crypto
  from pg_catalog.pg_extension e join pg_catalog.pg_namespace n on n.oid = e.extnamespace
  where e.extname = 'pgcrypto';
  if crypto is null then
    if pg_catalog.to_regnamespace('extensions') is null then
      create schema extensions;
      grant usage on schema extensions to anon, authenticated, service_role;
    end if;
    create extension pgcrypto with schema extensions;
    crypto := 'extensions';
  end if;
  execute pg_catalog.format($fn$
    create or replace function better_supabase._workflow_new_token()
    returns text language sql volatile set search_path = '' as $body$
      select 'wfh_' || pg_catalog.encode(%I.gen_random_bytes(24), 'hex')
    $body$
  $fn$, crypto);
end
$crypto$;

-- _workflow_builder_may: may the caller act on what belongs to tenant
-- with permission? The service role may; a member needs the permission
-- there. Nothing without a tenant belongs to a member.
create or replace function better_supabase._workflow_builder_may(tenant uuid, permission text)
returns boolean language sql stable security definer set search_path = '' as $$
  select better_supabase._caller_is_service()
      or (tenant is not null and coalesce(better_supabase.can('tenant', tenant, permission), false))
$$;

-- The public shapes, with camelCase keys, for the definer functions (the
-- readers, which run with the caller's rights, build the same shapes
-- themselves: no API role executes a helper).
create or replace function better_supabase._workflow_definition_json(d better_supabase.workflow_definitions)
returns jsonb language sql immutable set search_path = '' as $$
  select jsonb_build_object(
    'id', d.id, 'tenant', d.tenant_id, 'slug', d.slug, 'name', d.name, 'description', d.description,
    'createdBy', d.created_by, 'createdAt', d.created_at, 'updatedAt', d.updated_at)
$$;

-- A version in a list leaves out its graph and compiled form.
create or replace function better_supabase._workflow_version_json(v better_supabase.workflow_versions, whole boolean default true)
returns jsonb language sql immutable set search_path = '' as $$
  select jsonb_build_object(
    'id', v.id, 'definition', v.definition_id, 'version', v.version, 'status', v.status,
    'createdBy', v.created_by, 'createdAt', v.created_at, 'publishedAt', v.published_at)
    || case when whole then jsonb_build_object('graph', v.graph, 'compiled', v.compiled) else '{}'::jsonb end
$$;

create or replace function better_supabase._workflow_trigger_json(t better_supabase.workflow_triggers)
returns jsonb language sql immutable set search_path = '' as $$
  select jsonb_build_object(
    'id', t.id, 'definition', t.definition_id, 'kind', t.kind, 'config', t.config, 'enabled', t.enabled,
    'createdAt', t.created_at, 'updatedAt', t.updated_at)
$$;

create or replace function better_supabase._workflow_credential_json(c better_supabase.workflow_credentials)
returns jsonb language sql immutable set search_path = '' as $$
  select jsonb_build_object(
    'id', c.id, 'tenant', c.tenant_id, 'kind', c.kind, 'name', c.name, 'ref', c.credential_ref,
    'scopes', to_jsonb(c.scopes), 'createdBy', c.created_by, 'createdAt', c.created_at)
$$;

-- An alert's threshold is given in seconds.
create or replace function better_supabase._workflow_alert_json(a better_supabase.workflow_alerts)
returns jsonb language sql immutable set search_path = '' as $$
  select jsonb_build_object(
    'id', a.id, 'definition', a.definition_id, 'onEvent', a.on_event,
    'threshold', extract(epoch from a.threshold), 'channel', a.channel,
    'createdBy', a.created_by, 'createdAt', a.created_at)
$$;

-- _workflow_run_named: the run a run reference names, as workflow_run_get
-- reads it: the run with that registry id, else the newest run with that
-- external id (the World's run id, an engine's own id). Upstream's node
-- functions leave runs that share an external id unordered, and its list
-- shows the nodes of every run the reference matches; here recording and
-- listing both mean this one run.
create or replace function better_supabase._workflow_run_named(run text)
returns uuid language sql stable set search_path = '' as $$
  select r.id from better_supabase.workflow_runs r
  where r.id::text = run or r.external_id = run
  order by r.id::text = run desc, r.created_at desc, r.id desc
  limit 1
$$;

-- ---------------------------------------------------------------- graphs

-- The reasons a graph may not be published, in order: each node's (by node
-- order), then the trigger count, then each edge's; [] when it may be. A
-- graph is an object with a nodes array and an edges array (a missing
-- edges is none). Node configs and edge branches are not looked at.
create or replace function better_supabase.validate_workflow_graph(graph jsonb)
returns jsonb language plpgsql stable set search_path = '' as $$
declare
  nodes jsonb := coalesce(validate_workflow_graph.graph -> 'nodes', 'null'::jsonb);
  edges jsonb := coalesce(validate_workflow_graph.graph -> 'edges', '[]'::jsonb);
  problems text[] := '{}';
  seen text[] := '{}';
  triggers integer := 0;
  item jsonb;
  node_id text;
  node_kind text;
begin
  if jsonb_typeof(nodes) is distinct from 'array' or jsonb_typeof(edges) is distinct from 'array' then
    return jsonb_build_array('A graph has a nodes array and an edges array');
  end if;
  for item in select e.value from jsonb_array_elements(nodes) e loop
    node_id := case when jsonb_typeof(item -> 'id') = 'string' then item ->> 'id' end;
    if node_id is null or node_id !~ '^[A-Za-z0-9_-]{1,100}$' then
      problems := problems || 'Every node has an id of 1 to 100 letters, digits, underscores or hyphens'::text;
      continue;
    end if;
    if node_id = any (seen) then
      problems := problems || pg_catalog.format('Node %s appears twice', node_id);
    end if;
    seen := seen || node_id;
    node_kind := item ->> 'kind';
    case
      when node_kind is null or node_kind not in ('trigger', 'step', 'sleep', 'approval', 'condition') then
        problems := problems || pg_catalog.format('Node %s has an unknown kind', node_id);
      when node_kind = 'trigger' then
        triggers := triggers + 1;
      when node_kind = 'step' and not exists (
        select from better_supabase.workflow_step_library s where s.name = item ->> 'step') then
        problems := problems || pg_catalog.format('Node %s uses step %s, which is not in the step library',
                                                  node_id, coalesce(item ->> 'step', 'null'));
      else
        null;
    end case;
  end loop;
  if triggers <> 1 then
    problems := problems || 'A graph has exactly one trigger node'::text;
  end if;
  for item in select e.value from jsonb_array_elements(edges) e loop
    if not coalesce((item ->> 'source') = any (seen), false) or not coalesce((item ->> 'target') = any (seen), false) then
      problems := problems || pg_catalog.format('Edge %s joins a node that does not exist', coalesce(item ->> 'id', '?'));
    end if;
  end loop;
  return to_jsonb(problems);
end
$$;

-- ----------------------------------------------------------- definitions

-- Creates the tenant's definition with slug, or renames the existing one
-- (name and description replaced, creator kept).
create or replace function better_supabase.save_workflow_definition(
  tenant uuid,
  slug text,
  name text,
  description text default null
) returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  d better_supabase.workflow_definitions;
begin
  if not better_supabase._workflow_builder_may(save_workflow_definition.tenant, 'workflow.edit') then
    raise exception 'you may not edit workflows in this tenant'
      using errcode = '42501', hint = 'WORKFLOW_FORBIDDEN';
  end if;
  insert into better_supabase.workflow_definitions as w (tenant_id, slug, name, description, created_by)
  values (save_workflow_definition.tenant, save_workflow_definition.slug, save_workflow_definition.name,
          save_workflow_definition.description, (select auth.uid()))
  on conflict on constraint workflow_definitions_tenant_slug_key do update set
    name = excluded.name,
    description = excluded.description,
    updated_at = now()
  returning * into d;
  return better_supabase._workflow_definition_json(d);
end
$$;

-- The definitions the caller reads (of tenant, when given), by name, each
-- with the number of its published version and whether it has a draft.
create or replace function better_supabase.workflow_definitions_list(tenant uuid default null)
returns jsonb language sql stable security invoker set search_path = '' as $$
  select coalesce(jsonb_agg(
           jsonb_build_object(
             'id', d.id, 'tenant', d.tenant_id, 'slug', d.slug, 'name', d.name, 'description', d.description,
             'createdBy', d.created_by, 'createdAt', d.created_at, 'updatedAt', d.updated_at) || jsonb_build_object(
             'published', (select v.version from better_supabase.workflow_versions v
                           where v.definition_id = d.id and v.status = 'published'),
             'draft', exists (select from better_supabase.workflow_versions v
                              where v.definition_id = d.id and v.status = 'draft'))
           order by d.name, d.id), '[]'::jsonb)
  from better_supabase.workflow_definitions d
  where workflow_definitions_list.tenant is null or d.tenant_id = workflow_definitions_list.tenant
$$;

create or replace function better_supabase.workflow_definition_get(definition uuid)
returns jsonb language sql stable security invoker set search_path = '' as $$
  select jsonb_build_object(
           'id', d.id, 'tenant', d.tenant_id, 'slug', d.slug, 'name', d.name, 'description', d.description,
           'createdBy', d.created_by, 'createdAt', d.created_at, 'updatedAt', d.updated_at)
  from better_supabase.workflow_definitions d
  where d.id = workflow_definition_get.definition
$$;

-- Removes a definition with its versions, triggers and alerts; its runs
-- stay. False when there is no such definition the caller may remove.
create or replace function better_supabase.remove_workflow_definition(definition uuid)
returns boolean language plpgsql security definer set search_path = '' as $$
begin
  delete from better_supabase.workflow_definitions d
  where d.id = remove_workflow_definition.definition
    and better_supabase._workflow_builder_may(d.tenant_id, 'workflow.admin');
  return found;
end
$$;

-- -------------------------------------------------------------- versions

-- Saves graph as the definition's draft: into the draft there is, or a new
-- one numbered after the highest version. Drafts are not validated.
create or replace function better_supabase.save_workflow_draft(definition uuid, graph jsonb)
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  owner_tenant uuid;
  v better_supabase.workflow_versions;
begin
  -- Locked, so that two first saves cannot both open a draft.
  select d.tenant_id into owner_tenant from better_supabase.workflow_definitions d
  where d.id = save_workflow_draft.definition
  for update;
  if not found then
    raise exception 'workflow % does not exist', save_workflow_draft.definition
      using errcode = 'P0002', hint = 'WORKFLOW_NOT_FOUND';
  end if;
  if not better_supabase._workflow_builder_may(owner_tenant, 'workflow.edit') then
    raise exception 'you may not edit this workflow'
      using errcode = '42501', hint = 'WORKFLOW_FORBIDDEN';
  end if;
  -- A SQL null is left to the column's not-null check.
  if jsonb_typeof(save_workflow_draft.graph) <> 'object' then
    raise exception 'a workflow graph is a JSON object'
      using errcode = '22023', hint = 'WORKFLOW_GRAPH_INVALID';
  end if;
  update better_supabase.workflow_versions w
  set graph = save_workflow_draft.graph, compiled = null
  where w.definition_id = save_workflow_draft.definition and w.status = 'draft'
  returning * into v;
  if not found then
    insert into better_supabase.workflow_versions (definition_id, version, graph, created_by)
    select save_workflow_draft.definition, coalesce(max(w.version), 0) + 1, save_workflow_draft.graph, (select auth.uid())
    from better_supabase.workflow_versions w
    where w.definition_id = save_workflow_draft.definition
    returning * into v;
  end if;
  update better_supabase.workflow_definitions d set updated_at = now() where d.id = save_workflow_draft.definition;
  return better_supabase._workflow_version_json(v);
end
$$;

-- Publishes a version (a draft, or an archived one rolled back to): its
-- graph must validate, the version published before is archived, and the
-- compiled form given is stored (none given clears it). A version that is
-- published already comes back as it is, unvalidated, with compiled
-- stored when given. Only the service role stores a compiled form.
create or replace function better_supabase.publish_workflow_version(version uuid, compiled jsonb default null)
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  v better_supabase.workflow_versions;
  owner_tenant uuid;
  problems jsonb;
begin
  select * into v from better_supabase.workflow_versions w
  where w.id = publish_workflow_version.version
  for update;
  if not found then
    raise exception 'workflow version % does not exist', publish_workflow_version.version
      using errcode = 'P0002', hint = 'WORKFLOW_NOT_FOUND';
  end if;
  select d.tenant_id into owner_tenant from better_supabase.workflow_definitions d where d.id = v.definition_id;
  if not better_supabase._workflow_builder_may(owner_tenant, 'workflow.publish') then
    raise exception 'you may not publish this workflow'
      using errcode = '42501', hint = 'WORKFLOW_FORBIDDEN';
  end if;
  if publish_workflow_version.compiled is not null and not better_supabase._caller_is_service() then
    raise exception 'only the server stores the compiled form of a workflow'
      using errcode = '42501', hint = 'WORKFLOW_COMPILED_FORBIDDEN';
  end if;

  if v.status = 'published' then
    if publish_workflow_version.compiled is not null then
      update better_supabase.workflow_versions w set compiled = publish_workflow_version.compiled
      where w.id = v.id
      returning * into v;
    end if;
    return better_supabase._workflow_version_json(v);
  end if;

  problems := better_supabase.validate_workflow_graph(v.graph);
  if jsonb_array_length(problems) > 0 then
    raise exception 'the workflow graph may not be published: %',
        (select string_agg(p, '; ') from jsonb_array_elements_text(problems) p)
      using errcode = '22023', hint = 'WORKFLOW_GRAPH_INVALID';
  end if;
  update better_supabase.workflow_versions w set status = 'archived'
  where w.definition_id = v.definition_id and w.status = 'published';
  update better_supabase.workflow_versions w
  set status = 'published', compiled = publish_workflow_version.compiled, published_at = now()
  where w.id = v.id
  returning * into v;
  perform better_supabase.audit_event(
    event_type => 'workflow.published',
    category => 'configuration',
    target_type => 'workflow_version',
    record_id => v.id::text,
    tenant => owner_tenant,
    metadata => jsonb_build_object('organizationId', owner_tenant::text, 'definitionId', v.definition_id,
                                   'versionId', v.id, 'version', v.version),
    idempotency_key => 'workflow.published:' || v.id::text);
  return better_supabase._workflow_version_json(v);
end
$$;

-- A definition's versions the caller reads, newest first, without graphs.
create or replace function better_supabase.workflow_versions_list(definition uuid)
returns jsonb language sql stable security invoker set search_path = '' as $$
  select coalesce(jsonb_agg(jsonb_build_object(
           'id', v.id, 'definition', v.definition_id, 'version', v.version, 'status', v.status,
           'createdBy', v.created_by, 'createdAt', v.created_at, 'publishedAt', v.published_at)
           order by v.version desc), '[]'::jsonb)
  from better_supabase.workflow_versions v
  where v.definition_id = workflow_versions_list.definition
$$;

create or replace function better_supabase.workflow_version_get(version uuid)
returns jsonb language sql stable security invoker set search_path = '' as $$
  select jsonb_build_object(
           'id', v.id, 'definition', v.definition_id, 'version', v.version, 'status', v.status,
           'createdBy', v.created_by, 'createdAt', v.created_at, 'publishedAt', v.published_at,
           'graph', v.graph, 'compiled', v.compiled)
  from better_supabase.workflow_versions v
  where v.id = workflow_version_get.version
$$;

-- What a run of the definition starts from: {definition, version}, the
-- published version whole.
create or replace function better_supabase.workflow_start_target(definition uuid)
returns jsonb language plpgsql stable security definer set search_path = '' as $$
declare
  d better_supabase.workflow_definitions;
  v better_supabase.workflow_versions;
begin
  select * into d from better_supabase.workflow_definitions x where x.id = workflow_start_target.definition;
  if not found then
    raise exception 'workflow % does not exist', workflow_start_target.definition
      using errcode = 'P0002', hint = 'WORKFLOW_NOT_FOUND';
  end if;
  if not better_supabase._workflow_builder_may(d.tenant_id, 'workflow.run') then
    raise exception 'you may not run this workflow'
      using errcode = '42501', hint = 'WORKFLOW_FORBIDDEN';
  end if;
  select * into v from better_supabase.workflow_versions x
  where x.definition_id = d.id and x.status = 'published';
  if not found then
    raise exception 'workflow % has no published version', d.id
      using errcode = 'P0002', hint = 'WORKFLOW_NOT_PUBLISHED';
  end if;
  return jsonb_build_object('definition', better_supabase._workflow_definition_json(d),
                            'version', better_supabase._workflow_version_json(v));
end
$$;

-- -------------------------------------------------------------- triggers

-- Creates a trigger, or (trigger given) replaces the kind, config and
-- enabled of the definition's trigger; null config and enabled mean {}
-- and true. A trigger that stops being a webhook loses its token.
create or replace function better_supabase.save_workflow_trigger(
  definition uuid,
  kind text,
  config jsonb default '{}',
  enabled boolean default true,
  trigger uuid default null
) returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  owner_tenant uuid;
  t better_supabase.workflow_triggers;
begin
  select d.tenant_id into owner_tenant from better_supabase.workflow_definitions d
  where d.id = save_workflow_trigger.definition;
  if not found then
    raise exception 'workflow % does not exist', save_workflow_trigger.definition
      using errcode = 'P0002', hint = 'WORKFLOW_NOT_FOUND';
  end if;
  if not better_supabase._workflow_builder_may(owner_tenant, 'workflow.edit') then
    raise exception 'you may not edit this workflow'
      using errcode = '42501', hint = 'WORKFLOW_FORBIDDEN';
  end if;
  if save_workflow_trigger.trigger is null then
    insert into better_supabase.workflow_triggers (definition_id, kind, config, enabled)
    values (save_workflow_trigger.definition, save_workflow_trigger.kind,
            coalesce(save_workflow_trigger.config, '{}'::jsonb), coalesce(save_workflow_trigger.enabled, true))
    returning * into t;
    return better_supabase._workflow_trigger_json(t);
  end if;
  update better_supabase.workflow_triggers x set
    kind = save_workflow_trigger.kind,
    config = coalesce(save_workflow_trigger.config, '{}'::jsonb),
    enabled = coalesce(save_workflow_trigger.enabled, true),
    updated_at = now()
  where x.id = save_workflow_trigger.trigger and x.definition_id = save_workflow_trigger.definition
  returning * into t;
  if not found then
    raise exception 'workflow % has no trigger %', save_workflow_trigger.definition, save_workflow_trigger.trigger
      using errcode = 'P0002', hint = 'WORKFLOW_NOT_FOUND';
  end if;
  if t.kind <> 'webhook' then
    delete from better_supabase.workflow_webhook_tokens k where k.trigger_id = t.id;
  end if;
  return better_supabase._workflow_trigger_json(t);
end
$$;

-- A definition's triggers the caller reads, in the order they were made.
create or replace function better_supabase.workflow_triggers_list(definition uuid)
returns jsonb language sql stable security invoker set search_path = '' as $$
  select coalesce(jsonb_agg(jsonb_build_object(
           'id', t.id, 'definition', t.definition_id, 'kind', t.kind, 'config', t.config, 'enabled', t.enabled,
           'createdAt', t.created_at, 'updatedAt', t.updated_at)
           order by t.created_at, t.id), '[]'::jsonb)
  from better_supabase.workflow_triggers t
  where t.definition_id = workflow_triggers_list.definition
$$;

create or replace function better_supabase.remove_workflow_trigger(trigger uuid)
returns boolean language plpgsql security definer set search_path = '' as $$
begin
  delete from better_supabase.workflow_triggers t
  using better_supabase.workflow_definitions d
  where t.id = remove_workflow_trigger.trigger and d.id = t.definition_id
    and better_supabase._workflow_builder_may(d.tenant_id, 'workflow.edit');
  return found;
end
$$;

-- Gives a webhook trigger a new token and returns it, once: only its hash
-- is kept, and the token before it stops working.
create or replace function better_supabase.rotate_workflow_webhook_token(trigger uuid)
returns text language plpgsql security definer set search_path = '' as $$
declare
  owner_tenant uuid;
  trigger_kind text;
  token text;
begin
  select d.tenant_id, t.kind into owner_tenant, trigger_kind
  from better_supabase.workflow_triggers t
  join better_supabase.workflow_definitions d on d.id = t.definition_id
  where t.id = rotate_workflow_webhook_token.trigger;
  if not found then
    raise exception 'workflow trigger % does not exist', rotate_workflow_webhook_token.trigger
      using errcode = 'P0002', hint = 'WORKFLOW_NOT_FOUND';
  end if;
  if not better_supabase._workflow_builder_may(owner_tenant, 'workflow.edit') then
    raise exception 'you may not edit this workflow'
      using errcode = '42501', hint = 'WORKFLOW_FORBIDDEN';
  end if;
  if trigger_kind <> 'webhook' then
    raise exception 'a % trigger has no webhook token', trigger_kind
      using errcode = '22023', hint = 'WORKFLOW_TRIGGER_KIND';
  end if;
  token := better_supabase._workflow_new_token();
  delete from better_supabase.workflow_webhook_tokens k where k.trigger_id = rotate_workflow_webhook_token.trigger;
  insert into better_supabase.workflow_webhook_tokens (token_hash, trigger_id)
  values (better_supabase._workflow_token_hash(token), rotate_workflow_webhook_token.trigger);
  return token;
end
$$;

-- The enabled trigger a webhook token belongs to, {trigger, tenant}; null
-- for a token that is unknown, replaced, or whose trigger is disabled.
create or replace function better_supabase.workflow_webhook_target(token text)
returns jsonb language sql stable security invoker set search_path = '' as $$
  select jsonb_build_object('trigger', jsonb_build_object(
           'id', t.id, 'definition', t.definition_id, 'kind', t.kind, 'config', t.config, 'enabled', t.enabled,
           'createdAt', t.created_at, 'updatedAt', t.updated_at), 'tenant', d.tenant_id)
  from better_supabase.workflow_webhook_tokens k
  join better_supabase.workflow_triggers t on t.id = k.trigger_id
  join better_supabase.workflow_definitions d on d.id = t.definition_id
  -- The hash as _workflow_token_hash makes it.
  where k.token_hash = pg_catalog.sha256(pg_catalog.convert_to(workflow_webhook_target.token, pg_catalog.getdatabaseencoding()))
    and t.enabled
$$;

-- The enabled event triggers listening for type among the definitions of
-- tenant (null: those without a tenant), each {trigger, tenant}, in the
-- order they were made.
create or replace function better_supabase.workflow_event_targets(type text, tenant uuid default null)
returns jsonb language sql stable security invoker set search_path = '' as $$
  select coalesce(jsonb_agg(jsonb_build_object('trigger', jsonb_build_object(
           'id', t.id, 'definition', t.definition_id, 'kind', t.kind, 'config', t.config, 'enabled', t.enabled,
           'createdAt', t.created_at, 'updatedAt', t.updated_at), 'tenant', d.tenant_id)
           order by t.created_at, t.id), '[]'::jsonb)
  from better_supabase.workflow_triggers t
  join better_supabase.workflow_definitions d on d.id = t.definition_id
  where t.kind = 'event' and t.enabled
    and t.config ->> 'type' = workflow_event_targets.type
    and d.tenant_id is not distinct from workflow_event_targets.tenant
$$;

-- ----------------------------------------------------------- credentials

-- Creates the tenant's credential name, or replaces its kind, reference
-- and scopes (creator kept). A member's reference must carry the tenant
-- it belongs to (ref.tenant), so that it cannot name another tenant's
-- secret.
create or replace function better_supabase.save_workflow_credential(
  tenant uuid,
  kind text,
  name text,
  ref jsonb,
  scopes text[] default '{}'
) returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  c better_supabase.workflow_credentials;
begin
  if not better_supabase._workflow_builder_may(save_workflow_credential.tenant, 'workflow.admin') then
    raise exception 'you may not manage workflow credentials in this tenant'
      using errcode = '42501', hint = 'WORKFLOW_FORBIDDEN';
  end if;
  -- A null reference is left to the column's not-null check.
  if not better_supabase._caller_is_service()
     and jsonb_typeof(save_workflow_credential.ref) is distinct from 'null'
     and save_workflow_credential.ref is not null
     and (jsonb_typeof(save_workflow_credential.ref -> 'tenant') is distinct from 'string'
          or (save_workflow_credential.ref ->> 'tenant') is distinct from save_workflow_credential.tenant::text) then
    raise exception 'a credential_ref of tenant % must name that tenant', save_workflow_credential.tenant
      using errcode = '42501', hint = 'CREDENTIAL_REF_FOREIGN';
  end if;
  insert into better_supabase.workflow_credentials as x (tenant_id, kind, name, credential_ref, scopes, created_by)
  values (save_workflow_credential.tenant, save_workflow_credential.kind, save_workflow_credential.name,
          save_workflow_credential.ref, coalesce(save_workflow_credential.scopes, '{}'), (select auth.uid()))
  on conflict on constraint workflow_credentials_tenant_name_key do update set
    kind = excluded.kind,
    credential_ref = excluded.credential_ref,
    scopes = excluded.scopes
  returning * into c;
  return better_supabase._workflow_credential_json(c);
end
$$;

-- The credentials the caller reads (of tenant, when given), by name.
create or replace function better_supabase.workflow_credentials_list(tenant uuid default null)
returns jsonb language sql stable security invoker set search_path = '' as $$
  select coalesce(jsonb_agg(jsonb_build_object(
           'id', c.id, 'tenant', c.tenant_id, 'kind', c.kind, 'name', c.name, 'ref', c.credential_ref,
           'scopes', to_jsonb(c.scopes), 'createdBy', c.created_by, 'createdAt', c.created_at)
           order by c.name, c.id), '[]'::jsonb)
  from better_supabase.workflow_credentials c
  where workflow_credentials_list.tenant is null or c.tenant_id = workflow_credentials_list.tenant
$$;

-- One credential with its reference, for the step that resolves it.
create or replace function better_supabase.workflow_credential_get(credential uuid)
returns jsonb language sql stable security invoker set search_path = '' as $$
  select jsonb_build_object(
           'id', c.id, 'tenant', c.tenant_id, 'kind', c.kind, 'name', c.name, 'ref', c.credential_ref,
           'scopes', to_jsonb(c.scopes), 'createdBy', c.created_by, 'createdAt', c.created_at)
  from better_supabase.workflow_credentials c
  where c.id = workflow_credential_get.credential
$$;

-- Removes a credential and returns it, so that the caller can revoke the
-- secret its reference names; null when there is none the caller may
-- remove.
create or replace function better_supabase.remove_workflow_credential(credential uuid)
returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  c better_supabase.workflow_credentials;
begin
  delete from better_supabase.workflow_credentials x
  where x.id = remove_workflow_credential.credential
    and better_supabase._workflow_builder_may(x.tenant_id, 'workflow.admin')
  returning * into c;
  if not found then
    return null;
  end if;
  return better_supabase._workflow_credential_json(c);
end
$$;

-- ---------------------------------------------------------- step library

-- Makes the library exactly steps, an object keyed by step name ({title,
-- description, inputSchema, outputSchema, credentialKind}; the title
-- defaults to the name, the schemas to {}); returns how many steps it
-- holds. A refused sync changes nothing.
create or replace function better_supabase.sync_workflow_steps(steps jsonb)
returns integer language plpgsql security invoker set search_path = '' as $$
declare
  given jsonb := coalesce(sync_workflow_steps.steps, '{}'::jsonb);
  n integer;
begin
  insert into better_supabase.workflow_step_library as s
    (name, title, description, input_schema, output_schema, credential_kind)
  select e.key, coalesce(e.value ->> 'title', e.key), e.value ->> 'description',
         coalesce(e.value -> 'inputSchema', '{}'::jsonb), coalesce(e.value -> 'outputSchema', '{}'::jsonb),
         e.value ->> 'credentialKind'
  from jsonb_each(given) e
  on conflict (name) do update set
    title = excluded.title,
    description = excluded.description,
    input_schema = excluded.input_schema,
    output_schema = excluded.output_schema,
    credential_kind = excluded.credential_kind,
    updated_at = now();
  delete from better_supabase.workflow_step_library s
  where not (given ? s.name);
  select count(*)::integer into n from better_supabase.workflow_step_library;
  return n;
end
$$;

create or replace function better_supabase.workflow_steps_list()
returns jsonb language sql stable security invoker set search_path = '' as $$
  select coalesce(jsonb_agg(jsonb_build_object(
           'name', s.name, 'title', s.title, 'description', s.description,
           'inputSchema', s.input_schema, 'outputSchema', s.output_schema,
           'credentialKind', s.credential_kind, 'updatedAt', s.updated_at)
           order by s.name), '[]'::jsonb)
  from better_supabase.workflow_step_library s
$$;

-- ------------------------------------------------------------- node runs

-- Records a node's status in a run (named by its registry id or its
-- engine's id); false when there is no such run. attempts keeps the
-- highest attempt reported, output the last one given, error the last
-- report's (cut to 4000 characters); startedAt is the first report's, and
-- endedAt is set by completed, failed and skipped and cleared by running
-- and waiting. Where Supabase Realtime is there, the run's topic gets a
-- ping.
create or replace function better_supabase.record_workflow_node_run(
  run text,
  node text,
  status text,
  attempt integer default null,
  output jsonb default null,
  error text default null
) returns boolean language plpgsql security definer set search_path = '' as $$
declare
  the_run uuid := better_supabase._workflow_run_named(record_workflow_node_run.run);
  ended timestamptz := case when record_workflow_node_run.status in ('completed', 'failed', 'skipped') then now() end;
begin
  if the_run is null then
    return false;
  end if;
  insert into better_supabase.workflow_node_runs as n (run_id, node_id, status, attempts, output, error, started_at, ended_at)
  values (the_run, record_workflow_node_run.node, record_workflow_node_run.status,
          coalesce(record_workflow_node_run.attempt, 0), record_workflow_node_run.output,
          left(record_workflow_node_run.error, 4000), now(), ended)
  on conflict (run_id, node_id) do update set
    status = excluded.status,
    attempts = greatest(n.attempts, excluded.attempts),
    output = coalesce(excluded.output, n.output),
    error = excluded.error,
    started_at = coalesce(n.started_at, excluded.started_at),
    ended_at = excluded.ended_at;
  if pg_catalog.to_regprocedure('realtime.send(jsonb,text,text,boolean)') is not null then
    execute 'select realtime.send($1, $2, $3, true)'
      using jsonb_build_object('id', the_run, 'node', record_workflow_node_run.node, 'status', record_workflow_node_run.status),
            'node', 'workflow-run:' || the_run::text;
  end if;
  return true;
end
$$;

-- The nodes of the run the reference names, as the caller may read them,
-- by start (nodes never started last), then node id.
create or replace function better_supabase.workflow_node_runs_list(run text)
returns jsonb language sql stable security invoker set search_path = '' as $$
  select coalesce(jsonb_agg(jsonb_build_object(
           'run', n.run_id, 'node', n.node_id, 'status', n.status, 'attempts', n.attempts,
           'output', n.output, 'error', n.error, 'startedAt', n.started_at, 'endedAt', n.ended_at)
           order by n.started_at nulls last, n.node_id), '[]'::jsonb)
  from better_supabase.workflow_node_runs n
  -- The run _workflow_run_named picks, among those the caller reads.
  where n.run_id = (select r.id from better_supabase.workflow_runs r
                    where r.id::text = workflow_node_runs_list.run or r.external_id = workflow_node_runs_list.run
                    order by r.id::text = workflow_node_runs_list.run desc, r.created_at desc, r.id desc
                    limit 1)
$$;

-- ---------------------------------------------------------------- alerts

-- Creates an alert on the definition, or (alert given) replaces the
-- definition's alert's event, threshold and channel (null channel: {}).
create or replace function better_supabase.save_workflow_alert(
  definition uuid,
  on_event text,
  channel jsonb default '{}',
  threshold interval default null,
  alert uuid default null
) returns jsonb language plpgsql security definer set search_path = '' as $$
declare
  owner_tenant uuid;
  a better_supabase.workflow_alerts;
begin
  select d.tenant_id into owner_tenant from better_supabase.workflow_definitions d
  where d.id = save_workflow_alert.definition;
  if not found then
    raise exception 'workflow % does not exist', save_workflow_alert.definition
      using errcode = 'P0002', hint = 'WORKFLOW_NOT_FOUND';
  end if;
  if not better_supabase._workflow_builder_may(owner_tenant, 'workflow.admin') then
    raise exception 'you may not manage the alerts of this workflow'
      using errcode = '42501', hint = 'WORKFLOW_FORBIDDEN';
  end if;
  if save_workflow_alert.alert is null then
    insert into better_supabase.workflow_alerts (definition_id, on_event, threshold, channel, created_by)
    values (save_workflow_alert.definition, save_workflow_alert.on_event, save_workflow_alert.threshold,
            coalesce(save_workflow_alert.channel, '{}'::jsonb), (select auth.uid()))
    returning * into a;
    return better_supabase._workflow_alert_json(a);
  end if;
  update better_supabase.workflow_alerts x set
    on_event = save_workflow_alert.on_event,
    threshold = save_workflow_alert.threshold,
    channel = coalesce(save_workflow_alert.channel, '{}'::jsonb)
  where x.id = save_workflow_alert.alert and x.definition_id = save_workflow_alert.definition
  returning * into a;
  if not found then
    raise exception 'workflow % has no alert %', save_workflow_alert.definition, save_workflow_alert.alert
      using errcode = 'P0002', hint = 'WORKFLOW_NOT_FOUND';
  end if;
  return better_supabase._workflow_alert_json(a);
end
$$;

-- A definition's alerts the caller reads, in the order they were made.
create or replace function better_supabase.workflow_alerts_list(definition uuid)
returns jsonb language sql stable security invoker set search_path = '' as $$
  select coalesce(jsonb_agg(jsonb_build_object(
           'id', a.id, 'definition', a.definition_id, 'onEvent', a.on_event,
           'threshold', extract(epoch from a.threshold), 'channel', a.channel,
           'createdBy', a.created_by, 'createdAt', a.created_at)
           order by a.created_at, a.id), '[]'::jsonb)
  from better_supabase.workflow_alerts a
  where a.definition_id = workflow_alerts_list.definition
$$;

create or replace function better_supabase.remove_workflow_alert(alert uuid)
returns boolean language plpgsql security definer set search_path = '' as $$
begin
  delete from better_supabase.workflow_alerts a
  using better_supabase.workflow_definitions d
  where a.id = remove_workflow_alert.alert and d.id = a.definition_id
    and better_supabase._workflow_builder_may(d.tenant_id, 'workflow.admin');
  return found;
end
$$;

-- Fires the failed alerts of a run's definition (its bs.definition
-- attribute) when the run becomes failed, once per alert and run.
create or replace function better_supabase.workflow_runs_alert()
returns trigger language plpgsql security definer set search_path = '' as $$
begin
  if new.status is distinct from 'failed' or (tg_op = 'UPDATE' and old.status = 'failed') then
    return null;
  end if;
  insert into better_supabase.workflow_alert_fires (alert_id, run_id)
  select a.id, new.id from better_supabase.workflow_alerts a
  where a.on_event = 'failed' and a.definition_id::text = new.attributes ->> 'bs.definition'
  on conflict do nothing;
  return null;
end
$$;
drop trigger if exists bs_workflow_runs_alert on better_supabase.workflow_runs;
create trigger bs_workflow_runs_alert
  after insert or update of status on better_supabase.workflow_runs
  for each row execute function better_supabase.workflow_runs_alert();

-- Fires the slow alerts whose runs (by bs.definition) are still queued,
-- running or waiting threshold after they were created, at most batch (at
-- least one; null: 100) per call; returns how many fired. A cron route or
-- a job calls it.
create or replace function better_supabase.check_workflow_alerts(batch integer default 100)
returns integer language plpgsql security definer set search_path = '' as $$
declare
  n integer;
begin
  with due as (
    select a.id as alert_id, r.id as run_id
    from better_supabase.workflow_alerts a
    join better_supabase.workflow_runs r on r.attributes ->> 'bs.definition' = a.definition_id::text
    where a.on_event = 'slow'
      and r.status in ('queued', 'running', 'waiting')
      and r.created_at < now() - a.threshold
      and not exists (select from better_supabase.workflow_alert_fires f where f.alert_id = a.id and f.run_id = r.id)
    order by r.created_at, a.created_at, a.id, r.id
    limit greatest(coalesce(check_workflow_alerts.batch, 100), 1)
  )
  insert into better_supabase.workflow_alert_fires (alert_id, run_id)
  select due.alert_id, due.run_id from due
  on conflict do nothing;
  get diagnostics n = row_count;
  return n;
end
$$;

-- ---------------------------------------------------------------- rights

revoke all on function
  better_supabase._workflow_token_hash(text),
  better_supabase._workflow_new_token(),
  better_supabase._workflow_builder_may(uuid, text),
  better_supabase._workflow_definition_json(better_supabase.workflow_definitions),
  better_supabase._workflow_version_json(better_supabase.workflow_versions, boolean),
  better_supabase._workflow_trigger_json(better_supabase.workflow_triggers),
  better_supabase._workflow_credential_json(better_supabase.workflow_credentials),
  better_supabase._workflow_alert_json(better_supabase.workflow_alerts),
  better_supabase._workflow_run_named(text),
  better_supabase.validate_workflow_graph(jsonb),
  better_supabase.save_workflow_definition(uuid, text, text, text),
  better_supabase.workflow_definitions_list(uuid),
  better_supabase.workflow_definition_get(uuid),
  better_supabase.remove_workflow_definition(uuid),
  better_supabase.save_workflow_draft(uuid, jsonb),
  better_supabase.publish_workflow_version(uuid, jsonb),
  better_supabase.workflow_versions_list(uuid),
  better_supabase.workflow_version_get(uuid),
  better_supabase.workflow_start_target(uuid),
  better_supabase.save_workflow_trigger(uuid, text, jsonb, boolean, uuid),
  better_supabase.workflow_triggers_list(uuid),
  better_supabase.remove_workflow_trigger(uuid),
  better_supabase.rotate_workflow_webhook_token(uuid),
  better_supabase.workflow_webhook_target(text),
  better_supabase.workflow_event_targets(text, uuid),
  better_supabase.save_workflow_credential(uuid, text, text, jsonb, text[]),
  better_supabase.workflow_credentials_list(uuid),
  better_supabase.workflow_credential_get(uuid),
  better_supabase.remove_workflow_credential(uuid),
  better_supabase.sync_workflow_steps(jsonb),
  better_supabase.workflow_steps_list(),
  better_supabase.record_workflow_node_run(text, text, text, integer, jsonb, text),
  better_supabase.workflow_node_runs_list(text),
  better_supabase.save_workflow_alert(uuid, text, jsonb, interval, uuid),
  better_supabase.workflow_alerts_list(uuid),
  better_supabase.remove_workflow_alert(uuid),
  better_supabase.workflow_runs_alert(),
  better_supabase.check_workflow_alerts(integer)
-- Also from the API roles: default privileges may have granted them
-- every new function.
from public, anon, authenticated, service_role;
grant execute on function
  better_supabase.validate_workflow_graph(jsonb),
  better_supabase.save_workflow_definition(uuid, text, text, text),
  better_supabase.workflow_definitions_list(uuid),
  better_supabase.workflow_definition_get(uuid),
  better_supabase.remove_workflow_definition(uuid),
  better_supabase.save_workflow_draft(uuid, jsonb),
  better_supabase.publish_workflow_version(uuid, jsonb),
  better_supabase.workflow_versions_list(uuid),
  better_supabase.workflow_version_get(uuid),
  better_supabase.workflow_start_target(uuid),
  better_supabase.save_workflow_trigger(uuid, text, jsonb, boolean, uuid),
  better_supabase.workflow_triggers_list(uuid),
  better_supabase.remove_workflow_trigger(uuid),
  better_supabase.rotate_workflow_webhook_token(uuid),
  better_supabase.save_workflow_credential(uuid, text, text, jsonb, text[]),
  better_supabase.workflow_credentials_list(uuid),
  better_supabase.remove_workflow_credential(uuid),
  better_supabase.workflow_steps_list(),
  better_supabase.workflow_node_runs_list(text),
  better_supabase.save_workflow_alert(uuid, text, jsonb, interval, uuid),
  better_supabase.workflow_alerts_list(uuid),
  better_supabase.remove_workflow_alert(uuid)
to authenticated, service_role;
-- workflow_runs_alert runs as a trigger only; calling it is an error.
grant execute on function
  better_supabase.workflow_webhook_target(text),
  better_supabase.workflow_event_targets(text, uuid),
  better_supabase.workflow_credential_get(uuid),
  better_supabase.sync_workflow_steps(jsonb),
  better_supabase.record_workflow_node_run(text, text, text, integer, jsonb, text),
  better_supabase.check_workflow_alerts(integer),
  better_supabase.workflow_runs_alert()
to service_role;
