package cli

import (
	"errors"
	"fmt"
)

// Exit codes, the same for every command and every --format.
const (
	ExitOK          = 0   // success
	ExitFailed      = 1   // the checks ran and something failed
	ExitUsage       = 2   // usage or environment error
	ExitInterrupted = 130 // interrupted (Ctrl-C, SIGTERM, SIGHUP)
)

// ExitError carries an exit code and an optional hint up to Main, which
// prints it once as "bsadapter: <message>".
type ExitError struct {
	Code int
	Err  error
	Hint string
	// Quiet means the command already reported everything on stdout and
	// Main prints nothing more.
	Quiet bool
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// usageErr is a usage error (exit 2) with an optional hint.
func usageErr(hint string, format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...), Hint: hint}
}

// envErr is an environment error (exit 2): a file that cannot be read, a
// bridge that will not start, no Postgres.
func envErr(err error, hint string) error {
	if err == nil {
		return nil
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return err
	}
	return &ExitError{Code: ExitUsage, Err: err, Hint: hint}
}

// failed reports that checks ran and something failed (exit 1). The
// command has already printed the details.
func failed(summary string) error {
	if summary == "" {
		return &ExitError{Code: ExitFailed, Quiet: true}
	}
	return &ExitError{Code: ExitFailed, Err: errors.New(summary)}
}

const exitCodesHelp = `bsadapter uses the same exit codes for every command and every --format:

  0    success: everything ran and passed
  1    the checks ran and something failed (an invalid fixture, a failed
       conformance case, a snapshot that no longer matches)
  2    usage or environment error: a bad flag or argument, an unreadable
       file, a bridge that would not start, no PostgreSQL to be had,
       output that cannot be written
  130  interrupted (Ctrl-C, SIGTERM or SIGHUP); everything started was
       cleaned up

Errors are printed once, on stderr, as "bsadapter: <what went wrong>",
followed by a hint line when the fix is known.
`
