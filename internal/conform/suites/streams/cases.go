package streams

import (
	"fmt"

	"github.com/bsadapter/bsadapter/internal/conform"
)

// cases are the suite's cases in run order: the rules of upstream's kit
// and the ones it leaves out first, then those of the cancelled flag and
// the append checks' order, the incremental live read, TTLs and purges,
// and owners. Each theme's functions are in the file of that name. A case
// with a Block checks that rule of the streams block, beyond what the
// StreamStore interface promises; the others check the interface.
var cases = []conform.CaseOf[Subject]{
	{ID: "streams/api-version-and-name", Needs: conform.FeatureIdentity, Rule: "the store reports apiVersion 1 and a non-empty name", Run: apiVersionAndName},
	{ID: "streams/open-true-then-false", Rule: "open returns true for a new id and false for an existing one", Run: openTrueThenFalse},
	{ID: "streams/open-existing-unchanged", Rule: "opening an existing stream again changes nothing about it", Run: openExistingUnchanged},
	{ID: "streams/append-retry-is-noop", Rule: "a retried batch stores nothing twice: [a,b] then [a,b,c] at 0 gives next 2, then 3, and reads abc", Run: appendRetryIsNoop},
	{ID: "streams/append-retry-first-write-wins", Rule: "a retry with different content keeps the first write of every stored index", Run: appendRetryFirstWriteWins},
	{ID: "streams/append-gap-refused", Rule: "an append past next fails with STREAM_GAP and stores nothing", Run: appendGapRefused},
	{ID: "streams/append-negative-index-refused", Block: AppendChecks, Rule: "an append at a negative index fails with STREAM_GAP and stores nothing", Run: appendNegativeIndexRefused},
	{ID: "streams/append-empty-batch", Rule: "an empty batch at or below next succeeds and changes nothing", Run: appendEmptyBatch},
	{ID: "streams/concurrent-writers-same-index", Rule: "writers racing at the same index all succeed; each index holds one writer's chunk, with no duplicate and no gap", Timeout: 2 * conform.DefaultTimeout, Run: concurrentWritersSameIndex},
	{ID: "streams/read-from-index", Rule: "a read from index 2 of chunks 0..3 yields 2 and 3", Run: readFromIndex},
	{ID: "streams/close-true-then-false", Rule: "close returns true when it closes the stream and false when it is already closed", Run: closeTrueThenFalse},
	{ID: "streams/status-after-close", Rule: "status after four chunks and a close is {next:4, closed:true, cancelled:false}", Run: statusAfterClose},
	{ID: "streams/live-read-sees-later-appends", Rule: "a read started before two appends and a close yields both chunks and ends", Run: liveReadSeesLaterAppends},
	{ID: "streams/live-read-resumed", Rule: "a live read resumed from an index yields the stored chunks from there, then the later ones, and ends at close", Run: liveReadResumed},
	{ID: "streams/cancel-flag", Rule: "isCancelled is false, cancel returns true, isCancelled is true, and a later append succeeds reporting cancelled", Run: cancelFlag},
	{ID: "streams/cancel-twice", Rule: "a second cancel returns false and the stream stays cancelled", Run: cancelTwice},
	{ID: "streams/cancel-after-close", Rule: "cancel after close returns false and does not flag the stream", Run: cancelAfterClose},
	{ID: "streams/append-after-close-refused", Rule: "an append to a closed stream fails with STREAM_CLOSED and stores nothing", Run: appendAfterCloseRefused},
	{ID: "streams/missing-stream", Rule: "a missing stream has no status, reads empty at once and refuses appends with STREAM_NOT_FOUND", Run: missingStream},
	{ID: "streams/unknown-id-close", Rule: "close of an unknown id returns false and creates nothing", Run: unknownIDClose},
	{ID: "streams/unknown-id-cancel", Rule: "cancel of an unknown id returns false and creates nothing", Run: unknownIDCancel},
	{ID: "streams/unknown-id-is-cancelled", Rule: "isCancelled of an unknown id is false", Run: unknownIDIsCancelled},
	{ID: "streams/purge-returns-count", Rule: "purge returns an integer >= 0", Isolated: true, Run: purgeReturnsCount},
	{ID: "streams/large-chunks", Rule: "1 MiB chunks are stored and read back byte for byte", Timeout: 3 * conform.DefaultTimeout, Run: largeChunks},
	{ID: "streams/non-ascii-chunks", Rule: "chunks with non-ASCII text, newlines and escapes round-trip unchanged", Run: nonASCIIChunks},
	{ID: "streams/read-page-past-max", Block: BoundedRead, Needs: conform.FeatureBoundedRead, Rule: "a bounded read returns at most max chunks (clamped to 10000) and a next to resume from", Timeout: 3 * conform.DefaultTimeout, Run: readPagePastMax},
	{ID: "streams/read-page-missing", Block: BoundedRead, Needs: conform.FeatureBoundedRead, Rule: "a bounded read of a missing stream is {found:false, chunks:[], next:max(from,0), done:true}", Run: readPageMissing},

	// Rules upstream's kit leaves out: the cancelled flag in status, the
	// order of the append checks and retries that overlap.
	{ID: "streams/status-cancelled-after-cancel", Rule: "status reports cancelled: true after a cancel, through later appends and the close", Run: statusCancelledAfterCancel},
	{ID: "streams/closed-checked-before-gap", Block: AppendChecks, Rule: "an append at a gap to a closed stream fails with STREAM_CLOSED: closed is checked before the gap", Run: closedCheckedBeforeGap},
	{ID: "streams/overlapping-retry-stored-once", Timeout: 2 * conform.DefaultTimeout, Rule: "identical batches sent at once, and a retry overlapping a longer batch, are stored once", Run: overlappingRetryStoredOnce},
	{ID: "streams/status-kind-and-expiry", Block: StatusDetailsRule, Needs: conform.FeatureStatusDetails, Rule: "status reports the stream's kind (default \"default\") and when its TTL ends (default one day)", Run: statusKindAndExpiry},

	// The live read as it happens (cases_live.go).
	{ID: "streams/live-read-incremental", Needs: conform.FeatureLiveRead, Rule: "a live read started before the appends delivers each chunk while the stream is still open, in order, and ends at close", Run: liveReadIncremental},
	{ID: "streams/live-read-resumed-incremental", Needs: conform.FeatureLiveRead, Rule: "a live read from an index delivers the stored chunks from there at once, then each later one, and ends at close", Run: liveReadResumedIncremental},
	{ID: "streams/live-read-abort", Needs: conform.FeatureLiveRead, Rule: "an aborted live read ends at once and delivers nothing appended after the abort; a second abort returns false", Run: liveReadAbort},
	{ID: "streams/live-read-missing-ends", Needs: conform.FeatureLiveRead, Rule: "a live read of a missing stream ends at once with no chunk", Run: liveReadMissingEnds},

	// TTLs and purge windows (cases_ttl.go).
	{ID: "streams/purge-keeps-live-and-recent", Isolated: true, Rule: "purge keeps open streams within their TTL and streams closed less than olderThan ago", Run: purgeKeepsLiveAndRecent},
	{ID: "streams/ttl-expired-gone", Isolated: true, Rule: "once a stream's TTL has passed and a purge has run, the stream is gone, even if it was never closed, and its id opens as a new, empty stream (a store may remove it before the purge)", Run: ttlExpiredGone},
	{ID: "streams/ttl-expired-purged", Isolated: true, Block: KeepsExpired, Rule: "purge deletes a stream once its TTL has passed, even if it was never closed", Run: ttlExpiredPurged},
	{ID: "streams/ttl-unexpired-kept", Isolated: true, Rule: "purge keeps an open stream whose TTL has not passed, however old it is", Run: ttlUnexpiredKept},
	{ID: "streams/purge-closed-window", Isolated: true, Rule: "purge deletes a closed stream only once it has been closed longer than olderThan", Run: purgeClosedWindow},
	{ID: "streams/open-expired-unchanged", Isolated: true, Block: KeepsExpired, Rule: "opening an expired stream's id again returns false and does not revive or reset it", Run: openExpiredUnchanged},

	// Who sees and cancels a stream (cases_owners.go).
	{ID: "streams/owner-sees-own", Block: RowSecurity, Needs: conform.FeatureCallers, Rule: "the owner reads its own stream's chunks and status", Run: ownerSeesOwn},
	{ID: "streams/stranger-sees-nothing", Block: RowSecurity, Needs: conform.FeatureCallers, Rule: "another authenticated user neither reads nor sees the status of a stream it does not own", Run: strangerSeesNothing},
	{ID: "streams/anon-sees-nothing", Block: RowSecurity, Needs: conform.FeatureCallers, Rule: "anon neither reads nor sees the status of any stream (a refused call is as good as an empty answer)", Run: anonSeesNothing},
	{ID: "streams/owner-may-cancel", Block: RowSecurity, Needs: conform.FeatureCallers, Rule: "the owner may cancel its stream, and the writer sees the flag", Run: ownerMayCancel},
	{ID: "streams/stranger-may-not-cancel", Block: RowSecurity, Needs: conform.FeatureCallers, Rule: "another user's or anon's cancel returns false (or is refused) and leaves the stream running", Run: strangerMayNotCancel},
	{ID: "streams/only-service-writes", Block: RowSecurity, Needs: conform.FeatureCallers, Rule: "neither the owner nor anon can append; only the service role writes", Run: onlyServiceWrites},
}

