package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
)

// tables parses md as GitHub-flavoured Markdown and returns each table's
// rows (the header first) as the text of their cells, and the rendered
// HTML.
func tables(t *testing.T, md []byte) ([][][]string, string) {
	t.Helper()
	// Raw HTML is kept, as GitHub keeps the details elements.
	g := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(gmhtml.WithUnsafe()))
	root := g.Parser().Parse(text.NewReader(md))
	var out [][][]string
	ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if tb, ok := n.(*east.Table); ok {
			var rows [][]string
			for r := tb.FirstChild(); r != nil; r = r.NextSibling() {
				var cells []string
				for c := r.FirstChild(); c != nil; c = c.NextSibling() {
					if _, ok := c.(*east.TableCell); ok {
						cells = append(cells, string(c.Text(md)))
					}
				}
				rows = append(rows, cells)
			}
			out = append(out, rows)
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	var h bytes.Buffer
	if err := g.Convert(md, &h); err != nil {
		t.Fatal(err)
	}
	return out, h.String()
}

func TestJobSummaryConform(t *testing.T) {
	doc := map[string]any{
		"store":   "memory",
		"summary": map[string]any{"total": 4, "passed": 2, "failed": 1, "skipped": 1, "notRun": 0},
		"results": []any{
			map[string]any{"id": "streams/a", "suite": "streams", "outcome": "passed"},
			map[string]any{"id": "streams/b|x", "suite": "streams", "rule": "a rule with <b>markup</b>", "outcome": "failed", "elapsedMs": 3.5,
				"failures": []any{map[string]any{"what": "chunks", "expected": "[1,2]", "actual": "[1]```"}}},
			map[string]any{"id": "registry/c", "suite": "registry", "outcome": "passed"},
			map[string]any{"id": "registry/d", "suite": "registry", "outcome": "skipped", "needs": "clock"},
		},
	}
	var b bytes.Buffer
	if err := WriteJobSummary(&b, KindConform, doc); err != nil {
		t.Fatal(err)
	}
	tbs, html := tables(t, b.Bytes())
	if len(tbs) != 1 {
		t.Fatalf("%d tables, want 1:\n%s", len(tbs), b.String())
	}
	want := [][]string{{"Suite", "Passed", "Failed", "Skipped", "Not run"}, {"streams", "1", "1", "0", "0"}, {"registry", "1", "0", "1", "0"}}
	if got := tbs[0]; !equalRows(got, want) {
		t.Errorf("table %q, want %q\n%s", got, want, b.String())
	}
	for _, w := range []string{"<details><summary>streams/b|x: a rule with &lt;b&gt;markup&lt;/b&gt;</summary>", "- expected: [1,2]", "+ actual:   [1]```"} {
		if !strings.Contains(html, w) {
			t.Errorf("the rendered summary lacks %q:\n%s", w, html)
		}
	}
	if strings.Contains(html, "<b>markup") {
		t.Errorf("markup from the report reached the page:\n%s", html)
	}
	if !strings.Contains(html, "<pre><code class=\"language-diff\">") {
		t.Errorf("the diff is not a code block:\n%s", html)
	}
}

func TestJobSummaryFixturesAndLint(t *testing.T) {
	fx := map[string]any{
		"summary": map[string]any{"files": 2, "messages": 5, "passed": 3, "failed": 2, "warnings": 0, "fileErrors": 1},
		"results": []any{
			map[string]any{"file": "fx/a.jsonl", "line": 1, "index": 0, "status": "failed",
				"nativeRoundTrip": []any{map[string]any{"pointer": "/meta", "op": "removed", "before": `{"k":1}`}}},
			map[string]any{"file": "fx/sub/b.json", "line": 1, "index": 0, "status": "failed", "error": "boom"},
		},
		"fileErrors": []any{map[string]any{"file": "fx/sub/c.json", "line": 2, "message": "not JSON"}},
	}
	var b bytes.Buffer
	if err := WriteJobSummary(&b, KindCheckFixtures, fx); err != nil {
		t.Fatal(err)
	}
	tbs, html := tables(t, b.Bytes())
	want := [][]string{{"Folder", "Failed", "Warned", "Not run", "File errors"}, {"fx", "1", "0", "0", "0"}, {"fx/sub", "1", "0", "0", "1"}}
	if len(tbs) != 1 || !equalRows(tbs[0], want) {
		t.Errorf("tables %q, want %q\n%s", tbs, want, b.String())
	}
	if strings.Count(html, "<details>") != 3 || !strings.Contains(html, `- /meta: {&quot;k&quot;:1}`) {
		t.Errorf("the failures are not three details with their diffs:\n%s", html)
	}

	lint := map[string]any{"ok": false, "files": 3, "target": map[string]any{"name": "adapter"},
		"findings": []any{map[string]any{"rule": "eager-sdk-import", "file": "src/a.ts", "line": 2, "column": 1, "message": "m", "evidence": "import x from 'sdk'",
			"chain": []any{map[string]any{"file": "src/index.ts", "line": 1, "column": 1, "import": "./a"}}}},
		"suppressed": []any{map[string]any{"rule": "other", "file": "b.ts"}}}
	b.Reset()
	if err := WriteJobSummary(&b, KindLint, lint); err != nil {
		t.Fatal(err)
	}
	tbs, html = tables(t, b.Bytes())
	want = [][]string{{"Rule", "Findings", "Suppressed"}, {"eager-sdk-import", "1", "0"}, {"other", "0", "1"}}
	if len(tbs) != 1 || !equalRows(tbs[0], want) {
		t.Errorf("tables %q, want %q\n%s", tbs, want, b.String())
	}
	if !strings.Contains(html, `src/index.ts:1:1 import &quot;./a&quot;`) {
		t.Errorf("the import chain is missing:\n%s", html)
	}
}

// A fence inside a value cannot end the diff's code block.
func TestJobSummaryFence(t *testing.T) {
	if got := fence("a ```` b"); got != "`````" {
		t.Errorf("fence = %q", got)
	}
}

func equalRows(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.Join(a[i], "\x00") != strings.Join(b[i], "\x00") {
			return false
		}
	}
	return true
}
