package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/internal/fixtures"
	"github.com/bsadapter/bsadapter/internal/report"
)

// The text report: the summary, the coverage table, then bad files,
// failures and warnings in full, passes only with -v.
func TestWriteFixturesText(t *testing.T) {
	rep := &fixtures.Report{
		Mode:     fixtures.ModeCanonical,
		Summary:  fixtures.Summary{Files: 2, Messages: 3, Passed: 2, Failed: 1, Warnings: 1, FileErrors: 1},
		Coverage: []fixtures.PartCount{{Type: "text", Count: 12}, {Type: "file", Count: 0, Required: true}},
		FileErrors: []*fixtures.FileError{{File: "b.json", Line: 1, Col: 1, Msg: "the file starts with a UTF-8 byte-order mark",
			Hint: "save it without one"}},
		MissingParts: []string{"file"},
		Results: []*fixtures.Result{
			{Name: "a.jsonl#0", File: "a.jsonl", Line: 1, Col: 1, Status: fixtures.StatusPassed},
			{Name: "a.jsonl#1", File: "a.jsonl", Line: 2, Col: 1, Status: fixtures.StatusFailed,
				Problems: []fixtures.Problem{{Pointer: "/parts/0/colour", Rule: `unknown key "colour"`}}},
			{Name: "a.jsonl#2", File: "a.jsonl", Line: 3, Col: 1, Status: fixtures.StatusPassed,
				Warnings: []fixtures.Change{{Pointer: "/id", Op: "changed", Before: `"a"`, After: `"b"`}}},
		},
	}
	want := `3 messages in 2 files: 2 passed, 1 failed, 1 with warnings; 1 file error

part coverage
  text                12
  file                 0 (required) never produced

BAD FILE b.json:1:1: the file starts with a UTF-8 byte-order mark
  hint: save it without one
FAIL a.jsonl#1 (a.jsonl:2:1)
  not a valid AiMessage (ai-message-v1):
    /parts/0/colour: unknown key "colour"
WARN a.jsonl#2 (a.jsonl:3:1)
  warning: the round trip changed:
    /id
      - "a"
      + "b"
`
	var b bytes.Buffer
	if err := writeFixturesText(&b, rep, false, report.Plain{}); err != nil {
		t.Fatal(err)
	}
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	writeFixturesText(&b, rep, true, report.Plain{})
	if !bytes.Contains(b.Bytes(), []byte("\nok   a.jsonl#0\n")) {
		t.Errorf("-v does not list the pass:\n%s", b.String())
	}
}

// File names reach the text report with their control characters
// escaped: a newline cannot split a report line, an escape sequence
// cannot act on the terminal.
func TestWriteFixturesTextEscapesNames(t *testing.T) {
	bad := "a\nFAIL forged\x1b[2J\u202e.json"
	rep := &fixtures.Report{
		Mode:       fixtures.ModeCanonical,
		Summary:    fixtures.Summary{Files: 2, Messages: 1, Failed: 1, FileErrors: 1},
		FileErrors: []*fixtures.FileError{{File: bad, Msg: "the file is empty"}},
		Results: []*fixtures.Result{{Name: bad + "#0", File: bad, Line: 1, Col: 1, Status: fixtures.StatusFailed,
			Problems: []fixtures.Problem{{Pointer: "/role", Rule: "must be a string"}}}},
		Snapshots: []fixtures.SnapshotNote{{File: bad, Action: "error", Detail: "cannot read " + bad}},
	}
	var b bytes.Buffer
	if err := writeFixturesText(&b, rep, false, report.Plain{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	const esc = `a\nFAIL forged\x1b[2J\u202e.json`
	for _, want := range []string{
		"\nBAD FILE " + esc + ": the file is empty\n",
		"\nFAIL " + esc + "#0 (" + esc + ":1:1)\n",
		"\nsnapshot error: " + esc + " — cannot read " + esc + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if strings.ContainsAny(out, "\x1b\u202e") || strings.Contains(out, "\nFAIL forged") {
		t.Errorf("raw control characters in:\n%q", out)
	}
	if got := termSafe("plain/été 日本.json"); got != "plain/été 日本.json" {
		t.Errorf("a clean name changed: %q", got)
	}
	if got := termSafe("bad\xffbyte"); got != `bad\xffbyte` {
		t.Errorf("invalid UTF-8: %q", got)
	}
}
