package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bsadapter/bsadapter/internal/watch"
)

// --watch of check-fixtures and conform --store=bridge: the files of the
// adapter are watched, and every change starts a round. A round re-runs
// what the change affects (the changed fixture files alone; everything
// after a change to code or to bsadapter.json, on a restarted bridge),
// and the screen shows the last round's result with the time it took.
// One bridge process serves the rounds until code changes; a bridge that
// does not start is a failed round, and the next change tries again.

// changeKind is what a changed file is to a watch session.
type changeKind int

const (
	changeIgnored changeKind = iota
	// changeFixture: a fixture file (or its snapshot); re-run that file.
	changeFixture
	// changeFixtures: something under a fixture folder that is not one
	// file (a folder made or removed); re-run every fixture.
	changeFixtures
	// changeCode: anything else of the adapter's; restart the bridge and
	// re-run everything.
	changeCode
	// changeConfig: bsadapter.json; read it again, then as changeCode.
	changeConfig
)

// roundPlan is what one round does.
type roundPlan struct {
	// why says what started the round, for the screen.
	why string
	// restart: start the bridge afresh (code changed).
	restart bool
	// reload: read bsadapter.json again.
	reload bool
	// all: run everything; else files, or failures.
	all bool
	// files are the fixture files to run (absolute).
	files []string
	// failures: run what failed in the last rounds.
	failures bool
}

// roundResult is what one round gave.
type roundResult struct {
	n    int
	why  string
	took time.Duration
	ok   bool
	// summary is one line: what ran and how it ended.
	summary string
	// bridge says what became of the bridge ("started", "kept", ...).
	bridge string
	// text is the report, or the error that stopped the round.
	text string
	// noop says the round found nothing to do (no failures to re-run):
	// the screen keeps the last result, with summary as a note.
	noop bool
}

// watchTarget is the command a watch session re-runs.
type watchTarget interface {
	// name is the command line the screen shows.
	name() string
	// roots are the folders and files to watch.
	roots() []string
	// kind says what a changed path is.
	kind(path string) changeKind
	// round runs one round. It reports every fault in the result; an
	// error is only the end of the session (ctx done).
	round(ctx context.Context, p roundPlan) roundResult
	// close stops the bridge.
	close()
}

// watchKey is a key pressed on the terminal.
type watchKey int

const (
	keyAll watchKey = iota
	keyFailures
)

// watchUI shows the rounds: the live screen on a terminal, plain lines
// elsewhere.
type watchUI interface {
	started(n int, why string)
	done(r roundResult)
	// idle ends a round that had nothing to do, msg saying so; the last
	// result stays.
	idle(msg string)
	note(msg string)
	keys() <-chan watchKey
	close()
}

// runWatch runs rounds until ctx is done or the quit key is pressed.
func runWatch(ctx context.Context, app *App, t watchTarget) error {
	parent := ctx
	ctx, quit := context.WithCancel(ctx)
	defer quit()
	defer t.close()
	roots := t.roots()
	w, err := watch.New(watch.Options{Roots: roots})
	if err != nil {
		return envErr(err, "--watch watches the adapter's folder, its fixtures and bsadapter.json: each must exist and be readable")
	}
	defer func() { w.Close() }()
	var ui watchUI
	if watchScreen(app) {
		ui, err = newScreenUI(app, t.name(), quit)
		if err != nil {
			return envErr(err, "run without a terminal (pipe the output) for plain lines")
		}
	} else {
		ui = newPlainUI(app, t.name())
	}
	defer ui.close()

	plan := roundPlan{why: "first run", restart: true, all: true}
	for n := 1; ; n++ {
		ui.started(n, plan.why)
		start := time.Now()
		res := t.round(ctx, plan)
		if ctx.Err() != nil {
			break
		}
		res.n, res.why, res.took = n, plan.why, time.Since(start)
		if res.noop {
			ui.idle(res.summary)
			n--
		} else {
			ui.done(res)
		}
		if plan.reload {
			// bsadapter.json may name other fixture folders now.
			if now := t.roots(); !slices.Equal(now, roots) {
				if nw, err := watch.New(watch.Options{Roots: now}); err != nil {
					ui.note("cannot watch the folders bsadapter.json names now: " + err.Error())
				} else {
					w.Close()
					w, roots = nw, now
				}
			}
		}
		if plan = nextPlan(ctx, t, w, ui); ctx.Err() != nil {
			break
		}
	}
	if err := parent.Err(); err != nil {
		return err
	}
	// Quit by key.
	return nil
}

