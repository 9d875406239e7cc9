package streams

import (
	"context"
	"fmt"

	"github.com/bsadapter/bsadapter/internal/conform"
)

// The cases of the live read: the contract's read, which returns at
// close, and the incremental one, whose chunks come as they are
// appended, in order, from any index, and which a reader can stop.

// liveRead starts a live read in the background; wait returns its
// result, or an error once the case's time is up.
func liveRead(ctx context.Context, s Store, id string, from int) (wait func() ([]string, error)) {
	type out struct {
		chunks []string
		err    error
	}
	ch := make(chan out, 1)
	go func() {
		c, err := s.ReadAll(ctx, id, from)
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

func liveReadSeesLaterAppends(t *conform.T, s Subject) {
	id := openStream(t, s, OpenOptions{})
	wait := liveRead(t.Context(), s, id, 0)
	appendOK(t, s, id, 0, "x")
	appendOK(t, s, id, 1, "y")
	closeOK(t, s, id)
	got, err := wait()
	t.Must("live read", err)
	t.Eq("chunks of the live read", got, []string{"x", "y"})
}

func liveReadResumed(t *conform.T, s Subject) {
	id := openStream(t, s, OpenOptions{})
	appendOK(t, s, id, 0, "0", "1", "2", "3", "4")
	wait := liveRead(t.Context(), s, id, 3)
	appendOK(t, s, id, 5, "5", "6")
	closeOK(t, s, id)
	got, err := wait()
	t.Must("live read from 3", err)
	t.Eq("chunks of the live read from 3", got, []string{"3", "4", "5", "6"})
}

// needLive is the store's incremental live read; a store whose live read
// is collected whole skips the case.
func needLive(t *conform.T, s Subject) LiveReader {
	l, ok := s.Store.(LiveReader)
	if !ok {
		t.Skip("the store's live read is collected whole, so incremental delivery cannot be checked")
	}
	return l
}

// startLive starts a live read of id from from; what names the read if
// it fails.
func startLive(t *conform.T, l LiveReader, id string, from int, what string) LiveRead {
	r, err := l.ReadLive(t.Context(), id, from)
	t.Must(what, err)
	return r
}

// collect takes deliveries of a live read until it has want chunks or the
// read ends, checking that each delivery starts where the last one ended.
func collect(t *conform.T, r LiveRead, next int, want int) ([]string, Delivery) {
	var got []string
	for len(got) < want {
		d, err := r.Next(t.Context())
		t.Must("live read", err)
		if d.End {
			return got, d
		}
		t.Eq("index of a delivery's first chunk", d.From, next)
		next = d.From + len(d.Chunks)
		got = append(got, d.Chunks...)
	}
	return got, Delivery{}
}

// nextOK is the read's next delivery; an error stops the case.
func nextOK(t *conform.T, r LiveRead, what string) Delivery {
	d, err := r.Next(t.Context())
	t.Must(what, err)
	return d
}

func liveReadIncremental(t *conform.T, s Subject) {
	l := needLive(t, s)
	id := openStream(t, s, OpenOptions{})
	r := startLive(t, l, id, 0, "live read")
	defer r.Abort(context.WithoutCancel(t.Context()))
	var all []string
	for i, batch := range [][]string{{"a"}, {"b", "c"}, {"d"}} {
		appendOK(t, s, id, len(all), batch...)
		got, end := collect(t, r, len(all), len(batch))
		if end.End {
			t.Fatal(&conform.Mismatch{What: fmt.Sprintf("live read after append %d to an open stream", i+1), Expected: fmt.Sprintf("the chunks %v", batch), Actual: "the end of the read"})
		}
		t.Eq(fmt.Sprintf("chunks delivered after append %d, before close", i+1), got, batch)
		all = append(all, batch...)
	}
	closeOK(t, s, id)
	t.Eq("delivery after close", nextOK(t, r, "live read"), Delivery{End: true})
}

func liveReadResumedIncremental(t *conform.T, s Subject) {
	l := needLive(t, s)
	id := openStream(t, s, OpenOptions{})
	appendOK(t, s, id, 0, "0", "1", "2", "3", "4")
	r := startLive(t, l, id, 3, "live read from 3")
	defer r.Abort(context.WithoutCancel(t.Context()))
	got, end := collect(t, r, 3, 2)
	t.That(!end.End, "live read from 3 of an open stream", "the stored chunks 3 and 4 before the end", "the end")
	t.Eq("chunks delivered from 3 before any later append", got, []string{"3", "4"})
	appendOK(t, s, id, 5, "5")
	got, _ = collect(t, r, 5, 1)
	t.Eq("chunk delivered after a later append", got, []string{"5"})
	closeOK(t, s, id)
	t.Eq("delivery after close", nextOK(t, r, "live read"), Delivery{End: true})
}

func liveReadAbort(t *conform.T, s Subject) {
	l := needLive(t, s)
	id := openStream(t, s, OpenOptions{})
	r := startLive(t, l, id, 0, "live read")
	appendOK(t, s, id, 0, "a")
	got, _ := collect(t, r, 0, 1)
	t.Eq("chunks delivered before the abort", got, []string{"a"})
	ok, err := r.Abort(t.Context())
	t.Must("abort", err)
	t.Eq("abort of a running read", ok, true)
	appendOK(t, s, id, 1, "b")
	t.Eq("delivery after the abort", nextOK(t, r, "live read after abort"), Delivery{End: true, Aborted: true})
	again, err := r.Abort(t.Context())
	t.Must("second abort", err)
	t.Eq("second abort", again, false)
	t.Eq("status after the abort (an abort stops the read, not the stream)", statusOf(t, s, id), &Status{Next: 2})
	// Whatever the append after the abort set off has arrived by now: the
	// read must still be over.
	if d, err := r.Next(t.Context()); err != nil {
		t.Error(&conform.Mismatch{What: "deliveries after the abort", Expected: "none", Actual: err.Error()})
	} else {
		t.Eq("delivery after the abort, later", d, Delivery{End: true, Aborted: true})
	}
}

func liveReadMissingEnds(t *conform.T, s Subject) {
	r := startLive(t, needLive(t, s), t.ID("missing"), 0, "live read")
	t.Eq("first delivery", nextOK(t, r, "live read"), Delivery{End: true})
}
