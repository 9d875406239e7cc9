package memstore

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/credentials"
)

// refCredentials is the reference CredentialProvider: secrets sit in a
// vault map under a name built from the ref, as the credentials module's
// bs:cred:<provider>:<name> entries do; the adapter's own rows hold only
// refs.
type refCredentials struct {
	mu    sync.Mutex
	vault map[string]string
	rows  []map[string]any
}

func newCredentials() *refCredentials {
	return &refCredentials{vault: map[string]string{}}
}

// The refs of the reference provider: {"provider": "memory", "name": ...},
// with "perUser": true for one credential per user and "inbound":
// "hmac-sha256" for a signing secret.
var (
	memRef        = credentials.Ref{"provider": "memory", "name": "api"}
	memUserRef    = credentials.Ref{"provider": "memory", "name": "oauth", "perUser": true}
	memInboundRef = credentials.Ref{"provider": "memory", "name": "webhook", "inbound": "hmac-sha256"}
)

// signatureHeader carries the hex HMAC-SHA256 of an inbound body.
const signatureHeader = "x-signature"

func (m *refCredentials) Identity(context.Context) (int, string, error) { return 1, "memory", nil }

func (m *refCredentials) Fixture(context.Context) (credentials.Fixture, error) {
	return credentials.Fixture{Ref: memRef, UserRef: memUserRef, InboundRef: memInboundRef}, nil
}

// vaultName is where ref's credential for sub lives; it refuses refs of
// other providers and subjects the ref does not take.
func (m *refCredentials) vaultName(ref credentials.Ref, sub credentials.Subject) (string, error) {
	if p, _ := ref["provider"].(string); p != "memory" {
		return "", &conform.StoreError{Hint: conform.KindInvalidInput, Message: fmt.Sprintf("the memory provider cannot resolve a ref of provider %q", ref["provider"])}
	}
	name, _ := ref["name"].(string)
	if name == "" {
		return "", &conform.StoreError{Hint: conform.KindInvalidInput, Message: "the ref has no name"}
	}
	ns := ""
	if t, ok := ref["tenant"].(string); ok {
		ns = t + ":"
	}
	perUser, _ := ref["perUser"].(bool)
	switch {
	case perUser && sub.Type != "user":
		return "", &conform.StoreError{Hint: conform.KindInvalidInput, Message: "a per-user ref needs a user subject"}
	case perUser:
		return "bs:cred:memory:" + ns + name + ":user:" + sub.ID, nil
	}
	return "bs:cred:memory:" + ns + name, nil
}

func (m *refCredentials) Seed(_ context.Context, ref credentials.Ref, sub credentials.Subject, value string) error {
	name, err := m.vaultName(ref, sub)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.vault[name] = value
	m.rows = append(m.rows, map[string]any{"credential_ref": ref, "subject": sub})
	return nil
}

func (m *refCredentials) GetToken(_ context.Context, ref credentials.Ref, sub credentials.Subject) (*credentials.Token, error) {
	name, err := m.vaultName(ref, sub)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.vault[name]
	if !ok {
		return nil, &conform.StoreError{Hint: conform.KindNotFound, Message: "no credential " + name}
	}
	return &credentials.Token{Token: v, Headers: map[string]string{"authorization": "Bearer " + v}}, nil
}

func (m *refCredentials) Capabilities(_ context.Context, ref credentials.Ref) (credentials.Capabilities, error) {
	perUser, _ := ref["perUser"].(bool)
	return credentials.Capabilities{UserSubjects: perUser}, nil
}

func (m *refCredentials) Revoke(_ context.Context, ref credentials.Ref, sub credentials.Subject) (bool, error) {
	name, err := m.vaultName(ref, sub)
	if err != nil {
		return false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.vault[name]
	delete(m.vault, name)
	return ok, nil
}

func sign(body, secret string) string {
	h := hmac.New(sha256.New, []byte(secret))
	h.Write([]byte(body))
	return hex.EncodeToString(h.Sum(nil))
}

func (m *refCredentials) Sign(_ context.Context, _ credentials.Ref, body, secret string) (map[string]string, error) {
	return map[string]string{signatureHeader: sign(body, secret)}, nil
}

func (m *refCredentials) VerifyInbound(_ context.Context, ref credentials.Ref, body string, headers map[string]string) (bool, error) {
	name, err := m.vaultName(ref, credentials.AppSubject)
	if err != nil {
		return false, err
	}
	m.mu.Lock()
	secret, ok := m.vault[name]
	m.mu.Unlock()
	if !ok {
		return false, &conform.StoreError{Hint: conform.KindNotFound, Message: "no inbound secret " + name}
	}
	got, _ := hex.DecodeString(headers[signatureHeader])
	want, _ := hex.DecodeString(sign(body, secret))
	return hmac.Equal(got, want), nil
}

func (m *refCredentials) AtRest(context.Context) (json.RawMessage, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return json.Marshal(map[string]any{"options": map[string]any{"provider": "memory"}, "rows": m.rows})
}

// Credentials gives each credentials case a reference provider of its own.
func (m *memoryStore) Credentials(context.Context) (conform.Opener[credentials.CredentialProvider], error) {
	return func(t *conform.T) (credentials.CredentialProvider, error) {
		t.SetPrefix(m.prefix())
		return newCredentials(), nil
	}, nil
}

// NotKept says that the memory reference, a credential provider of an
// adapter's own kind, has none of the credentials block's rules: no SQL
// callers to refuse and no audit log. It keeps every other block rule.
func (m *memoryStore) NotKept(r conform.BlockRule) string {
	if r == credentials.ServiceRoleOnly || r == credentials.AuditTrail {
		return "the memory reference is a provider of an adapter's own kind, not the credentials block: it has no SQL callers to refuse and no audit log"
	}
	return ""
}
