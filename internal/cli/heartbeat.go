package cli

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// heartbeatEvery is how often a long run off a terminal says it is still
// working. A CI log that shows nothing for half a minute looks hung.
var heartbeatEvery = 5 * time.Second

// heartbeatTicks returns the ticks a heartbeat writes a line on, and the
// function that stops them. Tests replace it with ticks of their own.
var heartbeatTicks = func(every time.Duration) (<-chan time.Time, func()) {
	t := time.NewTicker(every)
	return t.C, t.Stop
}

// syncWriter serialises whole writes, so that progress lines from several
// goroutines never interleave.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// heartbeat prints "<name>: <status()>, <elapsed>" to w every
// heartbeatEvery until stop is called. It prints nothing when stderr is a
// terminal (the live view or the results say enough there) and nothing for
// a run shorter than one interval. stop waits for a line being written.
func heartbeat(app *App, w io.Writer, name string, status func() string) (stop func()) {
	if app.ErrTTY {
		return func() {}
	}
	start := time.Now()
	done := make(chan struct{})
	finished := make(chan struct{})
	ticks, stopTicks := heartbeatTicks(heartbeatEvery)
	beat := func() { fmt.Fprintf(w, "%s: %s, %s so far\n", name, status(), time.Since(start).Round(time.Second)) }
	go func() {
		defer close(finished)
		defer stopTicks()
		for {
			// A tick that is due is written even when stop came too.
			select {
			case <-ticks:
				beat()
				continue
			default:
			}
			select {
			case <-done:
				return
			case <-ticks:
				beat()
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done); <-finished }) }
}
