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
	"github.com/bsadapter/bsadapter/internal/fixtures"
	"github.com/bsadapter/bsadapter/internal/report"
)

// validateWatch holds the flag rules of check-fixtures --watch.
func (o *checkFixturesOptions) validateWatch() error {
	if !o.watch {
		return nil
	}
	if o.format != "text" {
		return usageErr("drop --watch to write a --format "+o.format+" report once", "--watch shows each round's result on the screen; it cannot write --format %s", o.format)
	}
	if o.update {
		return usageErr("run 'bsadapter check-fixtures --update' once, then --watch", "--watch re-runs on every change, and --update would write snapshots on each")
	}
	if o.generate > 0 {
		return usageErr("drop --watch, or drop --generate to watch the fixtures", "--watch re-runs the fixtures; --generate reads none")
	}
	return nil
}

// fixturesWatch is check-fixtures as a watch target: one bridge process
// across rounds, restarted when code changes, and the last outcome of
// each fixture file, for the re-run of the failures.
type fixturesWatch struct {
	o  *checkFixturesOptions
	wd string
	// cfg is bsadapter.json as last read (nil when there is none).
	cfg *config.Config
	// cfgPath is where bsadapter.json is, or would be found.
	cfgPath string

	client *bridge.Client
	// stopping counts the bridges being stopped in the background.
	stopping retirer
	// pendingRestart and pendingAll are what an earlier round was asked
	// for and could not do (the bridge did not start, bsadapter.json was
	// broken): the next round does them.
	pendingRestart, pendingAll bool
	// failing maps each fixture file run so far (as the report names
	// it) to whether it failed when it last ran.
	failing map[string]bool
}

func runCheckFixturesWatch(ctx context.Context, o *checkFixturesOptions) error {
	ws, err := o.app.Workspace("fix bsadapter.json, or run from a folder without one")
	if err != nil {
		return err
	}
	// The first round's faults (no fixtures, a path that is not there)
	// are usage errors, as without --watch; later ones are failed rounds.
	if _, err := fixtures.OptionsFromConfig(ws.cfg, o.request(ws.dir)); err != nil {
		return fixturesErr(err)
	}
	if _, err := o.bridgeCommand(); err != nil {
		return err
	}
	t := &fixturesWatch{o: o, wd: ws.dir, cfg: ws.cfg, failing: map[string]bool{}}
	t.cfgPath = filepath.Join(ws.dir, config.FileName)
	if ws.cfg != nil {
		t.cfgPath = ws.cfg.Path
	}
	return runWatch(ctx, o.app, t)
}

func (t *fixturesWatch) name() string { return "bsadapter check-fixtures" }

// fixturePaths are the fixture files and folders of the run, absolute.
func (t *fixturesWatch) fixturePaths() []string {
	paths := t.o.paths
	if len(paths) == 0 {
		switch {
		case t.cfg != nil && len(t.cfg.Fixtures) > 0:
			paths = t.cfg.FixturePaths()
		default:
			paths = []string{"fixtures"}
		}
	}
	var abs []string
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			p = filepath.Join(t.wd, p)
		}
		abs = append(abs, filepath.Clean(p))
	}
	return abs
}

// codeDir is the adapter's folder: where bsadapter.json is, else where
// the bridge runs (the working folder).
func (t *fixturesWatch) codeDir() string {
	if t.cfg != nil {
		return t.cfg.Dir
	}
	return t.wd
}

func (t *fixturesWatch) roots() []string {
	var roots []string
	if !t.o.noBridge {
		roots = append(roots, t.codeDir())
	}
	for _, p := range t.fixturePaths() {
		if _, err := os.Stat(p); err == nil {
			roots = append(roots, p)
		}
	}
	if _, err := os.Stat(t.cfgPath); err == nil {
		roots = append(roots, t.cfgPath)
	}
	return watchRoots(roots)
}

func (t *fixturesWatch) kind(p string) changeKind {
	if p == t.cfgPath {
		return changeConfig
	}
	for _, root := range t.fixturePaths() {
		if !within(p, root) {
			continue
		}
		name := filepath.Base(p)
		switch {
		case p == root, fixtures.IsFixtureFile(name):
			return changeFixture
		case strings.HasSuffix(name, fixtures.SnapshotSuffix):
			return changeFixture
		case filepath.Ext(name) == "":
			// A folder made, moved or removed.
			return changeFixtures
		}
		return changeIgnored
	}
	if t.o.noBridge {
		return changeIgnored
	}
	return changeCode
}

// retire stops the bridge in the background.
func (t *fixturesWatch) retire() {
	if c := t.client; c != nil {
		t.client = nil
		t.stopping.retire(func() { c.Close() })
	}
}

// close stops the bridge and waits until every bridge is gone.
func (t *fixturesWatch) close() {
	t.retire()
	t.stopping.wait()
}

// fail ends a round that could not check anything.
func (t *fixturesWatch) fail(p roundPlan, bridgeState string, err error) roundResult {
	t.pendingRestart = t.pendingRestart || p.restart
	t.pendingAll = t.pendingAll || p.all
	return failedRound(t.o.app.Style, bridgeState, err)
}

