package cli

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/bsadapter/bsadapter/internal/report"
)

// Stdio is what a command may touch of the outside world: its streams, its
// environment and whether the streams are terminals. Tests build one by
// hand; OSStdio describes the real process.
type Stdio struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
	// Env looks up an environment variable (os.LookupEnv for the process).
	Env func(string) (string, bool)
	// InTTY and OutTTY say whether stdin and stdout are terminals.
	InTTY, OutTTY bool
	// ErrTTY says whether stderr is a terminal.
	ErrTTY bool
}

// OSStdio returns the process's standard streams and environment.
func OSStdio() Stdio {
	return Stdio{
		In: os.Stdin, Out: os.Stdout, Err: os.Stderr,
		Env:    os.LookupEnv,
		InTTY:  term.IsTerminal(os.Stdin.Fd()),
		OutTTY: term.IsTerminal(os.Stdout.Fd()),
		ErrTTY: term.IsTerminal(os.Stderr.Fd()),
	}
}

func (s Stdio) getenv(key string) string {
	if s.Env == nil {
		return ""
	}
	v, _ := s.Env(key)
	return v
}

// Color says whether output to a stream that is (or is not) a terminal may
// carry ANSI colors. NO_COLOR (any non-empty value) turns them off, always;
// otherwise CLICOLOR_FORCE (not "0") forces them; CLICOLOR=0 turns them
// off; otherwise only on a terminal whose TERM is not "dumb".
func (s Stdio) Color(tty bool) bool {
	if s.getenv("NO_COLOR") != "" {
		return false
	}
	if v := s.getenv("CLICOLOR_FORCE"); v != "" && v != "0" {
		return true
	}
	if s.getenv("CLICOLOR") == "0" {
		return false
	}
	return tty && s.getenv("TERM") != "dumb"
}

// Interactive says whether a command may ask questions: stdin and stdout
// are terminals and CI is not set.
func (s Stdio) Interactive() bool {
	if s.CI() {
		return false
	}
	return s.InTTY && s.OutTTY
}

// Style paints text with ANSI colors when enabled.
type Style struct{ On bool }

func (s Style) paint(code, text string) string {
	if !s.On {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

// Red is for failures.
func (s Style) Red(t string) string { return s.paint("31", t) }

// Green is for passes.
func (s Style) Green(t string) string { return s.paint("32", t) }

// Yellow is for warnings and skips.
func (s Style) Yellow(t string) string { return s.paint("33", t) }

// Bold is for headings.
func (s Style) Bold(t string) string { return s.paint("1", t) }

// Dim is for details.
func (s Style) Dim(t string) string { return s.paint("2", t) }

// printError prints err once, in the house format, with its hint.
func printError(w io.Writer, st Style, err error, hint string) {
	msg := strings.TrimPrefix(err.Error(), "bsadapter: ")
	fmt.Fprintf(w, "%s %s\n", st.Red("bsadapter:"), msg)
	if hint != "" {
		fmt.Fprintf(w, "%s %s\n", st.Dim("hint:"), hint)
	}
}

// Output formats of --format.
var (
	textJSON   = []string{"text", "json"}
	allFormats = []string{"text", "json", "junit", "github"}
)

// formatValue is a --format flag: the value is one of the command's
// formats, checked (by checkFormat, before any command runs) with the same
// message everywhere.
type formatValue struct {
	p       *string
	allowed []string
	hint    string
}

func (f *formatValue) String() string     { return *f.p }
func (f *formatValue) Set(v string) error { *f.p = v; return nil }
func (f *formatValue) Type() string       { return "string" }

// addFormatFlag adds --format to cmd, stored in p (default text), allowing
// the formats listed; hint is shown with a value outside them.
func addFormatFlag(cmd *cobra.Command, p *string, usage, hint string, allowed ...string) {
	*p = "text"
	cmd.Flags().Var(&formatValue{p: p, allowed: allowed, hint: hint}, "format", usage)
	cmd.RegisterFlagCompletionFunc("format", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return allowed, cobra.ShellCompDirectiveNoFileComp
	})
}

// checkFormat refuses a --format value the command does not produce.
func checkFormat(cmd *cobra.Command) error {
	fl := cmd.Flags().Lookup("format")
	if fl == nil {
		return nil
	}
	f, ok := fl.Value.(*formatValue)
	if !ok || slices.Contains(f.allowed, *f.p) {
		return nil
	}
	return usageErr(f.hint, "--format %q is not one of %s", *f.p, strings.Join(f.allowed, ", "))
}

// results is what a command that checks things hands to writeResults: its
// report as JUnit and as GitHub annotations.
type results interface {
	JUnit() *report.JUnit
	Annotations() []report.Annotation
}

// writeResults prints a checking command's results on stdout in the
// --format asked for: doc as JSON, res as JUnit or GitHub annotations
// (file paths from GITHUB_WORKSPACE), or text. kind says which command's
// document doc is, for the HTML report and the job summary.
func writeResults(app *App, format string, reports []reportSpec, kind string, doc any, res results, text func(io.Writer) error) error {
	return writeOutputs(app, format, reports, report.Results{
		JSON:        doc,
		JUnit:       res.JUnit,
		Annotations: res.Annotations,
		Workspace:   app.getenv("GITHUB_WORKSPACE"),
		Text:        text,
		Kind:        kind,
	})
}

// writeOutputs writes r everywhere it was asked for: on stdout in
// format, to each --report file, and, when GITHUB_STEP_SUMMARY names a
// file, as a Markdown job summary appended to it.
func writeOutputs(app *App, format string, reports []reportSpec, r report.Results) error {
	if err := report.Write(app.Out, format, r); err != nil {
		return err
	}
	if err := writeReportFiles(reports, r); err != nil {
		return err
	}
	appendJobSummary(app, r)
	return nil
}
