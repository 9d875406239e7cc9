package memstore

import (
	"context"
	"sync"

	"github.com/bsadapter/bsadapter/internal/conform"
)

// memSignal is one AbortSignal of the reference harness, with what its
// held calls wait for.
type memSignal struct {
	aborted, held, released chan struct{}
	abort, hold, release    sync.Once
}

// isAborted reports whether s (nil for no signal) has aborted.
func (s *memSignal) isAborted() bool {
	if s == nil {
		return false
	}
	select {
	case <-s.aborted:
		return true
	default:
		return false
	}
}

// memSignals is the reference harness's AbortControllers by id, which the
// Embedder and AiTaskRunner references share with the cases.
type memSignals struct {
	mu sync.Mutex
	m  map[string]*memSignal
}

// get returns the signal id, made on first use.
func (g *memSignals) get(id string) *memSignal {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.m == nil {
		g.m = map[string]*memSignal{}
	}
	s, ok := g.m[id]
	if !ok {
		s = &memSignal{aborted: make(chan struct{}), held: make(chan struct{}), released: make(chan struct{})}
		g.m[id] = s
	}
	return s
}

// Abort aborts the signal id.
func (g *memSignals) Abort(_ context.Context, id string) error {
	s := g.get(id)
	s.abort.Do(func() { close(s.aborted) })
	return nil
}

// Held returns once a held call on id has reached its held part.
func (g *memSignals) Held(ctx context.Context, id string) error {
	select {
	case <-g.get(id).held:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Release lets the held parts of the calls on id answer.
func (g *memSignals) Release(_ context.Context, id string) error {
	s := g.get(id)
	s.release.Do(func() { close(s.released) })
	return nil
}

// abortError is the rejection of a call whose signal aborted.
func abortError() error {
	return &conform.Rejection{Name: conform.AbortErrorName, Message: "This operation was aborted"}
}

// hold is the held part of a call the harness made with hold on the
// signal id: it says it is held, then waits until the signal it was
// handed (nil for none) aborts, which rejects with an AbortError, or id
// is released, which lets it answer.
func (g *memSignals) hold(ctx context.Context, id string, handed *memSignal) error {
	s := g.get(id)
	s.hold.Do(func() { close(s.held) })
	var aborted <-chan struct{}
	if handed != nil {
		aborted = handed.aborted
	}
	select {
	case <-aborted:
		return abortError()
	case <-s.released:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
