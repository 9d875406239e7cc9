package docgen

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/internal/testenv"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestCommittedPagesMatchCode is the drift test: docs/commands must be
// exactly what the command tree renders today.
func TestCommittedPagesMatchCode(t *testing.T) {
	dir := filepath.Join(testenv.RepoRoot(t), "docs", "commands")
	problems, err := Diff(dir, ".md", Markdown(Root()))
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) > 0 {
		t.Fatalf("docs/commands drifted from the command tree:\n  %s\nregenerate with: go run ./internal/cmd/docgen",
			strings.Join(problems, "\n  "))
	}
}

// TestEveryCommandAndFlagIsDocumented walks the tree independently of the
// renderer and checks that each runnable command has a Markdown page and a
// man page that name every one of its flags.
func TestEveryCommandAndFlagIsDocumented(t *testing.T) {
	root := Root()
	md := Markdown(root)
	man := Man(root, ManHeader{Version: "1.0.0", Date: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)})
	var walk func(c *cobra.Command)
	count := 0
	walk = func(c *cobra.Command) {
		for _, s := range c.Commands() {
			if !s.IsAvailableCommand() || s.Name() == "help" {
				continue
			}
			count++
			page, ok := md[MarkdownName(s)]
			if !ok {
				t.Errorf("%q has no Markdown page", s.CommandPath())
			}
			mp, ok := man[ManName(s)]
			if !ok {
				t.Errorf("%q has no man page", s.CommandPath())
			}
			if !bytes.Contains(md[IndexPage], []byte("("+MarkdownName(s)+")")) {
				t.Errorf("the index does not link %s", MarkdownName(s))
			}
			s.LocalFlags().VisitAll(func(f *pflag.Flag) {
				if f.Hidden || f.Name == "help" {
					return
				}
				if !bytes.Contains(page, []byte("`--"+f.Name)) && !bytes.Contains(page, []byte(", --"+f.Name)) {
					t.Errorf("%s does not document --%s", MarkdownName(s), f.Name)
				}
				if !bytes.Contains(mp, []byte(`\-\-`+roffText(f.Name))) {
					t.Errorf("%s does not document --%s", ManName(s), f.Name)
				}
			})
			walk(s)
		}
	}
	walk(root)
	if count < 3 {
		t.Fatalf("only %d commands found in the tree; the generator is not seeing the real command tree", count)
	}
}

// TestDiffReportsEveryKindOfDrift checks that the drift test can fail: a
// stale page, a missing page and a page left over from a removed command.
func TestDiffReportsEveryKindOfDrift(t *testing.T) {
	dir := t.TempDir()
	pages := Markdown(Root())
	if err := Write(dir, ".md", pages, true); err != nil {
		t.Fatal(err)
	}
	if p, err := Diff(dir, ".md", pages); err != nil || len(p) != 0 {
		t.Fatalf("freshly written pages differ: %v %v", p, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "version.md"), []byte("edited by hand\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "schema.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "removed-command.md"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	problems, err := Diff(dir, ".md", pages)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"schema.md is missing", "version.md is out of date", "removed-command.md documents no command"}
	got := strings.Join(problems, "\n")
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("Diff did not report %q; it reported:\n%s", w, got)
		}
	}
	// Writing with prune repairs all three.
	if err := Write(dir, ".md", pages, true); err != nil {
		t.Fatal(err)
	}
	if p, _ := Diff(dir, ".md", pages); len(p) != 0 {
		t.Fatalf("after Write with prune: %v", p)
	}
}

// TestManPagesAreCleanRoff runs groff in warning mode over every page:
// a bad escape or an unknown request is reported as a warning.
func TestManPagesAreCleanRoff(t *testing.T) {
	groff, err := exec.LookPath("groff")
	if err != nil {
		testenv.Missing(t, "groff is not on PATH (apt-get install groff-base)")
	}
	dir := t.TempDir()
	pages := Man(Root(), ManHeader{Version: "1.0.0", Date: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)})
	if err := Write(dir, ".1", pages, false); err != nil {
		t.Fatal(err)
	}
	for _, name := range pages.Names() {
		var out bytes.Buffer
		cmd := exec.Command(groff, "-man", "-ww", "-z", filepath.Join(dir, name))
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil || out.Len() > 0 {
			t.Errorf("%s: groff: %v\n%s", name, err, out.String())
		}
		if !bytes.HasPrefix(pages[name], []byte(`.TH "BSADAPTER`)) || !bytes.Contains(pages[name], []byte(`"2026\-01\-02" "bsadapter 1.0.0"`)) {
			t.Errorf("%s: title line lacks the name, date or version:\n%s", name, bytes.SplitN(pages[name], []byte("\n"), 2)[0])
		}
	}
}

