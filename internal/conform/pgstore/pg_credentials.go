package pgstore

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/credentials"
	"github.com/jackc/pgx/v5"
)

// Credentials gives each credentials case better-supabase's default
// provider over the credentials module in the run's shared clone: every
// case works in a namespace of its own, so none needs a database to
// itself.
func (p *pgStore) Credentials(context.Context) (conform.Opener[credentials.CredentialProvider], error) {
	if err := p.missing[credentials.Suite.Name]; err != nil {
		return nil, err
	}
	return func(t *conform.T) (credentials.CredentialProvider, error) {
		t.SetPrefix(p.prefix())
		return pgCredentials{db: p.shared}, nil
	}, nil
}

// pgCredentials is better-supabase's vaultCredentials provider as it uses
// the credentials module: a ref {"provider": "vault", "secret": NAME}
// names the credential NAME (tenant/<tenant>/NAME with a "tenant", and
// <that>@<user id> with "scope": "user"), which credential_get,
// credential_set and credential_delete reach as the service role, the
// secret always a bind parameter. It caches nothing (upstream's cache is
// optional, and cleared by its own writes).
type pgCredentials struct{ db *pgDB }

// The provider's refs for the cases: an app secret, a per-user one and an
// inbound signing secret checked with HMAC-SHA256, as vaultCredentials
// takes them.
var (
	vaultRef        = credentials.Ref{"provider": "vault", "secret": "api"}
	vaultUserRef    = credentials.Ref{"provider": "vault", "secret": "oauth", "scope": "user"}
	vaultInboundRef = credentials.Ref{"provider": "vault", "secret": "webhook", "inbound": "hmac-sha256"}
)

