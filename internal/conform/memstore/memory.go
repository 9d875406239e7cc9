// Package memstore is the in-process reference implementation of the
// contracts internal/conform checks: the StreamStore, the run registry and
// chat storage, exactly as contracts.md describes them. Every case of every
// suite passes against it, which is what proves the suites; it is also the
// instant store when no database is wanted (conform --store memory).
package memstore

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform"
)

// memoryStore is the in-process reference implementation of the three
// contracts. Every subject gets state of its own, so cases never meet.
type memoryStore struct {
	n atomic.Int64
}

// New returns the in-process reference store. It proves the
// suites themselves (every case passes against it) and is the instant
// option when no database is wanted.
func New() conform.Store { return &memoryStore{} }

func (m *memoryStore) Name() string          { return "memory" }
func (m *memoryStore) Supports(string) error { return nil }
func (m *memoryStore) Close() error          { return nil }

// prefix returns a new prefix for a case's ids.
func (m *memoryStore) prefix() string { return fmt.Sprintf("mem%d", m.n.Add(1)) }

func (m *memoryStore) NewSubject(_ context.Context, c *conform.Case) (*conform.Subject, func(), error) {
	s := &conform.Subject{Prefix: m.prefix()}
	streams := newStreams()
	switch c.Suite {
	case conform.SuiteStreams:
		s.Streams = streams
	case conform.SuiteChat:
		s.Chat = newMemoryChat(streams)
	}
	return s, func() {}, nil
}

// refStreams is the reference StreamStore: it implements StreamStore,
// StreamPager, StreamCallers and StreamAger exactly as the contract says.
type refStreams struct {
	mu      sync.Mutex
	streams map[string]*memStream
}

type memStream struct {
	owner, tenant, kind string
	createdAt           time.Time
	expiresAt           time.Time
	closedAt            *time.Time
	cancelledAt         *time.Time
	chunks              []string
	// changed is closed (and replaced) on every change, waking live reads.
	changed chan struct{}
}

// newStreams returns an empty reference StreamStore.
func newStreams() *refStreams { return &refStreams{streams: map[string]*memStream{}} }

// APIVersion is the TS interface's apiVersion.
func (m *refStreams) APIVersion() int { return 1 }

// StoreName is the TS interface's name.
func (m *refStreams) StoreName() string { return "memory" }

func (st *memStream) touch() {
	close(st.changed)
	st.changed = make(chan struct{})
}

// Open creates a stream unless the id exists.
func (m *refStreams) Open(_ context.Context, id string, o conform.OpenOptions) (bool, error) {
	if len(id) < 1 || len(id) > 200 {
		return false, &conform.StoreError{Message: "stream id must have 1 to 200 characters", SQLState: "23514"}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.streams[id]; ok {
		return false, nil
	}
	ttl := o.TTL
	if ttl <= 0 {
		ttl = 24 * time.Hour
	}
	kind := o.Kind
	if kind == "" {
		kind = "default"
	}
	now := time.Now()
	m.streams[id] = &memStream{owner: o.Owner, tenant: o.Tenant, kind: kind, createdAt: now, expiresAt: now.Add(ttl), changed: make(chan struct{})}
	return true, nil
}

// Append stores chunks from index from; indexes already stored are kept.
func (m *refStreams) Append(_ context.Context, id string, from int, chunks []string) (conform.AppendResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st, ok := m.streams[id]
	if !ok {
		return conform.AppendResult{}, &conform.StoreError{Hint: conform.HintStreamNotFound, SQLState: "P0002", Message: "stream " + id + " not found"}
	}
	if st.closedAt != nil {
		return conform.AppendResult{}, &conform.StoreError{Hint: conform.HintStreamClosed, SQLState: "P0001", Message: "stream " + id + " is closed"}
	}
	if from < 0 || from > len(st.chunks) {
		return conform.AppendResult{}, &conform.StoreError{Hint: conform.HintStreamGap, SQLState: "P0001", Message: fmt.Sprintf("append at %d but next is %d", from, len(st.chunks))}
	}
	if end := from + len(chunks); end > len(st.chunks) {
		st.chunks = append(st.chunks, chunks[len(st.chunks)-from:]...)
		st.touch()
	}
	return conform.AppendResult{Next: len(st.chunks), Cancelled: st.cancelledAt != nil}, nil
}

// ReadAll waits until the stream is closed and returns its chunks from
// from; a missing stream reads empty at once.
func (m *refStreams) ReadAll(ctx context.Context, id string, from int) ([]string, error) {
	from = max(from, 0)
	for {
		m.mu.Lock()
		st, ok := m.streams[id]
		if !ok {
			m.mu.Unlock()
			return []string{}, nil
		}
		if st.closedAt != nil {
			out := []string{}
			if from < len(st.chunks) {
				out = append(out, st.chunks[from:]...)
			}
			m.mu.Unlock()
			return out, nil
		}
		wake := st.changed
		m.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return nil, &conform.StoreError{Hint: conform.HintReadTimeout, Message: "the stream was not closed: " + ctx.Err().Error()}
		}
	}
}

