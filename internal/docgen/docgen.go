// Package docgen renders the reference documentation of bsadapter from its
// cobra command tree: one Markdown page per command (docs/commands, read on
// GitHub), one man page per command (shipped in the release archives) and
// the shell completion scripts. Deriving all of them from the tree that the
// binary itself runs is what keeps them from drifting; a test in this
// package fails when the committed pages no longer match the code.
//
// Regenerate the committed pages with:
//
//	go run ./internal/cmd/docgen
//
// The package renders into memory (file name -> contents) and leaves
// writing to its caller, so the drift test and the generator share every
// byte of the rendering. Its tests also hold the hand-written pages under
// docs/ to the code: the bridge protocol's example bridge and exchange
// run, every environment variable and exit code is documented, and every
// relative link resolves.
package docgen

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/bsadapter/bsadapter/internal/cli"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Files maps a file name (no folder) to its contents.
type Files map[string][]byte

// Names returns the file names in sorted order.
func (f Files) Names() []string {
	names := make([]string, 0, len(f))
	for n := range f {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Root builds bsadapter's command tree the way the binary does, with a
// neutral environment (no variables, no terminal) so that nothing of the
// machine running the generator leaks into the pages, and with the
// completion command cobra would otherwise add only at execution time.
func Root() *cobra.Command {
	app := &cli.App{Stdio: cli.Stdio{
		In:  strings.NewReader(""),
		Out: io.Discard,
		Err: io.Discard,
		Env: func(string) (string, bool) { return "", false },
	}}
	root := cli.NewRootCmd(app)
	root.InitDefaultCompletionCmd()
	return root
}

// documented lists the commands that get a page, root first, then depth
// first in name order: every available command and every help topic,
// but not cobra's own "help" command.
func documented(root *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		out = append(out, c)
		subs := append([]*cobra.Command(nil), c.Commands()...)
		sort.Slice(subs, func(i, j int) bool { return subs[i].Name() < subs[j].Name() })
		for _, s := range subs {
			if s.Name() == "help" && s.Parent() == root {
				continue
			}
			if s.IsAvailableCommand() || s.IsAdditionalHelpTopicCommand() {
				walk(s)
			}
		}
	}
	walk(root)
	return out
}

// pageBase is the file name of a command's page without extension:
// "bsadapter blocks install" -> "blocks-install"; the root's is "".
func pageBase(c *cobra.Command) string {
	path := strings.Fields(c.CommandPath())
	return strings.Join(path[1:], "-")
}

// flags returns the flags to document, without the help flag every
// command has (the index page says so once).
func flags(fs *pflag.FlagSet) []*pflag.Flag {
	var out []*pflag.Flag
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Name == "help" {
			return
		}
		out = append(out, f)
	})
	return out
}

// flagSpec renders "-f, --format string" from a flag.
func flagSpec(f *pflag.Flag) string {
	name, _ := pflag.UnquoteUsage(f)
	spec := "--" + f.Name
	if f.Shorthand != "" && f.ShorthandDeprecated == "" {
		spec = "-" + f.Shorthand + ", " + spec
	}
	if name != "" {
		spec += " " + name
	}
	// A flag that may be given bare ("--storage" alone) shows the value
	// it then takes, as cobra's own help does.
	if f.NoOptDefVal != "" && f.Value.Type() != "bool" && f.Value.Type() != "count" {
		spec += `[="` + printable(f.NoOptDefVal) + `"]`
	}
	return spec
}

// printable drops control characters, which some commands use as
// sentinels in flag defaults and which neither Markdown nor roff shows.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) && r != '\n' && r != '\t' {
			return -1
		}
		return r
	}, s)
}

// flagUsage is the flag's description without the back-quoted value name
// pflag lifts out of it.
func flagUsage(f *pflag.Flag) string {
	_, usage := pflag.UnquoteUsage(f)
	return usage
}

// flagDefault is the default worth showing, or "" for zero values.
func flagDefault(f *pflag.Flag) string {
	switch f.DefValue {
	case "", "false", "0", "[]", "<nil>":
		return ""
	}
	if f.Value.Type() == "string" {
		return fmt.Sprintf("%q", f.DefValue)
	}
	return f.DefValue
}

// blocks splits plain help text into paragraphs and preformatted blocks
// (lines indented by the author, like a table of exit codes), so that each
// output format can render them faithfully.
type block struct {
	pre   bool
	lines []string
}

func splitBlocks(text string) []block {
	var out []block
	var cur *block
	flush := func() {
		if cur != nil && len(cur.lines) > 0 {
			out = append(out, *cur)
		}
		cur = nil
	}
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		line = strings.TrimRight(line, " \t")
		if line == "" {
			// A blank line inside an indented block stays in it when the
			// block continues after it; decided when the next line comes.
			if cur != nil && cur.pre {
				cur.lines = append(cur.lines, "")
				continue
			}
			flush()
			continue
		}
		indented := strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")
		if cur == nil || indented != cur.pre {
			if cur != nil && cur.pre && !indented {
				trimTrailingBlank(cur)
			}
			flush()
			cur = &block{pre: indented}
		}
		cur.lines = append(cur.lines, line)
	}
	if cur != nil && cur.pre {
		trimTrailingBlank(cur)
	}
	flush()
	// Drop the common indentation of preformatted blocks.
	for i := range out {
		if out[i].pre {
			out[i].lines = dedent(out[i].lines)
		}
	}
	return out
}

