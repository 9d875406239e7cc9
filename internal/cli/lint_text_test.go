package cli

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/internal/lint"
	"github.com/bsadapter/bsadapter/internal/report"
)

// The text report: each finding with its chain, evidence and fix; with
// -v the suppressed ones, unused ignore comments and the target too.
func TestWriteLintText(t *testing.T) {
	rep := &lint.Report{
		Root:   "/srv/acme-adapter",
		Target: lint.Target{Kind: "package", Name: "acme", SDKs: []string{"@acme/sdk"}, Entries: []string{"src/index.ts"}},
		Files:  3,
		Findings: []lint.Finding{{
			Rule: "sdk-eager-import", File: "src/b.ts", Line: 1, Column: 19, Message: "a static import of @acme/sdk loads the SDK",
			Chain: []lint.Link{
				{File: "src/index.ts", Line: 2, Column: 25, Import: "./b.js"},
				{File: "src/b.ts", Line: 1, Column: 19, Import: "@acme/sdk"},
			},
			Evidence: `import { X } from "@acme/sdk";`, Fix: "import it lazily",
		}},
		Suppressed:    []lint.Finding{{Rule: "no-sql-statement", File: "src/c.ts", Line: 4, Column: 7, Message: "a SQL statement", Reason: "a probe"}},
		UnusedIgnores: []lint.Ignore{{File: "src/d.ts", Line: 9, Column: 1, Rule: "token-option", Reason: "old"}},
	}
	want := `src/b.ts:1:19: sdk-eager-import a static import of @acme/sdk loads the SDK
    chain:
      src/index.ts:2:25 imports ./b.js
      src/b.ts:1:19 imports @acme/sdk
    | import { X } from "@acme/sdk";
    fix: import it lazily
1 finding in 3 files (1 suppressed)
`
	var b bytes.Buffer
	if err := writeLintText(&b, rep, lint.Paths{Base: "/srv/acme-adapter"}, false, report.Plain{}); err != nil {
		t.Fatal(err)
	}
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	writeLintText(&b, rep, lint.Paths{Base: "/elsewhere"}, true, report.Plain{})
	for _, line := range []string{
		"/srv/acme-adapter/src/b.ts:1:19: sdk-eager-import ",
		"/srv/acme-adapter/src/c.ts:4:7: no-sql-statement (suppressed: a probe)\n    a SQL statement\n",
		"/srv/acme-adapter/src/d.ts:9:1: this ignore comment for token-option silences nothing; remove it\n",
		"package acme, SDK @acme/sdk, entries src/index.ts\n",
	} {
		if !bytes.Contains(b.Bytes(), []byte(line)) {
			t.Errorf("verbose output lacks %q:\n%s", line, b.String())
		}
	}
}

// File names and text from the adapter's files reach the terminal with
// their control characters escaped: a newline in a name does not split a
// report line, an escape sequence is not sent. A long chain shows where
// its middle was left out.
func TestWriteLintTextEscapes(t *testing.T) {
	odd := "src/a\n\x1b[31mb\u202e.ts"
	chain := []lint.Link{{File: "src/index.ts", Line: 1, Column: 1, Import: "./a\n\x1b[31mb.js"}}
	for i := range 19 {
		chain = append(chain, lint.Link{File: fmt.Sprintf("src/c%d.ts", i), Line: 1, Column: 1, Import: "./next.js"})
	}
	chain[19].File = odd
	rep := &lint.Report{
		Root:  "/srv/acme",
		Files: 2,
		Findings: []lint.Finding{{
			Rule: "sdk-eager-import", File: odd, Line: 1, Column: 19,
			Message:      "a static import of @acme/sdk (reached from src/index.ts through 30 imports)",
			Chain:        chain,
			ChainOmitted: 11,
			Evidence:     "import \x1b]0;title\x07{ X } from \"@acme/sdk\";",
			Fix:          "load it lazily",
		}},
		Suppressed: []lint.Finding{{Rule: "no-sql-statement", File: odd, Line: 4, Column: 7, Message: "a SQL statement", Reason: "a\x1b[2Jprobe"}},
	}
	var b bytes.Buffer
	if err := writeLintText(&b, rep, lint.Paths{Base: "/srv/acme"}, true, report.Plain{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, c := range out {
		if c != '\n' && (c < ' ' || c == 0x7f || c == '\u202e') {
			t.Fatalf("the output holds the character %U:\n%s", c, out)
		}
	}
	for _, want := range []string{
		`"src/a\n\x1b[31mb\u202e.ts":1:19: sdk-eager-import a static import`,
		`      src/index.ts:1:1 imports ./a\n\x1b[31mb.js` + "\n",
		"      src/c8.ts:1:1 imports ./next.js\n      ... 11 more imports ...\n      src/c9.ts:1:1 imports ./next.js\n",
		`    | import \x1b]0;title\x07{ X } from "@acme/sdk";` + "\n",
		`(suppressed: a\x1b[2Jprobe)`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	// One line each: the finding, "chain:", 20 links and the gap, the
	// excerpt, the fix; the suppressed finding's two; the target; the
	// summary.
	if n := strings.Count(out, "\n"); n != 1+1+21+1+1+2+1+1 {
		t.Errorf("%d lines:\n%s", n, out)
	}

	b.Reset()
	if err := report.WriteGitHub(&b, rep.Annotations(), "/srv/acme"); err != nil {
		t.Fatal(err)
	}
	out = b.String()
	if strings.ContainsAny(out, "\x1b\u202e") || strings.Count(out, "\n") != 2 {
		t.Errorf("annotations:\n%q", out)
	}
	if !strings.Contains(out, `::error file=src/a\n\x1b[31mb\u202e.ts,line=1`) || !strings.Contains(out, "src/c8.ts:1 -> (11 more) -> src/c9.ts:1") {
		t.Errorf("annotations:\n%s", out)
	}
}
