// Package aicache is the ai-cache suite: what better-supabase's ai-cache
// block promises the clients that cache model results in it (a cache
// middleware in front of a model): an entry lives for its TTL and counts
// its hits, and only the server may touch the cache.
package aicache

import (
	"context"
	"encoding/json"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform"
)

// Suite is the ai-cache suite.
var Suite = conform.NewSuite(conform.Info{
	Name:   "ai-cache",
	Module: "ai-cache",
	Intro: "What the `ai-cache` block promises the clients that keep model results in it (a cache middleware in front of a model, " +
		"reading with `ai_cache_get` and writing with `ai_cache_set` as the service role), one rule a case: " +
		"a read of a live entry returns its value and counts a hit, a write starts the count again, " +
		"an entry past its TTL reads as absent until it is written again, a TTL is whole seconds from one to a week (longer is cut to a week, " +
		"shorter refused with `" + HintInvalid + "`), a delete removes exactly the entries of the key, tenant or model it names, " +
		"and only the service role may call the cache at all. `pg` drives the block's functions; " +
		"an entry is made to expire by moving its timestamps back past its TTL, so that no case waits.",
}, Provider.Cache, cases)

// HintInvalid is the block's hint for a call it refuses as malformed.
const HintInvalid = "AI_CACHE_INVALID"

// Provider is implemented by a store that offers the ai-cache block.
type Provider interface {
	// Cache prepares the suite for a run: what gives each case the cache,
	// or why the store cannot run the suite.
	Cache(ctx context.Context) (conform.Opener[Cache], error)
}

// Entry is a cache entry as the block returns it (a read's with its
// value, a write's without).
type Entry struct {
	Key       string          `json:"key"`
	Tenant    *string         `json:"organization_id"`
	Kind      string          `json:"kind"`
	Model     *string         `json:"model"`
	Value     json.RawMessage `json:"value"`
	Hits      int             `json:"hits"`
	CreatedAt time.Time       `json:"created_at"`
	LastHitAt *time.Time      `json:"last_hit_at"`
	ExpiresAt time.Time       `json:"expires_at"`
}

// Put is what a write stores besides the key and value: its TTL in
// seconds, and the tenant and model it names ("" for none).
type Put struct {
	TTL    int
	Tenant string
	Model  string
}

// Cache is the ai-cache block as the cases drive it, as the service role
// unless said otherwise. Failures the block names are *conform.StoreError
// values whose Hint is the block's hint.
type Cache interface {
	// Set stores value under key, replacing what the key held.
	Set(ctx context.Context, key string, value json.RawMessage, p Put) (Entry, error)
	// Get reads the live entry under key, counting a hit; nil for none.
	Get(ctx context.Context, key string) (*Entry, error)
	// Delete deletes the entries matching every criterion given ("" for
	// none) and returns how many.
	Delete(ctx context.Context, key, tenant, model string) (int, error)
	// Expire moves the entry under key past its expiry, as if its TTL had
	// passed.
	Expire(ctx context.Context, key string) error
	// GetAs reads key as caller c and returns the error the block
	// answered: nil when it let the call through.
	GetAs(ctx context.Context, c conform.Caller, key string) error
	// SetAs writes key as caller c and returns the error the block
	// answered.
	SetAs(ctx context.Context, c conform.Caller, key string, value json.RawMessage) error
}
