package pgstore_test

import (
	"os"
	"testing"

	"github.com/bsadapter/bsadapter/internal/pgserver/pgtest"
)

// TestMain stops the shared PostgreSQL server once, after the last test.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
