package bridgestore

import (
	"context"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/aicache"
	"github.com/bsadapter/bsadapter/internal/conform/suites/knowledge"
	"github.com/bsadapter/bsadapter/internal/conform/suites/memory"
)

// The ai-cache, knowledge and memory suites check what those blocks
// promise their clients; the bridge protocol has no methods for them (an
// adapter over them implements an Embedder or the like, which the
// embedder suite checks).

// noAIBlockMethods is why a bridge runs none of the three suites.
const noAIBlockMethods = "the bridge protocol has no methods for the ai-cache, knowledge and memory blocks; their rules for clients are checked with --store=pg"

// Cache says that a bridge cannot run the ai-cache suite.
func (b *Store) Cache(context.Context) (conform.Opener[aicache.Cache], error) {
	return nil, conform.NotImplemented(noAIBlockMethods)
}

// Knowledge says that a bridge cannot run the knowledge suite.
func (b *Store) Knowledge(context.Context) (conform.Opener[knowledge.Knowledge], error) {
	return nil, conform.NotImplemented(noAIBlockMethods)
}

// Memory says that a bridge cannot run the memory suite.
func (b *Store) Memory(context.Context) (conform.Opener[memory.Memory], error) {
	return nil, conform.NotImplemented(noAIBlockMethods)
}
