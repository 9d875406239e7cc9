// Package pgtest gives tests one PostgreSQL server per test binary.
package pgtest

import (
	"testing"

	"github.com/bsadapter/bsadapter/internal/pgserver"
	"github.com/bsadapter/bsadapter/internal/testenv"
)

// Server returns the test binary's shared server.
func Server(t testing.TB) *pgserver.Server {
	t.Helper()
	testenv.Missing(t, "pgtest: not implemented yet")
	return nil
}
