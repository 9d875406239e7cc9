//go:build linux

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/bsadapter/bsadapter/internal/testenv"
)

// The HTML report of real runs, opened in a real Chromium: its counts are
// the JSON report's, every failure of the JSON report is on the page, the
// filters hide what they should, a failure opens to its diff, and the page
// makes no request and logs no error.
func TestHTMLReportInChromium(t *testing.T) {
	chromium := testenv.Chromium(t)
	node := testenv.Node(t)
	root := testenv.RepoRoot(t)
	dir := t.TempDir()
	browser := startBrowser(t, chromium)
	nodeBridge := fmt.Sprintf("'%s' '%s'", node, filepath.Join(root, "internal", "bridge", "testdata", "nodebridge.mjs"))

	t.Run("failing converter", func(t *testing.T) {
		fx := filepath.Join(dir, "fixtures")
		os.MkdirAll(filepath.Join(fx, "sub"), 0o755)
		// A value with markup and a closing script tag: it must show as
		// text, and no element of it may reach the page.
		os.WriteFile(filepath.Join(fx, "a.jsonl"), []byte(strings.Join([]string{
			`{"uid":"a1","from":"bot","meta":{"k":"</script><img src=x onerror=alert(1)>"},"blocks":[{"t":"txt","body":"hi </script><script>alert(2)</script>"}]}`,
			`{"uid":"a2","from":"human","blocks":[{"t":"txt","body":"hi"},{"t":"think","body":"hmm"}]}`,
			`{"uid":"a3","from":"martian","blocks":[]}`,
		}, "\n")+"\n"), 0o644)
		os.WriteFile(filepath.Join(fx, "sub", "b.json"), []byte(`{"uid":"b1","from":"bot","meta":{"q":1},"blocks":[]}`), 0o644)
		doc, page := reportOfRun(t, browser, dir, "check-fixtures", "--bridge", nodeBridge+" --fault=dropmeta", fx)
		checkFixturesPage(t, doc, page)
		p := page.tab
		first := page.firstFailed()
		if p.text(`#`+first+` > summary .badge`) != "failed" {
			t.Fatalf("the first item is not a failure")
		}
		// Closed, the failure has no diff drawn; opened, its diff shows
		// the native message and what came back, with the pointer.
		if p.count(`#`+first+` table.diff`) != 0 {
			t.Error("a closed failure already shows its diff")
		}
		p.run(chromedp.Click(`#`+first+` > summary`, chromedp.ByQuery))
		diff := p.text(`#` + first + ` table.diff`)
		for _, w := range []string{"native message", "came back", "/meta", `{"k":"</script><img src=x onerror=alert(1)>"}`, "(absent)"} {
			if !strings.Contains(diff, w) {
				t.Errorf("the opened diff lacks %q:\n%s", w, diff)
			}
		}
		if n := p.count("img") + p.count("body script") - 2; n != 0 {
			t.Errorf("markup from the fixtures became %d elements of the page", n)
		}
		// The outcome filter: without "failed" no failure shows; passed
		// messages show only when asked for.
		p.run(chromedp.Click(`input[name=outcome][value="failed"]`, chromedp.ByQuery))
		for _, it := range p.items() {
			if it.Outcome == "failed" && !it.Hidden {
				t.Errorf("failure %s still shows with failed unticked", it.Key)
			}
		}
		p.run(chromedp.Click(`input[name=outcome][value="failed"]`, chromedp.ByQuery), chromedp.Click(`input[name=outcome][value="passed"]`, chromedp.ByQuery))
		// The file filter, typed: only the messages of sub/ stay.
		p.run(chromedp.SendKeys(`#file-filter`, "sub/b", chromedp.ByQuery))
		for _, it := range p.items() {
			if want := !strings.Contains(it.Key, "sub/b.json#"); it.Hidden != want {
				t.Errorf("with the file filter %q, %s hidden=%v", "sub/b", it.Key, it.Hidden)
			}
		}
		// The folder filter.
		var ok bool
		p.eval(`(() => { const f = document.getElementById("file-filter"); f.value = ""; return f.dispatchEvent(new Event("input", {bubbles: true})); })()`, &ok)
		// Files are named as the run named them (from the working folder).
		var files struct{ Results []struct{ File string } }
		mustUnmarshal(t, doc, &files)
		aFile := files.Results[0].File
		if !strings.HasSuffix(aFile, "fixtures/a.jsonl") {
			t.Fatalf("the first result is of %s", aFile)
		}
		p.selectSuite(path.Dir(aFile))
		for _, it := range p.items() {
			if want := !strings.HasPrefix(it.Key, aFile+"#"); it.Hidden != want {
				t.Errorf("with the folder filter, %s hidden=%v", it.Key, it.Hidden)
			}
		}
		// An anchor opens its failure whatever the filters hide.
		last := page.itemID(path.Join(path.Dir(aFile), "sub", "b.json") + "#0")
		var hash string
		p.eval(fmt.Sprintf("location.hash = %q", "#"+last), &hash)
		p.run(chromedp.WaitVisible(`#`+last+` table.diff`, chromedp.ByQuery))
		if shot := os.Getenv("BSADAPTER_REPORT_SCREENSHOT"); shot != "" {
			p.screenshot(shot)
		}
		page.checkQuiet(t)
	})

	t.Run("failing store", func(t *testing.T) {
		store := filepath.Join(root, "internal", "conform", "bridgestore", "testdata", "bridges", "memstore.mjs")
		doc, page := reportOfRun(t, browser, dir, "conform", "--bridge", fmt.Sprintf("'%s' '%s' --bug=overwrite", node, store), "--suite", "streams")
		var d struct {
			Summary map[string]float64
			Results []struct{ ID, Outcome, Rule string }
		}
		mustUnmarshal(t, doc, &d)
		if d.Summary["failed"] == 0 {
			t.Fatalf("the broken store failed no case: %s", doc)
		}
		page.checkCounts(t, d.Summary)
		var failed []string
		for _, r := range d.Results {
			if r.Outcome == "failed" {
				failed = append(failed, r.ID)
			}
		}
		page.checkHas(t, failed, len(d.Results))
		p := page.tab
		id := page.itemID(failed[0])
		p.run(chromedp.Click(`#`+id+` > summary`, chromedp.ByQuery))
		body := p.text(`#` + id + ` .body`)
		for _, w := range []string{"rule", "duration", " ms", "expected", "actual"} {
			if !strings.Contains(body, w) {
				t.Errorf("the opened case lacks %q:\n%s", w, body)
			}
		}
		// The suite filter keeps the suite's cases; another hides them all.
		p.selectSuite("streams")
		for _, it := range p.items() {
			if it.Hidden && it.Outcome != "passed" {
				t.Errorf("case %s hidden by its own suite", it.Key)
			}
		}
		page.checkQuiet(t)
	})

	t.Run("lint finding", func(t *testing.T) {
		pkg := filepath.Join(root, "internal", "lint", "testdata", "corpus", "eager-three-deep")
		doc, page := reportOfRun(t, browser, dir, "lint", pkg)
		var d struct {
			Files    int
			Findings []struct {
				Rule, File   string
				Line, Column int
			}
			Suppressed []json.RawMessage
		}
		mustUnmarshal(t, doc, &d)
		page.checkCounts(t, map[string]float64{"files": float64(d.Files), "findings": float64(len(d.Findings)), "suppressed": float64(len(d.Suppressed)), "unusedIgnores": 0})
		var keys []string
		for _, f := range d.Findings {
			keys = append(keys, fmt.Sprintf("%s:%s:%d:%d", f.Rule, f.File, f.Line, f.Column))
		}
		page.checkHas(t, keys, len(d.Findings)+len(d.Suppressed))
		p := page.tab
		id := page.itemID(keys[0])
		p.run(chromedp.Click(`#`+id+` > summary`, chromedp.ByQuery))
		if chain := p.text(`#` + id + ` ol.chain`); !strings.Contains(chain, "src/index.ts:2:25") || !strings.Contains(chain, `import "@acme/sdk/blocks"`) {
			t.Errorf("the import chain: %q", chain)
		}
		if src := p.text(`#` + id + ` pre.src`); !strings.Contains(src, `import { Block } from "@acme/sdk/blocks";`) {
			t.Errorf("the source line: %q", src)
		}
		page.checkQuiet(t)
	})

	t.Run("generated run", func(t *testing.T) {
		doc, page := reportOfRun(t, browser, dir, "check-fixtures", "--bridge", nodeBridge+" --fault=lossy", "--generate", "40", "--seed", "7")
		checkFixturesPage(t, doc, page)
		p := page.tab
		id := page.firstFailed()
		p.run(chromedp.Click(`#`+id+` > summary`, chromedp.ByQuery))
		body := p.text(`#` + id + ` .body`)
		if !strings.Contains(body, "Shrunk example") || !strings.Contains(body, `"parts"`) {
			t.Errorf("the opened failure shows no shrunk example:\n%s", body)
		}
		if p.count(`svg.chart rect`) == 0 {
			t.Error("no part-type coverage chart")
		}
		page.checkQuiet(t)
	})
}

