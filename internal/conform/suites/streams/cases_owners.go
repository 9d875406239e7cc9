package streams

import (
	"github.com/bsadapter/bsadapter/internal/conform"
)

// The cases of who may read and cancel a stream: its owner, other users
// and anon; and that only the service role writes.

// ownedStream opens a stream owned by a fresh user with two chunks,
// closed when the case reads it (a live read ends only at close), and
// returns the store's callers, the owner and the stream's id. A store
// that does not take the caller's identity skips the case.
func ownedStream(t *conform.T, s Subject, closed bool) (Callers, string, string) {
	cl, ok := s.Store.(Callers)
	if !ok {
		t.Skip("the store does not take the caller's identity, so owner visibility cannot be checked")
	}
	owner := t.UUID()
	id := openStream(t, s, OpenOptions{Owner: owner})
	appendOK(t, s, id, 0, "secret-0", "secret-1")
	if closed {
		closeOK(t, s, id)
	}
	return cl, owner, id
}

// invisible checks that who learns nothing of the stream: an empty
// answer, or a refusal of the call itself (upstream refuses anon even the
// reading functions).
func invisible(t *conform.T, v View, id, who string) {
	got, err := v.ReadAll(t.Context(), id, 0)
	switch {
	case conform.Refused(err):
	case err != nil:
		t.Must("read as "+who, err)
	default:
		t.Eq("chunks read as "+who, got, []string{})
	}
	st, err := v.Status(t.Context(), id)
	switch {
	case conform.Refused(err):
	case err != nil:
		t.Must("status as "+who, err)
	default:
		t.Eq("status as "+who, st, (*Status)(nil))
	}
}

func ownerSeesOwn(t *conform.T, s Subject) {
	cl, owner, id := ownedStream(t, s, true)
	v := cl.As(conform.User(owner))
	got, err := v.ReadAll(t.Context(), id, 0)
	t.Must("read as the owner", err)
	t.Eq("chunks read as the owner", got, []string{"secret-0", "secret-1"})
	st, err := v.Status(t.Context(), id)
	t.Must("status as the owner", err)
	t.Eq("status as the owner", st, &Status{Next: 2, Closed: true})
}

func strangerSeesNothing(t *conform.T, s Subject) {
	cl, _, id := ownedStream(t, s, true)
	invisible(t, cl.As(conform.User(t.UUID())), id, "another user")
}

func anonSeesNothing(t *conform.T, s Subject) {
	cl, _, id := ownedStream(t, s, true)
	invisible(t, cl.As(conform.Anon), id, "anon")
}

func ownerMayCancel(t *conform.T, s Subject) {
	cl, owner, id := ownedStream(t, s, false)
	ok, err := cl.As(conform.User(owner)).Cancel(t.Context(), id)
	t.Must("cancel as the owner", err)
	r := appendOK(t, s, id, 2, "after")
	t.Eq("cancel as the owner", ok, true)
	t.Eq("the writer's next append", r, AppendResult{Next: 3, Cancelled: true})
}

func strangerMayNotCancel(t *conform.T, s Subject) {
	cl, _, id := ownedStream(t, s, false)
	for _, who := range []struct {
		name string
		c    conform.Caller
	}{{"another user", conform.User(t.UUID())}, {"anon", conform.Anon}} {
		ok, err := cl.As(who.c).Cancel(t.Context(), id)
		t.That(err != nil || !ok, "cancel as "+who.name, "false or a refusal", ok)
	}
	flag, err := s.IsCancelled(t.Context(), id)
	t.Must("isCancelled", err)
	t.Eq("isCancelled after the strangers' cancels", flag, false)
}

func onlyServiceWrites(t *conform.T, s Subject) {
	cl, owner, id := ownedStream(t, s, false)
	for _, who := range []struct {
		name string
		c    conform.Caller
	}{{"the owner", conform.User(owner)}, {"anon", conform.Anon}} {
		_, err := cl.As(who.c).Append(t.Context(), id, 2, []string{"forged by " + who.name})
		t.That(err != nil, "append as "+who.name, "a refusal", "success")
	}
	t.Eq("status after the refused appends", statusOf(t, s, id), &Status{Next: 2})
}
