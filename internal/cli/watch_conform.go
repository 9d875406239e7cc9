package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/config"
	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/bridgestore"
)

// validateWatch holds the flag rules of conform --watch.
func (o *conformOptions) validateWatch() error {
	if !o.watch {
		return nil
	}
	if o.store != "bridge" {
		return usageErr("add --store=bridge (or --bridge 'CMD') to watch the adapter", "--watch re-runs the adapter's own bridge when its code changes; --store %s has no code of yours to watch", o.store)
	}
	if o.list || o.bench {
		return usageErr("drop --watch", "--watch cannot be used with --list or --bench")
	}
	if o.format != "text" {
		return usageErr("drop --watch to write a --format "+o.format+" report once", "--watch shows each round's result on the screen; it cannot write --format %s", o.format)
	}
	return nil
}

// conformWatch is conform --store=bridge as a watch target: one bridge
// (its store) across rounds, restarted when the adapter's code changes.
type conformWatch struct {
	o       *conformOptions
	wd      string
	cfg     *config.Config
	cfgPath string

	store    *bridgestore.Store
	stopping retirer
	// pendingRestart: an earlier round could not start the bridge.
	pendingRestart bool
	// failing are the cases that failed in the last round that ran them
	// all, less those that passed since.
	failing map[string]bool
}

func runConformWatch(ctx context.Context, o *conformOptions) error {
	ws, err := o.app.Workspace("fix bsadapter.json, or pass --bridge 'CMD'")
	if err != nil {
		return err
	}
	if o.bridge.resolve(ws) == nil {
		return usageErr("pass --bridge 'CMD', or run inside an adapter whose bsadapter.json has bridge.command", "--store bridge needs a bridge command")
	}
	t := &conformWatch{o: o, wd: ws.dir, cfg: ws.cfg, failing: map[string]bool{}}
	t.cfgPath = filepath.Join(ws.dir, config.FileName)
	if ws.cfg != nil {
		t.cfgPath = ws.cfg.Path
	}
	return runWatch(ctx, o.app, t)
}

func (t *conformWatch) name() string { return "bsadapter conform --store=bridge" }

func (t *conformWatch) roots() []string {
	roots := []string{t.wd}
	if t.cfg != nil && !t.o.bridge.set {
		roots = []string{t.cfg.Dir}
	}
	if _, err := os.Stat(t.cfgPath); err == nil {
		roots = append(roots, t.cfgPath)
	}
	return watchRoots(roots)
}

// kind: bsadapter.json is read again; every other file of the adapter
// may be code the bridge runs.
func (t *conformWatch) kind(p string) changeKind {
	if p == t.cfgPath {
		return changeConfig
	}
	return changeCode
}

func (t *conformWatch) retire() {
	if st := t.store; st != nil {
		t.store = nil
		t.stopping.retire(func() { st.Close() })
	}
}

func (t *conformWatch) close() {
	t.retire()
	t.stopping.wait()
}

func (t *conformWatch) fail(p roundPlan, state string, err error) roundResult {
	t.pendingRestart = t.pendingRestart || p.restart
	return failedRound(t.o.app.Style, state, err)
}

func (t *conformWatch) round(ctx context.Context, p roundPlan) roundResult {
	o := t.o
	p.restart = p.restart || t.pendingRestart || t.store == nil
	if p.reload {
		cfg, err := config.Find(t.wd)
		if err != nil {
			return t.fail(p, "", envErr(err, "fix "+config.FileName+"; the next save starts a new round"))
		}
		t.cfg = cfg
	}
	state := "kept"
	if p.restart {
		t.retire()
		bc := o.bridge.resolve(workspace{dir: t.wd, cfg: t.cfg})
		if bc == nil {
			return t.fail(p, "", usageErr("put bridge.command back in bsadapter.json", "bsadapter.json names no bridge now"))
		}
		var opts []bridgestore.Option
		if o.realTTLs {
			opts = append(opts, bridgestore.RealTTLs())
		}
		st, err := bridgestore.New(ctx, bc.options(), opts...)
		if err != nil {
			if !errors.As(err, new(*bridge.StartError)) {
				err = fmt.Errorf("the bridge %s answered initialize, then failed: %w", bc.commandLine(), err)
			}
			return t.fail(p, "did not start", bc.startErr(ctx, err))
		}
		t.store, t.pendingRestart, state = st, false, "started"
	}
	cases := o.cases
	if p.failures {
		cases = slices.DeleteFunc(slices.Clone(cases), func(c conform.Case) bool { return !t.failing[c.ID] })
		if len(cases) == 0 {
			return roundResult{noop: true, summary: "no case failed in the last rounds: nothing to re-run"}
		}
	}
	if err := runnable(ctx, t.store, cases); err != nil {
		return t.fail(p, state, err)
	}
	var leftOut []conform.LeftOut
	if len(o.suites) == 0 && !p.failures {
		cases, leftOut = conform.Implemented(t.store, cases)
	}
	cases, notApplicable := conform.Applicable(t.store, cases)
	rep := conform.Run(ctx, t.store, cases, o.sel)
	rep.LeftOut, rep.NotApplicable = leftOut, notApplicable
	if !p.failures {
		clear(t.failing)
	}
	for _, r := range rep.Results {
		t.failing[r.ID] = r.Outcome == conform.Fail || r.Outcome == conform.NotRun
	}
	var b strings.Builder
	if err := writeText(&b, o.app.Style, rep, o.verbose); err != nil {
		return t.fail(p, state, err)
	}
	ok := rep.Count(conform.Fail) == 0 && rep.Count(conform.NotRun) == 0
	if f := t.store.Fatal(); f != nil {
		fmt.Fprintf(&b, "\n%s\n", errorText(o.app.Style, envErr(fmt.Errorf("the bridge stopped working during the round, so the cases after it could not run: %w", f), "the next save starts it again")))
		t.retire()
		t.pendingRestart, ok, state = true, false, "stopped working"
	}
	return roundResult{ok: ok, summary: conform.Summary(rep), bridge: state, text: b.String()}
}
