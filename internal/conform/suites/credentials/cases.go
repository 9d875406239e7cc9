package credentials

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/bsadapter/bsadapter/internal/conform"
)

// The cases make their provider calls first and check the answers after,
// so that an unexpected error stops a case before any check is recorded:
// a case reports either what went wrong with a call or how the answers
// depart from the rule, never both.
var cases = []conform.CaseOf[CredentialProvider]{
	{ID: "credentials/identity", Rule: "the provider reports apiVersion 1 and a non-empty name", Run: identity},
	{ID: "credentials/unknown-provider", Rule: "a ref naming another provider is refused with an invalid_input error", Run: unknownProvider},
	{ID: "credentials/token-in-header", Rule: "a seeded token is returned, and a header value carries it", Run: tokenInHeader},
	{ID: "credentials/reseed-seen", Rule: "a value stored again is seen at once: no stale cache", Run: reseedSeen},
	{ID: "credentials/per-user-apart", Rule: "per-user credentials are kept apart, capabilities report user subjects, and the app cannot read a per-user ref", Run: perUserApart},
	{ID: "credentials/revoke-one-user", Rule: "revoking one user's credential leaves the other users' in place", Run: revokeOneUser},
	{ID: "credentials/tenants-apart", Rule: "a tenant's ref resolves only its own namespace's credential, and revoking it leaves the app's and other tenants'", Run: tenantsApart},
	{ID: "credentials/revoke-once", Rule: "revoke is true once and false after, and a revoked credential is not_found", Run: revokeOnce},
	{ID: "credentials/inbound-signed-accepted", Rule: "inbound verification accepts a body signed with the stored secret", Run: inboundSignedAccepted},
	{ID: "credentials/inbound-tampered-refused", Rule: "inbound verification refuses a signed body with one byte changed, and one signed with another secret", Run: inboundTamperedRefused},
	{ID: "credentials/no-token-at-rest", Rule: "no option or stored row of the adapter's own carries a token: only refs", Run: noTokenAtRest},
	{ID: "credentials/service-role-only", Block: ServiceRoleOnly, Rule: "anon and a signed-in user may not read, store or delete a credential (no right to call), the service role carrying a user's claims is refused with " + HintForbidden + ", and the credential stays as it was", Run: serviceRoleOnly},
	{ID: "credentials/audit-events", Block: AuditTrail, Rule: "a store and a replace each record credential.set, a delete credential.deleted, naming provider:name and never the secret; a delete of nothing records none", Run: auditEvents},
}

// inboundBody is the body of the inbound requests the cases sign.
const inboundBody = `{"hello":"world","n":1}`

// secretValue is a fresh token for a case.
func secretValue() string { return "token-" + conform.NewUUID() }

// ownNamespace returns ref in a tenant namespace of the case's own: over
// a bridge the cases share one provider.
func ownNamespace(ref Ref) Ref { return TenantRef(conform.NewUUID(), ref) }

// fixture returns the provider's fixture; need names the ref the case
// needs ("" for the app ref only). A provider without that ref skips the
// case.
func fixture(t *conform.T, p CredentialProvider, need string) Fixture {
	f, err := p.Fixture(t.Context())
	t.Must("fixture", err)
	switch {
	case len(f.Ref) == 0:
		t.Fatal(errors.New("the fixture has no app ref"))
	case need == "user" && len(f.UserRef) == 0:
		t.Skip("the provider keeps no per-user credentials (its fixture has no userRef)")
	case need == "inbound" && len(f.InboundRef) == 0:
		t.Skip("the provider has no inbound scheme (its fixture has no inboundRef)")
	}
	return f
}

// tokenOf resolves ref for sub; a failure, or an answer that is neither a
// token nor an error, stops the case.
func tokenOf(t *conform.T, p CredentialProvider, ref Ref, sub Subject) string {
	tok, err := p.GetToken(t.Context(), ref, sub)
	t.Must("getToken", err)
	if tok == nil {
		t.Fatal(errors.New("getToken answered neither a token nor an error"))
	}
	return tok.Token
}