// checkFixturesPage checks a check-fixtures page against its JSON report:
// the counts, and every listed failure.
func checkFixturesPage(t *testing.T, doc []byte, page *reportPage) {
	t.Helper()
	var d struct {
		Summary map[string]float64
		Results []struct {
			File   string
			Index  int
			Status string
		}
	}
	mustUnmarshal(t, doc, &d)
	if d.Summary["failed"] == 0 {
		t.Fatalf("the run failed nothing: %s", doc)
	}
	page.checkCounts(t, d.Summary)
	var failed []string
	for _, r := range d.Results {
		if r.Status == "failed" {
			failed = append(failed, fmt.Sprintf("%s#%d", r.File, r.Index))
		}
	}
	page.checkHas(t, failed, len(d.Results))
}

func mustUnmarshal(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("the JSON report: %v\n%s", err, b)
	}
}

// startBrowser starts one headless Chromium for the test and stops it when
// the test ends.
func startBrowser(t *testing.T, chromium string) context.Context {
	// The profile has a folder of its own, removed once the browser is
	// gone: Chromium's helper processes may still write to it for a
	// moment after the browser exits (on a busy machine, while the test's
	// own temporary folder was being removed).
	profile, err := os.MkdirTemp("", "bsadapter-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	opts := append(slices.Clone(chromedp.DefaultExecAllocatorOptions[:]),
		chromedp.ExecPath(chromium),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1100, 800),
		chromedp.Flag("disable-gpu", true),
		// Root (as in the CI container) cannot use the sandbox.
		chromedp.NoSandbox,
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(func() {
		// Close the browser as a user would, then end what is left.
		if err := chromedp.Cancel(bctx); err != nil {
			t.Logf("closing the browser: %v", err)
		}
		cancelBrowser()
		cancelAlloc()
		removeWhenQuiet(t, profile)
	})
	if err := chromedp.Run(bctx); err != nil {
		t.Fatalf("starting %s: %v", chromium, err)
	}
	return bctx
}

