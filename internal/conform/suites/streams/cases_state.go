package streams

import (
	"fmt"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform"
)

// The cases of a stream's state: the store's identity, closing and
// cancelling, what status reports, and ids nobody opened.

func apiVersionAndName(t *conform.T, s Subject) {
	idn, ok := s.Store.(Identity)
	if !ok {
		t.Skip("the store does not report apiVersion and name")
	}
	t.Eq("apiVersion", idn.APIVersion(), 1)
	t.That(idn.StoreName() != "", "name", "a non-empty name", idn.StoreName())
}

func closeTrueThenFalse(t *conform.T, s Subject) {
	id := openStream(t, s, OpenOptions{})
	first, err := s.Close(t.Context(), id)
	t.Must("first close", err)
	second, err := s.Close(t.Context(), id)
	t.Must("second close", err)
	t.Eq("first close", first, true)
	t.Eq("second close", second, false)
}

func statusAfterClose(t *conform.T, s Subject) {
	id := openStream(t, s, OpenOptions{})
	appendOK(t, s, id, 0, "0", "1", "2", "3")
	closeOK(t, s, id)
	t.Eq("status", statusOf(t, s, id), &Status{Next: 4, Closed: true})
}

func cancelFlag(t *conform.T, s Subject) {
	id := openStream(t, s, OpenOptions{})
	before, err := s.IsCancelled(t.Context(), id)
	t.Must("isCancelled", err)
	t.Eq("isCancelled before cancel", before, false)
	ok, err := s.Cancel(t.Context(), id)
	t.Must("cancel", err)
	t.Eq("cancel", ok, true)
	after, err := s.IsCancelled(t.Context(), id)
	t.Must("isCancelled", err)
	t.Eq("isCancelled after cancel", after, true)
	r := appendOK(t, s, id, 0, "late")
	t.Eq("append after cancel", r, AppendResult{Next: 1, Cancelled: true})
}

func cancelTwice(t *conform.T, s Subject) {
	id := openStream(t, s, OpenOptions{})
	first, err := s.Cancel(t.Context(), id)
	t.Must("first cancel", err)
	second, err := s.Cancel(t.Context(), id)
	t.Must("second cancel", err)
	still, err := s.IsCancelled(t.Context(), id)
	t.Must("isCancelled", err)
	t.Eq("first cancel", first, true)
	t.Eq("second cancel", second, false)
	t.Eq("isCancelled", still, true)
}

func cancelAfterClose(t *conform.T, s Subject) {
	id := openStream(t, s, OpenOptions{})
	closeOK(t, s, id)
	ok, err := s.Cancel(t.Context(), id)
	t.Must("cancel", err)
	flag, err := s.IsCancelled(t.Context(), id)
	t.Must("isCancelled", err)
	t.Eq("cancel after close", ok, false)
	t.Eq("isCancelled", flag, false)
}

func missingStream(t *conform.T, s Subject) {
	id := t.ID("missing")
	t.Eq("status", statusOf(t, s, id), (*Status)(nil))
	got, err := s.ReadAll(t.Context(), id, 0)
	t.Must("read", err)
	t.Eq("chunks read", len(got), 0)
	_, appendErr := s.Append(t.Context(), id, 0, []string{"a"})
	wantHint(t, "append", appendErr, HintNotFound)
	t.Eq("status after the refused append", statusOf(t, s, id), (*Status)(nil))
}

func unknownIDClose(t *conform.T, s Subject) {
	id := t.ID("missing")
	ok, err := s.Close(t.Context(), id)
	t.Must("close", err)
	st := statusOf(t, s, id)
	t.Eq("close", ok, false)
	t.Eq("status", st, (*Status)(nil))
}

func unknownIDCancel(t *conform.T, s Subject) {
	id := t.ID("missing")
	ok, err := s.Cancel(t.Context(), id)
	t.Must("cancel", err)
	st := statusOf(t, s, id)
	t.Eq("cancel", ok, false)
	t.Eq("status", st, (*Status)(nil))
}

func unknownIDIsCancelled(t *conform.T, s Subject) {
	got, err := s.IsCancelled(t.Context(), t.ID("missing"))
	t.Must("isCancelled", err)
	t.Eq("isCancelled", got, false)
}

func statusCancelledAfterCancel(t *conform.T, s Subject) {
	id := openStream(t, s, OpenOptions{})
	_, err := s.Cancel(t.Context(), id)
	t.Must("cancel", err)
	t.Eq("status after cancel", statusOf(t, s, id), &Status{Cancelled: true})
	appendOK(t, s, id, 0, "late")
	closeOK(t, s, id)
	t.Eq("status after an append and the close", statusOf(t, s, id), &Status{Next: 1, Closed: true, Cancelled: true})
}

func statusKindAndExpiry(t *conform.T, s Subject) {
	d, ok := s.Store.(Detailer)
	if !ok {
		t.Skip("the store's status reports no kind and expiry")
	}
	// The store's time: its clock's when the cases can move it.
	now := func() time.Time {
		if c := t.Clock(); c != nil {
			if at, err := c.Advance(t.Context(), 0); err == nil {
				return at
			}
		}
		return time.Now()
	}
	for _, tc := range []struct {
		opts OpenOptions
		kind string
		ttl  time.Duration
	}{{OpenOptions{Kind: "chat", TTL: 2 * time.Hour}, "chat", 2 * time.Hour}, {OpenOptions{}, "default", 24 * time.Hour}} {
		before := now()
		id := openStream(t, s, tc.opts)
		after := now()
		st, err := d.StatusDetails(t.Context(), id)
		t.Must("status", err)
		if !t.That(st != nil, "status of "+tc.kind, "a status", st) {
			continue
		}
		t.Eq("kind of a stream opened with kind "+conform.Show(tc.opts.Kind), st.Kind, tc.kind)
		// A store may keep whole seconds.
		lo, hi := before.Add(tc.ttl).Add(-time.Second), after.Add(tc.ttl).Add(time.Second)
		t.That(!st.ExpiresAt.Before(lo) && !st.ExpiresAt.After(hi), "expiresAt of a stream opened with TTL "+tc.ttl.String(),
			fmt.Sprintf("between %s and %s", lo.Format(time.RFC3339), hi.Format(time.RFC3339)), st.ExpiresAt.Format(time.RFC3339Nano))
		t.Eq("the rest of the status", st.Status, Status{})
	}
}