// wantKind records a mismatch unless err is a provider failure of kind.
func wantKind(t *conform.T, what string, tok *Token, err error, kind string) {
	switch {
	case err == nil:
		got := "a token"
		if tok == nil {
			got = "no token and no error"
		}
		t.Error(&conform.Mismatch{What: what, Expected: "a failure of kind " + kind, Actual: got})
	case conform.HintOf(err) != kind:
		t.Error(&conform.Mismatch{What: what, Expected: "a failure of kind " + kind, Actual: fmt.Sprintf("kind %q (%v)", conform.HintOf(err), err)})
	}
}

// signedInbound stores a fresh signing secret behind the fixture's
// inbound ref, in a namespace of the case's own, and signs inboundBody
// with it: the ref and the signed request's headers.
func signedInbound(t *conform.T, p CredentialProvider) (Ref, map[string]string) {
	f := fixture(t, p, "inbound")
	ref := ownNamespace(f.InboundRef)
	secret := "whsec_" + conform.NewUUID()
	t.Must("seed", p.Seed(t.Context(), ref, AppSubject, secret))
	h, err := p.Sign(t.Context(), ref, inboundBody, secret)
	t.Must("sign", err)
	return ref, h
}

func identity(t *conform.T, p CredentialProvider) {
	v, name, err := p.Identity(t.Context())
	t.Must("identity", err)
	t.Eq("apiVersion", v, 1)
	t.That(name != "", "name", "a non-empty name", name)
}

func unknownProvider(t *conform.T, p CredentialProvider) {
	tok, err := p.GetToken(t.Context(), Ref{"provider": "conformance-unknown-" + conform.NewUUID()}, AppSubject)
	wantKind(t, "getToken of another provider's ref", tok, err, conform.KindInvalidInput)
}

func tokenInHeader(t *conform.T, p CredentialProvider) {
	ref, v := ownNamespace(fixture(t, p, "").Ref), secretValue()
	t.Must("seed", p.Seed(t.Context(), ref, AppSubject, v))
	tok, err := p.GetToken(t.Context(), ref, AppSubject)
	t.Must("getToken", err)
	if !t.That(tok != nil, "getToken", "a token", tok) {
		return
	}
	t.Eq("the token", tok.Token, v)
	in := false
	for _, h := range tok.Headers {
		in = in || strings.Contains(h, v)
	}
	t.That(in, "the headers", "a header value that carries the token", tok.Headers)
}

func reseedSeen(t *conform.T, p CredentialProvider) {
	ref := ownNamespace(fixture(t, p, "").Ref)
	t.Must("seed", p.Seed(t.Context(), ref, AppSubject, secretValue()))
	tokenOf(t, p, ref, AppSubject)
	next := secretValue()
	t.Must("seed again", p.Seed(t.Context(), ref, AppSubject, next))
	t.Eq("the token after storing a new value", tokenOf(t, p, ref, AppSubject), next)
}

func perUserApart(t *conform.T, p CredentialProvider) {
	ref := fixture(t, p, "user").UserRef
	alice, bob := UserSubject(conform.NewUUID()), UserSubject(conform.NewUUID())
	va, vb := secretValue(), secretValue()
	t.Must("seed", p.Seed(t.Context(), ref, alice, va))
	t.Must("seed", p.Seed(t.Context(), ref, bob, vb))
	ga := tokenOf(t, p, ref, alice)
	gb := tokenOf(t, p, ref, bob)
	caps, err := p.Capabilities(t.Context(), ref)
	t.Must("capabilities", err)
	t.Eq("the first user's token", ga, va)
	t.Eq("the second user's token", gb, vb)
	t.Eq("capabilities(userRef).userSubjects", caps.UserSubjects, true)
	tok, err := p.GetToken(t.Context(), ref, AppSubject)
	t.That(err != nil, "the app's getToken of a per-user ref", "a failure", tok)
}

