package docgen

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// ManHeader is what the title line of every man page carries.
type ManHeader struct {
	// Version goes in the footer ("bsadapter 1.2.0").
	Version string
	// Date is the release date; pages are reproducible when it is fixed
	// (the release build passes the commit date).
	Date time.Time
}

// ManName is the file name of the man page documenting c, in section 1:
// "bsadapter blocks install" -> bsadapter-blocks-install.1.
func ManName(c *cobra.Command) string {
	return strings.ReplaceAll(c.CommandPath(), " ", "-") + ".1"
}

// Man renders one roff man page per command, from the same tree and the
// same help text as the Markdown pages.
func Man(root *cobra.Command, h ManHeader) Files {
	out := Files{}
	for _, c := range documented(root) {
		out[ManName(c)] = manPage(root, c, h)
	}
	return out
}

func manPage(root, c *cobra.Command, h ManHeader) []byte {
	var b bytes.Buffer
	name := strings.ReplaceAll(c.CommandPath(), " ", "-")
	version := h.Version
	if version == "" {
		version = "dev"
	}
	fmt.Fprintf(&b, ".TH %s 1 %s %s %s\n",
		roffQuote(strings.ToUpper(name)), roffQuote(h.Date.UTC().Format("2006-01-02")),
		roffQuote(root.Name()+" "+version), roffQuote(root.Name()+" manual"))
	b.WriteString(".SH NAME\n")
	fmt.Fprintf(&b, "%s \\- %s\n", roffText(name), roffText(c.Short))
	if c.Runnable() || c.HasAvailableSubCommands() {
		b.WriteString(".SH SYNOPSIS\n")
		fmt.Fprintf(&b, ".B %s\n", roffText(useLine(c)))
	}
	if c.Long != "" || c.Short != "" {
		b.WriteString(".SH DESCRIPTION\n")
		text := c.Long
		if text == "" {
			text = c.Short
		}
		writeRoffBlocks(&b, text)
	}
	writeRoffFlags(&b, "OPTIONS", flags(c.NonInheritedFlags()))
	writeRoffFlags(&b, "GLOBAL OPTIONS", flags(c.InheritedFlags()))
	if subs := visibleSubs(c); len(subs) > 0 {
		b.WriteString(".SH COMMANDS\n")
		for _, s := range subs {
			fmt.Fprintf(&b, ".TP\n.B %s\n%s\n", roffText(s.Name()), roffText(s.Short))
		}
	}
	if ex := examples(c); len(ex) > 0 {
		b.WriteString(".SH EXAMPLES\n.PP\n.RS\n.nf\n")
		for _, l := range ex {
			b.WriteString(roffText(l) + "\n")
		}
		b.WriteString(".fi\n.RE\n")
	}
	b.WriteString(".SH EXIT STATUS\n")
	b.WriteString("0 success; 1 the checks ran and something failed; 2 usage or environment error; 130 interrupted.\n")
	b.WriteString(".SH SEE ALSO\n")
	var see []string
	if c.HasParent() {
		see = append(see, fmt.Sprintf(".BR %s (1)", strings.ReplaceAll(c.Parent().CommandPath(), " ", "-")))
	}
	for _, s := range visibleSubs(c) {
		see = append(see, fmt.Sprintf(".BR %s (1)", strings.ReplaceAll(s.CommandPath(), " ", "-")))
	}
	for i, s := range see {
		if i < len(see)-1 {
			s += " ,"
		}
		b.WriteString(s + "\n")
	}
	return b.Bytes()
}

// writeRoffBlocks renders paragraphs as filled text and the author's
// indented blocks as no-fill, so tables of codes keep their columns.
func writeRoffBlocks(b *bytes.Buffer, text string) {
	for _, bl := range splitBlocks(text) {
		b.WriteString(".PP\n")
		if bl.pre {
			b.WriteString(".RS\n.nf\n")
		}
		for _, l := range bl.lines {
			b.WriteString(roffText(l) + "\n")
		}
		if bl.pre {
			b.WriteString(".fi\n.RE\n")
		}
	}
}

func writeRoffFlags(b *bytes.Buffer, title string, fl []*pflag.Flag) {
	if len(fl) == 0 {
		return
	}
	b.WriteString(".SH " + title + "\n")
	for _, f := range fl {
		fmt.Fprintf(b, ".TP\n.B %s\n", roffText(flagSpec(f)))
		usage := flagUsage(f)
		if def := flagDefault(f); def != "" {
			usage += " (default " + def + ")"
		}
		b.WriteString(roffText(usage) + "\n")
	}
}

// roffText escapes a line of text for roff: backslashes, and minus signs
// (which roff would otherwise print as hyphens, breaking copy and paste of
// flags); a line starting with a dot or quote would be a request.
func roffText(s string) string {
	s = printable(s)
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// roffQuote makes a double-quoted macro argument.
func roffQuote(s string) string {
	return `"` + strings.ReplaceAll(roffText(s), `"`, `\(dq`) + `"`
}
