// Command report-bench measures the HTML report of a large check-fixtures
// run: its size, and how soon headless Chromium paints it and has drawn
// it. Run it through bench/report/run.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/bsadapter/bsadapter/bench/internal/benchkit"
	"github.com/chromedp/chromedp"
)

func main() {
	bin := flag.String("bsadapter", "", "the bsadapter binary")
	bridge := flag.String("bridge", "", "the Node test bridge (internal/bridge/testdata/nodebridge.mjs)")
	work := flag.String("work", "", "a scratch folder")
	messages := flag.Int("messages", 10000, "fixture messages, and generated messages")
	failures := flag.Int("failures", 800, "fixture messages that fail")
	runs := flag.Int("runs", 5, "page loads per report")
	chromium := flag.String("chromium", "", "the Chromium binary (default: chromium on PATH)")
	flag.Parse()
	benchkit.Done("report-bench", run(*bin, *bridge, *work, *chromium, *messages, *failures, *runs))
}

func run(bin, bridge, work, chromium string, messages, failures, runs int) error {
	if bin == "" || bridge == "" || work == "" {
		return fmt.Errorf("-bsadapter, -bridge and -work are required (bench/report/run passes them)")
	}
	if chromium == "" {
		p, err := exec.LookPath("chromium")
		if err != nil {
			return fmt.Errorf("no chromium on PATH (apt-get install chromium), or pass -chromium")
		}
		chromium = p
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	fx := filepath.Join(work, "fixtures")
	if err := writeFixtures(fx, messages, failures); err != nil {
		return err
	}
	node := "node '" + bridge + "'"
	type scenario struct {
		name, html string
		args       []string
	}
	scenarios := []scenario{
		{fmt.Sprintf("%d fixture messages, %d failing", messages, failures), filepath.Join(work, "fixtures.html"),
			[]string{"check-fixtures", "--bridge", node + " --fault=dropmeta", fx}},
		{fmt.Sprintf("--generate %d, lossy converter", messages), filepath.Join(work, "generated.html"),
			[]string{"check-fixtures", "--bridge", node + " --fault=lossy", "--generate", fmt.Sprint(messages), "--seed", "11"}},
	}

	opts := append(slices.Clone(chromedp.DefaultExecAllocatorOptions[:]), chromedp.ExecPath(chromium),
		chromedp.UserDataDir(filepath.Join(work, "profile")), chromedp.NoSandbox, chromedp.Flag("disable-gpu", true), chromedp.WindowSize(1200, 900))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	browser, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	if err := chromedp.Run(browser); err != nil {
		return fmt.Errorf("start %s: %w", chromium, err)
	}

	fmt.Printf("%-40s %12s %10s %10s %14s %12s\n", "report", "failed", "listed", "size", "first paint", "drawn")
	for _, s := range scenarios {
		jsonFile := filepath.Join(work, "report.json")
		cmd := exec.Command(bin, append(s.args, "--format", "json", "--report", "html="+s.html, "--report", "json="+jsonFile)...)
		cmd.Dir = work
		start := time.Now()
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
			return fmt.Errorf("%s: %v\n%s", s.name, err, tail(out))
		}
		elapsed := time.Since(start)
		var doc struct {
			Summary struct{ Failed int }
			Results []json.RawMessage
		}
		raw, err := os.ReadFile(jsonFile)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			return err
		}
		st, err := os.Stat(s.html)
		if err != nil {
			return err
		}
		var paints, drawn []float64
		for range runs {
			p, d, err := load(browser, s.html)
			if err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
			paints, drawn = append(paints, p), append(drawn, d)
		}
		fmt.Printf("%-40s %12d %10d %9.2fM %12.0fms %10.0fms   (run %.1f s)\n", s.name, doc.Summary.Failed, len(doc.Results),
			float64(st.Size())/(1<<20), benchkit.Median(paints), benchkit.Median(drawn), elapsed.Seconds())
	}
	fmt.Println("\ngoals: under 5 MB, first paint under 1 s (medians of", runs, "loads, each in a new tab)")
	// Times are wall times: on a shared machine they grow with its load.
	if la, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Printf("load average at the end: %s", la)
	}
	return nil
}

// writeFixtures writes messages chatlet messages over ten files; the
// first failures of them carry a "meta" object, which the bridge's
// dropmeta fault loses in the native round trip.
func writeFixtures(dir string, messages, failures int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	per := (messages + 9) / 10
	n := 0
	for f := 0; n < messages; f++ {
		file, err := os.Create(filepath.Join(dir, fmt.Sprintf("part-%02d.jsonl", f)))
		if err != nil {
			return err
		}
		w := bufio.NewWriter(file)
		for i := 0; i < per && n < messages; i++ {
			m := map[string]any{"uid": fmt.Sprintf("m%d", n), "from": "bot", "blocks": []any{
				map[string]any{"t": "txt", "body": fmt.Sprintf("message %d: some text of the size a reply has, with a little more to it", n)},
				map[string]any{"t": "call", "ref": fmt.Sprintf("c%d", n), "fn": "lookup", "args": map[string]any{"q": n}},
			}}
			// Failures spread over the files: every k-th message.
			if failures > 0 && n%(messages/failures) == 0 && n/(messages/failures) < failures {
				m["meta"] = map[string]any{"trace": fmt.Sprintf("t-%d", n), "tags": []string{"a", "b"}}
			}
			b, _ := json.Marshal(m)
			w.Write(append(b, '\n'))
			n++
		}
		if err := w.Flush(); err != nil {
			return err
		}
		if err := file.Close(); err != nil {
			return err
		}
	}
	return nil
}

// load opens file in a new tab and returns the first contentful paint and
// the moment the page's script had drawn it, in milliseconds from the
// navigation.
func load(browser context.Context, file string) (paint, drawn float64, err error) {
	ctx, cancel := chromedp.NewContext(browser)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 2*time.Minute)
	defer cancelT()
	u := (&url.URL{Scheme: "file", Path: file}).String()
	var res struct{ Paint, Drawn float64 }
	err = chromedp.Run(ctx, chromedp.Navigate(u), chromedp.WaitReady(`html[data-ready="1"]`, chromedp.ByQuery),
		chromedp.Poll(`(() => { const p = performance.getEntriesByName("first-contentful-paint")[0];
			return p ? {Paint: p.startTime, Drawn: Number(document.documentElement.dataset.drawnMs)} : null; })()`, &res, chromedp.WithPollingTimeout(time.Minute)))
	return res.Paint, res.Drawn, err
}

func tail(b []byte) []byte {
	if len(b) > 2000 {
		return b[len(b)-2000:]
	}
	return b
}
