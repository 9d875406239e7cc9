package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/bsadapter/bsadapter/internal/watch"
)

// --watch with flags it cannot go with is a usage error that names the
// fix, before anything runs.
func TestWatchFlagRules(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		msg, hint string
	}{
		{[]string{"check-fixtures", "--watch", "--format", "json"}, "--watch shows each round's result on the screen; it cannot write --format json", "drop --watch to write a --format json report once"},
		{[]string{"check-fixtures", "-w", "--update"}, "--update would write snapshots", "run 'bsadapter check-fixtures --update' once, then --watch"},
		{[]string{"check-fixtures", "--watch", "--generate", "10"}, "--watch re-runs the fixtures; --generate reads none", "drop --watch, or drop --generate to watch the fixtures"},
		{[]string{"conform", "--watch"}, "--store pg has no code of yours to watch", "add --store=bridge"},
		{[]string{"conform", "--watch", "--store", "memory"}, "--store memory has no code of yours to watch", "add --store=bridge"},
		{[]string{"conform", "--watch", "--bridge", "node b.mjs", "--list"}, "--watch cannot be used with --list or --bench", "drop --watch"},
		{[]string{"conform", "--watch", "--store", "bridge", "--format", "junit"}, "it cannot write --format junit", "drop --watch"},
	} {
		var out, errb bytes.Buffer
		code := Main(tc.args, Stdio{Out: &out, Err: &errb})
		if code != ExitUsage || !strings.Contains(errb.String(), tc.msg) || !strings.Contains(errb.String(), "hint: "+tc.hint) {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant exit 2 with %q and the hint %q", tc.args, code, errb.String(), tc.msg, tc.hint)
		}
	}
}

// fakeTarget classifies paths by their folder, for planFor.
type fakeTarget struct{ root string }

func (f fakeTarget) name() string                                 { return "test" }
func (f fakeTarget) roots() []string                              { return []string{f.root} }
func (f fakeTarget) round(context.Context, roundPlan) roundResult { return roundResult{} }
func (f fakeTarget) close()                                       {}
func (f fakeTarget) kind(p string) changeKind {
	switch {
	case filepath.Base(p) == "bsadapter.json":
		return changeConfig
	case strings.Contains(p, "/fixtures/"):
		return changeFixture
	case strings.Contains(p, "/docs/"):
		return changeIgnored
	}
	return changeCode
}

// A batch of fixture files re-runs them on the running bridge; one code
// file among them restarts it and re-runs everything; ignored files
// start no round.
func TestPlanFor(t *testing.T) {
	ft := fakeTarget{root: "/a"}
	p, ok := planFor(ft, watch.Batch{Paths: []string{"/a/fixtures/x.json", "/a/fixtures/y.json"}})
	if !ok || p.restart || p.all || len(p.files) != 2 || p.why != "fixtures/x.json, fixtures/y.json changed" {
		t.Errorf("fixtures: %+v %v", p, ok)
	}
	p, ok = planFor(ft, watch.Batch{Paths: []string{"/a/fixtures/x.json", "/a/src/converter.ts"}})
	if !ok || !p.restart || !p.all || p.files != nil || !strings.HasPrefix(p.why, "src/converter.ts changed: bridge restarted") {
		t.Errorf("code: %+v %v", p, ok)
	}
	p, ok = planFor(ft, watch.Batch{Paths: []string{"/a/bsadapter.json"}})
	if !ok || !p.reload || !p.restart || !p.all {
		t.Errorf("config: %+v %v", p, ok)
	}
	if p, ok = planFor(ft, watch.Batch{Paths: []string{"/a/docs/x.md"}}); ok {
		t.Errorf("ignored: %+v", p)
	}
	if p, ok = planFor(ft, watch.Batch{Overflow: true}); !ok || !p.restart || !p.all {
		t.Errorf("overflow: %+v %v", p, ok)
	}
}

// The screen passes a and f on as keys, quits on q, and shows the last
// result with its time, clipped to the terminal's height.
func TestWatchModel(t *testing.T) {
	keys := make(chan watchKey, 1)
	quit := false
	var m tea.Model = watchModel{name: "bsadapter check-fixtures", keys: keys, quit: func() { quit = true }, now: time.Now()}
	m, _ = m.Update(tea.WindowSizeMsg{Width: 80, Height: 12})
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("f")})
	if k := <-keys; k != keyFailures {
		t.Errorf("f gave %v", k)
	}
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("a")})
	if k := <-keys; k != keyAll {
		t.Errorf("a gave %v", k)
	}
	body := strings.Repeat("line\n", 30)
	m, _ = m.Update(watchDone(roundResult{n: 4, why: "fixtures/a.json changed", took: 72 * time.Millisecond, ok: false, summary: "1 message in 1 file: 0 passed, 1 failed", bridge: "kept", text: body}))
	v := m.View()
	for _, want := range []string{"round 4 failed in 72ms: 1 message in 1 file: 0 passed, 1 failed (bridge kept)", "after: fixtures/a.json changed", "more lines", "a re-run all · f re-run failures · q quit"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	if n := strings.Count(v, "\n") + 1; n > 12 {
		t.Errorf("view has %d lines on a 12-line terminal:\n%s", n, v)
	}
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})
	if !quit {
		t.Error("q did not quit")
	}
}
