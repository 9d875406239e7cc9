package streams

import (
	"fmt"
	"strings"
	"sync"

	"github.com/bsadapter/bsadapter/internal/conform"
)

// The cases of opening a stream and of appending to it: retries, gaps,
// racing writers and what a chunk may hold.

func openTrueThenFalse(t *conform.T, s Subject) {
	id := t.ID("stream")
	first, err := s.Open(t.Context(), id, OpenOptions{})
	t.Must("first open", err)
	second, err := s.Open(t.Context(), id, OpenOptions{})
	t.Must("second open", err)
	t.Eq("first open", first, true)
	t.Eq("second open", second, false)
}

func openExistingUnchanged(t *conform.T, s Subject) {
	id := openStream(t, s, OpenOptions{Kind: "first"})
	appendOK(t, s, id, 0, "a", "b")
	closeOK(t, s, id)
	again, err := s.Open(t.Context(), id, OpenOptions{Kind: "second"})
	t.Must("second open", err)
	st := statusOf(t, s, id)
	t.Eq("second open", again, false)
	t.Eq("status after the second open", st, &Status{Next: 2, Closed: true})
}

func appendRetryIsNoop(t *conform.T, s Subject) {
	id := openStream(t, s, OpenOptions{})
	r1 := appendOK(t, s, id, 0, "a", "b")
	r2 := appendOK(t, s, id, 0, "a", "b", "c")
	got := readClosed(t, s, id, 0)
	t.Eq("next after [a,b] at 0", r1.Next, 2)
	t.Eq("next after the retry [a,b,c] at 0", r2.Next, 3)
	t.Eq("chunks read after close", got, []string{"a", "b", "c"})
}

func appendRetryFirstWriteWins(t *conform.T, s Subject) {
	id := openStream(t, s, OpenOptions{})
	appendOK(t, s, id, 0, "a", "b")
	r := appendOK(t, s, id, 0, "X", "Y", "c")
	got := readClosed(t, s, id, 0)
	t.Eq("next after the retry", r.Next, 3)
	t.Eq("chunks read after close", got, []string{"a", "b", "c"})
}

func appendGapRefused(t *conform.T, s Subject) {
	id := openStream(t, s, OpenOptions{})
	appendOK(t, s, id, 0, "a", "b", "c")
	_, gapErr := s.Append(t.Context(), id, 5, []string{"f"})
	st := statusOf(t, s, id)
	wantHint(t, "append at 5 when next is 3", gapErr, HintGap)
	t.Eq("status after the refused append", st, &Status{Next: 3})
}

func appendNegativeIndexRefused(t *conform.T, s Subject) {
	id := openStream(t, s, OpenOptions{})
	appendOK(t, s, id, 0, "a")
	_, negErr := s.Append(t.Context(), id, -1, []string{"z", "y"})
	got := readClosed(t, s, id, 0)
	wantHint(t, "append at -1", negErr, HintGap)
	t.Eq("chunks read after close", got, []string{"a"})
}

func appendEmptyBatch(t *conform.T, s Subject) {
	id := openStream(t, s, OpenOptions{})
	r0 := appendOK(t, s, id, 0)
	t.Eq("next after [] at 0 on an empty stream", r0.Next, 0)
	appendOK(t, s, id, 0, "a", "b")
	r1 := appendOK(t, s, id, 2)
	r2 := appendOK(t, s, id, 1)
	t.Eq("next after [] at 2", r1.Next, 2)
	t.Eq("next after [] at 1", r2.Next, 2)
	got := readClosed(t, s, id, 0)
	t.Eq("chunks read after close", got, []string{"a", "b"})
}

func concurrentWritersSameIndex(t *conform.T, s Subject) {
	id := openStream(t, s, OpenOptions{})
	const writers = 8
	results := make([]AppendResult, writers)
	errs := make([]error, writers)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			results[w], errs[w] = s.Append(t.Context(), id, 0, []string{fmt.Sprintf("w%d-0", w), fmt.Sprintf("w%d-1", w)})
		})
	}
	wg.Wait()
	for w := range writers {
		if errs[w] != nil {
			t.Error(conform.Op(fmt.Sprintf("writer %d's append at 0", w), errs[w]))
			continue
		}
		t.Eq(fmt.Sprintf("next reported to writer %d", w), results[w].Next, 2)
	}
	got := readClosed(t, s, id, 0)
	if !t.Eq("number of chunks stored", len(got), 2) {
		return
	}
	for i, chunk := range got {
		var w int
		_, perr := fmt.Sscanf(chunk, "w%d-", &w)
		t.That(perr == nil && chunk == fmt.Sprintf("w%d-%d", w, i), fmt.Sprintf("chunk %d", i), fmt.Sprintf("one writer's chunk for index %d", i), chunk)
	}
}

