package memstore_test

import (
	"testing"

	"github.com/bsadapter/bsadapter/internal/conform/conformtest"
	"github.com/bsadapter/bsadapter/internal/conform/memstore"
)

// The reference store passes every case of every suite: the suites agree
// with the contract they check.
func TestMemoryStore(t *testing.T) {
	conformtest.Run(t, memstore.New())
}
