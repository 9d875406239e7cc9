// Package chat is the chat suite: the AI chat block's message tree and
// answer runs (contracts.md section 4), and what coding agents keep per
// chat. A chat's answers are written to a stream store, which the cases
// drive too, so that a stop is seen by the writer.
package chat

import (
	"context"
	"encoding/json"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/streams"
)

// Suite is the chat suite.
var Suite = conform.NewSuite(conform.Info{
	Name:     "chat",
	Contract: "chat",
	Module:   "ai-chat",
	Intro: "The AI chat block's message tree and answer runs (contracts.md section 4). " +
		"The bridge protocol has no chat methods, so this suite runs against `pg` and `memory` only.",
}, Provider.Chat, cases)

// Provider is implemented by a store that offers chat storage.
type Provider interface {
	// Chat prepares the suite for a run: what gives each case a chat
	// store, or why the store cannot run the suite.
	Chat(ctx context.Context) (conform.Opener[Store], error)
}

// The contract's error hints of the chat functions.
const (
	HintMessageInvalid = "AI_MESSAGE_INVALID"
	HintRunInvalid     = "AI_RUN_INVALID"
)

// Message is a canonical message (ai-message-v1) as chat storage keeps it.
type Message struct {
	ID       string            `json:"id"`
	Role     string            `json:"role"`
	Parts    []json.RawMessage `json:"parts"`
	Metadata map[string]any    `json:"metadata,omitempty"`
}

// MessageResult is what appending or saving a message returns.
type MessageResult struct {
	MessageID string  `json:"message_id"`
	ParentID  *string `json:"parent_id"`
	Created   bool    `json:"created"`
}

// UserOptions are the optional arguments of Store.AppendUser.
type UserOptions struct {
	Trigger   string
	MessageID string
}

// AssistantOptions are the arguments of Store.SaveAssistant.
type AssistantOptions struct {
	ParentID string
	Status   string
	Model    string
	Format   string
	Native   json.RawMessage
	RunID    string
}

// PathEntry is one message of Store.Path, root first.
type PathEntry struct {
	ID           string            `json:"id"`
	ParentID     *string           `json:"parent_id"`
	Role         string            `json:"role"`
	Parts        []json.RawMessage `json:"parts"`
	Metadata     map[string]any    `json:"metadata"`
	Format       string            `json:"format"`
	Native       json.RawMessage   `json:"native"`
	Model        *string           `json:"model"`
	Status       string            `json:"status"`
	SiblingCount int               `json:"sibling_count"`
	SiblingIndex int               `json:"sibling_index"`
}

// ClaimOptions are the optional arguments of Store.Claim.
type ClaimOptions struct {
	Model         string
	MessageID     string
	Engine        string
	ExternalRunID string
}

// ClaimResult is what Store.Claim returns.
type ClaimResult struct {
	Claimed  bool    `json:"claimed"`
	StreamID *string `json:"stream_id"`
	RunID    *string `json:"run_id"`
}

// ReleaseOptions are the optional arguments of Store.Release.
type ReleaseOptions struct {
	Status string
	Usage  map[string]any
	Error  string
}

// StopResult is what Store.Stop returns when a run was active.
type StopResult struct {
	StreamID string `json:"stream_id"`
	RunID    string `json:"run_id"`
}

// Store is the part of the AI chat block adapters reach (contracts.md,
// section 4). NewChat makes an empty chat owned by owner; Streams is the
// stream store the chat's answers are written to, so that a stop can be
// seen by the writer.
type Store interface {
	NewChat(ctx context.Context, owner string) (string, error)
	AppendUser(ctx context.Context, chat string, m Message, o UserOptions) (MessageResult, error)
	SaveAssistant(ctx context.Context, chat string, m Message, o AssistantOptions) (MessageResult, error)
	Path(ctx context.Context, chat, leaf string, native bool) ([]PathEntry, error)
	Claim(ctx context.Context, chat, stream string, o ClaimOptions) (ClaimResult, error)
	Release(ctx context.Context, chat, stream string, o ReleaseOptions) (bool, error)
	Stop(ctx context.Context, chat string) (*StopResult, error)
	RunStatus(ctx context.Context, runID string) (string, error)
	AgeChatRun(ctx context.Context, runID string, d time.Duration) error
	Streams() streams.Store
}

// Callers is implemented by chat stores that know tenants and who is
// calling: the tenant visibility cases need it. NewTenantChat makes a chat
// of owner in tenant, shared with the tenant's members (visibility
// organization) when shared is true; PathAs is Path as caller c sees it;
// Grant gives user permission in tenant, failing with conform.ErrNoGrants
// where the store cannot say who holds what.
type Callers interface {
	NewTenantChat(ctx context.Context, owner, tenant string, shared bool) (string, error)
	PathAs(ctx context.Context, c conform.Caller, chat string) ([]PathEntry, error)
	Grant(ctx context.Context, user, tenant, permission string) error
}

// Agents is implemented by chat stores that keep what coding agents need
// per chat, as the service role uses it: sandboxes found again for their
// chat, harness sessions locked by one turn at a time, and share links.
// SandboxFor returns the sandbox id of the chat's running sandbox of
// provider ("" when none); AgeHarnessSession moves the session's clock
// back by d; Share (as the chat's owner) returns the link's id and token,
// Shared the messages a token shows (nil for none).
type Agents interface {
	RegisterSandbox(ctx context.Context, tenant, provider, sandboxID, chat string) error
	SandboxFor(ctx context.Context, chat, provider string) (string, error)
	LockHarness(ctx context.Context, chat, harness, holder string, ttl time.Duration) (bool, error)
	UnlockHarness(ctx context.Context, chat, harness, holder string) (bool, error)
	AgeHarnessSession(ctx context.Context, chat, harness string, d time.Duration) error
	Share(ctx context.Context, owner, chat string) (id, token string, err error)
	RevokeShare(ctx context.Context, owner, id string) (bool, error)
	Shared(ctx context.Context, token string) ([]PathEntry, error)
}
