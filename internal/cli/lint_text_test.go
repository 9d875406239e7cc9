package cli

import (
	"bytes"
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
