package report

// Outcome is the result of one checked thing (a fixture message, a
// conformance case). Both check-fixtures and conform use these words, in
// JSON documents ("passed", "failed", "skipped", "not run") and in the counts of
// their summaries ("3 passed, 1 failed").
type Outcome string

// The outcomes.
const (
	Passed  Outcome = "passed"
	Failed  Outcome = "failed"
	Skipped Outcome = "skipped"
	// NotRun is a case the run could not get to: the store it runs on
	// (a bridge) stopped working before or while it ran. It is neither a
	// pass nor a failure of the case, and the run as a whole is an
	// environment error.
	NotRun Outcome = "not run"
)

// Mark is the outcome's marker at the start of a text line, as go test
// writes them: "ok", "FAIL", "SKIP". A round trip that passed with
// warnings is marked WarnMark.
func (o Outcome) Mark() string {
	switch o {
	case Passed:
		return "ok"
	case Failed:
		return "FAIL"
	case Skipped:
		return "SKIP"
	case NotRun:
		return "NOT RUN"
	}
	return string(o)
}

// WarnMark marks a passed result that carries warnings.
const WarnMark = "WARN"

// Painter colors text output. internal/cli passes its terminal style;
// everything else passes Plain.
type Painter interface {
	Red(string) string
	Green(string) string
	Yellow(string) string
	Bold(string) string
	Dim(string) string
}

// Plain is a Painter that adds no colors.
type Plain struct{}

// Red returns t unchanged.
func (Plain) Red(t string) string { return t }

// Green returns t unchanged.
func (Plain) Green(t string) string { return t }

// Yellow returns t unchanged.
func (Plain) Yellow(t string) string { return t }

// Bold returns t unchanged.
func (Plain) Bold(t string) string { return t }

// Dim returns t unchanged.
func (Plain) Dim(t string) string { return t }
