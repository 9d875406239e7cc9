-- bsadapter block: streams
-- version: 1
create table if not exists better_supabase.acme_runs (run_id text primary key);
