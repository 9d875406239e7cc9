package conform

import (
	"context"
	"encoding/json"
)

// The error kinds of a credential provider's results (better-supabase's
// Result errors), carried as a StoreError's Hint.
const (
	KindInvalidInput = "invalid_input"
	KindNotFound     = "not_found"
)

// CredentialRef is a credential_ref: a JSON object with a string
// "provider" and the provider's own keys. Rows and options hold refs,
// never tokens.
type CredentialRef map[string]any

// TenantRef returns ref in tenant's namespace: the same ref with a
// "tenant" key, as better-supabase's tenant refs are.
func TenantRef(tenant string, ref CredentialRef) CredentialRef {
	out := CredentialRef{}
	for k, v := range ref {
		out[k] = v
	}
	out["tenant"] = tenant
	return out
}

// CredentialSubject is whom a credential is for: the app ({"type":
// "app"}) or one user ({"type": "user", "id": "<uuid>"}).
type CredentialSubject struct {
	Type string `json:"type"`
	ID   string `json:"id,omitempty"`
}

// AppSubject is the app itself.
var AppSubject = CredentialSubject{Type: "app"}

// UserSubject is the user with id.
func UserSubject(id string) CredentialSubject { return CredentialSubject{Type: "user", ID: id} }

// CredentialToken is what getToken resolves a ref to: the token and the
// headers a request carries it in.
type CredentialToken struct {
	Token   string            `json:"token"`
	Headers map[string]string `json:"headers"`
}

// CredentialCapabilities are what a provider says about a ref.
type CredentialCapabilities struct {
	UserSubjects bool `json:"userSubjects"`
}

// CredentialFixture is what the cases need beside the provider: the refs
// to use and a way to store a value behind one (the kit's seed), as the
// adapter's own setup does it (Vault, a secrets manager, ...).
type CredentialFixture struct {
	// Ref is an app-scoped ref the cases may store into and revoke.
	Ref CredentialRef `json:"ref"`
	// UserRef, when set, is a per-user ref.
	UserRef CredentialRef `json:"userRef,omitempty"`
	// InboundRef, when set, is a ref with an inbound signature scheme.
	InboundRef CredentialRef `json:"inboundRef,omitempty"`
}

// CredentialProvider is better-supabase's CredentialProvider (contracts.md
// section 6) with the kit's hooks, as the credentials cases drive it.
// Failures the contract names (an unknown provider, a missing credential)
// are *StoreError values whose Hint is the kind.
type CredentialProvider interface {
	// Identity is the provider's apiVersion and name.
	Identity(ctx context.Context) (int, string, error)
	Fixture(ctx context.Context) (CredentialFixture, error)
	// Seed stores value as the credential ref names for subject.
	Seed(ctx context.Context, ref CredentialRef, sub CredentialSubject, value string) error
	GetToken(ctx context.Context, ref CredentialRef, sub CredentialSubject) (*CredentialToken, error)
	Capabilities(ctx context.Context, ref CredentialRef) (CredentialCapabilities, error)
	// Revoke reports whether there was a credential to revoke.
	Revoke(ctx context.Context, ref CredentialRef, sub CredentialSubject) (bool, error)
	// Sign returns the headers of an inbound request carrying body,
	// signed with secret as the ref's scheme wants.
	Sign(ctx context.Context, ref CredentialRef, body, secret string) (map[string]string, error)
	// VerifyInbound checks an inbound request's signature.
	VerifyInbound(ctx context.Context, ref CredentialRef, body string, headers map[string]string) (bool, error)
	// AtRest returns everything the adapter keeps of its own (its options
	// and the rows it stores), which must hold refs, never tokens.
	AtRest(ctx context.Context) (json.RawMessage, error)
}
