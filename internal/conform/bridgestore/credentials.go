package bridgestore

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/credentials"
)

// bridgeCredentials drives a CredentialProvider over the credentials
// methods. A Result error travels as a JSON-RPC error whose data carries
// the kind: {"kind": "not_found"}.
type bridgeCredentials struct{ b *Store }

// call is Store.call with the error's kind as the StoreError's hint.
func (p bridgeCredentials) call(ctx context.Context, method string, params, result any) error {
	err := p.b.c.Call(ctx, method, params, result)
	var rpc *bridge.RPCError
	if errors.As(err, &rpc) {
		var d struct {
			Kind string `json:"kind"`
		}
		_ = json.Unmarshal(rpc.Data, &d)
		return &conform.StoreError{Hint: d.Kind, Message: rpc.Error()}
	}
	var te *bridge.TransportError
	if errors.As(err, &te) && te.Fatal() && te.Kind != bridge.FaultClosed {
		p.b.fatal.CompareAndSwap(nil, te)
	}
	return err
}

func (p bridgeCredentials) Identity(ctx context.Context) (int, string, error) {
	var res struct {
		APIVersion int    `json:"apiVersion"`
		Name       string `json:"name"`
	}
	err := p.call(ctx, bridge.MethodCredIdentity, map[string]any{}, &res)
	return res.APIVersion, res.Name, err
}

func (p bridgeCredentials) Fixture(ctx context.Context) (credentials.Fixture, error) {
	var f credentials.Fixture
	err := p.call(ctx, bridge.MethodCredFixture, map[string]any{}, &f)
	return f, err
}

func (p bridgeCredentials) Seed(ctx context.Context, ref credentials.Ref, sub credentials.Subject, value string) error {
	return p.call(ctx, bridge.MethodCredSeed, map[string]any{"ref": ref, "subject": sub, "value": value}, nil)
}

func (p bridgeCredentials) GetToken(ctx context.Context, ref credentials.Ref, sub credentials.Subject) (*credentials.Token, error) {
	var res struct {
		Token   *string           `json:"token"`
		Headers map[string]string `json:"headers"`
	}
	if err := p.call(ctx, bridge.MethodCredGetToken, map[string]any{"ref": ref, "subject": sub}, &res); err != nil {
		return nil, err
	}
	if res.Token == nil {
		return nil, nil
	}
	return &credentials.Token{Token: *res.Token, Headers: res.Headers}, nil
}

func (p bridgeCredentials) Capabilities(ctx context.Context, ref credentials.Ref) (credentials.Capabilities, error) {
	var res credentials.Capabilities
	err := p.call(ctx, bridge.MethodCredCapabilities, map[string]any{"ref": ref}, &res)
	return res, err
}

func (p bridgeCredentials) Revoke(ctx context.Context, ref credentials.Ref, sub credentials.Subject) (bool, error) {
	var res struct {
		Revoked bool `json:"revoked"`
	}
	err := p.call(ctx, bridge.MethodCredRevoke, map[string]any{"ref": ref, "subject": sub}, &res)
	return res.Revoked, err
}

func (p bridgeCredentials) Sign(ctx context.Context, ref credentials.Ref, body, secret string) (map[string]string, error) {
	var res struct {
		Headers map[string]string `json:"headers"`
	}
	err := p.call(ctx, bridge.MethodCredSign, map[string]any{"ref": ref, "body": body, "secret": secret}, &res)
	return res.Headers, err
}

func (p bridgeCredentials) VerifyInbound(ctx context.Context, ref credentials.Ref, body string, headers map[string]string) (bool, error) {
	var res struct {
		Valid bool `json:"valid"`
	}
	err := p.call(ctx, bridge.MethodCredVerifyInbound, map[string]any{"ref": ref, "body": body, "headers": headers}, &res)
	return res.Valid, err
}

func (p bridgeCredentials) AtRest(ctx context.Context) (json.RawMessage, error) {
	var res json.RawMessage
	err := p.call(ctx, bridge.MethodCredAtRest, map[string]any{}, &res)
	return res, err
}

// Credentials drives the bridge's credentials methods.
func (b *Store) Credentials(context.Context) (conform.Opener[credentials.CredentialProvider], error) {
	return group[credentials.CredentialProvider](b, bridge.GroupCredentials, bridgeCredentials{b})
}
