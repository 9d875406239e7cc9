package docgen

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// IndexPage is the name of the Markdown page of the root command, which is
// also the index of all commands (GitHub shows a folder's README.md).
const IndexPage = "README.md"

// generatedNote heads every page so that nobody edits one by hand and
// loses the edit at the next regeneration.
const generatedNote = "<!-- Generated from the command tree by 'go run ./internal/cmd/docgen'. Do not edit. -->\n\n"

// MarkdownName is the file name of the page documenting c.
func MarkdownName(c *cobra.Command) string {
	if !c.HasParent() {
		return IndexPage
	}
	return pageBase(c) + ".md"
}

// Markdown renders one GitHub-flavoured Markdown page per command: the
// root's page is the index (README.md), every other command gets
// "<path-with-dashes>.md" ("blocks install" -> blocks-install.md).
func Markdown(root *cobra.Command) Files {
	out := Files{}
	for _, c := range documented(root) {
		out[MarkdownName(c)] = markdownPage(root, c)
	}
	return out
}

func markdownPage(root, c *cobra.Command) []byte {
	var b bytes.Buffer
	b.WriteString(generatedNote)
	if c == root {
		fmt.Fprintf(&b, "# %s command reference\n\n", c.Name())
	} else {
		fmt.Fprintf(&b, "# %s\n\n", c.CommandPath())
	}
	if c.Short != "" {
		fmt.Fprintf(&b, "%s.\n\n", strings.TrimSuffix(mdText(c.Short), "."))
	}
	if c.Runnable() || c.HasAvailableSubCommands() {
		b.WriteString("```text\n" + useLine(c) + "\n```\n\n")
	}
	if c.Long != "" {
		writeMarkdownBlocks(&b, c.Long)
	}
	if ex := examples(c); len(ex) > 0 {
		b.WriteString("## Examples\n\n```sh\n" + strings.Join(ex, "\n") + "\n```\n\n")
	}
	if subs := visibleSubs(c); len(subs) > 0 {
		if c == root {
			b.WriteString("## Commands\n\n")
		} else {
			b.WriteString("## Subcommands\n\n")
		}
		b.WriteString("| Command | What it does |\n| --- | --- |\n")
		var walk func(cs []*cobra.Command)
		walk = func(cs []*cobra.Command) {
			for _, s := range cs {
				fmt.Fprintf(&b, "| [`%s`](%s) | %s |\n", strings.TrimPrefix(s.CommandPath(), root.Name()+" "), MarkdownName(s), mdCell(s.Short))
				// The index lists the whole tree; a command page only its
				// direct children.
				if c == root {
					walk(visibleSubs(s))
				}
			}
		}
		walk(subs)
		b.WriteString("\n")
	}
	writeFlagTable(&b, "Flags", flags(c.NonInheritedFlags()))
	writeFlagTable(&b, "Global flags", flags(c.InheritedFlags()))
	b.WriteString("## See also\n\n")
	if c == root {
		b.WriteString("- Every command takes `-h`, `--help` and prints its usage.\n")
		b.WriteString("- [Exit codes](../exit-codes.md): the same for every command and every `--format`.\n")
		b.WriteString("- [Environment variables](../environment.md)\n")
		b.WriteString("- [The documentation index](../README.md)\n")
	} else {
		p := c.Parent()
		title := "`" + p.CommandPath() + "`"
		if p == root {
			title = "the command reference"
		}
		fmt.Fprintf(&b, "- [%s](%s)\n", title, MarkdownName(p))
		b.WriteString("- [Exit codes](../exit-codes.md)\n")
	}
	return append(bytes.TrimRight(b.Bytes(), "\n"), '\n')
}

// writeMarkdownBlocks renders plain help text: paragraphs stay paragraphs,
// lines the author indented become a preformatted block.
func writeMarkdownBlocks(b *bytes.Buffer, text string) {
	for _, bl := range splitBlocks(text) {
		if bl.pre {
			b.WriteString("```text\n" + strings.Join(bl.lines, "\n") + "\n```\n\n")
			continue
		}
		for i, l := range bl.lines {
			if i > 0 {
				b.WriteString("\n")
			}
			b.WriteString(mdText(l))
		}
		b.WriteString("\n\n")
	}
}

func writeFlagTable(b *bytes.Buffer, title string, fl []*pflag.Flag) {
	if len(fl) == 0 {
		return
	}
	fmt.Fprintf(b, "## %s\n\n| Flag | Default | Description |\n| --- | --- | --- |\n", title)
	for _, f := range fl {
		def := flagDefault(f)
		if def != "" {
			def = "`" + strings.ReplaceAll(def, "|", "\\|") + "`"
		}
		fmt.Fprintf(b, "| `%s` | %s | %s |\n", strings.ReplaceAll(flagSpec(f), "|", "\\|"), def, mdCell(flagUsage(f)))
	}
	b.WriteString("\n")
}

// mdText escapes what GitHub would otherwise swallow or reinterpret in
// help text written for a terminal: "<name>" would vanish as an HTML tag
// and "*" would start emphasis. Back-quoted code is kept as it is.
func mdText(s string) string {
	s = printable(s)
	var out strings.Builder
	inCode := false
	for i, r := range s {
		switch {
		case r == '`':
			inCode = !inCode
			out.WriteRune(r)
		case inCode:
			out.WriteRune(r)
		case r == '\\' || r == '<' || r == '>' || r == '*' || r == '_' && wordBoundary(s, i):
			out.WriteByte('\\')
			out.WriteRune(r)
		case r == '#' && i == 0:
			out.WriteString("\\#")
		default:
			out.WriteRune(r)
		}
	}
	return out.String()
}

// wordBoundary says whether the underscore at i could open or close
// emphasis (GitHub ignores underscores inside words like BSADAPTER_DSN).
func wordBoundary(s string, i int) bool {
	isWord := func(j int) bool {
		if j < 0 || j >= len(s) {
			return false
		}
		c := s[j]
		return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	return !isWord(i-1) || !isWord(i+1)
}

// mdCell is mdText for a table cell, where "|" ends the cell.
func mdCell(s string) string {
	return strings.ReplaceAll(mdText(strings.Join(strings.Fields(s), " ")), "|", "\\|")
}
