-- bsadapter block: credentials
-- version: 1
-- requires: access, vault
--
-- Third-party tokens and API keys, kept in Supabase Vault (or the vault
-- module's stand-in) under the Vault name bs:cred:<provider>:<name>, as
-- better-supabase's credentials module keeps them. The module has no
-- tables: rows elsewhere (chat_installations, an adapter's own) hold a
-- credential_ref that names a credential, and a credential provider
-- resolves it through these functions at run time.
--
-- Only the service role may call them, and each checks its caller itself
-- as well: the role claim of request.jwt.claims must be the service role's
-- (or, without a role claim, the login role an admin one), else 42501
-- CREDENTIALS_FORBIDDEN, before anything else is looked at. A provider is
-- a lower-case letter and up to 39 more of [a-z0-9-]; a name a letter or
-- digit and up to 199 more of [A-Za-z0-9:._/@-]; anything else is P0001
-- CREDENTIAL_NAME_INVALID. Writes record the audit events credential.set
-- and credential.deleted (record_id provider:name, the secret never).

grant usage on schema better_supabase to anon, authenticated, service_role;

-- The Vault name of a credential, after the caller and name checks; null
-- when provider or name is null (such a credential does not exist).
create or replace function better_supabase._credential_vault_name(provider text, name text)
returns text
language plpgsql
stable
set search_path = ''
as $$
begin
  if not better_supabase._caller_is_service() then
    raise exception 'only the service role reads and writes credentials'
      using errcode = '42501', hint = 'CREDENTIALS_FORBIDDEN';
  end if;
  if not coalesce(
       pg_catalog.char_length(_credential_vault_name.provider) <= 40
       and _credential_vault_name.provider ~ '^[a-z][-a-z0-9]*$'
       and pg_catalog.char_length(_credential_vault_name.name) <= 200
       and _credential_vault_name.name ~ '^[A-Za-z0-9][-A-Za-z0-9:._/@]*$',
     -- A null provider or name names no credential; the callers decide.
     true) then
    raise exception 'a credential is named by a provider (a-z, 0-9, -) and a name (letters, digits and :._/@-)'
      using errcode = 'P0001', hint = 'CREDENTIAL_NAME_INVALID';
  end if;
  return 'bs:cred:' || _credential_vault_name.provider || ':' || _credential_vault_name.name;
end
$$;

-- The credential's secret, or null when none is stored.
create or replace function better_supabase.credential_get(provider text, name text)
returns text
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  vault_name text := better_supabase._credential_vault_name(credential_get.provider, credential_get.name);
begin
  return (select d.decrypted_secret from vault.decrypted_secrets d where d.name = vault_name);
end
$$;

-- Stores the credential, or replaces its secret (its description stays
-- the first one's), and returns its Vault id.
create or replace function better_supabase.credential_set(provider text, name text, secret text, description text default null)
returns uuid
language plpgsql
security definer
set search_path = ''
as $$
declare
  vault_name text := better_supabase._credential_vault_name(credential_set.provider, credential_set.name);
  stored uuid;
begin
  -- A secret stored under no name could never be read or deleted.
  if vault_name is null then
    raise exception 'a credential needs a provider and a name'
      using errcode = 'P0001', hint = 'CREDENTIAL_NAME_INVALID';
  end if;
  if credential_set.secret is null or credential_set.secret = '' then
    raise exception 'a credential needs a secret'
      using errcode = 'P0001', hint = 'CREDENTIAL_EMPTY';
  end if;
  loop
    -- Locked, so that a delete cannot come between this and the update.
    select s.id into stored from vault.secrets s where s.name = vault_name for update;
    if stored is not null then
      perform vault.update_secret(stored, credential_set.secret);
      exit;
    end if;
    begin
      stored := vault.create_secret(credential_set.secret, vault_name,
        coalesce(credential_set.description, 'better-supabase credential'));
      exit;
    exception when unique_violation then
      -- Another call stored it meanwhile: replace its secret instead.
      null;
    end;
  end loop;
  perform better_supabase.audit_event(
    event_type => 'credential.set',
    category => 'security',
    target_type => 'credential',
    record_id => credential_set.provider || ':' || credential_set.name,
    metadata => pg_catalog.jsonb_build_object('provider', credential_set.provider, 'name', credential_set.name));
  return stored;
end
$$;

-- Deletes the credential: true when there was one.
create or replace function better_supabase.credential_delete(provider text, name text)
returns boolean
language plpgsql
security definer
set search_path = ''
as $$
declare
  vault_name text := better_supabase._credential_vault_name(credential_delete.provider, credential_delete.name);
begin
  delete from vault.secrets s where s.name = vault_name;
  if not found then
    return false;
  end if;
  perform better_supabase.audit_event(
    event_type => 'credential.deleted',
    category => 'security',
    target_type => 'credential',
    record_id => credential_delete.provider || ':' || credential_delete.name,
    metadata => pg_catalog.jsonb_build_object('provider', credential_delete.provider, 'name', credential_delete.name));
  return true;
end
$$;

revoke all on function
  better_supabase._credential_vault_name(text, text),
  better_supabase.credential_get(text, text),
  better_supabase.credential_set(text, text, text, text),
  better_supabase.credential_delete(text, text)
-- Also from the API roles: default privileges may have granted them every
-- new function.
from public, anon, authenticated, service_role;
grant execute on function
  better_supabase.credential_get(text, text),
  better_supabase.credential_set(text, text, text, text),
  better_supabase.credential_delete(text, text)
to service_role;
