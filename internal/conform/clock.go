package conform

import (
	"context"
	"time"
)

// Clock is a store's own time, which the cases move forward instead of
// waiting: a TTL of a second is checked by advancing the clock two. The
// memory reference injects one per subject; over the bridge it is the
// "clock" capability (clock.advance). Advance with zero reads the time.
type Clock interface {
	// Advance moves the store's time forward by d (d >= 0) and returns
	// the store's new now.
	Advance(ctx context.Context, d time.Duration) (time.Time, error)
}