func trimTrailingBlank(b *block) {
	for len(b.lines) > 0 && b.lines[len(b.lines)-1] == "" {
		b.lines = b.lines[:len(b.lines)-1]
	}
}

func dedent(lines []string) []string {
	min := -1
	for _, l := range lines {
		if l == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if min < 0 || n < min {
			min = n
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if len(l) >= min {
			out[i] = l[min:]
		}
	}
	return out
}

// examples returns the example lines without their common indentation.
func examples(c *cobra.Command) []string {
	if !c.HasExample() {
		return nil
	}
	return dedent(strings.Split(strings.TrimRight(c.Example, "\n"), "\n"))
}

// useLine is cobra's usage line, with "[command]" for a command that only
// groups others (cobra prints just the name for those).
func useLine(c *cobra.Command) string {
	if !c.Runnable() && c.HasAvailableSubCommands() {
		return c.CommandPath() + " [command]"
	}
	return c.UseLine()
}

// visibleSubs returns the commands listed under c: available commands
// and help topics, without "help".
func visibleSubs(c *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	for _, s := range c.Commands() {
		if s.Name() == "help" {
			continue
		}
		if s.IsAvailableCommand() || s.IsAdditionalHelpTopicCommand() {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// Diff compares files with the folder dir and describes every difference:
// a page that is missing, stale, or left over from a removed command. Only
// files with the given extension are considered in dir.
func Diff(dir, ext string, files Files) ([]string, error) {
	var problems []string
	for _, name := range files.Names() {
		have, err := os.ReadFile(filepath.Join(dir, name))
		switch {
		case os.IsNotExist(err):
			problems = append(problems, fmt.Sprintf("%s is missing", name))
		case err != nil:
			return nil, err
		case !bytes.Equal(have, files[name]):
			problems = append(problems, fmt.Sprintf("%s is out of date", name))
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ext) {
			continue
		}
		if _, ok := files[e.Name()]; !ok {
			problems = append(problems, fmt.Sprintf("%s documents no command and should be removed", e.Name()))
		}
	}
	return problems, nil
}

// Write writes files into dir (creating it) and, when prune is set,
// removes the files with extension ext that files does not contain, so
// that a removed command loses its page.
func Write(dir, ext string, files Files, prune bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, name := range files.Names() {
		if err := os.WriteFile(filepath.Join(dir, name), files[name], 0o644); err != nil {
			return err
		}
	}
	if !prune {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ext) {
			continue
		}
		if _, ok := files[e.Name()]; !ok {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// Completions renders the shell completion scripts for bash, zsh, fish
// and PowerShell, named the way each shell's completion folder expects.
func Completions(root *cobra.Command) (Files, error) {
	out := Files{}
	gens := []struct {
		name string
		gen  func(io.Writer) error
	}{
		{"bsadapter.bash", func(w io.Writer) error { return root.GenBashCompletionV2(w, true) }},
		{"_bsadapter", root.GenZshCompletion},
		{"bsadapter.fish", func(w io.Writer) error { return root.GenFishCompletion(w, true) }},
		{"bsadapter.ps1", root.GenPowerShellCompletionWithDesc},
	}
	for _, g := range gens {
		var buf bytes.Buffer
		if err := g.gen(&buf); err != nil {
			return nil, fmt.Errorf("%s: %w", g.name, err)
		}
		out[g.name] = buf.Bytes()
	}
	return out, nil
}

// Markers around the generated man page list in .goreleaser.yaml. The
// Homebrew cask must name every man page; the list changes with the
// commands, so docgen writes it and the drift test checks it.
const (
	BeginManList = "# BEGIN manpages (docgen)"
	EndManList   = "# END manpages (docgen)"
)

// ManList returns the YAML list items naming every man page as it sits
// in the release archive ("- manpages/bsadapter.1").
func ManList(root *cobra.Command) []string {
	var out []string
	for _, c := range documented(root) {
		out = append(out, "- manpages/"+ManName(c))
	}
	sort.Strings(out)
	return out
}

// ReplaceBetween replaces the lines between the begin and end marker
// lines of content with lines, indented like the begin marker.
func ReplaceBetween(content []byte, begin, end string, lines []string) ([]byte, error) {
	text := string(content)
	bi := strings.Index(text, begin)
	if bi < 0 {
		return nil, fmt.Errorf("marker %q not found", begin)
	}
	ei := strings.Index(text[bi:], end)
	if ei < 0 {
		return nil, fmt.Errorf("marker %q not found after %q", end, begin)
	}
	ei += bi
	lineStart := strings.LastIndex(text[:bi], "\n") + 1
	indent := text[lineStart:bi]
	if strings.TrimSpace(indent) != "" {
		return nil, fmt.Errorf("marker %q must start its line", begin)
	}
	endLineStart := strings.LastIndex(text[:ei], "\n") + 1
	var b strings.Builder
	b.WriteString(text[:bi+len(begin)])
	b.WriteString("\n")
	for _, l := range lines {
		b.WriteString(indent + l + "\n")
	}
	b.WriteString(text[endLineStart:])
	return []byte(b.String()), nil
}
