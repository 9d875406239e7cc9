-- bsadapter block: vault
-- version: 1
-- requires: supabase-base
-- mode: custom
--
-- A stand-in for Supabase Vault (the supabase_vault extension's interface:
-- table vault.secrets, view vault.decrypted_secrets, vault.create_secret
-- and vault.update_secret), for a database that has no Vault: plain
-- PostgreSQL, a throwaway test server. It is for checking adapters against
-- the credentials block, not for keeping production secrets: use Supabase's
-- own Vault for those.
--
-- Secrets are encrypted at rest with pgcrypto (pgp_sym_encrypt, AES-256)
-- under a random key that this module generates once and keeps in
-- vault._standin_key, which no role but the installer may read; the
-- encrypted text is bound to its secret's id, so a copy moved to another
-- row does not decrypt. vault.secrets.secret never holds the plaintext:
-- a trigger encrypts whatever is written there. Like Supabase's Vault,
-- nothing of schema vault is granted to anon, authenticated or
-- service_role: the credentials block reads secrets through its security
-- definer functions.
--
-- Where the database has a Vault of its own (vault.secrets exists and this
-- module did not make it), nothing of this module runs.

do $vault$
declare
  mark constant text := 'bsadapter vault stand-in';
  crypto text;
begin
  if pg_catalog.to_regclass('vault.secrets') is not null
     and coalesce(pg_catalog.obj_description(pg_catalog.to_regclass('vault.secrets'), 'pg_class'), '') <> mark then
    return;
  end if;

  -- pgcrypto where the database has it, else in schema extensions, where
  -- Supabase keeps its extensions.
  select n.nspname into crypto
  from pg_catalog.pg_extension e join pg_catalog.pg_namespace n on n.oid = e.extnamespace
  where e.extname = 'pgcrypto';
  if crypto is null then
    create schema if not exists extensions;
    -- As on Supabase, the API roles may use what schema extensions holds.
    grant usage on schema extensions to anon, authenticated, service_role;
    create extension pgcrypto with schema extensions;
    crypto := 'extensions';
  end if;

  create schema if not exists vault;
  revoke all on schema vault from public, anon, authenticated, service_role;

  -- The key. One row; its bytes never leave the functions below.
  create table if not exists vault._standin_key (
    id uuid primary key default gen_random_uuid(),
    key bytea not null,
    created_at timestamptz not null default now()
  );
  revoke all on table vault._standin_key from public, anon, authenticated, service_role;
  if not exists (select from vault._standin_key) then
    execute pg_catalog.format('insert into vault._standin_key (key) values (%I.gen_random_bytes(32))', crypto);
  end if;

  create table if not exists vault.secrets (
    id uuid primary key default gen_random_uuid(),
    name text,
    description text not null default '',
    secret text not null,
    key_id uuid,
    nonce bytea,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now()
  );
  create unique index if not exists secrets_name_idx on vault.secrets (name) where name is not null;
  execute pg_catalog.format('comment on table vault.secrets is %L', mark);
  revoke all on table vault.secrets from public, anon, authenticated, service_role;

  -- encrypt and decrypt are the only readers of the key: security definer,
  -- executable by the installer alone. The plaintext is prefixed with the
  -- row's id before encryption; decrypt gives null for text that does not
  -- decrypt or belongs to another row.
  execute pg_catalog.format($fn$
    create or replace function vault._standin_encrypt(plain text, secret_id uuid)
    returns text language sql volatile security definer set search_path = '' as $body$
      select pg_catalog.encode(%1$I.pgp_sym_encrypt(
               _standin_encrypt.secret_id::text || ':' || _standin_encrypt.plain,
               pg_catalog.encode(k.key, 'hex'), 'cipher-algo=aes256, s2k-mode=1'), 'base64')
      from vault._standin_key k
      order by k.created_at
      limit 1
    $body$
  $fn$, crypto);
  execute pg_catalog.format($fn$
    create or replace function vault._standin_decrypt(stored text, secret_id uuid)
    returns text language plpgsql stable security definer set search_path = '' as $body$
    declare
      plain text;
    begin
      select %1$I.pgp_sym_decrypt(pg_catalog.decode(_standin_decrypt.stored, 'base64'), pg_catalog.encode(k.key, 'hex'))
      into plain
      from vault._standin_key k
      order by k.created_at
      limit 1;
      if pg_catalog.starts_with(plain, _standin_decrypt.secret_id::text || ':') then
        return pg_catalog.substr(plain, pg_catalog.length(_standin_decrypt.secret_id::text) + 2);
      end if;
      return null;
    exception when others then
      -- Text that is not ours (or was tampered with): no secret.
      return null;
    end
    $body$
  $fn$, crypto);

  create or replace function vault._standin_seal()
  returns trigger language plpgsql security definer set search_path = '' as $fn$
  begin
    -- A row whose id changes keeps its text, which then no longer
    -- decrypts: ids are not meant to change.
    if tg_op = 'INSERT' or new.secret is distinct from old.secret then
      new.secret := vault._standin_encrypt(new.secret, new.id);
      new.key_id := (select k.id from vault._standin_key k order by k.created_at limit 1);
      new.nonce := null;
    end if;
    if tg_op = 'UPDATE' then
      new.updated_at := pg_catalog.now();
    end if;
    return new;
  end
  $fn$;
  drop trigger if exists secrets_seal on vault.secrets;
  create trigger secrets_seal before insert or update on vault.secrets
    for each row execute function vault._standin_seal();

  create or replace view vault.decrypted_secrets as
    select s.id, s.name, s.description, s.secret,
           vault._standin_decrypt(s.secret, s.id) as decrypted_secret,
           s.key_id, s.nonce, s.created_at, s.updated_at
    from vault.secrets s;
  revoke all on table vault.decrypted_secrets from public, anon, authenticated, service_role;

  create or replace function vault.create_secret(new_secret text, new_name text default null, new_description text default '', new_key_id uuid default null)
  returns uuid language plpgsql security definer set search_path = '' as $fn$
  declare
    made uuid;
  begin
    -- new_key_id names a key of Supabase's key store; the stand-in has
    -- one key of its own.
    insert into vault.secrets (secret, name, description)
    values (create_secret.new_secret, create_secret.new_name, coalesce(create_secret.new_description, ''))
    returning id into made;
    return made;
  end
  $fn$;

  create or replace function vault.update_secret(secret_id uuid, new_secret text default null, new_name text default null, new_description text default null, new_key_id uuid default null)
  returns void language plpgsql security definer set search_path = '' as $fn$
  begin
    update vault.secrets s
    set secret = coalesce(update_secret.new_secret, s.secret),
        name = coalesce(update_secret.new_name, s.name),
        description = coalesce(update_secret.new_description, s.description)
    where s.id = update_secret.secret_id;
  end
  $fn$;

  revoke all on function
    vault._standin_encrypt(text, uuid), vault._standin_decrypt(text, uuid), vault._standin_seal(),
    vault.create_secret(text, text, text, uuid), vault.update_secret(uuid, text, text, text, uuid)
  from public, anon, authenticated, service_role;
end
$vault$;