// ReadPage is the bounded read of stream_read, as the service role.
func (m *refStreams) ReadPage(ctx context.Context, id string, from, limit int) (conform.Page, error) {
	return m.readPage(conform.Caller{}, id, from, limit), nil
}

func (m *refStreams) visible(c conform.Caller, st *memStream) bool {
	switch c.Role {
	case "", conform.RoleService:
		return true
	case conform.RoleAuthenticated:
		return st.owner != "" && st.owner == c.Sub
	}
	return false
}

func (m *refStreams) readPage(c conform.Caller, id string, from, limit int) conform.Page {
	m.mu.Lock()
	defer m.mu.Unlock()
	st, ok := m.streams[id]
	if !ok || !m.visible(c, st) {
		return conform.Page{Chunks: []string{}, Next: max(from, 0), Done: true}
	}
	from = max(from, 0)
	limit = min(max(limit, 0), 10000)
	out := []string{}
	if from < len(st.chunks) {
		out = append(out, st.chunks[from:min(len(st.chunks), from+limit)]...)
	}
	next := from + len(out)
	return conform.Page{Found: true, Chunks: out, Next: next, Done: st.closedAt != nil && next >= len(st.chunks), Cancelled: st.cancelledAt != nil}
}

// Status reports a stream's state, nil when missing.
func (m *refStreams) Status(_ context.Context, id string) (*conform.StreamStatus, error) {
	return m.status(conform.Caller{}, id), nil
}

func (m *refStreams) status(c conform.Caller, id string) *conform.StreamStatus {
	m.mu.Lock()
	defer m.mu.Unlock()
	st, ok := m.streams[id]
	if !ok || !m.visible(c, st) {
		return nil
	}
	return &conform.StreamStatus{Next: len(st.chunks), Closed: st.closedAt != nil, Cancelled: st.cancelledAt != nil}
}

// IsCancelled reports the cancel flag, false for a missing stream.
func (m *refStreams) IsCancelled(ctx context.Context, id string) (bool, error) {
	s := m.status(conform.Caller{}, id)
	return s != nil && s.Cancelled, nil
}

// Close closes an open stream.
func (m *refStreams) Close(_ context.Context, id string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st, ok := m.streams[id]
	if !ok || st.closedAt != nil {
		return false, nil
	}
	now := time.Now()
	st.closedAt = &now
	st.touch()
	return true, nil
}

// Cancel sets the cancel flag of an open, uncancelled stream.
func (m *refStreams) Cancel(_ context.Context, id string) (bool, error) {
	return m.cancel(conform.Caller{}, id), nil
}

func (m *refStreams) cancel(c conform.Caller, id string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	st, ok := m.streams[id]
	if !ok || st.closedAt != nil || st.cancelledAt != nil || !m.visible(c, st) {
		return false
	}
	now := time.Now()
	st.cancelledAt = &now
	st.touch()
	return true
}

