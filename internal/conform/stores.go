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
	HintReadTimeout      = "READ_TIMEOUT"
	HintPermissionDenied = "PERMISSION_DENIED"
	// HintWorkflowForbidden refuses a cancel to a caller who may not.
	HintWorkflowForbidden = "WORKFLOW_FORBIDDEN"
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

// sameJSON is SameJSON, for the table's cases.
func sameJSON(a, b json.RawMessage) bool { return SameJSON(a, b) }

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

// The six run statuses of the registry.
var RunStatuses = []string{"queued", "running", "waiting", "completed", "failed", "cancelled"}

// RunRecord is the argument of RunRegistry.Record. Empty strings and nil
// pointers mean SQL null.
type RunRecord struct {
	Engine      string         `json:"engine"`
	ExternalID  string         `json:"externalId"`
	Definition  string         `json:"definition"`
	Status      string         `json:"status"`
	Tenant      string         `json:"tenant,omitempty"`
	Actor       string         `json:"actor,omitempty"`
	Attributes  map[string]any `json:"attributes,omitempty"`
	Error       *string        `json:"error,omitempty"`
	StartedAt   *time.Time     `json:"startedAt,omitempty"`
	CompletedAt *time.Time     `json:"completedAt,omitempty"`
}

// WorkflowRun is a row of the registry in its camelCase JSON form.
type WorkflowRun struct {
	ID                string         `json:"id"`
	Engine            string         `json:"engine"`
	ExternalID        string         `json:"externalId"`
	Definition        string         `json:"definition"`
	Tenant            *string        `json:"tenant"`
	Actor             *string        `json:"actor"`
	Status            string         `json:"status"`
	Attributes        map[string]any `json:"attributes"`
	Error             *string        `json:"error"`
	CreatedAt         *time.Time     `json:"createdAt"`
	UpdatedAt         *time.Time     `json:"updatedAt"`
	StartedAt         *time.Time     `json:"startedAt"`
	CompletedAt       *time.Time     `json:"completedAt"`
	CancelRequestedAt *time.Time     `json:"cancelRequestedAt"`
}

// RunFilter selects runs for RunRegistry.List. Max zero means the
// contract's default of 50.
type RunFilter struct {
	Tenant     string     `json:"tenant,omitempty"`
	Definition string     `json:"definition,omitempty"`
	Status     string     `json:"status,omitempty"`
	Max        int        `json:"limit,omitempty"`
	Before     *time.Time `json:"before,omitempty"`
}

// RunRegistry is the workflows block's run registry (contracts.md,
// section 5).
type RunRegistry interface {
	Record(ctx context.Context, r RunRecord) (string, error)
	Get(ctx context.Context, ref string) (*WorkflowRun, error)
	List(ctx context.Context, f RunFilter) ([]WorkflowRun, error)
	RequestCancel(ctx context.Context, ref string) (*WorkflowRun, error)
	Purge(ctx context.Context, olderThan time.Duration, batch int) (int, error)
}

// RegistryView is the part of the run registry a caller other than the
// service role reaches: reading runs and asking for a cancel.
type RegistryView interface {
	Get(ctx context.Context, ref string) (*WorkflowRun, error)
	List(ctx context.Context, f RunFilter) ([]WorkflowRun, error)
	RequestCancel(ctx context.Context, ref string) (*WorkflowRun, error)
}

// RegistryCallers is implemented by registries that know who is calling
// and where members hold permissions: the visibility cases need it. Grant
// gives user permission in tenant (such as workflow.read); it fails with
// ErrNoGrants where the store cannot say who holds what.
type RegistryCallers interface {
	As(c Caller) RegistryView
	Grant(ctx context.Context, user, tenant, permission string) error
}

// ErrNoGrants is Grant's error on a store that cannot grant permissions
// (a database whose access module is not bsadapter's).
var ErrNoGrants = errors.New("the store cannot grant permissions in a tenant")

// RunAger is implemented by registries whose clock the cases can move:
// AgeRun shifts every timestamp of run id back by d.
type RunAger interface {
	AgeRun(ctx context.Context, id string, d time.Duration) error
}
