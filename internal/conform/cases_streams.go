package conform

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
)

// StreamIdentity is implemented by stream stores that report the TS
// interface's apiVersion and name.
type StreamIdentity interface {
	APIVersion() int
	StoreName() string
}

// liveRead starts a live read in the background; wait returns its result.
func liveRead(ctx context.Context, st StreamStore, id string, from int) (wait func() ([]string, error)) {
	type out struct {
		chunks []string
		err    error
	}
	ch := make(chan out, 1)
	go func() {
		c, err := st.ReadAll(ctx, id, from)
		ch <- out{c, err}
	}()
	return func() ([]string, error) {
		select {
		case o := <-ch:
			return o.chunks, o.err
		case <-ctx.Done():
			return nil, fmt.Errorf("the live read did not end: %w", ctx.Err())
		}
	}
}

// openStream opens a fresh stream and fails the case if it already existed.
func openStream(ctx context.Context, s *Subject, opts OpenOptions) (string, error) {
	id := s.ID("stream")
	created, err := s.Streams.Open(ctx, id, opts)
	if err != nil {
		return "", op("open", err)
	}
	if !created {
		return "", &Mismatch{What: "open of a fresh id", Expected: "true", Actual: "false"}
	}
	return id, nil
}

// appendOK appends and fails on an error.
func appendOK(ctx context.Context, st StreamStore, id string, from int, chunks ...string) (AppendResult, error) {
	r, err := st.Append(ctx, id, from, chunks)
	return r, op(fmt.Sprintf("append at %d", from), err)
}

// readClosed closes the stream and reads it all from from.
func readClosed(ctx context.Context, st StreamStore, id string, from int) ([]string, error) {
	if _, err := st.Close(ctx, id); err != nil {
		return nil, op("close", err)
	}
	got, err := st.ReadAll(ctx, id, from)
	return got, op("read after close", err)
}

func numbered(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return out
}

func needPager(s *Subject) (StreamPager, error) {
	p, ok := s.Streams.(StreamPager)
	if !ok {
		return nil, Skip("the store has no bounded read (stream_read with max)")
	}
	return p, nil
}

func needCallers(s *Subject) (StreamCallers, error) {
	c, ok := s.Streams.(StreamCallers)
	if !ok {
		return nil, Skip("the store does not take the caller's identity, so owner visibility cannot be checked")
	}
	return c, nil
}

func needLive(s *Subject) (StreamLiveReader, error) {
	l, ok := s.Streams.(StreamLiveReader)
	if !ok {
		return nil, Skip("the store's live read is collected whole, so incremental delivery cannot be checked")
	}
	return l, nil
}

func needDetails(s *Subject) (StreamDetailer, error) {
	d, ok := s.Streams.(StreamDetailer)
	if !ok {
		return nil, Skip("the store's status reports no kind and expiry")
	}
	return d, nil
}

// UUID returns a fresh random UUID (an owner, a tenant, a user).
func (s *Subject) UUID() string { return newUUID() }

