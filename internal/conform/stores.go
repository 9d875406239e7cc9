package conform

import (
	"errors"
)

// The contract's error hints of a call refused to its caller.
const (
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

// ErrNoGrants is Grant's error on a store that cannot grant permissions
// (a database whose access module is not bsadapter's).
var ErrNoGrants = errors.New("the store cannot grant permissions in a tenant")
