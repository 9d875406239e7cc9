// Package storebench measures a conformance store's StreamStore (conform
// --bench): append throughput and latency with concurrent writers, then
// read throughput and latency with as many readers. It drives any
// conform.Store that offers the streams suite, through that suite's
// provider, and imports none of the stores.
package storebench

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/streams"
)

// Options size a store benchmark.
type Options struct {
	// Writers lists the concurrency levels to measure (default 1 and 8).
	Writers []int
	// Appends is the number of appends per level, shared by its writers
	// (default 2000); each append is a batch of one chunk.
	Appends int
	// Reads is the number of reads per level (default 400); each read
	// returns PageSize chunks.
	Reads int
	// ChunkBytes is the size of every chunk (default 64).
	ChunkBytes int
}

// PageSize is the number of chunks each benchmark read returns.
const PageSize = 100

// Result is what one concurrency level measured.
type Result struct {
	Writers        int           `json:"writers"`
	Appends        int           `json:"appends"`
	AppendsPerSec  float64       `json:"appendsPerSec"`
	AppendP50      time.Duration `json:"appendP50Ns"`
	AppendP99      time.Duration `json:"appendP99Ns"`
	Reads          int           `json:"reads"`
	ReadChunksPerS float64       `json:"readChunksPerSec"`
	ReadP50        time.Duration `json:"readP50Ns"`
	ReadP99        time.Duration `json:"readP99Ns"`
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(p*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// Run measures store's StreamStore: append throughput and latency with
// each number of concurrent writers (each writing its own stream), then
// read throughput and latency with as many concurrent readers.
func Run(ctx context.Context, store conform.Store, o Options) ([]Result, error) {
	if err := streams.Suite.Open(ctx, store); err != nil {
		return nil, fmt.Errorf("the store cannot be benchmarked: %w", err)
	}
	// The store implements the suite: Open said so.
	open, err := store.(streams.Provider).Streams(ctx)
	if err != nil {
		return nil, err
	}
	if len(o.Writers) == 0 {
		o.Writers = []int{1, 8}
	}
	if o.Appends <= 0 {
		o.Appends = 2000
	}
	if o.Reads <= 0 {
		o.Reads = 400
	}
	if o.ChunkBytes <= 0 {
		o.ChunkBytes = 64
	}
	chunk := strings.Repeat("x", o.ChunkBytes)
	var out []Result
	for _, w := range o.Writers {
		// Each level writes streams of a fresh subject, as an ordinary
		// case of the suite would.
		var res Result
		err := conform.Borrow(ctx, &conform.Case{ID: "bench", Suite: streams.Suite.Name}, open, func(t *conform.T, s streams.Subject) error {
			var err error
			res, err = benchLevel(ctx, t, s, w, o, chunk)
			return err
		})
		if err != nil {
			return nil, err
		}
		out = append(out, res)
	}
	return out, nil
}

// parallel runs n workers, worker i doing count(i) operations, and
// returns every operation's latency and the wall time.
func parallel(ctx context.Context, n int, count func(int) int, op func(ctx context.Context, worker, i int) error) ([]time.Duration, time.Duration, error) {
	lat := make([][]time.Duration, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := time.Now()
	for w := range n {
		wg.Go(func() {
			for i := range count(w) {
				t := time.Now()
				if err := op(ctx, w, i); err != nil {
					errs[w] = err
					return
				}
				lat[w] = append(lat[w], time.Since(t))
			}
		})
	}
	wg.Wait()
	wall := time.Since(start)
	return slices.Concat(lat...), wall, errors.Join(errs...)
}

func benchLevel(ctx context.Context, t *conform.T, s streams.Subject, writers int, o Options, chunk string) (Result, error) {
	st := s.Store
	ids := make([]string, writers)
	for i := range ids {
		ids[i] = t.ID("bench")
		if _, err := st.Open(ctx, ids[i], streams.OpenOptions{}); err != nil {
			return Result{}, err
		}
	}
	share := func(total int) func(int) int {
		return func(w int) int {
			n := total / writers
			if w < total%writers {
				n++
			}
			return n
		}
	}
	perWriter := share(o.Appends)
	lat, wall, err := parallel(ctx, writers, perWriter, func(ctx context.Context, w, i int) error {
		_, err := st.Append(ctx, ids[w], i, []string{chunk})
		return err
	})
	if err != nil {
		return Result{}, fmt.Errorf("append: %w", err)
	}
	res := Result{Writers: writers, Appends: len(lat), AppendsPerSec: float64(len(lat)) / wall.Seconds(),
		AppendP50: percentile(lat, 0.5), AppendP99: percentile(lat, 0.99)}
	for _, id := range ids {
		if _, err := st.Close(ctx, id); err != nil {
			return Result{}, err
		}
	}
	pager, paged := st.(streams.Pager)
	var chunks sync.Map
	lat, wall, err = parallel(ctx, writers, share(o.Reads), func(ctx context.Context, w, i int) error {
		n := perWriter(w)
		from := 0
		if n > PageSize {
			from = (i * 37 * PageSize / 10) % (n - PageSize)
		}
		var got int
		if paged {
			p, err := pager.ReadPage(ctx, ids[w], from, PageSize)
			if err != nil {
				return err
			}
			got = len(p.Chunks)
		} else {
			// A closed stream's live read returns at once; read the last
			// page's worth so that every read moves the same data.
			c, err := st.ReadAll(ctx, ids[w], max(n-PageSize, 0))
			if err != nil {
				return err
			}
			got = len(c)
		}
		v, _ := chunks.LoadOrStore(w, new(int))
		*v.(*int) += got
		return nil
	})
	if err != nil {
		return Result{}, fmt.Errorf("read: %w", err)
	}
	total := 0
	chunks.Range(func(_, v any) bool { total += *v.(*int); return true })
	res.Reads = len(lat)
	res.ReadChunksPerS = float64(total) / wall.Seconds()
	res.ReadP50, res.ReadP99 = percentile(lat, 0.5), percentile(lat, 0.99)
	return res, nil
}
