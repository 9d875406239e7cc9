package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// The escapes are GitHub's workflow-command rules: in the message, '%',
// CR and LF; in a property value also ':' and ','. Anything else passes
// through unchanged.
func TestEscapes(t *testing.T) {
	for _, tc := range []struct{ in, data, prop string }{
		{"plain text", "plain text", "plain text"},
		{"50%", "50%25", "50%25"},
		{"a\nb", "a%0Ab", "a%0Ab"},
		{"a\r\nb", "a%0D%0Ab", "a%0D%0Ab"},
		{"a:b,c", "a:b,c", "a%3Ab%2Cc"},
		{"%0A", "%250A", "%250A"},
		{"::error::x", "::error::x", "%3A%3Aerror%3A%3Ax"},
		{"é ü → ✓", "é ü → ✓", "é ü → ✓"},
	} {
		if got := EscapeData(tc.in); got != tc.data {
			t.Errorf("EscapeData(%q) = %q, want %q", tc.in, got, tc.data)
		}
		if got := EscapeProperty(tc.in); got != tc.prop {
			t.Errorf("EscapeProperty(%q) = %q, want %q", tc.in, got, tc.prop)
		}
	}
}

// unescape is what the runner does with a command: it splits on the first
// "::" after the command, on ',' between properties and '=' in each, then
// decodes the escapes. Every annotation must come back as it went in.
func unescape(s string) string {
	return strings.NewReplacer("%25", "%", "%0D", "\r", "%0A", "\n", "%3A", ":", "%2C", ",").Replace(s)
}

func TestAnnotationRoundTrip(t *testing.T) {
	awkward := "odd, name: 100%\r\nsecond line::x"
	a := Annotation{Level: LevelError, File: awkward + ".json", Line: 3, Col: 7, Title: awkward, Message: awkward}
	line := a.String()
	if strings.ContainsAny(line, "\r\n") {
		t.Fatalf("a command must be one line: %q", line)
	}
	cmd, data, ok := strings.Cut(strings.TrimPrefix(line, "::"), "::")
	if !ok || !strings.HasPrefix(line, "::") {
		t.Fatalf("not a workflow command: %q", line)
	}
	if unescape(data) != awkward {
		t.Errorf("message comes back as %q", unescape(data))
	}
	level, props, _ := strings.Cut(cmd, " ")
	if level != "error" {
		t.Errorf("level %q", level)
	}
	got := map[string]string{}
	for _, p := range strings.Split(props, ",") {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			t.Fatalf("property %q of %q", p, line)
		}
		got[k] = unescape(v)
	}
	want := map[string]string{"file": awkward + ".json", "line": "3", "col": "7", "title": awkward}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("property %s = %q, want %q", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("properties %v", got)
	}
}

func TestAnnotationShapes(t *testing.T) {
	for _, tc := range []struct {
		a    Annotation
		want string
	}{
		{Annotation{Level: LevelNotice, Message: "done"}, "::notice::done"},
		{Annotation{Level: LevelNotice, Title: "bsadapter conform", Message: "3 cases"}, "::notice title=bsadapter conform::3 cases"},
		{Annotation{Level: LevelError, File: "a.json", Title: "snapshot mismatch", Message: "x"}, "::error file=a.json,title=snapshot mismatch::x"},
		{Annotation{Level: LevelWarning, File: "a.jsonl", Line: 2, Col: 1, Title: "a.jsonl#1", Message: "m"}, "::warning file=a.jsonl,line=2,col=1,title=a.jsonl#1::m"},
		// A line without a file means nothing to GitHub; it is left out.
		{Annotation{Level: LevelError, Line: 2, Message: "m"}, "::error::m"},
	} {
		if got := tc.a.String(); got != tc.want {
			t.Errorf("%+v:\n got %q\nwant %q", tc.a, got, tc.want)
		}
	}
}

// In a workflow, files are named from the repository's top; a file outside
// the workspace keeps its path.
func TestWriteGitHubWorkspace(t *testing.T) {
	ws := t.TempDir()
	inside := filepath.Join(ws, "adapter", "fixtures", "a.json")
	outside := filepath.Join(filepath.Dir(ws), "elsewhere.json")
	var b bytes.Buffer
	err := WriteGitHub(&b, []Annotation{
		{Level: LevelError, File: inside, Line: 1, Col: 1, Message: "in"},
		{Level: LevelError, File: outside, Message: "out"},
		{Level: LevelNotice, Message: "summary"},
	}, ws)
	if err != nil {
		t.Fatal(err)
	}
	want := "::error file=adapter/fixtures/a.json,line=1,col=1::in\n" +
		"::error file=" + EscapeProperty(outside) + "::out\n" +
		"::notice::summary\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