func revokeOneUser(t *conform.T, p CredentialProvider) {
	ref := fixture(t, p, "user").UserRef
	alice, bob := UserSubject(conform.NewUUID()), UserSubject(conform.NewUUID())
	vb := secretValue()
	t.Must("seed", p.Seed(t.Context(), ref, alice, secretValue()))
	t.Must("seed", p.Seed(t.Context(), ref, bob, vb))
	revoked, err := p.Revoke(t.Context(), ref, alice)
	t.Must("revoke", err)
	tok, err := p.GetToken(t.Context(), ref, alice)
	gb := tokenOf(t, p, ref, bob)
	t.Eq("revoke of the first user's credential", revoked, true)
	wantKind(t, "getToken of the revoked user's credential", tok, err, conform.KindNotFound)
	t.Eq("the other user's token", gb, vb)
}

func tenantsApart(t *conform.T, p CredentialProvider) {
	f := fixture(t, p, "")
	forA, forB := ownNamespace(f.Ref), ownNamespace(f.Ref)
	app, a, b := secretValue(), secretValue(), secretValue()
	t.Must("seed", p.Seed(t.Context(), f.Ref, AppSubject, app))
	t.Must("seed", p.Seed(t.Context(), forA, AppSubject, a))
	t.Must("seed", p.Seed(t.Context(), forB, AppSubject, b))
	gotApp := tokenOf(t, p, f.Ref, AppSubject)
	gotA := tokenOf(t, p, forA, AppSubject)
	gotB := tokenOf(t, p, forB, AppSubject)
	revoked, err := p.Revoke(t.Context(), forA, AppSubject)
	t.Must("revoke", err)
	tok, err := p.GetToken(t.Context(), forA, AppSubject)
	appAfter := tokenOf(t, p, f.Ref, AppSubject)
	bAfter := tokenOf(t, p, forB, AppSubject)
	t.Eq("the app's token", gotApp, app)
	t.Eq("tenant A's token", gotA, a)
	t.Eq("tenant B's token", gotB, b)
	t.Eq("revoke in tenant A's namespace", revoked, true)
	wantKind(t, "getToken of tenant A's revoked credential", tok, err, conform.KindNotFound)
	t.Eq("the app's token after tenant A's revoke", appAfter, app)
	t.Eq("tenant B's token after tenant A's revoke", bAfter, b)
}

func revokeOnce(t *conform.T, p CredentialProvider) {
	ref := ownNamespace(fixture(t, p, "").Ref)
	t.Must("seed", p.Seed(t.Context(), ref, AppSubject, secretValue()))
	first, err := p.Revoke(t.Context(), ref, AppSubject)
	t.Must("revoke", err)
	tok, getErr := p.GetToken(t.Context(), ref, AppSubject)
	second, err := p.Revoke(t.Context(), ref, AppSubject)
	t.Must("revoke again", err)
	t.Eq("the first revoke", first, true)
	wantKind(t, "getToken after revoke", tok, getErr, conform.KindNotFound)
	t.Eq("the second revoke", second, false)
}

func inboundSignedAccepted(t *conform.T, p CredentialProvider) {
	ref, h := signedInbound(t, p)
	ok, err := p.VerifyInbound(t.Context(), ref, inboundBody, h)
	t.Must("verifyInbound", err)
	t.Eq("verifyInbound of a signed body", ok, true)
}

func inboundTamperedRefused(t *conform.T, p CredentialProvider) {
	ref, h := signedInbound(t, p)
	tampered, err := p.VerifyInbound(t.Context(), ref, strings.Replace(inboundBody, "1", "2", 1), h)
	t.Must("verifyInbound", err)
	other, err := p.Sign(t.Context(), ref, inboundBody, "whsec_"+conform.NewUUID())
	t.Must("sign", err)
	otherSecret, err := p.VerifyInbound(t.Context(), ref, inboundBody, other)
	t.Must("verifyInbound", err)
	t.Eq("verifyInbound of the body with one byte changed", tampered, false)
	t.Eq("verifyInbound of a body signed with another secret", otherSecret, false)
}

func noTokenAtRest(t *conform.T, p CredentialProvider) {
	ref, v := ownNamespace(fixture(t, p, "").Ref), secretValue()
	t.Must("seed", p.Seed(t.Context(), ref, AppSubject, v))
	tokenOf(t, p, ref, AppSubject)
	rest, err := p.AtRest(t.Context())
	t.Must("atRest", err)
	t.Eq("the token appears in the adapter's options or rows", strings.Contains(string(rest), v), false)
}