// removeWhenQuiet removes dir, again while something still writes into
// it, for up to a minute.
func removeWhenQuiet(t *testing.T, dir string) {
	var err error
	for try := 0; try < 600; try++ {
		if err = os.RemoveAll(dir); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("the browser's profile %s could not be removed: %v", dir, err)
}

// reportOfRun runs bsadapter with args, printing JSON and writing the HTML
// report in the same run, and opens the report in a new tab.
func reportOfRun(t *testing.T, browser context.Context, dir string, args ...string) ([]byte, *reportPage) {
	t.Helper()
	file := filepath.Join(dir, strings.NewReplacer(" ", "-", "/", "-").Replace(t.Name())+".html")
	code, out, errOut := runWithEnv(t, nil, append(args, "--format", "json", "--report", "html="+file)...)
	if code != ExitFailed {
		t.Fatalf("%q: exit %d, want %d (a failing run)\n%s%s", args, code, ExitFailed, out, errOut)
	}
	return []byte(out), openPage(t, browser, file)
}

type reportPage struct {
	tab      *tab
	url      string
	mu       sync.Mutex
	requests []string
	errors   []string
}

type tab struct {
	t   *testing.T
	ctx context.Context
}

type pageItem struct {
	Key, Outcome, ID string
	Hidden           bool
}

func (p *tab) run(actions ...chromedp.Action) {
	p.t.Helper()
	if err := chromedp.Run(p.ctx, actions...); err != nil {
		p.t.Fatalf("browser: %v", err)
	}
}

func (p *tab) eval(js string, v any) {
	p.t.Helper()
	p.run(chromedp.Evaluate(js, v))
}

func (p *tab) text(sel string) string {
	p.t.Helper()
	var s string
	p.run(chromedp.TextContent(sel, &s, chromedp.ByQuery))
	return s
}

func (p *tab) count(sel string) int {
	p.t.Helper()
	var n int
	p.eval(fmt.Sprintf("document.querySelectorAll(%q).length", sel), &n)
	return n
}

func (p *tab) items() []pageItem {
	p.t.Helper()
	var items []pageItem
	p.eval(`[...document.querySelectorAll("#items details.item")].map((d) => ({Key: d.dataset.key, Outcome: d.dataset.outcome, ID: d.id, Hidden: d.offsetParent === null}))`, &items)
	return items
}

// selectSuite picks a suite (folder, rule) in the filter, as a person
// does: focus the select and pick the option.
func (p *tab) selectSuite(v string) {
	p.t.Helper()
	p.run(chromedp.Focus(`#suite-filter`, chromedp.ByQuery))
	var ok bool
	p.eval(fmt.Sprintf(`(() => { const s = document.getElementById("suite-filter"); s.value = %q; return s.value === %q && s.dispatchEvent(new Event("change", {bubbles: true})); })()`, v, v), &ok)
	if !ok {
		p.t.Fatalf("the filter has no option %q", v)
	}
}

func (p *tab) screenshot(file string) {
	p.t.Helper()
	var png []byte
	p.run(chromedp.CaptureScreenshot(&png))
	if err := os.WriteFile(file, png, 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// openPage opens file in a new tab, recording every request it makes
// besides loading the file and everything it logs as an error.
func openPage(t *testing.T, browser context.Context, file string) *reportPage {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser)
	ctx, cancelTimeout := context.WithTimeout(ctx, 5*time.Minute)
	t.Cleanup(func() {
		cancelTimeout()
		cancel()
	})
	u := (&url.URL{Scheme: "file", Path: file}).String()
	page := &reportPage{tab: &tab{t: t, ctx: ctx}, url: u}
	chromedp.ListenTarget(ctx, func(ev any) {
		page.mu.Lock()
		defer page.mu.Unlock()
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			if e.Request.URL != u {
				page.requests = append(page.requests, e.Request.URL)
			}
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError || e.Type == runtime.APITypeAssert {
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				page.errors = append(page.errors, "console: "+strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			page.errors = append(page.errors, "exception: "+e.ExceptionDetails.Error())
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.LevelError || e.Entry.Level == cdplog.LevelWarning {
				page.errors = append(page.errors, "log: "+e.Entry.Text)
			}
		}
	})
	page.tab.run(network.Enable(), cdplog.Enable(), runtime.Enable(),
		chromedp.Navigate(u), chromedp.WaitReady(`html[data-ready="1"]`, chromedp.ByQuery))
	return page
}

// checkCounts compares the summary cards with the JSON report's counts.
func (page *reportPage) checkCounts(t *testing.T, want map[string]float64) {
	t.Helper()
	var got map[string]float64
	page.tab.eval(`Object.fromEntries([...document.querySelectorAll("#summary [data-count]")].map((e) => [e.dataset.count, Number(e.querySelector(".n").textContent)]))`, &got)
	if len(got) != len(want) {
		t.Errorf("summary cards %v, want %v", got, want)
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("summary %s = %v (present %v), the JSON report says %v", k, g, ok, v)
		}
	}
}

// checkHas checks that every key is an item drawn on the page, and that
// the page lists as many items as the JSON report (the passed ones are
// drawn when a filter shows them).
func (page *reportPage) checkHas(t *testing.T, keys []string, total int) {
	t.Helper()
	items := page.tab.items()
	have := map[string]bool{}
	for _, it := range items {
		have[it.Key] = true
	}
	for _, k := range keys {
		if !have[k] {
			t.Errorf("the failure %s of the JSON report is not on the page", k)
		}
	}
	var listed int
	page.tab.eval(`Number(document.getElementById("shown").dataset.total)`, &listed)
	if listed != total {
		t.Errorf("the page lists %d results, the JSON report %d", listed, total)
	}
}

func (page *reportPage) itemID(key string) string {
	page.tab.t.Helper()
	for _, it := range page.tab.items() {
		if it.Key == key {
			return it.ID
		}
	}
	page.tab.t.Fatalf("no item %s on the page", key)
	return ""
}

func (page *reportPage) firstFailed() string {
	page.tab.t.Helper()
	for _, it := range page.tab.items() {
		if it.Outcome == "failed" {
			return it.ID
		}
	}
	page.tab.t.Fatal("no failure on the page")
	return ""
}

// checkQuiet fails the test if the page made a request or logged an
// error.
func (page *reportPage) checkQuiet(t *testing.T) {
	t.Helper()
	// Events come asynchronously: a round trip through the page lets
	// those already sent arrive.
	var ok bool
	page.tab.eval("true", &ok)
	page.mu.Lock()
	defer page.mu.Unlock()
	if len(page.requests) > 0 {
		t.Errorf("the page made requests: %q", page.requests)
	}
	if len(page.errors) > 0 {
		t.Errorf("the page logged errors: %q", page.errors)
	}
}
