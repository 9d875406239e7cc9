package conform_test

import (
	"testing"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/pgserver/pgtest"
)

// The embedded blocks in a real PostgreSQL pass every case of every
// suite, called with a real caller's rights.
func TestPGStore(t *testing.T) {
	srv := pgtest.Server(t)
	st, err := conform.NewPGStore(t.Context(), srv)
	if err != nil {
		t.Fatalf("prepare the pg store: %v", err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Errorf("close the pg store: %v", err)
		}
	})
	for _, suite := range conform.Suites {
		if err := st.Supports(suite); err != nil {
			t.Errorf("the pg store must run every suite, but %s: %v", suite, err)
		}
	}
	conform.Test(t, st)
}
