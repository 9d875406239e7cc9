// Package memstore is the in-process reference implementation of the
// contracts internal/conform checks: the StreamStore, the run registry and
// chat storage, exactly as contracts.md describes them. Every case of every
// suite passes against it, which is what proves the suites; it is also the
// instant store when no database is wanted (conform --store memory).
package memstore

import (
	"fmt"
	"sync/atomic"

	"github.com/bsadapter/bsadapter/internal/conform"
)

// memoryStore is the in-process reference implementation of the three
// contracts. Every subject gets state of its own, so cases never meet.
type memoryStore struct {
	n atomic.Int64
}

// New returns the in-process reference store. It proves the
// suites themselves (every case passes against it) and is the instant
// option when no database is wanted.
func New() conform.Store { return &memoryStore{} }

func (m *memoryStore) Name() string { return "memory" }
func (m *memoryStore) Close() error { return nil }

// prefix returns a new prefix for a case's ids.
func (m *memoryStore) prefix() string { return fmt.Sprintf("mem%d", m.n.Add(1)) }
