package lint

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/bsadapter/bsadapter/internal/report"
)

// Paths says how output names files: relative to Base when the file is
// inside it (the current folder for text, GITHUB_WORKSPACE for SARIF),
// else absolute.
type Paths struct{ Base string }

// Name returns the path of a report's file as output shows it.
func (p Paths) Name(r *Report, file string) string {
	abs := r.Abs(file)
	if p.Base != "" {
		if b, err := filepath.Abs(p.Base); err == nil {
			if real, err := filepath.EvalSymlinks(b); err == nil && within(abs, real) {
				b = real // the report's root is a real path
			}
			if within(abs, b) {
				return relSlash(b, abs)
			}
		}
	}
	return filepath.ToSlash(abs)
}

// Abs returns the absolute path of one of the report's files.
func (r *Report) Abs(file string) string { return filepath.Join(r.Root, filepath.FromSlash(file)) }

// SummaryLine says what was found: "2 findings in 14 files (1 suppressed)".
func (r *Report) SummaryLine() string {
	s := fmt.Sprintf("%s in %s", count(len(r.Findings), "finding"), count(r.Files, "file"))
	if len(r.Findings) == 0 {
		s = fmt.Sprintf("no findings in %s", count(r.Files, "file"))
	}
	if n := len(r.Suppressed); n > 0 {
		s += fmt.Sprintf(" (%d suppressed)", n)
	}
	return s
}

func count(n int, what string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", what)
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// Annotations are the report as GitHub Actions annotations: an error for
// each finding, with its chain and its fix, and the summary as a notice.
// File paths are absolute; report.WriteGitHub makes them relative to the
// workspace. Characters that do not print, in file names and in text
// from the adapter's files, are escaped (SafeText): a workflow command
// escapes only what would end it, and the rest would reach the log.
func (r *Report) Annotations() []report.Annotation {
	var out []report.Annotation
	for _, f := range r.Findings {
		msg := SafeText(f.Message)
		if len(f.Chain) > 1 {
			var steps []string
			for i, l := range f.Chain {
				if f.ChainOmitted > 0 && i == len(f.Chain)/2 {
					steps = append(steps, fmt.Sprintf("(%d more)", f.ChainOmitted))
				}
				steps = append(steps, fmt.Sprintf("%s:%d", SafeText(l.File), l.Line))
			}
			msg += "\nchain: " + strings.Join(steps, " -> ")
		}
		msg += "\nfix: " + SafeText(f.Fix)
		out = append(out, report.Annotation{Level: report.LevelError, File: SafeText(r.Abs(f.File)), Line: f.Line, Col: f.Column,
			Title: "bsadapter lint " + f.Rule, Message: msg})
	}
	return append(out, report.Annotation{Level: report.LevelNotice, Title: "bsadapter lint", Message: r.SummaryLine()})
}
