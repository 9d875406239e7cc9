package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/bsadapter/bsadapter/internal/lint"
	"github.com/bsadapter/bsadapter/internal/report"
)

// writeLintText writes lint's findings for people: "file:line:col: rule
// message", then the chain, the source line and the fix; with verbose,
// the suppressed findings with their reasons, the unused ignore comments
// and what was linted; then the summary line. File names with characters
// that do not print are quoted, and such characters in text taken from
// the adapter's files are escaped: none reaches the terminal.
func writeLintText(w io.Writer, r *lint.Report, paths lint.Paths, verbose bool, p report.Painter) error {
	var b strings.Builder
	name := func(file string) string { return lint.SafeName(paths.Name(r, file)) }
	text := lint.SafeText
	write := func(f lint.Finding, suppressed bool) {
		head := fmt.Sprintf("%s:%d:%d: %s", name(f.File), f.Line, f.Column, f.Rule)
		if suppressed {
			fmt.Fprintf(&b, "%s %s\n    %s\n", p.Dim(head), p.Dim("(suppressed: "+text(f.Reason)+")"), p.Dim(text(f.Message)))
			return
		}
		fmt.Fprintf(&b, "%s %s\n", p.Bold(head), text(f.Message))
		if len(f.Chain) > 1 {
			b.WriteString("    chain:\n")
			for i, l := range f.Chain {
				if f.ChainOmitted > 0 && i == len(f.Chain)/2 {
					fmt.Fprintf(&b, "      %s\n", p.Dim(fmt.Sprintf("... %d more imports ...", f.ChainOmitted)))
				}
				fmt.Fprintf(&b, "      %s:%d:%d imports %s\n", name(l.File), l.Line, l.Column, text(l.Import))
			}
		}
		if f.Evidence != "" {
			fmt.Fprintf(&b, "    %s %s\n", p.Dim("|"), text(f.Evidence))
		}
		fmt.Fprintf(&b, "    %s %s\n", p.Yellow("fix:"), text(f.Fix))
	}
	for _, f := range r.Findings {
		write(f, false)
	}
	if verbose {
		for _, f := range r.Suppressed {
			write(f, true)
		}
		for _, d := range r.UnusedIgnores {
			fmt.Fprintf(&b, "%s %s\n", p.Dim(fmt.Sprintf("%s:%d:%d:", name(d.File), d.Line, d.Column)), p.Dim("this ignore comment for "+text(d.Rule)+" silences nothing; remove it"))
		}
		var entries []string
		for _, e := range r.Target.Entries {
			entries = append(entries, lint.SafeName(e))
		}
		fmt.Fprintf(&b, "%s\n", p.Dim(fmt.Sprintf("%s %s, SDK %s, entries %s", r.Target.Kind, text(r.Target.Name), text(strings.Join(r.Target.SDKs, ", ")), strings.Join(entries, ", "))))
	}
	summary := r.SummaryLine()
	if r.OK {
		summary = p.Green(summary)
	} else {
		summary = p.Red(summary)
	}
	b.WriteString(summary + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}
