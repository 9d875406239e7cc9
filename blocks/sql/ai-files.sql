-- bsadapter block: ai-files
-- version: 1
-- requires: supabase-base
-- mode: custom
--
-- A stand-in for better-supabase's ai-files module, for a database without
-- it: the table better_supabase.ai_files with the four columns other blocks
-- read (a file's id, its tenant, its owner and its status; the knowledge
-- block attaches only a file that is ready and that the caller may use).
-- Uploading is not part of it: rows come from the server, or from tests.
-- No API role may touch the table. Where the database has an ai_files
-- table of its own, nothing of this module runs.

do $files$
declare
  mark constant text := 'bsadapter ai-files stand-in';
  t regclass := pg_catalog.to_regclass('better_supabase.ai_files');
begin
  if t is not null and coalesce(pg_catalog.obj_description(t, 'pg_class'), '') <> mark then
    return;
  end if;
  create table if not exists better_supabase.ai_files (
    id uuid primary key default gen_random_uuid(),
    organization_id uuid not null,
    owner_id uuid references auth.users (id) on delete cascade,
    status text not null default 'pending' check (length(status) between 1 and 50)
  );
  execute pg_catalog.format('comment on table better_supabase.ai_files is %L', mark);
  alter table better_supabase.ai_files enable row level security;
  revoke all on table better_supabase.ai_files from public, anon, authenticated, service_role;
end
$files$;
