package report

import (
	"bytes"
	"strings"
	"testing"
)

// A value holding markup and a closing script tag stays data: the page
// holds it only inside the JSON element, escaped, and no element of it
// reaches the markup.
func TestHTMLEscapesTheDocument(t *testing.T) {
	hostile := `</script><img src=x onerror=alert(1)><!-- &amp; ` + "\u2028"
	doc := map[string]any{
		"summary": map[string]any{"total": 1, "failed": 1},
		"results": []any{map[string]any{"id": hostile, "suite": hostile, "rule": hostile, "outcome": "failed",
			"failures": []any{map[string]any{"message": hostile, "expected": hostile, "actual": "x"}}}},
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, HTML{Kind: KindConform, Title: "t </title><script>", Doc: doc}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if n := strings.Count(page, "</script>"); n != 2 {
		t.Errorf("%d closing script tags, want 2 (the data's and the code's)", n)
	}
	for _, bad := range []string{"<img", "<!--", "\u2028", "</title><script>"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q outside escaped data", bad)
		}
	}
	if !strings.Contains(page, `\u003c/script\u003e\u003cimg src=x`) {
		t.Errorf("the value is not in the data, escaped")
	}
	for _, ext := range []string{"http://", "https://", "src=\"", "@import", "url("} {
		if ext == "http://" {
			// The SVG namespace is a name, not a load.
			page = strings.ReplaceAll(page, "http://www.w3.org/2000/svg", "")
		}
		if strings.Contains(page, ext) {
			t.Errorf("the page refers to something outside it: %q", ext)
		}
	}
	if !strings.Contains(page, "default-src 'none'") {
		t.Error("the page has no content security policy forbidding loads")
	}
}

func TestHTMLUnknownKind(t *testing.T) {
	err := WriteHTML(&bytes.Buffer{}, HTML{Kind: "doctor", Doc: map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), `"doctor"`) {
		t.Errorf("err = %v", err)
	}
	err = Write(&bytes.Buffer{}, "html", Results{JSON: map[string]any{}})
	if err == nil {
		t.Error("results without a kind wrote HTML")
	}
}