func (t *fixturesWatch) round(ctx context.Context, p roundPlan) roundResult {
	o := t.o
	p.restart = p.restart || t.pendingRestart
	p.all = p.all || t.pendingAll
	if p.reload || t.cfg == nil && t.pendingRestart {
		cfg, err := config.Find(t.wd)
		if err != nil {
			return t.fail(p, "", envErr(err, "fix "+config.FileName+"; the next save starts a new round"))
		}
		t.cfg = cfg
	}
	var bc *bridgeCommand
	if !o.noBridge {
		bc = o.bridge.resolve(workspace{dir: t.wd, cfg: t.cfg})
		if err := o.checkBridge(bc != nil); err != nil {
			return t.fail(p, "", err)
		}
	}
	bridgeState := ""
	if bc != nil {
		if p.restart || t.client == nil {
			t.retire()
			c, err := o.startBridge(ctx, bc)
			if err != nil {
				return t.fail(p, "did not start", err)
			}
			t.client = c
			bridgeState = "started"
		} else {
			bridgeState = "kept"
		}
	}
	t.pendingRestart = false

	req := o.request(t.wd)
	switch {
	case p.all:
	case p.failures:
		req.Paths = t.failed()
		if len(req.Paths) == 0 {
			return roundResult{noop: true, summary: "nothing failed in the last rounds: nothing to re-run"}
		}
	default:
		req.Paths = t.existing(p.files)
		if len(req.Paths) == 0 {
			// Every changed file is gone: what is left is the corpus.
			p.all = true
		}
	}
	fo, err := fixtures.OptionsFromConfig(t.cfg, req)
	if err != nil {
		return t.fail(p, bridgeState, fixturesErr(err))
	}
	if t.client != nil {
		fo.Bridge = t.client
	}
	if err := fo.UsePartsFromConfig(t.cfg); err != nil {
		return t.fail(p, bridgeState, fixturesErr(err))
	}
	files, _, _ := fixtures.Discover(fo.Paths)
	rep, err := fixtures.Run(ctx, fo)
	if err != nil {
		if errors.Is(err, fixtures.ErrNoFixtures) {
			return t.fail(p, bridgeState, usageErr("fixture files end in .json, .jsonl or .ndjson", "%v", err))
		}
		return t.fail(p, bridgeState, err)
	}
	if rep.BridgeError != "" {
		// It stopped: the next round starts another.
		t.retire()
		t.pendingRestart = true
		bridgeState = "stopped working"
	}
	if p.all {
		t.pendingAll = false
		clear(t.failing)
	}
	t.record(files, rep)

	var b strings.Builder
	if err := writeFixturesText(&b, rep, o.verbose, o.app.Style); err != nil {
		return t.fail(p, bridgeState, err)
	}
	if !p.all {
		b.WriteString(t.othersText(files))
	}
	return roundResult{ok: rep.OK() && rep.BridgeError == "", summary: rep.SummaryLine(), bridge: bridgeState, text: b.String()}
}

// existing keeps the paths that are still there.
func (t *fixturesWatch) existing(paths []string) []string {
	var out []string
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			if name := filepath.Base(p); strings.HasSuffix(name, fixtures.SnapshotSuffix) {
				// A snapshot changed: its fixture is what runs.
				if f := fixtureOf(p); f != "" {
					p = f
				} else {
					continue
				}
			}
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// fixtureOf is the fixture file a snapshot belongs to ("" when there is
// none).
func fixtureOf(snapshot string) string {
	base := strings.TrimSuffix(snapshot, fixtures.SnapshotSuffix)
	for _, ext := range []string{".json", ".jsonl", ".ndjson"} {
		if f := base + ext; fixtures.SnapshotPath(f) == snapshot {
			if _, err := os.Stat(f); err == nil {
				return f
			}
		}
	}
	return ""
}

// record keeps whether each file of the round failed.
func (t *fixturesWatch) record(files []string, rep *fixtures.Report) {
	bad := map[string]bool{}
	for _, r := range rep.Results {
		if r.Status == report.Failed || r.Status == report.NotRun {
			bad[r.File] = true
		}
	}
	for _, e := range rep.FileErrors {
		bad[e.File] = true
	}
	for _, f := range files {
		d := t.display(f)
		t.failing[d] = bad[d]
	}
}

func (t *fixturesWatch) display(p string) string {
	if rel, err := filepath.Rel(t.wd, p); err == nil {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(p)
}

// failed are the files that failed when they last ran, as paths.
func (t *fixturesWatch) failed() []string {
	var out []string
	for d, bad := range t.failing {
		if bad {
			out = append(out, filepath.Join(t.wd, filepath.FromSlash(d)))
		}
	}
	slices.Sort(out)
	return t.existing(out)
}

// othersText says, after a round that ran some files, how the files it
// did not run stood when they last ran.
func (t *fixturesWatch) othersText(ran []string) string {
	skip := map[string]bool{}
	for _, f := range ran {
		skip[t.display(f)] = true
	}
	var bad []string
	n := 0
	for d, failed := range t.failing {
		if skip[d] {
			continue
		}
		n++
		if failed {
			bad = append(bad, d)
		}
	}
	if n == 0 {
		return ""
	}
	slices.Sort(bad)
	st := t.o.app.Style
	if len(bad) == 0 {
		return "\n" + st.Dim(fmt.Sprintf("the other %d fixture files passed when they last ran", n)) + "\n"
	}
	return "\n" + st.Yellow(fmt.Sprintf("of the other %d fixture files, %d failed when they last ran: %s", n, len(bad), strings.Join(bad, ", "))) + "\n"
}