func streamCases() []Case {
	cs := []Case{
		{ID: "streams/api-version-and-name", Needs: FeatureIdentity, Rule: "the store reports apiVersion 1 and a non-empty name", Run: func(ctx context.Context, s *Subject) error {
			idn, ok := s.Streams.(StreamIdentity)
			if !ok {
				return Skip("the store does not report apiVersion and name")
			}
			var c checks
			c.eq("apiVersion", idn.APIVersion(), 1)
			c.that(idn.StoreName() != "", "name", "a non-empty name", idn.StoreName())
			return c.err()
		}},
		{ID: "streams/open-true-then-false", Rule: "open returns true for a new id and false for an existing one", Run: func(ctx context.Context, s *Subject) error {
			id := s.ID("stream")
			var c checks
			first, err := s.Streams.Open(ctx, id, OpenOptions{})
			if err != nil {
				return op("first open", err)
			}
			second, err := s.Streams.Open(ctx, id, OpenOptions{})
			if err != nil {
				return op("second open", err)
			}
			c.eq("first open", first, true)
			c.eq("second open", second, false)
			return c.err()
		}},
		{ID: "streams/open-existing-unchanged", Rule: "opening an existing stream again changes nothing about it", Run: func(ctx context.Context, s *Subject) error {
			id, err := openStream(ctx, s, OpenOptions{Kind: "first"})
			if err != nil {
				return err
			}
			if _, err := appendOK(ctx, s.Streams, id, 0, "a", "b"); err != nil {
				return err
			}
			if _, err := s.Streams.Close(ctx, id); err != nil {
				return op("close", err)
			}
			again, err := s.Streams.Open(ctx, id, OpenOptions{Kind: "second"})
			if err != nil {
				return op("second open", err)
			}
			st, err := s.Streams.Status(ctx, id)
			if err != nil {
				return op("status", err)
			}
			var c checks
			c.eq("second open", again, false)
			c.eq("status after the second open", st, &StreamStatus{Next: 2, Closed: true})
			return c.err()
		}},
		{ID: "streams/append-retry-is-noop", Rule: "a retried batch stores nothing twice: [a,b] then [a,b,c] at 0 gives next 2, then 3, and reads abc", Run: func(ctx context.Context, s *Subject) error {
			id, err := openStream(ctx, s, OpenOptions{})
			if err != nil {
				return err
			}
			r1, err := appendOK(ctx, s.Streams, id, 0, "a", "b")
			if err != nil {
				return err
			}
			r2, err := appendOK(ctx, s.Streams, id, 0, "a", "b", "c")
			if err != nil {
				return err
			}
			got, err := readClosed(ctx, s.Streams, id, 0)
			if err != nil {
				return err
			}
			var c checks
			c.eq("next after [a,b] at 0", r1.Next, 2)
			c.eq("next after the retry [a,b,c] at 0", r2.Next, 3)
			c.eq("chunks read after close", got, []string{"a", "b", "c"})
			return c.err()
		}},
		{ID: "streams/append-retry-first-write-wins", Rule: "a retry with different content keeps the first write of every stored index", Run: func(ctx context.Context, s *Subject) error {
			id, err := openStream(ctx, s, OpenOptions{})
			if err != nil {
				return err
			}
			if _, err := appendOK(ctx, s.Streams, id, 0, "a", "b"); err != nil {
				return err
			}
			r, err := appendOK(ctx, s.Streams, id, 0, "X", "Y", "c")
			if err != nil {
				return err
			}
			got, err := readClosed(ctx, s.Streams, id, 0)
			if err != nil {
				return err
			}
			var c checks
			c.eq("next after the retry", r.Next, 3)
			c.eq("chunks read after close", got, []string{"a", "b", "c"})
			return c.err()
		}},
		{ID: "streams/append-gap-refused", Rule: "an append past next fails with STREAM_GAP and stores nothing", Run: func(ctx context.Context, s *Subject) error {
			id, err := openStream(ctx, s, OpenOptions{})
			if err != nil {
				return err
			}
			if _, err := appendOK(ctx, s.Streams, id, 0, "a", "b", "c"); err != nil {
				return err
			}
			_, gapErr := s.Streams.Append(ctx, id, 5, []string{"f"})
			st, err := s.Streams.Status(ctx, id)
			if err != nil {
				return op("status", err)
			}
			var c checks
			if e := wantHint("append at 5 when next is 3", gapErr, HintStreamGap); e != nil {
				c.list = append(c.list, e)
			}
			c.eq("status after the refused append", st, &StreamStatus{Next: 3})
			return c.err()
		}},
		{ID: "streams/append-negative-index-refused", Rule: "an append at a negative index fails with STREAM_GAP and stores nothing", Run: func(ctx context.Context, s *Subject) error {
			id, err := openStream(ctx, s, OpenOptions{})
			if err != nil {
				return err
			}
			if _, err := appendOK(ctx, s.Streams, id, 0, "a"); err != nil {
				return err
			}
			_, negErr := s.Streams.Append(ctx, id, -1, []string{"z", "y"})
			got, err := readClosed(ctx, s.Streams, id, 0)
			if err != nil {
				return err
			}
			var c checks
			if e := wantHint("append at -1", negErr, HintStreamGap); e != nil {
				c.list = append(c.list, e)
			}
			c.eq("chunks read after close", got, []string{"a"})
			return c.err()
		}},
		{ID: "streams/append-empty-batch", Rule: "an empty batch at or below next succeeds and changes nothing", Run: func(ctx context.Context, s *Subject) error {
			id, err := openStream(ctx, s, OpenOptions{})
			if err != nil {
				return err
			}
			var c checks
			r0, err := appendOK(ctx, s.Streams, id, 0)
			if err != nil {
				return err
			}
			c.eq("next after [] at 0 on an empty stream", r0.Next, 0)
			if _, err := appendOK(ctx, s.Streams, id, 0, "a", "b"); err != nil {
				return err
			}
			r1, err := appendOK(ctx, s.Streams, id, 2)
			if err != nil {
				return err
			}
			r2, err := appendOK(ctx, s.Streams, id, 1)
			if err != nil {
				return err
			}
			c.eq("next after [] at 2", r1.Next, 2)
			c.eq("next after [] at 1", r2.Next, 2)
			got, err := readClosed(ctx, s.Streams, id, 0)
			if err != nil {
				return err
			}
			c.eq("chunks read after close", got, []string{"a", "b"})
			return c.err()
		}},
		{ID: "streams/concurrent-writers-same-index", Rule: "writers racing at the same index all succeed; each index holds one writer's chunk, with no duplicate and no gap", Timeout: 20 * time.Second, Run: func(ctx context.Context, s *Subject) error {
			id, err := openStream(ctx, s, OpenOptions{})
			if err != nil {
				return err
			}
			const writers = 8
			results := make([]AppendResult, writers)
			errs := make([]error, writers)
			var wg sync.WaitGroup
			for w := range writers {
				wg.Go(func() {
					results[w], errs[w] = s.Streams.Append(ctx, id, 0, []string{fmt.Sprintf("w%d-0", w), fmt.Sprintf("w%d-1", w)})
				})
			}
			wg.Wait()
			var c checks
			for w := range writers {
				if errs[w] != nil {
					c.list = append(c.list, op(fmt.Sprintf("writer %d's append at 0", w), errs[w]))
					continue
				}
				c.eq(fmt.Sprintf("next reported to writer %d", w), results[w].Next, 2)
			}
			got, err := readClosed(ctx, s.Streams, id, 0)
			if err != nil {
				return err
			}
			if c.eq("number of chunks stored", len(got), 2) {
				for i, chunk := range got {
					var w int
					_, perr := fmt.Sscanf(chunk, "w%d-", &w)
					c.that(perr == nil && chunk == fmt.Sprintf("w%d-%d", w, i), fmt.Sprintf("chunk %d", i), fmt.Sprintf("one writer's chunk for index %d", i), chunk)
				}
			}
			return c.err()
		}},
		{ID: "streams/read-from-index", Rule: "a read from index 2 of chunks 0..3 yields 2 and 3", Run: func(ctx context.Context, s *Subject) error {
			id, err := openStream(ctx, s, OpenOptions{})
			if err != nil {
				return err
			}
			if _, err := appendOK(ctx, s.Streams, id, 0, "0", "1", "2", "3"); err != nil {
				return err
			}
			got, err := readClosed(ctx, s.Streams, id, 2)
			if err != nil {
				return err
			}
			return eq("chunks read from 2", got, []string{"2", "3"})
		}},
		{ID: "streams/close-true-then-false", Rule: "close returns true when it closes the stream and false when it is already closed", Run: func(ctx context.Context, s *Subject) error {
			id, err := openStream(ctx, s, OpenOptions{})
			if err != nil {
				return err
			}
			first, err := s.Streams.Close(ctx, id)
			if err != nil {
				return op("first close", err)
			}
			second, err := s.Streams.Close(ctx, id)
			if err != nil {
				return op("second close", err)
			}
			var c checks
			c.eq("first close", first, true)
			c.eq("second close", second, false)
			return c.err()
		}},
		{ID: "streams/status-after-close", Rule: "status after four chunks and a close is {next:4, closed:true, cancelled:false}", Run: func(ctx context.Context, s *Subject) error {
			id, err := openStream(ctx, s, OpenOptions{})
			if err != nil {
				return err
			}
			if _, err := appendOK(ctx, s.Streams, id, 0, "0", "1", "2", "3"); err != nil {
				return err
			}
			if _, err := s.Streams.Close(ctx, id); err != nil {
				return op("close", err)
			}
			st, err := s.Streams.Status(ctx, id)
			if err != nil {
				return op("status", err)
			}
			return eq("status", st, &StreamStatus{Next: 4, Closed: true})
		}},
		{ID: "streams/live-read-sees-later-appends", Rule: "a read started before two appends and a close yields both chunks and ends", Run: func(ctx context.Context, s *Subject) error {
			id, err := openStream(ctx, s, OpenOptions{})
			if err != nil {
				return err
			}
			wait := liveRead(ctx, s.Streams, id, 0)
			if _, err := appendOK(ctx, s.Streams, id, 0, "x"); err != nil {
				return err
			}
			if _, err := appendOK(ctx, s.Streams, id, 1, "y"); err != nil {
				return err
			}
			if _, err := s.Streams.Close(ctx, id); err != nil {
				return op("close", err)
			}
			got, err := wait()
			if err != nil {
				return op("live read", err)
			}
			return eq("chunks of the live read", got, []string{"x", "y"})
		}},
		{ID: "streams/live-read-resumed", Rule: "a live read resumed from an index yields the stored chunks from there, then the later ones, and ends at close", Run: func(ctx context.Context, s *Subject) error {
			id, err := openStream(ctx, s, OpenOptions{})
			if err != nil {
				return err
			}
			if _, err := appendOK(ctx, s.Streams, id, 0, "0", "1", "2", "3", "4"); err != nil {
				return err
			}
			wait := liveRead(ctx, s.Streams, id, 3)
			if _, err := appendOK(ctx, s.Streams, id, 5, "5", "6"); err != nil {
				return err
			}
			if _, err := s.Streams.Close(ctx, id); err != nil {
				return op("close", err)
			}
			got, err := wait()
			if err != nil {
				return op("live read from 3", err)
			}
			return eq("chunks of the live read from 3", got, []string{"3", "4", "5", "6"})
		}},
		{ID: "streams/cancel-flag", Rule: "isCancelled is false, cancel returns true, isCancelled is true, and a later append succeeds reporting cancelled", Run: func(ctx context.Context, s *Subject) error {
			id, err := openStream(ctx, s, OpenOptions{})
			if err != nil {
				return err
			}
			var c checks
			before, err := s.Streams.IsCancelled(ctx, id)
			if err != nil {
				return op("isCancelled", err)
			}
			c.eq("isCancelled before cancel", before, false)
			ok, err := s.Streams.Cancel(ctx, id)
			if err != nil {
				return op("cancel", err)
			}
			c.eq("cancel", ok, true)
			after, err := s.Streams.IsCancelled(ctx, id)
			if err != nil {
				return op("isCancelled", err)
			}
			c.eq("isCancelled after cancel", after, true)
			r, err := appendOK(ctx, s.Streams, id, 0, "late")
			if err != nil {
				return err
			}
			c.eq("append after cancel", r, AppendResult{Next: 1, Cancelled: true})
			return c.err()
		}},
		{ID: "streams/cancel-twice", Rule: "a second cancel returns false and the stream stays cancelled", Run: func(ctx context.Context, s *Subject) error {
			id, err := openStream(ctx, s, OpenOptions{})
			if err != nil {
				return err
			}
			first, err := s.Streams.Cancel(ctx, id)
			if err != nil {
				return op("first cancel", err)
			}
			second, err := s.Streams.Cancel(ctx, id)
			if err != nil {
				return op("second cancel", err)
			}
			still, err := s.Streams.IsCancelled(ctx, id)
			if err != nil {
				return op("isCancelled", err)
			}
			var c checks
			c.eq("first cancel", first, true)
			c.eq("second cancel", second, false)
			c.eq("isCancelled", still, true)
			return c.err()
		}},
		{ID: "streams/cancel-after-close", Rule: "cancel after close returns false and does not flag the stream", Run: func(ctx context.Context, s *Subject) error {
			id, err := openStream(ctx, s, OpenOptions{})
			if err != nil {
				return err
			}
			if _, err := s.Streams.Close(ctx, id); err != nil {
				return op("close", err)
			}
			ok, err := s.Streams.Cancel(ctx, id)
			if err != nil {
				return op("cancel", err)
			}
			flag, err := s.Streams.IsCancelled(ctx, id)
			if err != nil {
				return op("isCancelled", err)
			}
			var c checks
			c.eq("cancel after close", ok, false)
			c.eq("isCancelled", flag, false)
			return c.err()
		}},
		{ID: "streams/append-after-close-refused", Rule: "an append to a closed stream fails with STREAM_CLOSED and stores nothing", Run: func(ctx context.Context, s *Subject) error {
			id, err := openStream(ctx, s, OpenOptions{})
			if err != nil {
				return err
			}
			if _, err := appendOK(ctx, s.Streams, id, 0, "a"); err != nil {
				return err
			}
			if _, err := s.Streams.Close(ctx, id); err != nil {
				return op("close", err)
			}
			_, closedErr := s.Streams.Append(ctx, id, 1, []string{"b"})
			got, err := s.Streams.ReadAll(ctx, id, 0)
			if err != nil {
				return op("read", err)
			}
			var c checks
			if e := wantHint("append after close", closedErr, HintStreamClosed); e != nil {
				c.list = append(c.list, e)
			}
			c.eq("chunks read", got, []string{"a"})
			return c.err()
		}},
		{ID: "streams/missing-stream", Rule: "a missing stream has no status, reads empty at once and refuses appends with STREAM_NOT_FOUND", Run: func(ctx context.Context, s *Subject) error {
			id := s.ID("missing")
			var c checks
			st, err := s.Streams.Status(ctx, id)
			if err != nil {
				return op("status", err)
			}
			c.eq("status", st, (*StreamStatus)(nil))
			got, err := s.Streams.ReadAll(ctx, id, 0)
			if err != nil {
				return op("read", err)
			}
			c.eq("chunks read", len(got), 0)
			_, appendErr := s.Streams.Append(ctx, id, 0, []string{"a"})
			if e := wantHint("append", appendErr, HintStreamNotFound); e != nil {
				c.list = append(c.list, e)
			}
			again, err := s.Streams.Status(ctx, id)
			if err != nil {
				return op("status", err)
			}
			c.eq("status after the refused append", again, (*StreamStatus)(nil))
			return c.err()
		}},
		{ID: "streams/unknown-id-close", Rule: "close of an unknown id returns false and creates nothing", Run: func(ctx context.Context, s *Subject) error {
			id := s.ID("missing")
			ok, err := s.Streams.Close(ctx, id)
			if err != nil {
				return op("close", err)
			}
			st, err := s.Streams.Status(ctx, id)
			if err != nil {
				return op("status", err)
			}
			var c checks
			c.eq("close", ok, false)
			c.eq("status", st, (*StreamStatus)(nil))
			return c.err()
		}},
		{ID: "streams/unknown-id-cancel", Rule: "cancel of an unknown id returns false and creates nothing", Run: func(ctx context.Context, s *Subject) error {
			id := s.ID("missing")
			ok, err := s.Streams.Cancel(ctx, id)
			if err != nil {
				return op("cancel", err)
			}
			st, err := s.Streams.Status(ctx, id)
			if err != nil {
				return op("status", err)
			}
			var c checks
			c.eq("cancel", ok, false)
			c.eq("status", st, (*StreamStatus)(nil))
			return c.err()
		}},
		{ID: "streams/unknown-id-is-cancelled", Rule: "isCancelled of an unknown id is false", Run: func(ctx context.Context, s *Subject) error {
			got, err := s.Streams.IsCancelled(ctx, s.ID("missing"))
			if err != nil {
				return op("isCancelled", err)
			}
			return eq("isCancelled", got, false)
		}},
		{ID: "streams/purge-returns-count", Rule: "purge returns an integer >= 0", Isolated: true, Run: func(ctx context.Context, s *Subject) error {
			return s.alone(ctx, PurgeOf(SuiteStreams, 24*time.Hour), func() error {
				n, err := s.Streams.Purge(ctx, 0)
				if err != nil {
					return op("purge", err)
				}
				var c checks
				c.that(n >= 0, "purge count", "an integer >= 0", n)
				return c.err()
			})
		}},
		{ID: "streams/large-chunks", Rule: "1 MiB chunks are stored and read back byte for byte", Timeout: 30 * time.Second, Run: func(ctx context.Context, s *Subject) error {
			id, err := openStream(ctx, s, OpenOptions{})
			if err != nil {
				return err
			}
			big := []string{strings.Repeat("abcdefghijklmnop", 1<<16), strings.Repeat("é—🙂", 1<<18/3)}
			r, err := appendOK(ctx, s.Streams, id, 0, big...)
			if err != nil {
				return err
			}
			got, err := readClosed(ctx, s.Streams, id, 0)
			if err != nil {
				return err
			}
			var c checks
			c.eq("next", r.Next, 2)
			if c.eq("number of chunks", len(got), 2) {
				for i := range big {
					c.that(got[i] == big[i], fmt.Sprintf("chunk %d", i), fmt.Sprintf("the %d bytes written", len(big[i])), fmt.Sprintf("%d different bytes", len(got[i])))
				}
			}
			return c.err()
		}},
		{ID: "streams/non-ascii-chunks", Rule: "chunks with non-ASCII text, newlines and escapes round-trip unchanged", Run: func(ctx context.Context, s *Subject) error {
			id, err := openStream(ctx, s, OpenOptions{})
			if err != nil {
				return err
			}
			chunks := []string{"héllo wörld", "日本語のテキスト", "🙂👍🏽 family: 👨‍👩‍👧", "line\nbreak\r\nand\ttab", "\u2028\u2029 separators", `quotes " and \ backslash`, "ﺎﻠﻋﺮﺒﻳﺓ", "e\u0301 combining", ""}
			if _, err := appendOK(ctx, s.Streams, id, 0, chunks...); err != nil {
				return err
			}
			got, err := readClosed(ctx, s.Streams, id, 0)
			if err != nil {
				return err
			}
			return eq("chunks read", got, chunks)
		}},
		{ID: "streams/read-page-past-max", Needs: FeatureBoundedRead, Rule: "a bounded read returns at most max chunks (clamped to 10000) and a next to resume from", Timeout: 30 * time.Second, Run: func(ctx context.Context, s *Subject) error {
			p, err := needPager(s)
			if err != nil {
				return err
			}
			id, err := openStream(ctx, s, OpenOptions{})
			if err != nil {
				return err
			}
			all := numbered("c", 10005)
			if _, err := appendOK(ctx, s.Streams, id, 0, all...); err != nil {
				return err
			}
			var c checks
			pg, err := p.ReadPage(ctx, id, 0, 10)
			if err != nil {
				return op("read from 0, max 10", err)
			}
			c.eq("read from 0, max 10", pg, Page{Found: true, Chunks: all[:10], Next: 10})
			pg, err = p.ReadPage(ctx, id, 10000, 10)
			if err != nil {
				return op("read from 10000, max 10", err)
			}
			c.eq("read from 10000, max 10", pg, Page{Found: true, Chunks: all[10000:], Next: 10005})
			pg, err = p.ReadPage(ctx, id, 0, 20000)
			if err != nil {
				return op("read from 0, max 20000", err)
			}
			c.eq("chunks of a read with max 20000", len(pg.Chunks), 10000)
			c.eq("next of a read with max 20000", pg.Next, 10000)
			pg, err = p.ReadPage(ctx, id, 3, 0)
			if err != nil {
				return op("read from 3, max 0", err)
			}
			c.eq("read from 3, max 0", pg, Page{Found: true, Chunks: []string{}, Next: 3})
			if _, err := s.Streams.Close(ctx, id); err != nil {
				return op("close", err)
			}
			pg, err = p.ReadPage(ctx, id, 10000, 10)
			if err != nil {
				return op("read after close", err)
			}
			c.eq("read from 10000, max 10, after close", pg, Page{Found: true, Chunks: all[10000:], Next: 10005, Done: true})
			return c.err()
		}},
		{ID: "streams/read-page-missing", Needs: FeatureBoundedRead, Rule: "a bounded read of a missing stream is {found:false, chunks:[], next:max(from,0), done:true}", Run: func(ctx context.Context, s *Subject) error {
			p, err := needPager(s)
			if err != nil {
				return err
			}
			id := s.ID("missing")
			var c checks
			pg, err := p.ReadPage(ctx, id, 7, 10)
			if err != nil {
				return op("read from 7", err)
			}
			c.eq("read from 7", pg, Page{Chunks: []string{}, Next: 7, Done: true})
			pg, err = p.ReadPage(ctx, id, -3, 10)
			if err != nil {
				return op("read from -3", err)
			}
			c.eq("read from -3", pg, Page{Chunks: []string{}, Next: 0, Done: true})
			return c.err()
		}},
	}
	cs = append(cs, moreStreamCases()...)
	cs = append(cs, liveCases()...)
	cs = append(cs, ttlCases()...)
	cs = append(cs, ownerCases()...)
	for i := range cs {
		cs[i].Suite = SuiteStreams
	}
	return cs
}

