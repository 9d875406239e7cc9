package bridgestore

import (
	"context"

	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/streams"
)

// Streams drives the bridge's streamStore methods. Every optional
// interface of the suite is there; the runner skips the cases whose
// capability the bridge lacks before they call one (Missing). The bridge
// cannot age rows: with capability clock, the TTL cases move its clock,
// only in whole-store steps (the runner's gate); without it, they wait.
func (b *Store) Streams(context.Context) (conform.Opener[streams.Subject], error) {
	open, err := group(b, bridge.GroupStreamStore, streams.Subject{Store: bridgeCallerStreams{bridgeStreams{b, nil}}})
	if err != nil || !b.movesClock(bridge.GroupStreamStore) {
		return open, err
	}
	return func(t *conform.T) (streams.Subject, error) {
		t.SetClock(bridgeClock{b})
		return open(t)
	}, nil
}