// vaultTenant is what vaultCredentials takes as a ref's tenant.
var vaultTenant = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:@-]{0,99}$`)

func (pgCredentials) Identity(context.Context) (int, string, error) { return 1, "vault", nil }

func (pgCredentials) Fixture(context.Context) (credentials.Fixture, error) {
	return credentials.Fixture{Ref: vaultRef, UserRef: vaultUserRef, InboundRef: vaultInboundRef}, nil
}

func invalidRef(format string, args ...any) error {
	return &conform.StoreError{Hint: conform.KindInvalidInput, Message: fmt.Sprintf(format, args...) + " (CREDENTIAL_REF_INVALID)"}
}

// parsedRef is a vault ref the provider accepts.
type parsedRef struct {
	secret, tenant, scope, inbound, header, signatureHeader string
	scheme                                                  *string
}

// parse checks ref as vaultCredentials does.
func parse(ref credentials.Ref) (parsedRef, error) {
	var r parsedRef
	if p, _ := ref["provider"].(string); p != "vault" {
		return r, invalidRef("vault does not resolve %v credentials", ref["provider"])
	}
	r.secret, _ = ref["secret"].(string)
	if r.secret == "" {
		return r, invalidRef("a vault credential ref needs a secret name")
	}
	if t, ok := ref["tenant"]; ok {
		r.tenant, _ = t.(string)
		switch {
		case !vaultTenant.MatchString(r.tenant):
			return r, invalidRef("tenant is an id of letters, digits and ._:@- without a slash")
		case strings.Contains(r.secret, "/"):
			return r, invalidRef("a tenant's secret name has no slash")
		}
	} else if strings.HasPrefix(r.secret, "tenant/") {
		return r, invalidRef("a secret name starting with tenant/ needs its tenant set")
	}
	str := func(key string) (string, error) {
		v, ok := ref[key]
		if !ok {
			return "", nil
		}
		s, isString := v.(string)
		if !isString {
			return "", invalidRef("%s is a string", key)
		}
		return s, nil
	}
	var err error
	if r.scope, err = str("scope"); err != nil {
		return r, err
	}
	if r.scope != "" && r.scope != "app" && r.scope != "user" {
		return r, invalidRef(`scope is "app" or "user"`)
	}
	if r.inbound, err = str("inbound"); err != nil {
		return r, err
	}
	if r.inbound != "" && r.inbound != "hmac-sha256" && r.inbound != "shared-secret" {
		// standard-webhooks is vaultCredentials' too; the cases use none.
		return r, invalidRef(`inbound is "hmac-sha256" or "shared-secret" here`)
	}
	if r.header, err = str("header"); err != nil {
		return r, err
	}
	if r.signatureHeader, err = str("signatureHeader"); err != nil {
		return r, err
	}
	if v, ok := ref["scheme"]; ok && v != nil {
		s, isString := v.(string)
		if !isString {
			return r, invalidRef("scheme is a string or null")
		}
		r.scheme = &s
	} else if !ok {
		bearer := "Bearer"
		r.scheme = &bearer
	}
	return r, nil
}

// name is the credential's name under provider "vault" for sub.
func (r parsedRef) name(sub credentials.Subject) (string, error) {
	base := r.secret
	if r.tenant != "" {
		base = "tenant/" + r.tenant + "/" + r.secret
	}
	if r.scope != "user" {
		return base, nil
	}
	if sub.Type != "user" {
		return "", &conform.StoreError{Hint: "forbidden", Message: fmt.Sprintf("%q is stored per user (CREDENTIAL_SUBJECT_REQUIRED)", r.secret)}
	}
	return base + "@" + sub.ID, nil
}

// resolve is the credential name ref gives for sub.
func resolve(ref credentials.Ref, sub credentials.Subject) (parsedRef, string, error) {
	r, err := parse(ref)
	if err != nil {
		return r, "", err
	}
	name, err := r.name(sub)
	return r, name, err
}

// read is the credential's secret; not_found when none is stored.
func (c pgCredentials) read(ctx context.Context, name string) (string, error) {
	var secret *string
	if err := c.db.with(ctx, func(conn *pgx.Conn) error {
		return scalar(ctx, conn, &secret, "select better_supabase.credential_get('vault', $1)", name)
	}); err != nil {
		return "", err
	}
	if secret == nil {
		return "", &conform.StoreError{Hint: conform.KindNotFound, Message: fmt.Sprintf("no credential is stored as %q (CREDENTIAL_NOT_FOUND)", name)}
	}
	return *secret, nil
}

func (c pgCredentials) Seed(ctx context.Context, ref credentials.Ref, sub credentials.Subject, value string) error {
	_, name, err := resolve(ref, sub)
	if err != nil {
		return err
	}
	return c.db.with(ctx, func(conn *pgx.Conn) error {
		_, err := conn.Exec(ctx, "select better_supabase.credential_set('vault', $1, $2, null)", name, value)
		return pgErr(err)
	})
}

func (c pgCredentials) GetToken(ctx context.Context, ref credentials.Ref, sub credentials.Subject) (*credentials.Token, error) {
	r, name, err := resolve(ref, sub)
	if err != nil {
		return nil, err
	}
	tok, err := c.read(ctx, name)
	if err != nil {
		return nil, err
	}
	header := strings.ToLower(r.header)
	if header == "" {
		header = "authorization"
	}
	value := tok
	if r.scheme != nil {
		value = *r.scheme + " " + tok
	}
	return &credentials.Token{Token: tok, Headers: map[string]string{header: value}}, nil
}

func (pgCredentials) Capabilities(_ context.Context, ref credentials.Ref) (credentials.Capabilities, error) {
	r, err := parse(ref)
	return credentials.Capabilities{UserSubjects: err == nil && r.scope == "user"}, nil
}

func (c pgCredentials) Revoke(ctx context.Context, ref credentials.Ref, sub credentials.Subject) (bool, error) {
	_, name, err := resolve(ref, sub)
	if err != nil {
		return false, err
	}
	var deleted bool
	err = c.db.with(ctx, func(conn *pgx.Conn) error {
		return scalar(ctx, conn, &deleted, "select better_supabase.credential_delete('vault', $1)", name)
	})
	return deleted, err
}

// signatureHeaderName is the header that carries the signature of an
// inbound request.
func (r parsedRef) signatureHeaderName() string {
	if r.signatureHeader != "" {
		return strings.ToLower(r.signatureHeader)
	}
	if r.inbound == "shared-secret" {
		return "authorization"
	}
	return "x-hub-signature-256"
}

func hmacHex(secret, body string) string {
	h := hmac.New(sha256.New, []byte(secret))
	h.Write([]byte(body))
	return hex.EncodeToString(h.Sum(nil))
}

func (pgCredentials) Sign(_ context.Context, ref credentials.Ref, body, secret string) (map[string]string, error) {
	r, err := parse(ref)
	if err != nil {
		return nil, err
	}
	switch r.inbound {
	case "hmac-sha256":
		return map[string]string{r.signatureHeaderName(): "sha256=" + hmacHex(secret, body)}, nil
	case "shared-secret":
		return map[string]string{r.signatureHeaderName(): secret}, nil
	}
	return nil, invalidRef("%q has no inbound scheme", r.secret)
}

func (c pgCredentials) VerifyInbound(ctx context.Context, ref credentials.Ref, body string, headers map[string]string) (bool, error) {
	r, err := parse(ref)
	if err != nil {
		return false, err
	}
	if r.inbound == "" {
		return false, invalidRef("%q has no inbound scheme", r.secret)
	}
	name, err := r.name(credentials.AppSubject)
	if err != nil {
		return false, err
	}
	secret, err := c.read(ctx, name)
	if err != nil {
		return false, err
	}
	offered := ""
	for k, v := range headers {
		if strings.EqualFold(k, r.signatureHeaderName()) {
			offered = v
		}
	}
	want := secret
	if r.inbound == "hmac-sha256" {
		offered = strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(offered, "sha256="), "SHA256="))
		want = hmacHex(secret, body)
	} else {
		offered = strings.TrimSpace(strings.TrimPrefix(offered, "Bearer "))
	}
	return subtle.ConstantTimeCompare([]byte(offered), []byte(want)) == 1, nil
}

// AtRest is what the database keeps of the credentials, as a reader of
// its tables sees it: the provider's options, every row of Vault under
// bs:cred: as stored (Vault keeps the secrets, which must not be
// readable there), and the credentials' audit events.
func (c pgCredentials) AtRest(ctx context.Context) (json.RawMessage, error) {
	var rest json.RawMessage
	err := c.db.admin(ctx, func(conn *pgx.Conn) error {
		return scalar(ctx, conn, &rest, `select pg_catalog.jsonb_build_object(
			'options', '{"provider": "vault", "schema": "better_supabase"}'::jsonb,
			'vault', (select coalesce(pg_catalog.jsonb_agg(pg_catalog.to_jsonb(s)), '[]') from vault.secrets s where s.name like 'bs:cred:%'),
			'audit', case when pg_catalog.to_regclass('better_supabase.audit_events') is null then '[]'::jsonb else
				(select coalesce(pg_catalog.jsonb_agg(pg_catalog.to_jsonb(e)), '[]') from better_supabase.audit_events e where e.target_type = 'credential') end)`)
	})
	return rest, err
}

// TryAs calls the block as c: in a transaction of its own, as PostgREST
// would for a request with c's token (the claims, then the role).
func (c pgCredentials) TryAs(ctx context.Context, who credentials.BlockCaller, op string, ref credentials.Ref, value string) error {
	_, name, err := resolve(ref, credentials.AppSubject)
	if err != nil {
		return err
	}
	var call string
	args := []any{name}
	switch op {
	case credentials.OpGet:
		call = "select better_supabase.credential_get('vault', $1)"
	case credentials.OpSet:
		call = "select better_supabase.credential_set('vault', $1, $2, null)::text"
		args = append(args, value)
	case credentials.OpDelete:
		call = "select better_supabase.credential_delete('vault', $1)::text"
	default:
		return fmt.Errorf("no credentials operation %q", op)
	}
	claims := map[string]any{"role": who.Claims.Role}
	if who.Claims.Sub != "" {
		claims["sub"] = who.Claims.Sub
	}
	cj, _ := json.Marshal(claims)
	return c.db.with(ctx, func(conn *pgx.Conn) error {
		return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, "select pg_catalog.set_config('role', $1, true), pg_catalog.set_config('request.jwt.claims', $2, true)", who.Role, string(cj)); err != nil {
				return err
			}
			var out *string
			return scalar(ctx, tx, &out, call, args...)
		})
	})
}

// AuditEvents are the events recorded for the credential ref names for
// sub, read from the access module's audit log.
func (c pgCredentials) AuditEvents(ctx context.Context, ref credentials.Ref, sub credentials.Subject) ([]credentials.AuditEvent, error) {
	_, name, err := resolve(ref, sub)
	if err != nil {
		return nil, err
	}
	events := []credentials.AuditEvent{}
	err = c.db.admin(ctx, func(conn *pgx.Conn) error {
		_, err := jsonInto(ctx, conn, &events, `select coalesce(pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
				'type', e.event_type, 'category', e.category, 'targetType', e.target_type, 'recordId', e.record_id, 'metadata', e.metadata)
				order by e.id), '[]')
			from better_supabase.audit_events e where e.record_id = 'vault:' || $1`, name)
		return err
	})
	return events, err
}

// NotKept says which block rules the store cannot hold the blocks to:
// where the database's audit_event is not the access module's (blocks
// from a folder with an access module of their own), the audit events go
// where bsadapter cannot read them.
func (p *pgStore) NotKept(r conform.BlockRule) string {
	if r == credentials.AuditTrail && !p.auditLog {
		return "the database's audit_event is not the access module's: its events are not in better_supabase.audit_events"
	}
	return ""
}