// Purge deletes streams that expired or were closed longer ago than
// olderThan (zero: one day).
func (m *refStreams) Purge(_ context.Context, olderThan time.Duration) (int, error) {
	if olderThan <= 0 {
		olderThan = 24 * time.Hour
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	n := 0
	for id, st := range m.streams {
		if st.expiresAt.Before(now) || (st.closedAt != nil && st.closedAt.Before(now.Add(-olderThan))) {
			delete(m.streams, id)
			st.touch()
			n++
			if n == 1000 {
				break
			}
		}
	}
	return n, nil
}

// AgeStream moves every timestamp of stream id back by d.
func (m *refStreams) AgeStream(_ context.Context, id string, d time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	st, ok := m.streams[id]
	if !ok {
		return fmt.Errorf("no stream %s to age", id)
	}
	st.createdAt = st.createdAt.Add(-d)
	st.expiresAt = st.expiresAt.Add(-d)
	for _, t := range []*time.Time{st.closedAt, st.cancelledAt} {
		if t != nil {
			*t = t.Add(-d)
		}
	}
	return nil
}

// As returns what caller c may do with the streams.
func (m *refStreams) As(c conform.Caller) conform.StreamView { return memView{m, c} }

type memView struct {
	m *refStreams
	c conform.Caller
}

// errAnonRefused is what upstream answers anon on any stream function.
var errAnonRefused = &conform.StoreError{Hint: conform.HintPermissionDenied, SQLState: "42501", Message: "anon may not call the stream functions"}

func (v memView) ReadAll(ctx context.Context, id string, from int) ([]string, error) {
	if v.c.Role == conform.RoleAnon {
		return nil, errAnonRefused
	}
	if v.m.status(v.c, id) == nil {
		return []string{}, nil
	}
	return v.m.ReadAll(ctx, id, from)
}

func (v memView) Status(_ context.Context, id string) (*conform.StreamStatus, error) {
	if v.c.Role == conform.RoleAnon {
		return nil, errAnonRefused
	}
	return v.m.status(v.c, id), nil
}

func (v memView) Cancel(_ context.Context, id string) (bool, error) {
	if v.c.Role == conform.RoleAnon {
		return false, errAnonRefused
	}
	return v.m.cancel(v.c, id), nil
}

func (v memView) Append(ctx context.Context, id string, from int, chunks []string) (conform.AppendResult, error) {
	if v.c.Role != "" && v.c.Role != conform.RoleService {
		return conform.AppendResult{}, &conform.StoreError{Hint: conform.HintPermissionDenied, SQLState: "42501", Message: "only the service role may append"}
	}
	return v.m.Append(ctx, id, from, chunks)
}

// StatusDetails is Status with the kind and the expiry.
func (m *refStreams) StatusDetails(_ context.Context, id string) (*conform.StreamDetails, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st, ok := m.streams[id]
	if !ok {
		return nil, nil
	}
	return &conform.StreamDetails{
		StreamStatus: conform.StreamStatus{Next: len(st.chunks), Closed: st.closedAt != nil, Cancelled: st.cancelledAt != nil},
		Kind:         st.kind, ExpiresAt: st.expiresAt,
	}, nil
}

// ReadLive starts a live read that delivers chunks as they are stored.
func (m *refStreams) ReadLive(_ context.Context, id string, from int) (conform.LiveRead, error) {
	return &memLive{m: m, id: id, next: max(from, 0), stop: make(chan struct{})}, nil
}

// memLive is a live read of the reference store. Its deliveries are
// computed when asked for, from the stream's state, so nothing is missed
// between two calls of Next.
type memLive struct {
	m       *refStreams
	id      string
	next    int
	mu      sync.Mutex
	ended   *conform.Delivery
	stop    chan struct{}
	stopped bool
}

func (r *memLive) Next(ctx context.Context) (conform.Delivery, error) {
	for {
		r.mu.Lock()
		if r.ended != nil {
			d := *r.ended
			r.mu.Unlock()
			return d, nil
		}
		r.mu.Unlock()
		r.m.mu.Lock()
		st, ok := r.m.streams[r.id]
		var wake chan struct{}
		var d *conform.Delivery
		switch {
		case !ok:
			d = &conform.Delivery{End: true}
		case r.next < len(st.chunks):
			d = &conform.Delivery{From: r.next, Chunks: append([]string(nil), st.chunks[r.next:]...)}
		case st.closedAt != nil:
			d = &conform.Delivery{End: true}
		default:
			wake = st.changed
		}
		r.m.mu.Unlock()
		if d != nil {
			r.mu.Lock()
			defer r.mu.Unlock()
			if r.ended != nil {
				return *r.ended, nil
			}
			if d.End {
				r.ended = d
			} else {
				r.next += len(d.Chunks)
			}
			return *d, nil
		}
		select {
		case <-wake:
		case <-r.stop:
		case <-ctx.Done():
			return conform.Delivery{}, ctx.Err()
		}
	}
}

func (r *memLive) Abort(context.Context) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended != nil {
		return false, nil
	}
	r.ended = &conform.Delivery{End: true, Aborted: true}
	if !r.stopped {
		r.stopped = true
		close(r.stop)
	}
	return true, nil
}
