// Package credentials is the credentials suite: better-supabase's
// CredentialProvider (contracts.md section 6), which resolves a
// credential_ref to a token at run time so that options and rows hold
// refs, never tokens, driven with the hooks of upstream's kit.
package credentials

import (
	"context"
	"encoding/json"

	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/conform"
)

// Suite is the credentials suite.
var Suite = conform.NewSuite(conform.Info{
	Name:        "credentials",
	Contract:    "credentials",
	BridgeGroup: bridge.GroupCredentials,
	Intro: "A `CredentialProvider` (contracts.md section 6): tokens live behind a `credential_ref`, never in options or rows. " +
		"The checks of upstream's `testCredentialProvider` kit, one rule a case, and what upstream does not check: " +
		"a body signed with another secret is refused, and nothing the adapter keeps of its own carries a token " +
		"(its options and rows, as the bridge's `credentials.atRest` answers them). " +
		"Every case but the one about the app's namespace works in a tenant namespace of its own. " +
		"Over the bridge this suite needs the `credentials` capability; a provider is the adapter's own code, so `pg` has none.",
}, Provider.Credentials, cases)

// Provider is implemented by a store that offers a credential provider.
type Provider interface {
	// Credentials prepares the suite for a run: what gives each case the
	// provider, or why the store cannot run the suite.
	Credentials(ctx context.Context) (conform.Opener[CredentialProvider], error)
}

// Ref is a credential_ref: a JSON object with a string "provider" and
// the provider's own keys. Rows and options hold refs, never tokens.
type Ref map[string]any

// TenantRef returns ref in tenant's namespace: the same ref with a
// "tenant" key, as better-supabase's tenant refs are.
func TenantRef(tenant string, ref Ref) Ref {
	out := Ref{}
	for k, v := range ref {
		out[k] = v
	}
	out["tenant"] = tenant
	return out
}

// Subject is whom a credential is for: the app ({"type": "app"}) or one
// user ({"type": "user", "id": "<uuid>"}).
type Subject struct {
	Type string `json:"type"`
	ID   string `json:"id,omitempty"`
}

// AppSubject is the app itself.
var AppSubject = Subject{Type: "app"}

// UserSubject is the user with id.
func UserSubject(id string) Subject { return Subject{Type: "user", ID: id} }

// Token is what getToken resolves a ref to: the token and the headers a
// request carries it in.
type Token struct {
	Token   string            `json:"token"`
	Headers map[string]string `json:"headers"`
}

// Capabilities are what a provider says about a ref.
type Capabilities struct {
	UserSubjects bool `json:"userSubjects"`
}

// Fixture is what the cases need beside the provider: the refs to use
// and a way to store a value behind one (the kit's seed), as the
// adapter's own setup does it (Vault, a secrets manager, ...).
type Fixture struct {
	// Ref is an app-scoped ref the cases may store into and revoke.
	Ref Ref `json:"ref"`
	// UserRef, when set, is a per-user ref.
	UserRef Ref `json:"userRef,omitempty"`
	// InboundRef, when set, is a ref with an inbound signature scheme.
	InboundRef Ref `json:"inboundRef,omitempty"`
}

// CredentialProvider is better-supabase's CredentialProvider
// (contracts.md section 6) with the kit's hooks, as the cases drive it.
// Failures the contract names (an unknown provider, a missing credential)
// are *conform.StoreError values whose Hint is the kind
// (conform.KindInvalidInput, conform.KindNotFound).
type CredentialProvider interface {
	// Identity is the provider's apiVersion and name.
	Identity(ctx context.Context) (int, string, error)
	// Fixture returns the refs the cases use.
	Fixture(ctx context.Context) (Fixture, error)
	// Seed stores value as the credential ref names for sub.
	Seed(ctx context.Context, ref Ref, sub Subject, value string) error
	// GetToken resolves ref for sub.
	GetToken(ctx context.Context, ref Ref, sub Subject) (*Token, error)
	// Capabilities says what the provider offers for ref.
	Capabilities(ctx context.Context, ref Ref) (Capabilities, error)
	// Revoke reports whether there was a credential to revoke.
	Revoke(ctx context.Context, ref Ref, sub Subject) (bool, error)
	// Sign returns the headers of an inbound request carrying body,
	// signed with secret as the ref's scheme wants.
	Sign(ctx context.Context, ref Ref, body, secret string) (map[string]string, error)
	// VerifyInbound checks an inbound request's signature.
	VerifyInbound(ctx context.Context, ref Ref, body string, headers map[string]string) (bool, error)
	// AtRest returns everything the adapter keeps of its own (its options
	// and the rows it stores), which must hold refs, never tokens.
	AtRest(ctx context.Context) (json.RawMessage, error)
}