// ttlCases check TTLs and purge windows. Where the store ages rows or
// moves its clock, an hour is their unit of time; where the cases wait in
// real time, a second is, and holds (see gate) keep each case's purge from
// taking what another case still waits for.
func ttlCases() []Case {
	const day = 24 * time.Hour
	return []Case{
		{ID: "streams/purge-keeps-live-and-recent", Isolated: true, Rule: "purge keeps open streams within their TTL and streams closed less than olderThan ago", Run: func(ctx context.Context, s *Subject) error {
			return s.alone(ctx, PurgeOf(SuiteStreams, time.Hour), func() error {
				open, err := openStream(ctx, s, OpenOptions{})
				if err != nil {
					return err
				}
				closed, err := openStream(ctx, s, OpenOptions{})
				if err != nil {
					return err
				}
				if _, err := appendOK(ctx, s.Streams, closed, 0, "done"); err != nil {
					return err
				}
				if _, err := s.Streams.Close(ctx, closed); err != nil {
					return op("close", err)
				}
				if _, err := s.Streams.Purge(ctx, time.Hour); err != nil {
					return op("purge", err)
				}
				var c checks
				st, err := s.Streams.Status(ctx, open)
				if err != nil {
					return op("status", err)
				}
				c.eq("status of the open stream after purge", st, &StreamStatus{})
				st, err = s.Streams.Status(ctx, closed)
				if err != nil {
					return op("status", err)
				}
				c.eq("status of the stream closed just now after a purge with olderThan 1 hour", st, &StreamStatus{Next: 1, Closed: true})
				return c.err()
			})
		}},
		{ID: "streams/ttl-expired-purged", Isolated: true, Rule: "purge deletes a stream once its TTL has passed, even if it was never closed", Run: func(ctx context.Context, s *Subject) error {
			t := newTimed(s, SuiteStreams)
			return t.Run(ctx, func() error {
				ttl := t.Unit
				t.Hold(HoldExpiry, t.Now().Add(ttl))
				id, err := openStream(ctx, s, OpenOptions{TTL: ttl})
				if err != nil {
					return err
				}
				opened := t.Now()
				if _, err := appendOK(ctx, s.Streams, id, 0, "a"); err != nil {
					return err
				}
				if err := t.Pass(ctx, ttl+t.Unit/5, opened, id); err != nil {
					return err
				}
				return t.Purge(ctx, 30*day, func() error {
					n, err := s.Streams.Purge(ctx, 30*day)
					if err != nil {
						return op("purge", err)
					}
					st, err := s.Streams.Status(ctx, id)
					if err != nil {
						return op("status", err)
					}
					var c checks
					c.that(n >= 1, "purge count", "at least 1", n)
					c.eq("status after purge", st, (*StreamStatus)(nil))
					return c.err()
				})
			})
		}},
		{ID: "streams/ttl-unexpired-kept", Isolated: true, Rule: "purge keeps an open stream whose TTL has not passed, however old it is", Run: func(ctx context.Context, s *Subject) error {
			t := newTimed(s, SuiteStreams)
			// Older than the purge window, within its TTL.
			ttl, age, window := 30*day, 29*day, time.Hour
			if t.mode == waitReal {
				ttl, age, window = time.Hour, 1200*time.Millisecond, time.Second
			}
			return t.Run(ctx, func() error {
				id, err := openStream(ctx, s, OpenOptions{TTL: ttl})
				if err != nil {
					return err
				}
				opened := t.Now()
				if _, err := appendOK(ctx, s.Streams, id, 0, "a"); err != nil {
					return err
				}
				if err := t.Pass(ctx, age, opened, id); err != nil {
					return err
				}
				return t.Purge(ctx, window, func() error {
					if _, err := s.Streams.Purge(ctx, window); err != nil {
						return op("purge", err)
					}
					st, err := s.Streams.Status(ctx, id)
					if err != nil {
						return op("status", err)
					}
					return eq("status after purge", st, &StreamStatus{Next: 1})
				})
			})
		}},
		{ID: "streams/purge-closed-window", Isolated: true, Rule: "purge deletes a closed stream only once it has been closed longer than olderThan", Run: func(ctx context.Context, s *Subject) error {
			t := newTimed(s, SuiteStreams)
			// One stream closed 1.5 windows before the purge, one half a
			// window before it (when the cases wait, just before it).
			window := time.Hour
			if t.mode == waitReal {
				window = time.Second
			}
			return t.Run(ctx, func() error {
				var ids []string
				for range 2 {
					id, err := openStream(ctx, s, OpenOptions{TTL: 30 * day})
					if err != nil {
						return err
					}
					if _, err := appendOK(ctx, s.Streams, id, 0, "a"); err != nil {
						return err
					}
					ids = append(ids, id)
				}
				old, young := ids[0], ids[1]
				t.Hold(HoldAge, t.Now())
				if _, err := s.Streams.Close(ctx, old); err != nil {
					return op("close", err)
				}
				closed := t.Now()
				closeYoung := func() error {
					_, err := s.Streams.Close(ctx, young)
					return op("close", err)
				}
				switch t.mode {
				case ageRows:
					if err := closeYoung(); err != nil {
						return err
					}
					if err := t.Pass(ctx, window*3/2, closed, old); err != nil {
						return err
					}
					if err := t.Pass(ctx, window/2, closed, young); err != nil {
						return err
					}
				case moveClock:
					if err := t.Pass(ctx, window, closed); err != nil {
						return err
					}
					if err := closeYoung(); err != nil {
						return err
					}
					if err := t.Pass(ctx, window/2, closed); err != nil {
						return err
					}
				case waitReal:
					if err := t.Pass(ctx, window+window/5, closed); err != nil {
						return err
					}
				}
				return t.Purge(ctx, window, func() error {
					if t.mode == waitReal {
						// Closed within the step, so that no wait for other
						// cases can age it past the window.
						if err := closeYoung(); err != nil {
							return err
						}
					}
					n, err := s.Streams.Purge(ctx, window)
					if err != nil {
						return op("purge", err)
					}
					var c checks
					st, err := s.Streams.Status(ctx, young)
					if err != nil {
						return op("status", err)
					}
					c.eq(fmt.Sprintf("status of a stream closed less than the window (%s) ago, after a purge", window), st, &StreamStatus{Next: 1, Closed: true})
					st, err = s.Streams.Status(ctx, old)
					if err != nil {
						return op("status", err)
					}
					c.that(n >= 1, "purge count", "at least 1 (the stream closed longer than the window ago)", n)
					c.eq(fmt.Sprintf("status of a stream closed longer than the window (%s) ago, after a purge", window), st, (*StreamStatus)(nil))
					return c.err()
				})
			})
		}},
		{ID: "streams/open-expired-unchanged", Isolated: true, Rule: "opening an expired stream's id again returns false and does not revive or reset it", Run: func(ctx context.Context, s *Subject) error {
			t := newTimed(s, SuiteStreams)
			return t.Run(ctx, func() error {
				ttl := t.Unit
				t.Hold(HoldExpiry, t.Now().Add(ttl))
				id, err := openStream(ctx, s, OpenOptions{TTL: ttl})
				if err != nil {
					return err
				}
				opened := t.Now()
				if _, err := appendOK(ctx, s.Streams, id, 0, "a", "b"); err != nil {
					return err
				}
				if err := t.Pass(ctx, ttl+t.Unit/5, opened, id); err != nil {
					return err
				}
				// Expired, not purged: no purge comes before these checks
				// (the hold), and none need wait for the purge of this case.
				again, err := s.Streams.Open(ctx, id, OpenOptions{TTL: 30 * day})
				if err != nil {
					return op("second open", err)
				}
				st, err := s.Streams.Status(ctx, id)
				if err != nil {
					return op("status", err)
				}
				t.Release()
				var c checks
				c.eq("open of the expired id", again, false)
				c.eq("status before purge", st, &StreamStatus{Next: 2})
				err = t.Purge(ctx, 30*day, func() error {
					n, err := s.Streams.Purge(ctx, 30*day)
					if err != nil {
						return op("purge", err)
					}
					gone, err := s.Streams.Status(ctx, id)
					if err != nil {
						return op("status", err)
					}
					if t.mode != waitReal {
						// Waiting in real time, another case's purge may
						// have taken it first; it must be gone all the same.
						c.that(n >= 1, "purge count", "at least 1 (the TTL was not renewed)", n)
					}
					c.eq("status after purge (the TTL was not renewed)", gone, (*StreamStatus)(nil))
					return nil
				})
				if err != nil {
					return err
				}
				return c.err()
			})
		}},
	}
}

