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
-- it), this module only checks that it is in schema extensions and new
-- enough, and is not recorded. Where the server has no pgvector at all the
-- module cannot install: the error says how to get it. Nothing here is
-- replaced or dropped.

do $vector$
declare
  mark constant text := 'bsadapter vector-search stand-in: pgvector, created by bsadapter';
  ext record;
  avail text;
begin
  if pg_catalog.to_regnamespace('extensions') is null then
    create schema extensions;
  end if;
  -- As on Supabase, the API roles may use what schema extensions holds.
  grant usage on schema extensions to anon, authenticated, service_role;

  select e.oid, e.extversion, n.nspname into ext
  from pg_catalog.pg_extension e join pg_catalog.pg_namespace n on n.oid = e.extnamespace
  where e.extname = 'vector';
  if ext.oid is null then
    select a.default_version into avail from pg_catalog.pg_available_extensions a where a.name = 'vector';
    if avail is null then
      raise exception 'the server has no pgvector (extension vector), which the knowledge and memory blocks need'
        using errcode = '0A000',
              hint = 'use a server with pgvector 0.8 or newer: --dsn to one that has it, a Docker image with it (pgvector/pgvector:pg15), or PostgreSQL binaries with it installed';
    end if;
    create extension vector with schema extensions;
    execute pg_catalog.format('comment on extension vector is %L', mark);
    select e.oid, e.extversion, n.nspname into ext
    from pg_catalog.pg_extension e join pg_catalog.pg_namespace n on n.oid = e.extnamespace
    where e.extname = 'vector';
  end if;
  if ext.nspname <> 'extensions' then
    raise exception 'pgvector is installed in schema %, and the knowledge and memory blocks use it from schema extensions', ext.nspname
      using errcode = '0A000', hint = 'alter extension vector set schema extensions';
  end if;
  if pg_catalog.string_to_array(pg_catalog.split_part(ext.extversion, '-', 1), '.')::int[] < array[0, 8] then
    raise exception 'pgvector % is too old: the knowledge and memory blocks need 0.8 or newer (iterative index scans)', ext.extversion
      using errcode = '0A000', hint = 'alter extension vector update (after installing pgvector 0.8 or newer on the server)';
  end if;
end
$vector$;
