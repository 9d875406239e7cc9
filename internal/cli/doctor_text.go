package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/bsadapter/bsadapter/internal/report"
)

// writeDoctorText writes doctor's checks for people: one line each, its
// status word (ok, warn, fail) colored, what was looked at and found, and
// the fix on the line below when there is one.
func writeDoctorText(w io.Writer, checks []report.Check, p report.Painter) error {
	var b strings.Builder
	for _, c := range checks {
		mark := p.Green("ok  ")
		switch c.Status {
		case report.CheckWarn:
			mark = p.Yellow("warn")
		case report.CheckFail:
			mark = p.Red("fail")
		}
		fmt.Fprintf(&b, "%s %s: %s\n", mark, c.Name, c.Detail)
		if c.Fix != "" {
			fmt.Fprintf(&b, "     fix: %s\n", c.Fix)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
