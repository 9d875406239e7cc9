package conform

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// The contract's error hints (contracts.md, sections 3 and 4).
const (
	HintStreamNotFound   = "STREAM_NOT_FOUND"
	HintStreamClosed     = "STREAM_CLOSED"
	HintStreamGap        = "STREAM_GAP"
	HintMessageInvalid   = "AI_MESSAGE_INVALID"
	HintRunInvalid       = "AI_RUN_INVALID"
	HintReadTimeout      = "READ_TIMEOUT"
	HintPermissionDenied = "PERMISSION_DENIED"
)

// Refused reports whether err is the store refusing the caller the call
// itself (SQLSTATE 42501, or the hint PERMISSION_DENIED), as opposed to
// any other failure.
func Refused(err error) bool {
	var se *StoreError
	return errors.As(err, &se) && (se.SQLState == "42501" || se.Hint == HintPermissionDenied)
}

// StoreError is a failure the store reported as part of its contract: a
// hint such as STREAM_GAP and, for SQL stores, the SQLSTATE.
type StoreError struct {
	Hint     string
	SQLState string
	Message  string
}

// Error renders the message with its hint and SQLSTATE.
func (e *StoreError) Error() string {
	msg := e.Message
	if e.Hint != "" {
		msg += " (hint " + e.Hint + ")"
	}
	if e.SQLState != "" {
		msg += " (SQLSTATE " + e.SQLState + ")"
	}
	return msg
}

// HintOf returns the contract hint carried by err, or "".
func HintOf(err error) string {
	var se *StoreError
	if errors.As(err, &se) {
		return se.Hint
	}
	return ""
}

// wantHint is WantHint, for the table's cases.
func wantHint(what string, err error, hint string) error { return WantHint(what, err, hint) }

// OpenOptions are the optional arguments of StreamStore.Open. TTL zero
// means the contract's default of one day.
type OpenOptions struct {
	Owner  string
	Tenant string
	Kind   string
	TTL    time.Duration
}

// AppendResult is what StreamStore.Append returns.
type AppendResult struct {
	Next      int  `json:"next"`
	Cancelled bool `json:"cancelled"`
}

// StreamStatus is a stream's state as StreamStore.Status reports it.
type StreamStatus struct {
	Next      int  `json:"next"`
	Closed    bool `json:"closed"`
	Cancelled bool `json:"cancelled"`
}

// StreamStore is the TypeScript StreamStore interface (contracts.md,
// section 3) as the conformance cases drive it. ReadAll is the live read:
// it returns once the stream is closed and every chunk from `from` was
// delivered, and at once, empty, for a missing stream.
type StreamStore interface {
	Open(ctx context.Context, id string, opts OpenOptions) (bool, error)
	Append(ctx context.Context, id string, from int, chunks []string) (AppendResult, error)
	ReadAll(ctx context.Context, id string, from int) ([]string, error)
	Status(ctx context.Context, id string) (*StreamStatus, error)
	IsCancelled(ctx context.Context, id string) (bool, error)
	Close(ctx context.Context, id string) (bool, error)
	Cancel(ctx context.Context, id string) (bool, error)
	// Purge with olderThan zero uses the contract's default of one day.
	Purge(ctx context.Context, olderThan time.Duration) (int, error)
}

// Page is one bounded, non-blocking read of a stream (stream_read).
type Page struct {
	Found     bool     `json:"found"`
	Chunks    []string `json:"chunks"`
	Next      int      `json:"next"`
	Done      bool     `json:"done"`
	Cancelled bool     `json:"cancelled"`
}

// StreamPager is implemented by stores with the SQL block's bounded read:
// at most max chunks from `from`, max clamped to 0..10000.
type StreamPager interface {
	ReadPage(ctx context.Context, id string, from, max int) (Page, error)
}

// Caller is who makes a call: the service role (the zero value), an
// authenticated user (Sub is the JWT subject) or anon.
type Caller struct {
	Role string `json:"role"`
	Sub  string `json:"sub,omitempty"`
}

// The caller roles.
const (
	RoleService       = "service_role"
	RoleAuthenticated = "authenticated"
	RoleAnon          = "anon"
)

// User is an authenticated caller with subject sub.
func User(sub string) Caller { return Caller{Role: RoleAuthenticated, Sub: sub} }

// Anon is the anonymous caller.
var Anon = Caller{Role: RoleAnon}