func ownerCases() []Case {
	// setup opens a stream owned by a fresh user with two chunks, closed
	// when the case reads it (a live read ends only at close).
	setup := func(ctx context.Context, s *Subject, closed bool) (StreamCallers, string, string, error) {
		cl, err := needCallers(s)
		if err != nil {
			return nil, "", "", err
		}
		owner := s.UUID()
		id, err := openStream(ctx, s, OpenOptions{Owner: owner})
		if err != nil {
			return nil, "", "", err
		}
		if _, err := appendOK(ctx, s.Streams, id, 0, "secret-0", "secret-1"); err != nil {
			return nil, "", "", err
		}
		if closed {
			if _, err := s.Streams.Close(ctx, id); err != nil {
				return nil, "", "", op("close", err)
			}
		}
		return cl, owner, id, nil
	}
	// invisible checks that who learns nothing of the stream: an empty
	// answer, or a refusal of the call itself (upstream refuses anon even
	// the reading functions).
	invisible := func(ctx context.Context, v StreamView, id, who string) error {
		var c checks
		got, err := v.ReadAll(ctx, id, 0)
		switch {
		case Refused(err):
		case err != nil:
			return op("read as "+who, err)
		default:
			c.eq("chunks read as "+who, got, []string{})
		}
		st, err := v.Status(ctx, id)
		switch {
		case Refused(err):
		case err != nil:
			return op("status as "+who, err)
		default:
			c.eq("status as "+who, st, (*StreamStatus)(nil))
		}
		return c.err()
	}
	return []Case{
		{ID: "streams/owner-sees-own", Needs: FeatureCallers, Rule: "the owner reads its own stream's chunks and status", Run: func(ctx context.Context, s *Subject) error {
			cl, owner, id, err := setup(ctx, s, true)
			if err != nil {
				return err
			}
			v := cl.As(User(owner))
			var c checks
			got, err := v.ReadAll(ctx, id, 0)
			if err != nil {
				return op("read as the owner", err)
			}
			c.eq("chunks read as the owner", got, []string{"secret-0", "secret-1"})
			st, err := v.Status(ctx, id)
			if err != nil {
				return op("status as the owner", err)
			}
			c.eq("status as the owner", st, &StreamStatus{Next: 2, Closed: true})
			return c.err()
		}},
		{ID: "streams/stranger-sees-nothing", Needs: FeatureCallers, Rule: "another authenticated user neither reads nor sees the status of a stream it does not own", Run: func(ctx context.Context, s *Subject) error {
			cl, _, id, err := setup(ctx, s, true)
			if err != nil {
				return err
			}
			return invisible(ctx, cl.As(User(s.UUID())), id, "another user")
		}},
		{ID: "streams/anon-sees-nothing", Needs: FeatureCallers, Rule: "anon neither reads nor sees the status of any stream (a refused call is as good as an empty answer)", Run: func(ctx context.Context, s *Subject) error {
			cl, _, id, err := setup(ctx, s, true)
			if err != nil {
				return err
			}
			return invisible(ctx, cl.As(Anon), id, "anon")
		}},
		{ID: "streams/owner-may-cancel", Needs: FeatureCallers, Rule: "the owner may cancel its stream, and the writer sees the flag", Run: func(ctx context.Context, s *Subject) error {
			cl, owner, id, err := setup(ctx, s, false)
			if err != nil {
				return err
			}
			ok, err := cl.As(User(owner)).Cancel(ctx, id)
			if err != nil {
				return op("cancel as the owner", err)
			}
			r, err := appendOK(ctx, s.Streams, id, 2, "after")
			if err != nil {
				return err
			}
			var c checks
			c.eq("cancel as the owner", ok, true)
			c.eq("the writer's next append", r, AppendResult{Next: 3, Cancelled: true})
			return c.err()
		}},
		{ID: "streams/stranger-may-not-cancel", Needs: FeatureCallers, Rule: "another user's or anon's cancel returns false (or is refused) and leaves the stream running", Run: func(ctx context.Context, s *Subject) error {
			cl, _, id, err := setup(ctx, s, false)
			if err != nil {
				return err
			}
			var c checks
			for _, who := range []struct {
				name string
				c    Caller
			}{{"another user", User(s.UUID())}, {"anon", Anon}} {
				ok, err := cl.As(who.c).Cancel(ctx, id)
				c.that(err != nil || !ok, "cancel as "+who.name, "false or a refusal", ok)
			}
			flag, err := s.Streams.IsCancelled(ctx, id)
			if err != nil {
				return op("isCancelled", err)
			}
			c.eq("isCancelled after the strangers' cancels", flag, false)
			return c.err()
		}},
		{ID: "streams/only-service-writes", Needs: FeatureCallers, Rule: "neither the owner nor anon can append; only the service role writes", Run: func(ctx context.Context, s *Subject) error {
			cl, owner, id, err := setup(ctx, s, false)
			if err != nil {
				return err
			}
			var c checks
			for _, who := range []struct {
				name string
				c    Caller
			}{{"the owner", User(owner)}, {"anon", Anon}} {
				_, err := cl.As(who.c).Append(ctx, id, 2, []string{"forged by " + who.name})
				c.that(err != nil, "append as "+who.name, "a refusal", "success")
			}
			st, err := s.Streams.Status(ctx, id)
			if err != nil {
				return op("status", err)
			}
			c.eq("status after the refused appends", st, &StreamStatus{Next: 2})
			return c.err()
		}},
	}
}

