package conform

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// NotImplementedError is why a store does not run a suite whose
// interface it does not implement by nature, as opposed to one it
// should run but cannot (a database whose blocks lack a function). The
// first kind is left out of a run that did not ask for the suite; the
// second is reported case by case as skipped, so that it is seen.
type NotImplementedError struct{ Reason string }

func (e *NotImplementedError) Error() string { return e.Reason }

// NotImplemented returns a *NotImplementedError with the formatted reason.
func NotImplemented(format string, a ...any) error {
	return &NotImplementedError{Reason: fmt.Sprintf(format, a...)}
}

// IsNotImplemented reports whether err is, or wraps, a *NotImplementedError.
func IsNotImplemented(err error) bool {
	var e *NotImplementedError
	return errors.As(err, &e)
}

// LeftOut is a suite a run did not select because the store does not
// implement it: how many cases it has and why it was left out.
type LeftOut struct {
	Suite  string `json:"suite"`
	Cases  int    `json:"cases"`
	Reason string `json:"reason"`
}

// Implemented keeps the cases of the suites store implements and returns
// the suites it left out, in suite order. Suites the store implements but
// cannot run are kept: their cases are reported as skipped, with the
// reason.
func Implemented(store Store, cases []Case) ([]Case, []LeftOut) {
	var kept []Case
	var out []LeftOut
	for _, suite := range suitesOf(cases) {
		n := 0
		var first *Case
		for i := range cases {
			if cases[i].Suite == suite {
				n++
				first = &cases[i]
			}
		}
		if err := CanRun(context.Background(), store, first); IsNotImplemented(err) {
			out = append(out, LeftOut{Suite: suite, Cases: n, Reason: err.Error()})
		}
	}
	for _, c := range cases {
		if !slices.ContainsFunc(out, func(l LeftOut) bool { return l.Suite == c.Suite }) {
			kept = append(kept, c)
		}
	}
	return kept, out
}

// suitesOf returns the names of the suites of cases, in the order they
// first appear.
func suitesOf(cases []Case) []string {
	var names []string
	for _, c := range cases {
		if !slices.Contains(names, c.Suite) {
			names = append(names, c.Suite)
		}
	}
	return names
}