func appendAfterCloseRefused(t *conform.T, s Subject) {
	id := openStream(t, s, OpenOptions{})
	appendOK(t, s, id, 0, "a")
	closeOK(t, s, id)
	_, closedErr := s.Append(t.Context(), id, 1, []string{"b"})
	got, err := s.ReadAll(t.Context(), id, 0)
	t.Must("read", err)
	wantHint(t, "append after close", closedErr, HintClosed)
	t.Eq("chunks read", got, []string{"a"})
}

func closedCheckedBeforeGap(t *conform.T, s Subject) {
	id := openStream(t, s, OpenOptions{})
	appendOK(t, s, id, 0, "a")
	closeOK(t, s, id)
	_, gapErr := s.Append(t.Context(), id, 5, []string{"f"})
	st := statusOf(t, s, id)
	wantHint(t, "append at 5 to a closed stream whose next is 1", gapErr, HintClosed)
	t.Eq("status after the refused append", st, &Status{Next: 1, Closed: true})
}

func overlappingRetryStoredOnce(t *conform.T, s Subject) {
	id := openStream(t, s, OpenOptions{})
	// The same batch, sent again before the first answer came.
	const copies = 8
	res := make([]AppendResult, copies)
	errs := make([]error, copies)
	var wg sync.WaitGroup
	for i := range copies {
		wg.Go(func() { res[i], errs[i] = s.Append(t.Context(), id, 0, []string{"a", "b"}) })
	}
	wg.Wait()
	for i := range copies {
		if errs[i] != nil {
			t.Error(conform.Op(fmt.Sprintf("copy %d of [a,b] at 0", i), errs[i]))
			continue
		}
		t.Eq(fmt.Sprintf("next reported to copy %d of [a,b] at 0", i), res[i].Next, 2)
	}
	// A retry of the tail racing the longer batch it overlaps.
	batches := []struct {
		from   int
		chunks []string
	}{{0, []string{"a", "b", "c", "d"}}, {2, []string{"c", "d"}}, {1, []string{"b", "c"}}, {2, []string{"c", "d"}}}
	for i, b := range batches {
		wg.Go(func() { _, errs[i] = s.Append(t.Context(), id, b.from, b.chunks) })
	}
	wg.Wait()
	for i, b := range batches {
		t.Error(conform.Op(fmt.Sprintf("%v at %d", b.chunks, b.from), errs[i]))
	}
	got := readClosed(t, s, id, 0)
	t.Eq("chunks stored", got, []string{"a", "b", "c", "d"})
}

func largeChunks(t *conform.T, s Subject) {
	id := openStream(t, s, OpenOptions{})
	big := []string{strings.Repeat("abcdefghijklmnop", 1<<16), strings.Repeat("é—🙂", 1<<18/3)}
	r := appendOK(t, s, id, 0, big...)
	got := readClosed(t, s, id, 0)
	t.Eq("next", r.Next, 2)
	if !t.Eq("number of chunks", len(got), 2) {
		return
	}
	for i := range big {
		t.That(got[i] == big[i], fmt.Sprintf("chunk %d", i), fmt.Sprintf("the %d bytes written", len(big[i])), fmt.Sprintf("%d different bytes", len(got[i])))
	}
}

func nonASCIIChunks(t *conform.T, s Subject) {
	id := openStream(t, s, OpenOptions{})
	chunks := []string{"héllo wörld", "日本語のテキスト", "🙂👍🏽 family: 👨‍👩‍👧", "line\nbreak\r\nand\ttab", "\u2028\u2029 separators", `quotes " and \ backslash`, "ﺎﻠﻋﺮﺒﻳﺓ", "e\u0301 combining", ""}
	appendOK(t, s, id, 0, chunks...)
	got := readClosed(t, s, id, 0)
	t.Eq("chunks read", got, chunks)
}