// moreStreamCases check rules upstream's kit leaves out: the cancelled flag
// in status, the order of the append checks and retries that overlap.
func moreStreamCases() []Case {
	return []Case{
		{ID: "streams/status-cancelled-after-cancel", Rule: "status reports cancelled: true after a cancel, through later appends and the close", Run: func(ctx context.Context, s *Subject) error {
			id, err := openStream(ctx, s, OpenOptions{})
			if err != nil {
				return err
			}
			var c checks
			if _, err := s.Streams.Cancel(ctx, id); err != nil {
				return op("cancel", err)
			}
			st, err := s.Streams.Status(ctx, id)
			if err != nil {
				return op("status", err)
			}
			c.eq("status after cancel", st, &StreamStatus{Cancelled: true})
			if _, err := appendOK(ctx, s.Streams, id, 0, "late"); err != nil {
				return err
			}
			if _, err := s.Streams.Close(ctx, id); err != nil {
				return op("close", err)
			}
			st, err = s.Streams.Status(ctx, id)
			if err != nil {
				return op("status", err)
			}
			c.eq("status after an append and the close", st, &StreamStatus{Next: 1, Closed: true, Cancelled: true})
			return c.err()
		}},
		{ID: "streams/closed-checked-before-gap", Rule: "an append at a gap to a closed stream fails with STREAM_CLOSED: closed is checked before the gap", Run: func(ctx context.Context, s *Subject) error {
			id, err := openStream(ctx, s, OpenOptions{})
			if err != nil {
				return err
			}
			if _, err := appendOK(ctx, s.Streams, id, 0, "a"); err != nil {
				return err
			}
			if _, err := s.Streams.Close(ctx, id); err != nil {
				return op("close", err)
			}
			_, gapErr := s.Streams.Append(ctx, id, 5, []string{"f"})
			st, err := s.Streams.Status(ctx, id)
			if err != nil {
				return op("status", err)
			}
			var c checks
			if e := wantHint("append at 5 to a closed stream whose next is 1", gapErr, HintStreamClosed); e != nil {
				c.list = append(c.list, e)
			}
			c.eq("status after the refused append", st, &StreamStatus{Next: 1, Closed: true})
			return c.err()
		}},
		{ID: "streams/overlapping-retry-stored-once", Timeout: 20 * time.Second, Rule: "identical batches sent at once, and a retry overlapping a longer batch, are stored once", Run: func(ctx context.Context, s *Subject) error {
			id, err := openStream(ctx, s, OpenOptions{})
			if err != nil {
				return err
			}
			var c checks
			// The same batch, sent again before the first answer came.
			const copies = 8
			res := make([]AppendResult, copies)
			errs := make([]error, copies)
			var wg sync.WaitGroup
			for i := range copies {
				wg.Go(func() { res[i], errs[i] = s.Streams.Append(ctx, id, 0, []string{"a", "b"}) })
			}
			wg.Wait()
			for i := range copies {
				if errs[i] != nil {
					c.list = append(c.list, op(fmt.Sprintf("copy %d of [a,b] at 0", i), errs[i]))
					continue
				}
				c.eq(fmt.Sprintf("next reported to copy %d of [a,b] at 0", i), res[i].Next, 2)
			}
			// A retry of the tail racing the longer batch it overlaps.
			batches := []struct {
				from   int
				chunks []string
			}{{0, []string{"a", "b", "c", "d"}}, {2, []string{"c", "d"}}, {1, []string{"b", "c"}}, {2, []string{"c", "d"}}}
			for i, b := range batches {
				wg.Go(func() { _, errs[i] = s.Streams.Append(ctx, id, b.from, b.chunks) })
			}
			wg.Wait()
			for i, b := range batches {
				if errs[i] != nil {
					c.list = append(c.list, op(fmt.Sprintf("%v at %d", b.chunks, b.from), errs[i]))
				}
			}
			got, err := readClosed(ctx, s.Streams, id, 0)
			if err != nil {
				return err
			}
			c.eq("chunks stored", got, []string{"a", "b", "c", "d"})
			return c.err()
		}},
		{ID: "streams/status-kind-and-expiry", Needs: FeatureStatusDetails, Rule: "status reports the stream's kind (default \"default\") and when its TTL ends (default one day)", Run: func(ctx context.Context, s *Subject) error {
			d, err := needDetails(s)
			if err != nil {
				return err
			}
			now := func() time.Time {
				if s.Clock != nil {
					if t, err := s.Clock.Advance(ctx, 0); err == nil {
						return t
					}
				}
				return time.Now()
			}
			var c checks
			for _, tc := range []struct {
				opts OpenOptions
				kind string
				ttl  time.Duration
			}{{OpenOptions{Kind: "chat", TTL: 2 * time.Hour}, "chat", 2 * time.Hour}, {OpenOptions{}, "default", 24 * time.Hour}} {
				before := now()
				id, err := openStream(ctx, s, tc.opts)
				if err != nil {
					return err
				}
				after := now()
				st, err := d.StatusDetails(ctx, id)
				if err != nil {
					return op("status", err)
				}
				if !c.that(st != nil, "status of "+tc.kind, "a status", st) {
					continue
				}
				c.eq("kind of a stream opened with kind "+show(tc.opts.Kind), st.Kind, tc.kind)
				// A store may keep whole seconds.
				lo, hi := before.Add(tc.ttl).Add(-time.Second), after.Add(tc.ttl).Add(time.Second)
				c.that(!st.ExpiresAt.Before(lo) && !st.ExpiresAt.After(hi), "expiresAt of a stream opened with TTL "+tc.ttl.String(),
					fmt.Sprintf("between %s and %s", lo.Format(time.RFC3339), hi.Format(time.RFC3339)), st.ExpiresAt.Format(time.RFC3339Nano))
				c.eq("the rest of the status", st.StreamStatus, StreamStatus{})
			}
			return c.err()
		}},
	}
}

