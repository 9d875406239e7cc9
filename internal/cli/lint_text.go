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
// and what was linted; then the summary line.
func writeLintText(w io.Writer, r *lint.Report, paths lint.Paths, verbose bool, p report.Painter) error {
	var b strings.Builder
	write := func(f lint.Finding, suppressed bool) {
		head := fmt.Sprintf("%s:%d:%d: %s", paths.Name(r, f.File), f.Line, f.Column, f.Rule)
		if suppressed {
			fmt.Fprintf(&b, "%s %s\n    %s\n", p.Dim(head), p.Dim("(suppressed: "+f.Reason+")"), p.Dim(f.Message))
			return
		}
		fmt.Fprintf(&b, "%s %s\n", p.Bold(head), f.Message)
		if len(f.Chain) > 1 {
			b.WriteString("    chain:\n")
			for _, l := range f.Chain {
				fmt.Fprintf(&b, "      %s:%d:%d imports %s\n", paths.Name(r, l.File), l.Line, l.Column, l.Import)
			}
		}
		if f.Evidence != "" {
			fmt.Fprintf(&b, "    %s %s\n", p.Dim("|"), f.Evidence)
		}
		fmt.Fprintf(&b, "    %s %s\n", p.Yellow("fix:"), f.Fix)
	}
	for _, f := range r.Findings {
		write(f, false)
	}
	if verbose {
		for _, f := range r.Suppressed {
			write(f, true)
		}
		for _, d := range r.UnusedIgnores {
			fmt.Fprintf(&b, "%s %s\n", p.Dim(fmt.Sprintf("%s:%d:%d:", paths.Name(r, d.File), d.Line, d.Column)), p.Dim("this ignore comment for "+d.Rule+" silences nothing; remove it"))
		}
		fmt.Fprintf(&b, "%s\n", p.Dim(fmt.Sprintf("%s %s, SDK %s, entries %s", r.Target.Kind, r.Target.Name, strings.Join(r.Target.SDKs, ", "), strings.Join(r.Target.Entries, ", "))))
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
