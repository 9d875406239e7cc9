package report

import (
	"fmt"
	"io"
)

// Results is a command's results in each --format it can print: the JSON
// document, and functions that build the other forms only when asked. A
// form the command does not produce is left nil.
type Results struct {
	// JSON is the document of --format json.
	JSON any
	// JUnit is the report of --format junit.
	JUnit func() *JUnit
	// Annotations are the GitHub annotations of --format github, whose
	// file paths are made relative to Workspace.
	Annotations func() []Annotation
	Workspace   string
	// SARIF is the log of --format sarif.
	SARIF func() *SARIF
	// Text writes the report for people, --format text.
	Text func(io.Writer) error
	// Kind says which command's document JSON is (KindConform,
	// KindCheckFixtures or KindLint): the HTML report and the job summary
	// are laid out from it. Empty for results that have neither.
	Kind string
}

// Write writes r to w in format: json, junit, github, sarif, html or text.
func Write(w io.Writer, format string, r Results) error {
	switch format {
	case "json":
		return WriteJSON(w, r.JSON)
	case "junit":
		if r.JUnit != nil {
			return WriteJUnit(w, r.JUnit())
		}
	case "github":
		if r.Annotations != nil {
			return WriteGitHub(w, r.Annotations(), r.Workspace)
		}
	case "sarif":
		if r.SARIF != nil {
			return WriteSARIF(w, r.SARIF())
		}
	case "html":
		if r.Kind != "" {
			return WriteHTML(w, HTML{Kind: r.Kind, Doc: r.JSON})
		}
	case "text":
		return r.Text(w)
	}
	return fmt.Errorf("report: no %s form of these results", format)
}