// collect takes deliveries of a live read until it has want chunks or the
// read ends, checking that each delivery starts where the last one ended.
func collect(ctx context.Context, r LiveRead, next int, want int, c *checks) ([]string, Delivery, error) {
	var got []string
	for len(got) < want {
		d, err := r.Next(ctx)
		if err != nil {
			return got, d, op("live read", err)
		}
		if d.End {
			return got, d, nil
		}
		c.eq("index of a delivery's first chunk", d.From, next)
		next = d.From + len(d.Chunks)
		got = append(got, d.Chunks...)
	}
	return got, Delivery{}, nil
}

// liveCases check the live read as it happens: chunks come as they are
// appended, in order, from any index, and a read can be stopped.
func liveCases() []Case {
	return []Case{
		{ID: "streams/live-read-incremental", Needs: FeatureLiveRead, Rule: "a live read started before the appends delivers each chunk while the stream is still open, in order, and ends at close", Run: func(ctx context.Context, s *Subject) error {
			l, err := needLive(s)
			if err != nil {
				return err
			}
			id, err := openStream(ctx, s, OpenOptions{})
			if err != nil {
				return err
			}
			r, err := l.ReadLive(ctx, id, 0)
			if err != nil {
				return op("live read", err)
			}
			defer r.Abort(context.WithoutCancel(ctx))
			var c checks
			var all []string
			for i, batch := range [][]string{{"a"}, {"b", "c"}, {"d"}} {
				if _, err := appendOK(ctx, s.Streams, id, len(all), batch...); err != nil {
					return err
				}
				got, end, err := collect(ctx, r, len(all), len(batch), &c)
				if err != nil {
					return err
				}
				if end.End {
					return &Mismatch{What: fmt.Sprintf("live read after append %d to an open stream", i+1), Expected: fmt.Sprintf("the chunks %v", batch), Actual: "the end of the read"}
				}
				c.eq(fmt.Sprintf("chunks delivered after append %d, before close", i+1), got, batch)
				all = append(all, batch...)
			}
			if _, err := s.Streams.Close(ctx, id); err != nil {
				return op("close", err)
			}
			d, err := r.Next(ctx)
			if err != nil {
				return op("live read", err)
			}
			c.eq("delivery after close", d, Delivery{End: true})
			return c.err()
		}},
		{ID: "streams/live-read-resumed-incremental", Needs: FeatureLiveRead, Rule: "a live read from an index delivers the stored chunks from there at once, then each later one, and ends at close", Run: func(ctx context.Context, s *Subject) error {
			l, err := needLive(s)
			if err != nil {
				return err
			}
			id, err := openStream(ctx, s, OpenOptions{})
			if err != nil {
				return err
			}
			if _, err := appendOK(ctx, s.Streams, id, 0, "0", "1", "2", "3", "4"); err != nil {
				return err
			}
			r, err := l.ReadLive(ctx, id, 3)
			if err != nil {
				return op("live read from 3", err)
			}
			defer r.Abort(context.WithoutCancel(ctx))
			var c checks
			got, end, err := collect(ctx, r, 3, 2, &c)
			if err != nil {
				return err
			}
			c.that(!end.End, "live read from 3 of an open stream", "the stored chunks 3 and 4 before the end", "the end")
			c.eq("chunks delivered from 3 before any later append", got, []string{"3", "4"})
			if _, err := appendOK(ctx, s.Streams, id, 5, "5"); err != nil {
				return err
			}
			got, _, err = collect(ctx, r, 5, 1, &c)
			if err != nil {
				return err
			}
			c.eq("chunk delivered after a later append", got, []string{"5"})
			if _, err := s.Streams.Close(ctx, id); err != nil {
				return op("close", err)
			}
			d, err := r.Next(ctx)
			if err != nil {
				return op("live read", err)
			}
			c.eq("delivery after close", d, Delivery{End: true})
			return c.err()
		}},
		{ID: "streams/live-read-abort", Needs: FeatureLiveRead, Rule: "an aborted live read ends at once and delivers nothing appended after the abort; a second abort returns false", Run: func(ctx context.Context, s *Subject) error {
			l, err := needLive(s)
			if err != nil {
				return err
			}
			id, err := openStream(ctx, s, OpenOptions{})
			if err != nil {
				return err
			}
			r, err := l.ReadLive(ctx, id, 0)
			if err != nil {
				return op("live read", err)
			}
			var c checks
			if _, err := appendOK(ctx, s.Streams, id, 0, "a"); err != nil {
				return err
			}
			got, _, err := collect(ctx, r, 0, 1, &c)
			if err != nil {
				return err
			}
			c.eq("chunks delivered before the abort", got, []string{"a"})
			ok, err := r.Abort(ctx)
			if err != nil {
				return op("abort", err)
			}
			c.eq("abort of a running read", ok, true)
			if _, err := appendOK(ctx, s.Streams, id, 1, "b"); err != nil {
				return err
			}
			d, err := r.Next(ctx)
			if err != nil {
				return op("live read after abort", err)
			}
			c.eq("delivery after the abort", d, Delivery{End: true, Aborted: true})
			again, err := r.Abort(ctx)
			if err != nil {
				return op("second abort", err)
			}
			c.eq("second abort", again, false)
			st, err := s.Streams.Status(ctx, id)
			if err != nil {
				return op("status", err)
			}
			c.eq("status after the abort (an abort stops the read, not the stream)", st, &StreamStatus{Next: 2})
			// Whatever the append after the abort set off has arrived by
			// now: the read must still be over.
			d, err = r.Next(ctx)
			if err != nil {
				c.list = append(c.list, &Mismatch{What: "deliveries after the abort", Expected: "none", Actual: err.Error()})
			} else {
				c.eq("delivery after the abort, later", d, Delivery{End: true, Aborted: true})
			}
			return c.err()
		}},
		{ID: "streams/live-read-missing-ends", Needs: FeatureLiveRead, Rule: "a live read of a missing stream ends at once with no chunk", Run: func(ctx context.Context, s *Subject) error {
			l, err := needLive(s)
			if err != nil {
				return err
			}
			r, err := l.ReadLive(ctx, s.ID("missing"), 0)
			if err != nil {
				return op("live read", err)
			}
			d, err := r.Next(ctx)
			if err != nil {
				return op("live read", err)
			}
			return eq("first delivery", d, Delivery{End: true})
		}},
	}
}