// openStream opens a fresh stream and stops the case if it existed
// already.
func openStream(t *conform.T, s Store, opts OpenOptions) string {
	id := t.ID("stream")
	created, err := s.Open(t.Context(), id, opts)
	t.Must("open", err)
	if !created {
		t.Fatal(&conform.Mismatch{What: "open of a fresh id", Expected: "true", Actual: "false"})
	}
	return id
}

// appendOK appends chunks at from and stops the case on an error.
func appendOK(t *conform.T, s Store, id string, from int, chunks ...string) AppendResult {
	r, err := s.Append(t.Context(), id, from, chunks)
	t.Must(fmt.Sprintf("append at %d", from), err)
	return r
}

// closeOK closes the stream and stops the case on an error.
func closeOK(t *conform.T, s Store, id string) {
	_, err := s.Close(t.Context(), id)
	t.Must("close", err)
}

// readClosed closes the stream and reads it all from from.
func readClosed(t *conform.T, s Store, id string, from int) []string {
	closeOK(t, s, id)
	got, err := s.ReadAll(t.Context(), id, from)
	t.Must("read after close", err)
	return got
}

// statusOf is the stream's status; an error stops the case.
func statusOf(t *conform.T, s Store, id string) *Status {
	st, err := s.Status(t.Context(), id)
	t.Must("status", err)
	return st
}

// wantHint records a mismatch unless err is a failure with the hint.
func wantHint(t *conform.T, what string, err error, hint string) {
	t.Error(conform.WantHint(what, err, hint))
}
