package streams

import (
	"fmt"

	"github.com/bsadapter/bsadapter/internal/conform"
)

// The cases of reading a closed stream from an index, and of the SQL
// block's bounded read.

func readFromIndex(t *conform.T, s Subject) {
	id := openStream(t, s, OpenOptions{})
	appendOK(t, s, id, 0, "0", "1", "2", "3")
	t.Eq("chunks read from 2", readClosed(t, s, id, 2), []string{"2", "3"})
}

// needPager is the store's bounded read; a store without one skips the
// case.
func needPager(t *conform.T, s Subject) Pager {
	p, ok := s.Store.(Pager)
	if !ok {
		t.Skip("the store has no bounded read (stream_read with max)")
	}
	return p
}

// numbered returns n chunks named prefix0, prefix1 and so on.
func numbered(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return out
}

func readPagePastMax(t *conform.T, s Subject) {
	p := needPager(t, s)
	id := openStream(t, s, OpenOptions{})
	all := numbered("c", 10005)
	appendOK(t, s, id, 0, all...)
	// page reads from from with max and names the read after its bounds.
	page := func(from, max int, what string) Page {
		pg, err := p.ReadPage(t.Context(), id, from, max)
		t.Must(what, err)
		return pg
	}
	t.Eq("read from 0, max 10", page(0, 10, "read from 0, max 10"), Page{Found: true, Chunks: all[:10], Next: 10})
	t.Eq("read from 10000, max 10", page(10000, 10, "read from 10000, max 10"), Page{Found: true, Chunks: all[10000:], Next: 10005})
	pg := page(0, 20000, "read from 0, max 20000")
	t.Eq("chunks of a read with max 20000", len(pg.Chunks), 10000)
	t.Eq("next of a read with max 20000", pg.Next, 10000)
	t.Eq("read from 3, max 0", page(3, 0, "read from 3, max 0"), Page{Found: true, Chunks: []string{}, Next: 3})
	closeOK(t, s, id)
	t.Eq("read from 10000, max 10, after close", page(10000, 10, "read after close"), Page{Found: true, Chunks: all[10000:], Next: 10005, Done: true})
}

func readPageMissing(t *conform.T, s Subject) {
	p := needPager(t, s)
	id := t.ID("missing")
	pg, err := p.ReadPage(t.Context(), id, 7, 10)
	t.Must("read from 7", err)
	t.Eq("read from 7", pg, Page{Chunks: []string{}, Next: 7, Done: true})
	pg, err = p.ReadPage(t.Context(), id, -3, 10)
	t.Must("read from -3", err)
	t.Eq("read from -3", pg, Page{Chunks: []string{}, Next: 0, Done: true})
}
