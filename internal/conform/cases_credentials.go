package conform

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// secretValue is a fresh token for a credentials case.
func secretValue() string { return "token-" + newUUID() }

// wantKind checks that err is a provider failure of kind.
func wantKind(what string, tok *CredentialToken, err error, kind string) error {
	if err == nil {
		got := "a token"
		if tok == nil {
			got = "no token and no error"
		}
		return &Mismatch{What: what, Expected: "a failure of kind " + kind, Actual: got}
	}
	if h := HintOf(err); h != kind {
		return &Mismatch{What: what, Expected: "a failure of kind " + kind, Actual: fmt.Sprintf("kind %q (%v)", h, err)}
	}
	return nil
}

// fixture returns the provider's fixture; need names the ref the case
// needs ("" for the app ref only).
func fixture(ctx context.Context, s *Subject, need string) (CredentialFixture, error) {
	f, err := s.Credentials.Fixture(ctx)
	if err != nil {
		return f, op("fixture", err)
	}
	switch {
	case len(f.Ref) == 0:
		return f, errors.New("the fixture has no app ref")
	case need == "user" && len(f.UserRef) == 0:
		return f, Skip("the provider keeps no per-user credentials (its fixture has no userRef)")
	case need == "inbound" && len(f.InboundRef) == 0:
		return f, Skip("the provider has no inbound scheme (its fixture has no inboundRef)")
	}
	return f, nil
}

// tokenOf resolves ref for sub, failing the case on an error.
func tokenOf(ctx context.Context, s *Subject, ref CredentialRef, sub CredentialSubject) (string, error) {
	t, err := s.Credentials.GetToken(ctx, ref, sub)
	if err != nil {
		return "", op("getToken", err)
	}
	if t == nil {
		return "", errors.New("getToken answered neither a token nor an error")
	}
	return t.Token, nil
}

