package memstore

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"maps"
	"sync"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/credentials"
)

// credentialsStore is the reference store whose credential providers pass
// through mutant.
type credentialsStore struct {
	*memoryStore
	mutant func(credentials.CredentialProvider) credentials.CredentialProvider
}

// Credentials gives each case a reference provider made the mutant.
func (m credentialsStore) Credentials(ctx context.Context) (conform.Opener[credentials.CredentialProvider], error) {
	open, err := m.memoryStore.Credentials(ctx)
	return mutate(open, err, m.mutant)
}

// credentialsMutant returns the reference store with its credential
// provider made the mutant name.
func credentialsMutant(name string) conform.Store {
	return credentialsStore{&memoryStore{}, func(p credentials.CredentialProvider) credentials.CredentialProvider {
		switch name {
		case "unknown-provider-not-found":
			return foreignNotFound{p}
		case "stale-cache":
			return &staleCache{CredentialProvider: p, cache: map[string]credentials.Token{}}
		case "ignore-tenant":
			return ignoreTenant{p}
		case "revoke-all-users":
			return &revokeAllUsers{CredentialProvider: p, users: map[string][]credentials.Subject{}}
		case "verify-ignores-body":
			return verifyIgnoresBody{p}
		case "token-in-rows":
			return &tokenInRows{CredentialProvider: p}
		}
		panic("no credentials mutant is named " + name)
	}}
}

// mapKey identifies refs and subjects as a map key.
func mapKey(vs ...any) string { return string(conform.JSON(vs)) }

// foreignNotFound answers not_found for a ref of another provider, where
// the contract wants invalid_input.
type foreignNotFound struct{ credentials.CredentialProvider }

// notFound turns the invalid_input failure for ref into a not_found one
// when ref names another provider than the reference's.
func notFound(ref credentials.Ref, err error) error {
	var se *conform.StoreError
	if ref["provider"] == memRef["provider"] || !errors.As(err, &se) || se.Hint != conform.KindInvalidInput {
		return err
	}
	nf := *se
	nf.Hint = conform.KindNotFound
	return &nf
}

// Seed stores value, failing as not_found for another provider's ref.
func (p foreignNotFound) Seed(ctx context.Context, ref credentials.Ref, sub credentials.Subject, value string) error {
	return notFound(ref, p.CredentialProvider.Seed(ctx, ref, sub, value))
}

// GetToken resolves ref, failing as not_found for another provider's ref.
func (p foreignNotFound) GetToken(ctx context.Context, ref credentials.Ref, sub credentials.Subject) (*credentials.Token, error) {
	tok, err := p.CredentialProvider.GetToken(ctx, ref, sub)
	return tok, notFound(ref, err)
}

// Revoke revokes the credential, failing as not_found for another
// provider's ref.
func (p foreignNotFound) Revoke(ctx context.Context, ref credentials.Ref, sub credentials.Subject) (bool, error) {
	ok, err := p.CredentialProvider.Revoke(ctx, ref, sub)
	return ok, notFound(ref, err)
}

// VerifyInbound checks the signature, failing as not_found for another
// provider's ref.
func (p foreignNotFound) VerifyInbound(ctx context.Context, ref credentials.Ref, body string, headers map[string]string) (bool, error) {
	ok, err := p.CredentialProvider.VerifyInbound(ctx, ref, body, headers)
	return ok, notFound(ref, err)
}

// staleCache keeps the first token it resolves for a ref and subject
// until that credential is revoked: a value stored again goes unseen.
type staleCache struct {
	credentials.CredentialProvider
	mu    sync.Mutex
	cache map[string]credentials.Token
}

