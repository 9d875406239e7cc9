package chat

import (
	"fmt"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/streams"
)

// The cases of a chat's answer runs: one active stream a chat, claimed,
// taken over when stale, released, and stopped where the writer sees it.

func claimIdempotent(t *conform.T, s Store) {
	chat := newChat(t, s)
	stream, first := claimStream(t, s, chat, "")
	again, err := s.Claim(t.Context(), chat, stream, ClaimOptions{})
	t.Must("claim again", err)
	t.Eq("second claim", again, ClaimResult{Claimed: true, StreamID: &stream, RunID: first.RunID})
}

func claimBusy(t *conform.T, s Store) {
	chat := newChat(t, s)
	stream, first := claimStream(t, s, chat, "")
	other := t.ID("answer")
	_, err := s.Streams().Open(t.Context(), other, streams.OpenOptions{})
	t.Must("open", err)
	got, err := s.Claim(t.Context(), chat, other, ClaimOptions{})
	t.Must("claim of a second stream", err)
	t.Eq("claim of a second stream", got, ClaimResult{Claimed: false, StreamID: &stream, RunID: first.RunID})
}

// runStatus is the status of the run; an error stops the case.
func runStatus(t *conform.T, s Store, run string) string {
	st, err := s.RunStatus(t.Context(), run)
	t.Must("run status", err)
	return st
}

func claimTakeoverStale(t *conform.T, s Store) {
	chat := newChat(t, s)
	_, old := claimStream(t, s, chat, "")
	t.Must("move time", s.AgeChatRun(t.Context(), *old.RunID, 11*time.Minute))
	s2, second := claimStream(t, s, chat, "after 11 minutes")
	t.That(*second.RunID != *old.RunID, "run of the takeover", "a new run", second.RunID)
	t.Eq("status of the stale run", runStatus(t, s, *old.RunID), "cancelled")
	_, err := s.Streams().Close(t.Context(), s2)
	t.Must("close", err)
	_, third := claimStream(t, s, chat, "after the active stream was closed")
	t.That(*third.RunID != *second.RunID, "run of the claim after close", "a new run", third.RunID)
	t.Eq("status of the run whose stream closed", runStatus(t, s, *second.RunID), "cancelled")
}

func releaseValidStatuses(t *conform.T, s Store) {
	chat := newChat(t, s)
	for _, status := range []string{"completed", "failed", "cancelled"} {
		stream, claim := claimStream(t, s, chat, "claim before releasing with "+status)
		ok, err := s.Release(t.Context(), chat, stream, ReleaseOptions{Status: status, Usage: map[string]any{"outputTokens": 3.0}})
		t.Must("release with "+status, err)
		t.Eq("release with "+status, ok, true)
		t.Eq("run status after release with "+status, runStatus(t, s, *claim.RunID), status)
	}
}

func releaseInvalidStatus(t *conform.T, s Store) {
	chat := newChat(t, s)
	stream, claim := claimStream(t, s, chat, "")
	_, relErr := s.Release(t.Context(), chat, stream, ReleaseOptions{Status: "done"})
	t.Error(conform.WantHint("release with status done", relErr, HintRunInvalid))
	again, err := s.Claim(t.Context(), chat, stream, ClaimOptions{})
	t.Must("claim again", err)
	t.Eq("claim after the refused release", again, ClaimResult{Claimed: true, StreamID: &stream, RunID: claim.RunID})
}

func releaseOtherStream(t *conform.T, s Store) {
	chat := newChat(t, s)
	stream, claim := claimStream(t, s, chat, "")
	ok, err := s.Release(t.Context(), chat, t.ID("other"), ReleaseOptions{Status: "completed"})
	t.Must("release of another stream", err)
	again, err := s.Claim(t.Context(), chat, stream, ClaimOptions{})
	t.Must("claim again", err)
	t.Eq("release of another stream", ok, false)
	t.Eq("claim of the active stream", again, ClaimResult{Claimed: true, StreamID: &stream, RunID: claim.RunID})
}

// appendChunks appends to the chat's answer stream as its writer does.
func appendChunks(t *conform.T, s Store, stream string, from int, chunks ...string) streams.AppendResult {
	r, err := s.Streams().Append(t.Context(), stream, from, chunks)
	t.Must(fmt.Sprintf("append at %d", from), err)
	return r
}

func stopReachesWriter(t *conform.T, s Store) {
	chat := newChat(t, s)
	stream, claim := claimStream(t, s, chat, "")
	appendChunks(t, s, stream, 0, "partial")
	stop, err := s.Stop(t.Context(), chat)
	t.Must("stop", err)
	t.Eq("stop", stop, &StopResult{StreamID: stream, RunID: *claim.RunID})
	t.Eq("run status after stop", runStatus(t, s, *claim.RunID), "cancel_requested")
	r := appendChunks(t, s, stream, 1, "more")
	t.Eq("the writer's next append", r, streams.AppendResult{Next: 2, Cancelled: true})
}

func stopIdleNull(t *conform.T, s Store) {
	chat := newChat(t, s)
	got, err := s.Stop(t.Context(), chat)
	t.Must("stop", err)
	t.Eq("stop", got, (*StopResult)(nil))
}
