package cli

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bsadapter/bsadapter/internal/fixtures"
	"github.com/bsadapter/bsadapter/internal/report"
)

// writeFixturesText writes check-fixtures' human report: the summary line,
// the coverage table, then the bridge fault, bad files and each failure in
// full (passes too with verbose), and what happened to snapshots.
func writeFixturesText(w io.Writer, r *fixtures.Report, verbose bool, p report.Painter) error {
	var b strings.Builder
	summary := r.SummaryLine()
	if r.OK() {
		summary = p.Green(summary)
	} else {
		summary = p.Red(summary)
	}
	b.WriteString(summary + "\n")
	switch {
	case r.Generated != nil:
		g := r.Generated
		fmt.Fprintf(&b, "%s\n", p.Dim(fmt.Sprintf("generated round trips (toSdk, fromSdk): adapter %s (format %s) over the bridge", r.Adapter.Name, r.Adapter.Format)))
		fmt.Fprintf(&b, "%s\n", p.Dim(fmt.Sprintf("part types: %s; from %s", strings.Join(g.Parts, ", "), g.PartsSource)))
		fmt.Fprintf(&b, "seed %d (replay with --generate %d --seed %d%s)\n", g.Seed, g.Count, g.Seed, map[bool]string{true: " --float64"}[g.Float64])
	case r.Adapter != nil:
		fmt.Fprintf(&b, "%s\n", p.Dim(fmt.Sprintf("converter mode: adapter %s (format %s) over the bridge", r.Adapter.Name, r.Adapter.Format)))
	}
	b.WriteString("\n" + p.Bold("part coverage") + "\n")
	for _, c := range r.Coverage {
		mark := ""
		if c.Required {
			mark = " (required)"
		}
		count := fmt.Sprint(c.Count)
		if c.Count == 0 {
			if c.Required {
				count = p.Red("0")
				mark += p.Red(" never produced")
			} else {
				count = p.Dim("0")
			}
		}
		fmt.Fprintf(&b, "  %-14s %s%s\n", c.Type, padLeft(count, 7, len(fmt.Sprint(c.Count))), mark)
	}
	section := false
	sep := func() {
		if !section {
			b.WriteByte('\n')
			section = true
		}
	}
	if r.BridgeError != "" {
		sep()
		fmt.Fprintf(&b, "%s %s\n", p.Red("bridge:"), fixtures.IndentRest(r.BridgeError, "  "))
	}
	for _, fe := range r.FileErrors {
		sep()
		fmt.Fprintf(&b, "%s %s\n", p.Red("BAD FILE"), termSafe(fe.Error()))
		if fe.Hint != "" {
			fmt.Fprintf(&b, "  %s %s\n", p.Dim("hint:"), termSafe(fe.Hint))
		}
	}
	// A generated run tells its failures by cause; -v lists every
	// message too.
	grouped := r.Generated != nil && len(r.Groups) > 0
	if grouped {
		sep()
		b.WriteString(r.GroupsLine())
		for _, g := range r.Groups {
			mark := p.Red(report.Failed.Mark())
			if g.Status != string(fixtures.StatusFailed) {
				mark = p.Yellow(report.WarnMark)
			}
			fmt.Fprintf(&b, "\n%s %s\n%s", mark, termSafe(g.Header()), g.Details(p))
		}
		if t := r.ShrinkText(); t != "" {
			b.WriteString("\n" + p.Dim(t))
		}
		if verbose {
			b.WriteString("\n" + p.Bold("every message") + "\n")
		}
	}
	for _, res := range r.Results {
		if grouped && !verbose {
			break
		}
		name, pos := termSafe(res.Name), termSafe(res.Pos())
		switch {
		case res.Status == fixtures.StatusFailed:
			sep()
			fmt.Fprintf(&b, "%s %s %s\n%s", p.Red(report.Failed.Mark()), name, p.Dim("("+pos+")"), res.Details(p))
		case res.Status == fixtures.StatusNotRun:
			sep()
			fmt.Fprintf(&b, "%s %s %s\n  %s\n", p.Yellow(report.NotRun.Mark()), name, p.Dim("("+pos+")"), res.Error)
		case res.Warned():
			sep()
			fmt.Fprintf(&b, "%s %s %s\n%s", p.Yellow(report.WarnMark), name, p.Dim("("+pos+")"), res.Details(p))
		case verbose:
			sep()
			fmt.Fprintf(&b, "%s %s\n", p.Green(fmt.Sprintf("%-4s", report.Passed.Mark())), name)
		}
		if verbose {
			b.WriteString(res.IgnoredText(p))
		}
	}
	if t := r.OmittedText(); t != "" && (!grouped || verbose) {
		sep()
		b.WriteString(p.Dim(t))
	}
	if t := r.RefusalsText(p); t != "" {
		sep()
		b.WriteString(t)
	}
	for _, s := range r.Snapshots {
		label := "snapshot " + s.Action + ":"
		switch s.Action {
		case "error", "mismatch":
			label = p.Red(label)
		case "skipped":
			label = p.Yellow(label)
		case "unchanged":
			if !verbose {
				continue
			}
		}
		sep()
		line := fmt.Sprintf("%s %s", label, termSafe(s.File))
		if s.Detail != "" {
			line += " — " + termSafe(s.Detail)
		}
		b.WriteString(line + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// padLeft right-aligns s (whose visible width is n) in width columns.
func padLeft(s string, width, n int) string {
	if n >= width {
		return s
	}
	return strings.Repeat(" ", width-n) + s
}

// termSafe writes the control characters of a file name (or of a line
// that holds one) as escapes: a newline in a name would split a report
// line in two, and an escape sequence would reach the terminal and act
// there. Line and paragraph separators and the bidirectional controls,
// which reorder what a terminal shows, are escaped too; bytes that are
// not UTF-8 are written as \xNN.
func termSafe(s string) string {
	clean := true
	for _, r := range s {
		if unsafeRune(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80 && unsafeRune(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// unsafeRune says whether r must not reach a terminal as it is.
func unsafeRune(r rune) bool {
	switch {
	case r == utf8.RuneError:
		return true // perhaps a byte that is not UTF-8
	case unicode.IsControl(r):
		return true
	case r == 0x2028, r == 0x2029:
		return true
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r == 0x200E, r == 0x200F, r == 0x061C:
		return true
	}
	return false
}
