// Package knowledge is the knowledge suite: what better-supabase's
// knowledge block promises the clients that search it (a retriever, a
// search tool): a search stays within the tenant, the scopes and the
// metadata asked for and shows a caller only what the caller may read,
// vector and text matches are fused, and a document is changed only by
// whom the block lets change it.
package knowledge

import (
	"context"
	"encoding/json"

	"github.com/bsadapter/bsadapter/internal/conform"
)

// Suite is the knowledge suite.
var Suite = conform.NewSuite(conform.Info{
	Name:   "knowledge",
	Module: "knowledge",
	Intro: "What the `knowledge` block promises the clients that search it (a retriever or a search tool calls " +
		"`knowledge_search` with a tenant, a query vector and text, scopes, `k` and a metadata filter, as the signed-in user or the server), " +
		"one rule a case: a search returns only the tenant's chunks, of the scopes asked for (`{scope, id}`, a scope without id meaning all of it) " +
		"and of documents whose metadata contains the filter; a signed-in user finds only what the user may read (their own documents, " +
		"organization and agent knowledge with `ai.read`, everything with `ai.admin`); vector and text rankings are fused by reciprocal rank, " +
		"at most `k` hits, best first; adding knowledge takes `ai.create` (and `ai.admin` for organization and agent knowledge), " +
		"with user knowledge filed under its owner; and a document without an owner is changed only by the server and `ai.admin` " +
		"(upstream lets any signed-in user rewrite or delete it: the block deviates on purpose). " +
		"`pg` drives the block's functions as the service role and as signed-in members of a tenant of the case's own; " +
		"it needs pgvector, and a server without it leaves the suite out with the module, saying how to get it.",
}, Provider.Knowledge, cases)

// The block's hints the cases look for.
const (
	HintForbidden = "KNOWLEDGE_FORBIDDEN"
	HintScope     = "KNOWLEDGE_SCOPE"
	HintNotFound  = "KNOWLEDGE_NOT_FOUND"
)

// Provider is implemented by a store that offers the knowledge block.
type Provider interface {
	// Knowledge prepares the suite for a run: what gives each case the
	// block, or why the store cannot run the suite.
	Knowledge(ctx context.Context) (conform.Opener[Knowledge], error)
}

// Doc is a document to add: its tenant, scope (organization, agent,
// project, chat, user) and scope id, its owner when the server adds it
// for one ("" for none), its metadata and its chunks, each with the
// vector the server stores for it (nil: none yet). A vector is short; the
// store pads it with zeros to the block's dimensions.
type Doc struct {
	Tenant   string
	Scope    string
	ScopeID  string
	Owner    string
	Title    string
	Metadata map[string]any
	Chunks   []string
	Vectors  [][]float32
}

// Scope narrows a search: a scope and, when set, one id of it.
type Scope struct {
	Scope string `json:"scope"`
	ID    string `json:"id,omitempty"`
}

// Query is a search: a vector, text (websearch syntax), the scopes and
// metadata filter it is narrowed to (none: all) and how many hits at most
// (0: the block's default).
type Query struct {
	Vector []float32
	Text   string
	Scopes []Scope
	Filter map[string]any
	K      int
}

// Hit is a chunk a search found.
type Hit struct {
	DocumentID string          `json:"document_id"`
	Idx        int             `json:"idx"`
	Content    string          `json:"content"`
	Title      string          `json:"title"`
	Metadata   json.RawMessage `json:"metadata"`
	Score      float64         `json:"score"`
}

// Knowledge is the knowledge block as the cases drive it. The zero
// conform.Caller is the service role. Failures the block names are
// *conform.StoreError values whose Hint is the block's hint.
type Knowledge interface {
	// Member makes a signed-in user holding permissions in tenant.
	Member(ctx context.Context, tenant string, permissions ...string) (string, error)
	// Add adds d as caller c, with its chunks, and returns its id.
	Add(ctx context.Context, c conform.Caller, d Doc) (string, error)
	// Search searches tenant's knowledge as caller c.
	Search(ctx context.Context, c conform.Caller, tenant string, q Query) ([]Hit, error)
	// Rewrite replaces the document's chunks as caller c.
	Rewrite(ctx context.Context, c conform.Caller, id string, chunks []string) error
	// Delete deletes the document as caller c: false when there is none
	// the caller may change.
	Delete(ctx context.Context, c conform.Caller, id string) (bool, error)
	// Exists says whether the document is there, and its chunks' text.
	Chunks(ctx context.Context, id string) ([]string, error)
}