// StreamView is what a caller other than the service role may do with
// streams: read what row-level security lets it see (a stream it may not
// see reads as a missing one), and cancel what it owns. Append exists to
// prove that such callers cannot write.
type StreamView interface {
	ReadAll(ctx context.Context, id string, from int) ([]string, error)
	Status(ctx context.Context, id string) (*StreamStatus, error)
	Cancel(ctx context.Context, id string) (bool, error)
	Append(ctx context.Context, id string, from int, chunks []string) (AppendResult, error)
}

// StreamCallers is implemented by stores that know who is calling: the
// owner-visibility cases need it.
type StreamCallers interface {
	As(c Caller) StreamView
}

// StreamDetails is everything stream_status reports: the status with the
// stream's kind and when it expires.
type StreamDetails struct {
	StreamStatus
	Kind      string    `json:"kind"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// StreamDetailer is implemented by stores whose status reports the kind and
// the expiry too.
type StreamDetailer interface {
	StatusDetails(ctx context.Context, id string) (*StreamDetails, error)
}

// Delivery is one step of a live read: chunks from index From, or the end
// of the read (End), which Aborted says was an abort.
type Delivery struct {
	From    int
	Chunks  []string
	End     bool
	Aborted bool
}

// LiveRead is a live read in progress.
type LiveRead interface {
	// Next waits for the next delivery. After the end it keeps returning
	// the end.
	Next(ctx context.Context) (Delivery, error)
	// Abort stops the read: true when it stopped it, false when it had
	// ended already. Nothing is delivered after Abort returns, but the end.
	Abort(ctx context.Context) (bool, error)
}

// StreamLiveReader is implemented by stores whose live read delivers
// chunks as they come rather than all at close.
type StreamLiveReader interface {
	// ReadLive returns once the read is live: an append made after it
	// returns is delivered.
	ReadLive(ctx context.Context, id string, from int) (LiveRead, error)
}

// StreamAger is implemented by stores whose clock the cases can move: Age
// shifts every timestamp of stream id back by d, as if d had passed.
type StreamAger interface {
	AgeStream(ctx context.Context, id string, d time.Duration) error
}

// ErrNoGrants is Grant's error on a store that cannot grant permissions
// (a database whose access module is not bsadapter's).
var ErrNoGrants = errors.New("the store cannot grant permissions in a tenant")

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

// UserOptions are the optional arguments of ChatStore.AppendUser.
type UserOptions struct {
	Trigger   string
	MessageID string
}

// AssistantOptions are the arguments of ChatStore.SaveAssistant.
type AssistantOptions struct {
	ParentID string
	Status   string
	Model    string
	Format   string
	Native   json.RawMessage
	RunID    string
}

// PathEntry is one message of ChatStore.Path, root first.
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

// ClaimOptions are the optional arguments of ChatStore.Claim.
type ClaimOptions struct {
	Model         string
	MessageID     string
	Engine        string
	ExternalRunID string
}

// ClaimResult is what ChatStore.Claim returns.
type ClaimResult struct {
	Claimed  bool    `json:"claimed"`
	StreamID *string `json:"stream_id"`
	RunID    *string `json:"run_id"`
}

// ReleaseOptions are the optional arguments of ChatStore.Release.
type ReleaseOptions struct {
	Status string
	Usage  map[string]any
	Error  string
}

// StopResult is what ChatStore.Stop returns when a run was active.
type StopResult struct {
	StreamID string `json:"stream_id"`
	RunID    string `json:"run_id"`
}

// ChatStore is the part of the AI chat block adapters reach
// (contracts.md, section 4). NewChat makes an empty chat owned by owner;
// Streams is the stream store the chat's answers are written to, so that
// a stop can be seen by the writer.
type ChatStore interface {
	NewChat(ctx context.Context, owner string) (string, error)
	AppendUser(ctx context.Context, chat string, m Message, o UserOptions) (MessageResult, error)
	SaveAssistant(ctx context.Context, chat string, m Message, o AssistantOptions) (MessageResult, error)
	Path(ctx context.Context, chat, leaf string, native bool) ([]PathEntry, error)
	Claim(ctx context.Context, chat, stream string, o ClaimOptions) (ClaimResult, error)
	Release(ctx context.Context, chat, stream string, o ReleaseOptions) (bool, error)
	Stop(ctx context.Context, chat string) (*StopResult, error)
	RunStatus(ctx context.Context, runID string) (string, error)
	AgeChatRun(ctx context.Context, runID string, d time.Duration) error
	Streams() StreamStore
}
