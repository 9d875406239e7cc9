package report

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// Annotation levels: the GitHub Actions workflow commands that annotate a
// run (and, with a file, a pull request's diff).
const (
	LevelError   = "error"
	LevelWarning = "warning"
	LevelNotice  = "notice"
)

// Annotation is one GitHub Actions workflow command such as
// "::error file=a.json,line=2,col=1,title=a.json#1::message".
type Annotation struct {
	// Level is LevelError, LevelWarning or LevelNotice.
	Level string
	// File, Line and Col place the annotation; a Line of 0 places it on
	// the whole file, an empty File on the run.
	File      string
	Line, Col int
	Title     string
	Message   string
}

// The workflow-command escapes. A command ends at a newline, its
// properties at ',' and its property list at "::", so the message data
// escapes '%', CR and LF, and property values escape ':' and ',' too;
// GitHub decodes them back.
var (
	dataEscaper     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	propertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

// EscapeData escapes s as a workflow command's message.
func EscapeData(s string) string { return dataEscaper.Replace(s) }

// EscapeProperty escapes s as a workflow command's property value.
func EscapeProperty(s string) string { return propertyEscaper.Replace(s) }

// String returns the annotation as one workflow command, without the
// newline that ends it.
func (a Annotation) String() string {
	var props []string
	if a.File != "" {
		props = append(props, "file="+EscapeProperty(a.File))
		if a.Line > 0 {
			props = append(props, fmt.Sprintf("line=%d", a.Line))
			if a.Col > 0 {
				props = append(props, fmt.Sprintf("col=%d", a.Col))
			}
		}
	}
	if a.Title != "" {
		props = append(props, "title="+EscapeProperty(a.Title))
	}
	cmd := a.Level
	if len(props) > 0 {
		cmd += " " + strings.Join(props, ",")
	}
	return "::" + cmd + "::" + EscapeData(a.Message)
}

// WriteGitHub writes the annotations, one command a line. File paths are
// made relative to workspace (the repository's checkout,
// GITHUB_WORKSPACE in a workflow) when it is set and they lie inside it:
// GitHub attaches an annotation to a file only by its path from the
// repository's top, and a command often runs in a subfolder.
func WriteGitHub(w io.Writer, anns []Annotation, workspace string) error {
	var b strings.Builder
	for _, a := range anns {
		a.File = relativeTo(workspace, a.File)
		b.WriteString(a.String())
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// relativeTo returns file relative to root when root is set and file lies
// inside it, and file unchanged otherwise.
func relativeTo(root, file string) string {
	if root == "" || file == "" {
		return file
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return file
	}
	rootAbs, err := filepath.Abs(root)
	if err != nil {
		return file
	}
	rel, err := filepath.Rel(rootAbs, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return file
	}
	return filepath.ToSlash(rel)
}
