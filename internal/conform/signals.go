package conform

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Signals controls the AbortSignals a case hands to an implementation
// whose calls take one (better-supabase's Embedder and AiTaskRunner). A
// signal is named by an id the case makes; the implementation's harness
// keeps an AbortController per id.
type Signals interface {
	// Abort aborts the signal id. A signal no call has used yet is made
	// aborted, so that a later call gets it already aborted.
	Abort(ctx context.Context, id string) error
	// Held returns once a call made with Hold on the signal id has reached
	// the part its harness holds (the model, the assistant): the call is
	// then under way, past any check made before the work starts.
	Held(ctx context.Context, id string) error
	// Release lets the held parts of the calls on id answer as if they had
	// never been held; a held part whose signal aborts rejects instead.
	Release(ctx context.Context, id string) error
}

// Rejection is a rejected promise of an implementation reached through a
// harness: the name and message of what it threw (an AbortError for an
// aborted signal).
type Rejection struct {
	Name, Message string
	// Detail is what the harness said beside the error (the prompts an
	// AiTaskRunner sent before it rejected), as JSON; nil when nothing.
	Detail []byte
}

// Error renders the rejection as "Name: message".
func (r *Rejection) Error() string {
	if r.Name == "" {
		return "rejected: " + r.Message
	}
	return r.Name + ": " + r.Message
}

// AbortErrorName is the name of the error an aborted call rejects with:
// better-supabase turns an Error with this name into a result of kind
// aborted.
const AbortErrorName = "AbortError"

// SettleWait is how long an abort case waits, after the abort, for the
// aborted call to settle before it lets the held part answer and reports
// what the call did then. It is a generous bound: a call that honours the
// abort settles at once.
var SettleWait = 15 * time.Second

// Settled is how a call made on a signal ended: its error (nil when it
// resolved) and whether it ended only after Release.
type Settled struct {
	Err      error
	Released bool
}

// AbortWhileHeld runs call (made with Hold on the signal id) in the
// background, waits until it is held, aborts id and waits for the call
// to settle; a call that has not settled SettleWait after the abort is
// released, and its end is reported with Released set. A failure to
// control the signal stops the case.
func AbortWhileHeld(t *T, s Signals, id string, call func(ctx context.Context) error) Settled {
	done := make(chan error, 1)
	go func() { done <- call(t.Context()) }()
	held := make(chan error, 1)
	go func() { held <- s.Held(t.Context(), id) }()
	select {
	case err := <-done:
		// The call ended before it reached its held part, and before its
		// signal aborted.
		what := "it resolved"
		if err != nil {
			what = "it failed: " + err.Error()
		}
		t.Fatal(&Mismatch{What: "a call made with hold on a signal that has not aborted", Expected: "no answer until the signal aborts (the harness holds the part the call reaches until then)", Actual: what})
	case err := <-held:
		t.Must("wait until the call is held", err)
	}
	t.Must("abort the signal", s.Abort(t.Context(), id))
	select {
	case err := <-done:
		return Settled{Err: err}
	case <-time.After(SettleWait):
	case <-t.Context().Done():
		t.Fatal(t.Context().Err())
	}
	t.Must("release the held call", s.Release(t.Context(), id))
	select {
	case err := <-done:
		return Settled{Err: err, Released: true}
	case <-t.Context().Done():
		t.Fatal(errors.New("the call neither settled after its signal aborted nor after its held part was released"))
	}
	return Settled{}
}

// WantAbortError records a mismatch unless err is a rejection named
// AbortError; what names the call, how says when it was aborted.
func WantAbortError(t *T, what string, s Settled) {
	var r *Rejection
	switch {
	case s.Err == nil && s.Released:
		t.Error(&Mismatch{What: what, Expected: "a rejection with an " + AbortErrorName, Actual: fmt.Sprintf("no answer %s after the abort, and a resolve once the held part answered", SettleWait)})
	case s.Err == nil:
		t.Error(&Mismatch{What: what, Expected: "a rejection with an " + AbortErrorName, Actual: "it resolved"})
	case !errors.As(s.Err, &r):
		t.Error(&Mismatch{What: what, Expected: "a rejection with an " + AbortErrorName, Actual: "a failure of the harness: " + s.Err.Error()})
	case r.Name != AbortErrorName:
		t.Error(&Mismatch{What: what, Expected: "a rejection with an " + AbortErrorName, Actual: fmt.Sprintf("a rejection with an error named %q (%s)", r.Name, r.Message)})
	case s.Released:
		t.Error(&Mismatch{What: what, Expected: "a rejection with an " + AbortErrorName + " once the signal aborted", Actual: fmt.Sprintf("no answer %s after the abort; the rejection came only once the held part answered", SettleWait)})
	}
}
