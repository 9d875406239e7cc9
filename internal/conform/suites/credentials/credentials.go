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
	Module:      "credentials",
	Intro: "A `CredentialProvider` (contracts.md section 6): tokens live behind a `credential_ref`, never in options or rows. " +
		"The checks of upstream's `testCredentialProvider` kit, one rule a case, and what upstream does not check: " +
		"a body signed with another secret is refused, and nothing the adapter keeps of its own carries a token " +
		"(its options and rows, as the bridge's `credentials.atRest` answers them). " +
		"Every case but the one about the app's namespace works in a tenant namespace of its own. " +
		"Over the bridge this suite needs the `credentials` capability. `pg` runs it against better-supabase's default provider " +
		"as it uses the embedded `credentials` module (`vaultCredentials`: refs `{\"provider\": \"vault\", \"secret\": NAME}`, " +
		"with `scope: \"user\"` for per-user secrets and `inbound` for a signing secret, " +
		"resolved through `credential_get`, `credential_set` and `credential_delete` as the service role), " +
		"its secrets in the Vault stand-in; at rest it shows what the database keeps (Vault's rows as stored, the credentials' audit events).",
}, Provider.Credentials, cases)

// The credentials block's rules beyond the CredentialProvider interface,
// which an adapter's own provider (over the bridge, or the memory
// reference) has no counterpart of: it declares it does not keep them.
var (
	// ServiceRoleOnly is who may call the block's functions.
	ServiceRoleOnly = conform.BlockRule{
		Name: "service role only",
		Text: "the `credentials` block's functions are the service role's: `anon` and signed-in users may not call them at all " +
			"(`42501`, no right to execute), and `service_role` carrying a user's claims is refused by the functions' own check " +
			"(`42501` `" + HintForbidden + "`); a refused call changes nothing. A store offers the rule by letting the cases call the block " +
			"as those callers (`Guarded`); an adapter's own provider (over the bridge, the memory reference) has no such callers and is not held to it.",
	}
	// AuditTrail is the audit events the block records.
	AuditTrail = conform.BlockRule{
		Name: "audit events",
		Text: "the `credentials` block records `credential.set` for every store or replace of a credential and `credential.deleted` " +
			"for every delete of one that existed (category `security`, target type `credential`, record id `provider:name`, " +
			"metadata the provider and the name), never the secret, and nothing for a delete of nothing. " +
			"A store offers the rule by showing the cases the events (`Audited`); an adapter's own provider is not held to it.",
	}
)

// HintForbidden is the credentials block's hint for a caller its own
// check refuses.
const HintForbidden = "CREDENTIALS_FORBIDDEN"

// BlockCaller is a caller of the credentials block other than the service
// role: the database role its call runs as, and the JWT claims it carries
// (PostgREST sets both from the request's token).
type BlockCaller struct {
	Role   string
	Claims conform.Caller
}

// The credentials block's functions, as Guarded calls them.
const (
	OpGet    = "get"
	OpSet    = "set"
	OpDelete = "delete"
)

// Guarded is implemented by a provider over the credentials block, whose
// functions check who calls them.
type Guarded interface {
	// TryAs calls the block's function op (OpGet, OpSet with value,
	// OpDelete) on the app credential ref names, as c, and returns the
	// error the block answered: nil when it let the call through.
	TryAs(ctx context.Context, c BlockCaller, op string, ref Ref, value string) error
}

// AuditEvent is an audit event the credentials block recorded.
type AuditEvent struct {
	Type       string         `json:"type"`
	Category   string         `json:"category"`
	TargetType string         `json:"targetType"`
	RecordID   string         `json:"recordId"`
	Metadata   map[string]any `json:"metadata"`
}

// Audited is implemented by a provider over the credentials block, which
// records audit events.
type Audited interface {
	// AuditEvents returns the events recorded for the credential ref names
	// for sub, oldest first.
	AuditEvents(ctx context.Context, ref Ref, sub Subject) ([]AuditEvent, error)
}

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