func credentialCases() []Case {
	cs := []Case{
		{ID: "credentials/identity", Rule: "the provider reports apiVersion 1 and a non-empty name", Run: func(ctx context.Context, s *Subject) error {
			v, name, err := s.Credentials.Identity(ctx)
			if err != nil {
				return op("identity", err)
			}
			var c checks
			c.eq("apiVersion", v, 1)
			c.that(name != "", "name", "a non-empty name", name)
			return c.err()
		}},
		{ID: "credentials/unknown-provider", Rule: "a ref naming another provider is refused with an invalid_input error", Run: func(ctx context.Context, s *Subject) error {
			t, err := s.Credentials.GetToken(ctx, CredentialRef{"provider": "conformance-unknown-" + newUUID()}, AppSubject)
			return wantKind("getToken of another provider's ref", t, err, KindInvalidInput)
		}},
		{ID: "credentials/token-in-header", Rule: "a seeded token is returned, and a header value carries it", Run: func(ctx context.Context, s *Subject) error {
			f, err := fixture(ctx, s, "")
			if err != nil {
				return err
			}
			// A namespace of its own: over a bridge the cases share one provider.
			ref := TenantRef(newUUID(), f.Ref)
			v := secretValue()
			if err := s.Credentials.Seed(ctx, ref, AppSubject, v); err != nil {
				return op("seed", err)
			}
			t, err := s.Credentials.GetToken(ctx, ref, AppSubject)
			if err != nil {
				return op("getToken", err)
			}
			var c checks
			if !c.that(t != nil, "getToken", "a token", t) {
				return c.err()
			}
			c.eq("the token", t.Token, v)
			in := false
			for _, h := range t.Headers {
				in = in || strings.Contains(h, v)
			}
			c.that(in, "the headers", "a header value that carries the token", t.Headers)
			return c.err()
		}},
		{ID: "credentials/reseed-seen", Rule: "a value stored again is seen at once: no stale cache", Run: func(ctx context.Context, s *Subject) error {
			f, err := fixture(ctx, s, "")
			if err != nil {
				return err
			}
			// A namespace of its own: over a bridge the cases share one provider.
			ref := TenantRef(newUUID(), f.Ref)
			if err := s.Credentials.Seed(ctx, ref, AppSubject, secretValue()); err != nil {
				return op("seed", err)
			}
			if _, err := tokenOf(ctx, s, ref, AppSubject); err != nil {
				return err
			}
			next := secretValue()
			if err := s.Credentials.Seed(ctx, ref, AppSubject, next); err != nil {
				return op("seed again", err)
			}
			got, err := tokenOf(ctx, s, ref, AppSubject)
			if err != nil {
				return err
			}
			return eq("the token after storing a new value", got, next)
		}},
		{ID: "credentials/per-user-apart", Rule: "per-user credentials are kept apart, capabilities report user subjects, and the app cannot read a per-user ref", Run: func(ctx context.Context, s *Subject) error {
			f, err := fixture(ctx, s, "user")
			if err != nil {
				return err
			}
			alice, bob := UserSubject(newUUID()), UserSubject(newUUID())
			va, vb := secretValue(), secretValue()
			if err := s.Credentials.Seed(ctx, f.UserRef, alice, va); err != nil {
				return op("seed", err)
			}
			if err := s.Credentials.Seed(ctx, f.UserRef, bob, vb); err != nil {
				return op("seed", err)
			}
			var c checks
			ga, err := tokenOf(ctx, s, f.UserRef, alice)
			if err != nil {
				return err
			}
			gb, err := tokenOf(ctx, s, f.UserRef, bob)
			if err != nil {
				return err
			}
			c.eq("the first user's token", ga, va)
			c.eq("the second user's token", gb, vb)
			caps, err := s.Credentials.Capabilities(ctx, f.UserRef)
			if err != nil {
				return op("capabilities", err)
			}
			c.eq("capabilities(userRef).userSubjects", caps.UserSubjects, true)
			t, err := s.Credentials.GetToken(ctx, f.UserRef, AppSubject)
			c.that(err != nil, "the app's getToken of a per-user ref", "a failure", t)
			return c.err()
		}},
		{ID: "credentials/revoke-one-user", Rule: "revoking one user's credential leaves the other users' in place", Run: func(ctx context.Context, s *Subject) error {
			f, err := fixture(ctx, s, "user")
			if err != nil {
				return err
			}
			alice, bob := UserSubject(newUUID()), UserSubject(newUUID())
			vb := secretValue()
			if err := s.Credentials.Seed(ctx, f.UserRef, alice, secretValue()); err != nil {
				return op("seed", err)
			}
			if err := s.Credentials.Seed(ctx, f.UserRef, bob, vb); err != nil {
				return op("seed", err)
			}
			var c checks
			ok, err := s.Credentials.Revoke(ctx, f.UserRef, alice)
			if err != nil {
				return op("revoke", err)
			}
			c.eq("revoke of the first user's credential", ok, true)
			t, err := s.Credentials.GetToken(ctx, f.UserRef, alice)
			if e := wantKind("getToken of the revoked user's credential", t, err, KindNotFound); e != nil {
				c.list = append(c.list, e)
			}
			gb, err := tokenOf(ctx, s, f.UserRef, bob)
			if err != nil {
				return err
			}
			c.eq("the other user's token", gb, vb)
			return c.err()
		}},
		{ID: "credentials/tenants-apart", Rule: "a tenant's ref resolves only its own namespace's credential, and revoking it leaves the app's and other tenants'", Run: func(ctx context.Context, s *Subject) error {
			f, err := fixture(ctx, s, "")
			if err != nil {
				return err
			}
			forA, forB := TenantRef(newUUID(), f.Ref), TenantRef(newUUID(), f.Ref)
			app, a, b := secretValue(), secretValue(), secretValue()
			for _, x := range []struct {
				ref CredentialRef
				v   string
			}{{f.Ref, app}, {forA, a}, {forB, b}} {
				if err := s.Credentials.Seed(ctx, x.ref, AppSubject, x.v); err != nil {
					return op("seed", err)
				}
			}
			var c checks
			for _, x := range []struct {
				what string
				ref  CredentialRef
				v    string
			}{{"the app's token", f.Ref, app}, {"tenant A's token", forA, a}, {"tenant B's token", forB, b}} {
				got, err := tokenOf(ctx, s, x.ref, AppSubject)
				if err != nil {
					return err
				}
				c.eq(x.what, got, x.v)
			}
			ok, err := s.Credentials.Revoke(ctx, forA, AppSubject)
			if err != nil {
				return op("revoke", err)
			}
			c.eq("revoke in tenant A's namespace", ok, true)
			t, err := s.Credentials.GetToken(ctx, forA, AppSubject)
			if e := wantKind("getToken of tenant A's revoked credential", t, err, KindNotFound); e != nil {
				c.list = append(c.list, e)
			}
			for _, x := range []struct {
				what string
				ref  CredentialRef
				v    string
			}{{"the app's token after tenant A's revoke", f.Ref, app}, {"tenant B's token after tenant A's revoke", forB, b}} {
				got, err := tokenOf(ctx, s, x.ref, AppSubject)
				if err != nil {
					return err
				}
				c.eq(x.what, got, x.v)
			}
			return c.err()
		}},
		{ID: "credentials/revoke-once", Rule: "revoke is true once and false after, and a revoked credential is not_found", Run: func(ctx context.Context, s *Subject) error {
			f, err := fixture(ctx, s, "")
			if err != nil {
				return err
			}
			ref := TenantRef(newUUID(), f.Ref)
			if err := s.Credentials.Seed(ctx, ref, AppSubject, secretValue()); err != nil {
				return op("seed", err)
			}
			var c checks
			first, err := s.Credentials.Revoke(ctx, ref, AppSubject)
			if err != nil {
				return op("revoke", err)
			}
			c.eq("the first revoke", first, true)
			t, err := s.Credentials.GetToken(ctx, ref, AppSubject)
			if e := wantKind("getToken after revoke", t, err, KindNotFound); e != nil {
				c.list = append(c.list, e)
			}
			second, err := s.Credentials.Revoke(ctx, ref, AppSubject)
			if err != nil {
				return op("revoke again", err)
			}
			c.eq("the second revoke", second, false)
			return c.err()
		}},
		{ID: "credentials/inbound-signed-accepted", Rule: "inbound verification accepts a body signed with the stored secret", Run: func(ctx context.Context, s *Subject) error {
			f, err := fixture(ctx, s, "inbound")
			if err != nil {
				return err
			}
			ref := TenantRef(newUUID(), f.InboundRef)
			secret := "whsec_" + newUUID()
			if err := s.Credentials.Seed(ctx, ref, AppSubject, secret); err != nil {
				return op("seed", err)
			}
			body := `{"hello":"world","n":1}`
			h, err := s.Credentials.Sign(ctx, ref, body, secret)
			if err != nil {
				return op("sign", err)
			}
			ok, err := s.Credentials.VerifyInbound(ctx, ref, body, h)
			if err != nil {
				return op("verifyInbound", err)
			}
			return eq("verifyInbound of a signed body", ok, true)
		}},
		{ID: "credentials/inbound-tampered-refused", Rule: "inbound verification refuses a signed body with one byte changed, and one signed with another secret", Run: func(ctx context.Context, s *Subject) error {
			f, err := fixture(ctx, s, "inbound")
			if err != nil {
				return err
			}
			ref := TenantRef(newUUID(), f.InboundRef)
			secret := "whsec_" + newUUID()
			if err := s.Credentials.Seed(ctx, ref, AppSubject, secret); err != nil {
				return op("seed", err)
			}
			body := `{"hello":"world","n":1}`
			h, err := s.Credentials.Sign(ctx, ref, body, secret)
			if err != nil {
				return op("sign", err)
			}
			var c checks
			tampered := strings.Replace(body, "1", "2", 1)
			ok, err := s.Credentials.VerifyInbound(ctx, ref, tampered, h)
			if err != nil {
				return op("verifyInbound", err)
			}
			c.eq("verifyInbound of the body with one byte changed", ok, false)
			other, err := s.Credentials.Sign(ctx, ref, body, "whsec_"+newUUID())
			if err != nil {
				return op("sign", err)
			}
			if ok, err = s.Credentials.VerifyInbound(ctx, ref, body, other); err != nil {
				return op("verifyInbound", err)
			}
			c.eq("verifyInbound of a body signed with another secret", ok, false)
			return c.err()
		}},
		{ID: "credentials/no-token-at-rest", Rule: "no option or stored row of the adapter's own carries a token: only refs", Run: func(ctx context.Context, s *Subject) error {
			f, err := fixture(ctx, s, "")
			if err != nil {
				return err
			}
			ref := TenantRef(newUUID(), f.Ref)
			v := secretValue()
			if err := s.Credentials.Seed(ctx, ref, AppSubject, v); err != nil {
				return op("seed", err)
			}
			if _, err := tokenOf(ctx, s, ref, AppSubject); err != nil {
				return err
			}
			rest, err := s.Credentials.AtRest(ctx)
			if err != nil {
				return op("atRest", err)
			}
			return eq("the token appears in the adapter's options or rows", strings.Contains(string(rest), v), false)
		}},
	}
	for i := range cs {
		cs[i].Suite = SuiteCredentials
		run := cs[i].Run
		cs[i].Run = func(ctx context.Context, s *Subject) error {
			if s.Credentials == nil {
				return errors.New("the store made a subject without a credential provider")
			}
			return run(ctx, s)
		}
	}
	return cs
}
