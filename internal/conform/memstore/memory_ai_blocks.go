package memstore

import (
	"context"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/aicache"
	"github.com/bsadapter/bsadapter/internal/conform/suites/knowledge"
	"github.com/bsadapter/bsadapter/internal/conform/suites/memory"
)

// The ai-cache, knowledge and memory suites check the SQL blocks' rules
// for their clients, which the memory reference does not keep in Go.

// noAIBlocks is why the memory store runs none of the three suites.
const noAIBlocks = "the memory reference keeps no ai-cache, knowledge or memory block; their rules for clients are checked with --store=pg"

// Cache says that the memory store has no ai-cache.
func (m *memoryStore) Cache(context.Context) (conform.Opener[aicache.Cache], error) {
	return nil, conform.NotImplemented(noAIBlocks)
}

// Knowledge says that the memory store has no knowledge block.
func (m *memoryStore) Knowledge(context.Context) (conform.Opener[knowledge.Knowledge], error) {
	return nil, conform.NotImplemented(noAIBlocks)
}

// Memory says that the memory store has no memory block.
func (m *memoryStore) Memory(context.Context) (conform.Opener[memory.Memory], error) {
	return nil, conform.NotImplemented(noAIBlocks)
}
