package conform_test

import (
	"testing"

	"github.com/bsadapter/bsadapter/internal/conform"
)

// The reference store passes every case of every suite: the suites agree
// with the contract they check.
func TestMemoryStore(t *testing.T) {
	conform.Test(t, conform.NewMemoryStore())
}
