package pgstore

import (
	"context"
	"sync"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform/suites/streams"
	"github.com/jackc/pgx/v5"
)

// StatusDetails is stream_status with the kind and the expiry it reports.
func (s pgStreams) StatusDetails(ctx context.Context, id string) (*streams.Details, error) {
	var st struct {
		streams.Status
		Kind      string    `json:"kind"`
		ExpiresAt time.Time `json:"expires_at"`
	}
	var found bool
	err := s.db.with(ctx, func(c *pgx.Conn) error {
		var err error
		found, err = jsonInto(ctx, c, &st, "select better_supabase.stream_status($1)", id)
		return err
	})
	if err != nil || !found {
		return nil, err
	}
	return &streams.Details{Status: st.Status, Kind: st.Kind, ExpiresAt: st.ExpiresAt}, nil
}

// ReadLive is the live read as a client of the blocks makes it on plain
// PostgreSQL: pages of stream_read, polled while the writer is behind.
func (s pgStreams) ReadLive(_ context.Context, id string, from int) (streams.LiveRead, error) {
	return &pgLive{s: s, id: id, next: max(from, 0), stop: make(chan struct{})}, nil
}

type pgLive struct {
	s    pgStreams
	id   string
	next int

	mu    sync.Mutex
	ended *streams.Delivery
	stop  chan struct{}
}

func (r *pgLive) end() *streams.Delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ended
}

func (r *pgLive) Next(ctx context.Context) (streams.Delivery, error) {
	wait := time.Millisecond
	for {
		if e := r.end(); e != nil {
			return *e, nil
		}
		p, err := r.s.ReadPage(ctx, r.id, r.next, 10000)
		if err != nil {
			return streams.Delivery{}, err
		}
		r.mu.Lock()
		if r.ended != nil {
			// Aborted meanwhile: what the page holds is not delivered.
			d := *r.ended
			r.mu.Unlock()
			return d, nil
		}
		switch {
		case len(p.Chunks) > 0:
			d := streams.Delivery{From: r.next, Chunks: p.Chunks}
			r.next = p.Next
			r.mu.Unlock()
			return d, nil
		case !p.Found || p.Done:
			r.ended = &streams.Delivery{End: true}
			r.mu.Unlock()
			return *r.ended, nil
		}
		r.mu.Unlock()
		select {
		case <-time.After(wait):
		case <-r.stop:
		case <-ctx.Done():
			return streams.Delivery{}, ctx.Err()
		}
		wait = min(wait*2, 20*time.Millisecond)
	}
}

func (r *pgLive) Abort(context.Context) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended != nil {
		return false, nil
	}
	r.ended = &streams.Delivery{End: true, Aborted: true}
	close(r.stop)
	return true, nil
}
