package bridgestore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/conform/suites/streams"
)

// reads routes a version 2 bridge's live-read notifications to the reads
// they belong to, by the handle bsadapter gave each in readLive.
type reads struct {
	mu   sync.Mutex
	byID map[string]*liveRead
	n    atomic.Int64
}

func newReads(c *bridge.Client) *reads {
	r := &reads{byID: map[string]*liveRead{}}
	c.OnNotification(bridge.NotifyReadChunks, r.onChunks)
	c.OnNotification(bridge.NotifyReadEnd, r.onEnd)
	return r
}

func (r *reads) get(handle string) (*liveRead, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	l, ok := r.byID[handle]
	if !ok {
		return nil, fmt.Errorf("no live read has the handle %q", handle)
	}
	return l, nil
}

func (r *reads) onChunks(params json.RawMessage) error {
	var p struct {
		Handle  string   `json:"handle"`
		FromIdx *int     `json:"fromIdx"`
		Chunks  []string `json:"chunks"`
	}
	if err := json.Unmarshal(params, &p); err != nil || p.FromIdx == nil || len(p.Chunks) == 0 {
		return errors.New(`its params are not {"handle": string, "fromIdx": int, "chunks": [at least one string]}`)
	}
	l, err := r.get(p.Handle)
	if err != nil {
		return err
	}
	l.push(streams.Delivery{From: *p.FromIdx, Chunks: p.Chunks})
	return nil
}

func (r *reads) onEnd(params json.RawMessage) error {
	var p struct {
		Handle  string `json:"handle"`
		Aborted bool   `json:"aborted"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return errors.New(`its params are not {"handle": string, "aborted"?: bool}`)
	}
	l, err := r.get(p.Handle)
	if err != nil {
		return err
	}
	l.push(streams.Delivery{End: true, Aborted: p.Aborted})
	return nil
}

// liveRead is one read's deliveries, queued as they arrive (a
// notification handler must not block).
type liveRead struct {
	b      bridgeStreams
	handle string

	mu      sync.Mutex
	queue   []streams.Delivery
	ended   *streams.Delivery
	late    string // what the bridge delivered after the end
	arrived chan struct{}
}

func (l *liveRead) push(d streams.Delivery) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.ended != nil && l.late == "":
		if d.End {
			l.late = "a second end"
		} else {
			l.late = fmt.Sprintf("the chunks %q from index %d", d.Chunks, d.From)
		}
	case l.ended == nil:
		l.queue = append(l.queue, d)
		if d.End {
			l.ended = &d
		}
	}
	close(l.arrived)
	l.arrived = make(chan struct{})
}

// Next returns the next delivery; after the end it returns the end, or an
// error when the bridge delivered anything for the read after it.
func (l *liveRead) Next(ctx context.Context) (streams.Delivery, error) {
	for {
		l.mu.Lock()
		if l.late != "" && (len(l.queue) == 0 || l.queue[0].End) {
			late := l.late
			l.mu.Unlock()
			return streams.Delivery{}, fmt.Errorf("the bridge sent %s for read %s after its end", late, l.handle)
		}
		if len(l.queue) > 0 {
			d := l.queue[0]
			l.queue = l.queue[1:]
			if !d.End || len(l.queue) > 0 {
				l.mu.Unlock()
				return d, nil
			}
			// Keep the end for later calls.
			l.queue = append(l.queue, d)
			l.mu.Unlock()
			return d, nil
		}
		ch := l.arrived
		l.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return streams.Delivery{}, fmt.Errorf("no delivery for read %s: %w", l.handle, ctx.Err())
		}
	}
}

// Abort is streamStore.abortRead. The bridge sends the read's end before
// it answers true.
func (l *liveRead) Abort(ctx context.Context) (bool, error) {
	var res struct {
		Aborted bool `json:"aborted"`
	}
	if err := l.b.b.call(ctx, bridge.MethodStreamAbortRead, map[string]any{"handle": l.handle}, &res); err != nil {
		return false, err
	}
	if res.Aborted {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.ended == nil {
			return true, fmt.Errorf("the bridge answered %s true before it sent the read's %s", bridge.MethodStreamAbortRead, bridge.NotifyReadEnd)
		}
	}
	return res.Aborted, nil
}

// ReadLive is streamStore.readLive: it returns once the bridge answered,
// when the read is live.
func (b bridgeStreams) ReadLive(ctx context.Context, id string, from int) (streams.LiveRead, error) {
	rs := b.b.reads
	if rs == nil {
		return nil, fmt.Errorf("the bridge does not declare capability %s", bridge.CapStreamLiveRead)
	}
	l := &liveRead{b: b, handle: fmt.Sprintf("read-%d", rs.n.Add(1)), arrived: make(chan struct{})}
	// Known before the request goes out: chunks may come before the
	// answer.
	rs.mu.Lock()
	rs.byID[l.handle] = l
	rs.mu.Unlock()
	var res json.RawMessage
	if err := b.b.call(ctx, bridge.MethodStreamReadLive, b.params(map[string]any{"id": id, "fromIdx": from, "handle": l.handle}), &res); err != nil {
		return nil, err
	}
	return l, nil
}