// refusal says how err departs from a refusal with SQLSTATE 42501 and
// hint (none when hint is ""), or "" when it is one.
func refusal(err error, hint string) string {
	var se *conform.StoreError
	switch {
	case err == nil:
		return "the call went through"
	case !errors.As(err, &se):
		return "a failure that is not the block's: " + err.Error()
	case se.SQLState != "42501" || se.Hint != hint:
		return fmt.Sprintf("SQLSTATE %s, hint %q (%s)", se.SQLState, se.Hint, se.Message)
	}
	return ""
}

func serviceRoleOnly(t *conform.T, p CredentialProvider) {
	g, ok := p.(Guarded)
	if !ok {
		t.Fatal(errors.New("the store keeps the block's service-role rule, but its provider cannot call the block as another caller (it is no credentials.Guarded)"))
	}
	ref, v := ownNamespace(fixture(t, p, "").Ref), secretValue()
	t.Must("seed", p.Seed(t.Context(), ref, AppSubject, v))
	user := conform.NewUUID()
	callers := []struct {
		name string
		c    BlockCaller
		hint string
	}{
		{"anon", BlockCaller{Role: conform.RoleAnon, Claims: conform.Anon}, ""},
		{"a signed-in user", BlockCaller{Role: conform.RoleAuthenticated, Claims: conform.User(user)}, ""},
		{"the service role carrying a user's claims", BlockCaller{Role: conform.RoleService, Claims: conform.User(user)}, HintForbidden},
	}
	type answer struct {
		what, want string
		err        error
		hint       string
	}
	var answers []answer
	for _, c := range callers {
		for _, op := range []string{OpGet, OpSet, OpDelete} {
			want := "refused with SQLSTATE 42501 and no hint"
			if c.hint != "" {
				want = "refused with SQLSTATE 42501 and hint " + c.hint
			}
			answers = append(answers, answer{what: c.name + "'s " + op, want: want, hint: c.hint,
				err: g.TryAs(t.Context(), c.c, op, ref, secretValue())})
		}
	}
	after := tokenOf(t, p, ref, AppSubject)
	for _, a := range answers {
		if why := refusal(a.err, a.hint); why != "" {
			t.Error(&conform.Mismatch{What: a.what, Expected: a.want, Actual: why})
		}
	}
	t.Eq("the token after the refused calls", after, v)
}

func auditEvents(t *conform.T, p CredentialProvider) {
	a, ok := p.(Audited)
	if !ok {
		t.Fatal(errors.New("the store keeps the block's audit rule, but its provider shows no audit events (it is no credentials.Audited)"))
	}
	ref, first, second := ownNamespace(fixture(t, p, "").Ref), secretValue(), secretValue()
	t.Must("seed", p.Seed(t.Context(), ref, AppSubject, first))
	t.Must("seed again", p.Seed(t.Context(), ref, AppSubject, second))
	revoked, err := p.Revoke(t.Context(), ref, AppSubject)
	t.Must("revoke", err)
	again, err := p.Revoke(t.Context(), ref, AppSubject)
	t.Must("revoke again", err)
	events, err := a.AuditEvents(t.Context(), ref, AppSubject)
	t.Must("auditEvents", err)
	t.Eq("the first revoke", revoked, true)
	t.Eq("the second revoke", again, false)
	var types []string
	for _, e := range events {
		types = append(types, e.Type)
	}
	t.Eq("the events of a store, a replace, a delete and a delete of nothing", types, []string{"credential.set", "credential.set", "credential.deleted"})
	for i, e := range events {
		provider, _ := e.Metadata["provider"].(string)
		name, _ := e.Metadata["name"].(string)
		t.That(e.Category == "security" && e.TargetType == "credential" && provider != "" && name != "" && e.RecordID == provider+":"+name,
			fmt.Sprintf("event %d", i+1), "category security, target type credential, record id provider:name of its metadata", e)
	}
	all, _ := json.Marshal(events)
	t.That(!strings.Contains(string(all), first) && !strings.Contains(string(all), second), "the events", "no secret in them", string(all))
}
