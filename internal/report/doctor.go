package report

// The statuses of a doctor check.
const (
	CheckOK   = "ok"
	CheckWarn = "warn"
	CheckFail = "fail"
)

// Check is one line of "bsadapter doctor": what was looked at, how it
// stands, what was found and, unless it is ok, the fix.
type Check struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// Doctor is "bsadapter doctor --format json".
type Doctor struct {
	SchemaVersion int     `json:"schemaVersion"`
	Checks        []Check `json:"checks"`
}

// NewDoctor returns the document of checks.
func NewDoctor(checks []Check) Doctor { return Doctor{SchemaVersion: 1, Checks: nonNil(checks)} }
