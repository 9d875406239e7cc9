package conform

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// The contract's error hints of a call refused to its caller.
const (
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

// sameJSON is SameJSON, for the table's cases.
func sameJSON(a, b json.RawMessage) bool { return SameJSON(a, b) }

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