// nextPlan waits for a change that matters, or a key, and says what the
// next round does.
func nextPlan(ctx context.Context, t watchTarget, w *watch.Watcher, ui watchUI) roundPlan {
	for {
		select {
		case <-ctx.Done():
			return roundPlan{}
		case k := <-ui.keys():
			if k == keyFailures {
				return roundPlan{why: "re-run of the failures (key f)", failures: true}
			}
			return roundPlan{why: "re-run of everything (key a)", all: true}
		case err := <-w.Errors():
			ui.note(err.Error())
		case b := <-w.Batches():
			if p, ok := planFor(t, b); ok {
				return p
			}
		}
	}
}

// planFor turns a batch of changes into a round's plan; false when no
// change matters.
func planFor(t watchTarget, b watch.Batch) (roundPlan, bool) {
	var p roundPlan
	var code, fixtures []string
	for _, path := range b.Paths {
		switch t.kind(path) {
		case changeConfig:
			p.reload, p.restart, p.all = true, true, true
			code = append(code, path)
		case changeCode:
			p.restart, p.all = true, true
			code = append(code, path)
		case changeFixtures:
			p.all = true
			fixtures = append(fixtures, path)
		case changeFixture:
			p.files = append(p.files, path)
			fixtures = append(fixtures, path)
		}
	}
	if b.Overflow {
		p.restart, p.all = true, true
		code = append(code, "(too many changes to tell apart)")
	}
	if len(code) == 0 && len(fixtures) == 0 {
		return p, false
	}
	if p.all {
		p.files = nil
	}
	switch {
	case len(code) > 0:
		p.why = changedText(t, code) + " changed: bridge restarted, everything re-run"
	default:
		p.why = changedText(t, fixtures) + " changed"
	}
	return p, true
}

// changedText names up to three changed paths, relative to the first
// watched root: those still there, when some are (an editor's save by
// rename leaves a temporary file's name behind).
func changedText(t watchTarget, paths []string) string {
	roots := t.roots()
	var there []string
	for _, p := range paths {
		if _, err := os.Lstat(p); err == nil {
			there = append(there, p)
		}
	}
	if len(there) > 0 {
		paths = there
	}
	var names []string
	for _, p := range paths {
		if len(roots) > 0 {
			if rel, err := filepath.Rel(roots[0], p); err == nil && !strings.HasPrefix(rel, "..") {
				p = filepath.ToSlash(rel)
			}
		}
		names = append(names, p)
	}
	if len(names) > 3 {
		return strings.Join(names[:3], ", ") + fmt.Sprintf(" and %d more", len(names)-3)
	}
	return strings.Join(names, ", ")
}

// retirer stops what a round no longer uses (an old bridge) in the
// background: its shutdown, up to a few seconds' grace, need not delay
// the next bridge's start. wait returns when every one is gone.
type retirer struct{ wg sync.WaitGroup }

func (r *retirer) retire(close func()) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		close()
	}()
}

func (r *retirer) wait() { r.wg.Wait() }

// failedRound is a round that could not check anything: its first line
// as the summary, the whole error as Main would print it.
func failedRound(st Style, bridgeState string, err error) roundResult {
	msg := err.Error()
	var ee *ExitError
	if errors.As(err, &ee) && ee.Err != nil {
		msg = ee.Err.Error()
	}
	first, _, _ := strings.Cut(msg, "\n")
	return roundResult{summary: first, bridge: bridgeState, text: errorText(st, err)}
}

// errorText is an error as Main would print it, for a failed round.
func errorText(st Style, err error) string {
	var b strings.Builder
	hint := ""
	var ee *ExitError
	if errors.As(err, &ee) {
		hint = ee.Hint
		if ee.Err != nil {
			err = ee.Err
		}
	}
	printError(&b, st, err, hint)
	return b.String()
}

// watchRoots drops the roots that lie within another root, keeping the
// order.
func watchRoots(paths []string) []string {
	var out []string
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		if slices.Contains(out, abs) {
			continue
		}
		out = append(out, abs)
	}
	var kept []string
	for _, p := range out {
		inside := false
		for _, q := range out {
			if q != p && strings.HasPrefix(p, q+string(filepath.Separator)) {
				inside = true
			}
		}
		if !inside {
			kept = append(kept, p)
		}
	}
	return kept
}

// within says whether p is root or lies below it.
func within(p, root string) bool {
	return p == root || strings.HasPrefix(p, root+string(filepath.Separator))
}
