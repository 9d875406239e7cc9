package lint

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// Painter colors text output; internal/cli passes its Style.
type Painter interface {
	Red(string) string
	Yellow(string) string
	Bold(string) string
	Dim(string) string
	Green(string) string
}

type plain struct{}

func (plain) Red(s string) string    { return s }
func (plain) Yellow(s string) string { return s }
func (plain) Bold(s string) string   { return s }
func (plain) Dim(s string) string    { return s }
func (plain) Green(s string) string  { return s }

// Paths says how output names files: relative to Base when the file is
// inside it (the current folder for text, GITHUB_WORKSPACE for
// annotations and SARIF), else absolute.
type Paths struct{ Base string }

// Name returns the path of a report's file as output shows it.
func (p Paths) Name(r *Report, file string) string {
	abs := filepath.Join(r.Root, filepath.FromSlash(file))
	if p.Base != "" {
		if b, err := filepath.Abs(p.Base); err == nil && within(abs, b) {
			return relSlash(b, abs)
		}
	}
	return filepath.ToSlash(abs)
}

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

// WriteText writes findings for people: "file:line:col: rule: message",
// then the chain, the evidence and the fix; with verbose, the suppressed
// findings with their reasons and the unused ignore comments too.
func WriteText(w io.Writer, r *Report, paths Paths, verbose bool, p Painter) error {
	if p == nil {
		p = plain{}
	}
	var b strings.Builder
	write := func(f Finding, suppressed bool) {
		head := fmt.Sprintf("%s:%d:%d: %s", paths.Name(r, f.File), f.Line, f.Column, f.Rule)
		if suppressed {
			fmt.Fprintf(&b, "%s %s\n", p.Dim(head), p.Dim("(suppressed: "+f.Reason+")"))
		} else {
			fmt.Fprintf(&b, "%s %s\n", p.Bold(head), f.Message)
		}
		if suppressed {
			fmt.Fprintf(&b, "    %s\n", p.Dim(f.Message))
			return
		}
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
	if r.OK() {
		summary = p.Green(summary)
	} else {
		summary = p.Red(summary)
	}
	b.WriteString(summary + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// SchemaVersion is the version of the JSON document WriteJSON writes.
const SchemaVersion = 1

// WriteJSON writes the report as one JSON document.
func WriteJSON(w io.Writer, r *Report) error {
	doc := struct {
		SchemaVersion int  `json:"schemaVersion"`
		OK            bool `json:"ok"`
		*Report
	}{SchemaVersion, r.OK(), r}
	if doc.Findings == nil {
		doc.Findings = []Finding{}
	}
	if doc.Suppressed == nil {
		doc.Suppressed = []Finding{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// WriteGitHub writes a GitHub Actions ::error annotation for each finding
// and the summary as a notice. Paths are relative to paths.Base, which
// should be GITHUB_WORKSPACE: GitHub attaches annotations by the path
// from the repository's top.
func WriteGitHub(w io.Writer, r *Report, paths Paths) error {
	var b strings.Builder
	for _, f := range r.Findings {
		msg := f.Message
		if len(f.Chain) > 1 {
			var steps []string
			for _, l := range f.Chain {
				steps = append(steps, fmt.Sprintf("%s:%d", paths.Name(r, l.File), l.Line))
			}
			msg += "\nchain: " + strings.Join(steps, " -> ")
		}
		msg += "\nfix: " + f.Fix
		fmt.Fprintf(&b, "::error file=%s,line=%d,col=%d,title=%s::%s\n",
			ghProp(paths.Name(r, f.File)), f.Line, f.Column, ghProp("bsadapter lint "+f.Rule), ghData(msg))
	}
	fmt.Fprintf(&b, "::notice title=bsadapter lint::%s\n", ghData(r.SummaryLine()))
	_, err := io.WriteString(w, b.String())
	return err
}

func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func ghProp(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