// GetToken answers the token it resolved first for ref and sub, when it
// has one.
func (p *staleCache) GetToken(ctx context.Context, ref credentials.Ref, sub credentials.Subject) (*credentials.Token, error) {
	tok, err := p.CredentialProvider.GetToken(ctx, ref, sub)
	if err != nil {
		return tok, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if old, hit := p.cache[mapKey(ref, sub)]; hit {
		return &old, nil
	}
	p.cache[mapKey(ref, sub)] = *tok
	return tok, nil
}

// Revoke revokes the credential and forgets its cached token.
func (p *staleCache) Revoke(ctx context.Context, ref credentials.Ref, sub credentials.Subject) (bool, error) {
	ok, err := p.CredentialProvider.Revoke(ctx, ref, sub)
	if err == nil {
		p.mu.Lock()
		delete(p.cache, mapKey(ref, sub))
		p.mu.Unlock()
	}
	return ok, err
}

// ignoreTenant drops the tenant of every ref it resolves: all tenants
// share the app's namespace.
type ignoreTenant struct{ credentials.CredentialProvider }

// untenanted is ref without its tenant.
func untenanted(ref credentials.Ref) credentials.Ref {
	out := maps.Clone(ref)
	delete(out, "tenant")
	return out
}

// Seed stores value under ref without its tenant.
func (p ignoreTenant) Seed(ctx context.Context, ref credentials.Ref, sub credentials.Subject, value string) error {
	return p.CredentialProvider.Seed(ctx, untenanted(ref), sub, value)
}

// GetToken resolves ref without its tenant.
func (p ignoreTenant) GetToken(ctx context.Context, ref credentials.Ref, sub credentials.Subject) (*credentials.Token, error) {
	return p.CredentialProvider.GetToken(ctx, untenanted(ref), sub)
}

// Revoke revokes the credential of ref without its tenant.
func (p ignoreTenant) Revoke(ctx context.Context, ref credentials.Ref, sub credentials.Subject) (bool, error) {
	return p.CredentialProvider.Revoke(ctx, untenanted(ref), sub)
}

// VerifyInbound checks the signature against the secret of ref without
// its tenant.
func (p ignoreTenant) VerifyInbound(ctx context.Context, ref credentials.Ref, body string, headers map[string]string) (bool, error) {
	return p.CredentialProvider.VerifyInbound(ctx, untenanted(ref), body, headers)
}

// revokeAllUsers revokes every user's credential of a per-user ref when
// one user's is revoked. The interface cannot list the users, so it
// remembers those it stored credentials for.
type revokeAllUsers struct {
	credentials.CredentialProvider
	mu    sync.Mutex
	users map[string][]credentials.Subject
}

// Seed stores value and remembers sub as a user of ref.
func (p *revokeAllUsers) Seed(ctx context.Context, ref credentials.Ref, sub credentials.Subject, value string) error {
	if err := p.CredentialProvider.Seed(ctx, ref, sub, value); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.users[mapKey(ref)] = append(p.users[mapKey(ref)], sub)
	return nil
}

// Revoke revokes sub's credential and, for a per-user ref, every other
// user's it remembers.
func (p *revokeAllUsers) Revoke(ctx context.Context, ref credentials.Ref, sub credentials.Subject) (bool, error) {
	ok, err := p.CredentialProvider.Revoke(ctx, ref, sub)
	if perUser, _ := ref["perUser"].(bool); err != nil || !perUser {
		return ok, err
	}
	p.mu.Lock()
	users := p.users[mapKey(ref)]
	p.mu.Unlock()
	for _, u := range users {
		if _, err := p.CredentialProvider.Revoke(ctx, ref, u); err != nil {
			return ok, err
		}
	}
	return ok, nil
}

// verifyIgnoresBody accepts any inbound request that carries a
// signature, whatever body it signs.
type verifyIgnoresBody struct{ credentials.CredentialProvider }

// VerifyInbound accepts headers that carry a signature, once the secret
// is found.
func (p verifyIgnoresBody) VerifyInbound(ctx context.Context, ref credentials.Ref, body string, headers map[string]string) (bool, error) {
	if _, err := p.CredentialProvider.VerifyInbound(ctx, ref, body, headers); err != nil {
		return false, err
	}
	sig, _ := hex.DecodeString(headers[signatureHeader])
	return len(sig) > 0, nil
}

// tokenInRows writes the token into the adapter's own rows: it keeps
// each stored credential's row itself, token and all, and reports those
// rows at rest in place of the reference's.
type tokenInRows struct {
	credentials.CredentialProvider
	mu   sync.Mutex
	rows []map[string]any
}

// Seed stores value and keeps a row with the token.
func (p *tokenInRows) Seed(ctx context.Context, ref credentials.Ref, sub credentials.Subject, value string) error {
	if err := p.CredentialProvider.Seed(ctx, ref, sub, value); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rows = append(p.rows, map[string]any{"credential_ref": ref, "subject": sub, "token": value})
	return nil
}

// AtRest reports the reference's options with the rows it kept.
func (p *tokenInRows) AtRest(ctx context.Context) (json.RawMessage, error) {
	raw, err := p.CredentialProvider.AtRest(ctx)
	if err != nil {
		return nil, err
	}
	var rest map[string]any
	if err := json.Unmarshal(raw, &rest); err != nil {
		return nil, err
	}
	p.mu.Lock()
	rest["rows"] = p.rows
	p.mu.Unlock()
	return json.Marshal(rest)
}
