//go:build !unix

package pgserver

import (
	"context"
	"errors"
)

func findBinaries() (string, []string) { return "", nil }

func startLocal(context.Context, Options) (*Server, error) {
	return nil, errors.New("pgserver: local: starting a local PostgreSQL is supported on Linux and macOS only (use --pg docker or --dsn URL)")
}

func processExists(int) bool { return true }