// TestCompletionScriptsLoad sources the bash script in a real bash and
// checks that it registers a completion for bsadapter.
func TestCompletionScriptsLoad(t *testing.T) {
	scripts, err := Completions(Root())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"bsadapter.bash", "_bsadapter", "bsadapter.fish", "bsadapter.ps1"} {
		if !bytes.Contains(scripts[name], []byte("bsadapter")) {
			t.Errorf("%s does not mention bsadapter", name)
		}
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		testenv.Missing(t, "bash is not on PATH")
	}
	f := filepath.Join(t.TempDir(), "bsadapter.bash")
	if err := os.WriteFile(f, scripts["bsadapter.bash"], 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bash, "-c", `source "$1" && complete -p bsadapter`, "bash", f).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "bsadapter") {
		t.Fatalf("sourcing the bash completion: %v\n%s", err, out)
	}
}

func TestSplitBlocksKeepsIndentedTables(t *testing.T) {
	text := "Intro line one\nline two\n\n  0   ok\n  1   failed,\n      wrapped\n\n  2   usage\nAfter.\n"
	got := splitBlocks(text)
	if len(got) != 3 {
		t.Fatalf("want 3 blocks (paragraph, table, paragraph), got %d: %+v", len(got), got)
	}
	if got[0].pre || !got[1].pre || got[2].pre {
		t.Fatalf("wrong block kinds: %+v", got)
	}
	wantTable := []string{"0   ok", "1   failed,", "    wrapped", "", "2   usage"}
	if strings.Join(got[1].lines, "|") != strings.Join(wantTable, "|") {
		t.Fatalf("table block = %q, want %q", got[1].lines, wantTable)
	}
}

func TestMarkdownEscaping(t *testing.T) {
	cases := map[string]string{
		`prints "bsadapter: <msg>"`: `prints "bsadapter: \<msg\>"`,
		"uses BSADAPTER_DSN":        "uses BSADAPTER_DSN",
		"a *star* and _under_":      `a \*star\* and \_under\_`,
		"keeps `<code>` and `a*b`":  "keeps `<code>` and `a*b`",
		"# not a heading":           `\# not a heading`,
		`C:\path`:                   `C:\\path`,
	}
	for in, want := range cases {
		if got := mdText(in); got != want {
			t.Errorf("mdText(%q) = %q, want %q", in, got, want)
		}
	}
	if got := mdCell("a | b\n c"); got != `a \| b c` {
		t.Errorf("mdCell = %q", got)
	}
}

func TestRoffEscaping(t *testing.T) {
	cases := map[string]string{
		"--format json": `\-\-format json`,
		`a\b`:           `a\eb`,
		".starts":       `\&.starts`,
		"'quote":        `\&'quote`,
	}
	for in, want := range cases {
		if got := roffText(in); got != want {
			t.Errorf("roffText(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestGoreleaserManListMatchesCode: the Homebrew cask installs exactly the
// man pages the release archives hold.
func TestGoreleaserManListMatchesCode(t *testing.T) {
	path := filepath.Join(testenv.RepoRoot(t), ".goreleaser.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ReplaceBetween(data, BeginManList, EndManList, ManList(Root()))
	if err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	if !bytes.Equal(want, data) {
		t.Fatalf(".goreleaser.yaml: the cask's man page list drifted from the commands; regenerate with: go run ./internal/cmd/docgen")
	}
}

func TestReplaceBetween(t *testing.T) {
	in := "a:\n  list:\n    # B\n    - old\n    # E\nz: 1\n"
	got, err := ReplaceBetween([]byte(in), "# B", "# E", []string{"- x", "- y"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "a:\n  list:\n    # B\n    - x\n    - y\n    # E\nz: 1\n"; string(got) != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if _, err := ReplaceBetween([]byte("no markers"), "# B", "# E", nil); err == nil {
		t.Fatal("missing markers were not reported")
	}
	if _, err := ReplaceBetween([]byte("x # B\n# E\n"), "# B", "# E", nil); err == nil {
		t.Fatal("a marker in the middle of a line was accepted")
	}
}
