-- bsadapter block: vector-search
-- version: 1
-- requires: supabase-base
-- mode: custom
-- needs-extension: vector >= 0.8
--
-- A stand-in for better-supabase's vector-search module: pgvector in schema
-- extensions, where Supabase keeps its extensions, usable by the API roles.
-- The knowledge and memory blocks store vector(1536) embeddings and search
-- them with hnsw indexes and iterative index scans, which take pgvector 0.8
-- or newer.
--
-- Where the database has pgvector already (a Supabase project that enabled
-- it), this module only checks that it is in schema extensions, and is not
-- recorded. Whether the server offers pgvector 0.8 or newer at all is the
-- needs-extension header's check, made before this SQL runs: installing
-- leaves the module out when it does not (saying how to get it), and the
-- printed SQL stops there. Nothing here is replaced or dropped.

do $vector$
declare
  mark constant text := 'bsadapter vector-search stand-in: pgvector, created by bsadapter';
  ext record;
begin
  if pg_catalog.to_regnamespace('extensions') is null then
    create schema extensions;
  end if;
  -- As on Supabase, the API roles may use what schema extensions holds.
  grant usage on schema extensions to anon, authenticated, service_role;

  select e.oid, n.nspname into ext
  from pg_catalog.pg_extension e join pg_catalog.pg_namespace n on n.oid = e.extnamespace
  where e.extname = 'vector';
  if ext.oid is null then
    -- The header's check found the server's default version new enough.
    create extension vector with schema extensions;
    execute pg_catalog.format('comment on extension vector is %L', mark);
    select e.oid, n.nspname into ext
    from pg_catalog.pg_extension e join pg_catalog.pg_namespace n on n.oid = e.extnamespace
    where e.extname = 'vector';
  end if;
  if ext.nspname <> 'extensions' then
    raise exception 'pgvector is installed in schema %, and the knowledge and memory blocks use it from schema extensions', ext.nspname
      using errcode = '0A000', hint = 'alter extension vector set schema extensions';
  end if;
end
$vector$;
