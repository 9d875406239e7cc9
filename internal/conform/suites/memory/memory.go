// Package memory is the memory suite: what better-supabase's memory block
// promises the clients that give an assistant memory (the memory tool's
// commands over core memory, and archival facts): each command's result
// and its errors, the namespaces kept apart, and who may change what.
package memory

import (
	"context"
	"encoding/json"

	"github.com/bsadapter/bsadapter/internal/conform"
)

// Suite is the memory suite.
var Suite = conform.NewSuite(conform.Info{
	Name:   "memory",
	Module: "memory",
	Intro: "What the `memory` block promises the clients that give an assistant memory: the memory tool's commands " +
		"(`view`, `create`, `str_replace`, `insert`, `delete`, `rename`, which the block offers as " +
		"`memory_view`, `memory_create`, `memory_str_replace`, `memory_insert`, `memory_delete` and `memory_rename`) " +
		"and archival facts (`memory_save`, `memory_search`, `memory_forget`), called as a signed-in member of a tenant, one rule a case: " +
		"each command's result (a file's content and version, a directory's entries, how many files a delete or rename touched) " +
		"and the error the block names for each way a command goes wrong (`MEMORY_CONFLICT`, `MEMORY_NOT_FOUND`, `MEMORY_NO_MATCH`, " +
		"`MEMORY_AMBIGUOUS`, `MEMORY_LINE`, `MEMORY_EXISTS`, `MEMORY_PATH`, `MEMORY_FORBIDDEN`, `MEMORY_NAMESPACE`), " +
		"each user's memory apart from another's, and a superseded fact no longer found, forgotten with the fact that replaced it " +
		"(upstream brings it back), and an organization fact forgotten only by `ai.admin` (upstream lets any signed-in user). " +
		"`pg` drives the block's functions in a tenant of the case's own; " +
		"it needs pgvector, and a server without it leaves the suite out with the module, saying how to get it.",
}, Provider.Memory, cases)

// The block's hints the cases look for.
const (
	HintConflict  = "MEMORY_CONFLICT"
	HintNotFound  = "MEMORY_NOT_FOUND"
	HintNoMatch   = "MEMORY_NO_MATCH"
	HintAmbiguous = "MEMORY_AMBIGUOUS"
	HintLine      = "MEMORY_LINE"
	HintExists    = "MEMORY_EXISTS"
	HintPath      = "MEMORY_PATH"
	HintForbidden = "MEMORY_FORBIDDEN"
	HintNamespace = "MEMORY_NAMESPACE"
)

// Provider is implemented by a store that offers the memory block.
type Provider interface {
	// Memory prepares the suite for a run: what gives each case the
	// block, or why the store cannot run the suite.
	Memory(ctx context.Context) (conform.Opener[Memory], error)
}

// Namespace is a memory namespace ({"scope": "user"} when nil): scope
// user, agent (agent_id), chat (chat_id), project (project_id) or
// organization.
type Namespace map[string]any

// Command is one memory tool command: view, create, str_replace, insert,
// delete or rename, with the inputs it takes.
type Command struct {
	Command    string
	Path       string
	Content    string
	OldText    string
	NewText    string
	InsertLine int
	InsertText string
	NewPath    string
	// ExpectedVersion, for create, is the version the file must be at (0:
	// no file yet); nil for none.
	ExpectedVersion *int
	NS              Namespace
}

// File is what view answers for a file, create, str_replace and insert
// for the file they wrote: its content and version; for a directory
// (view), its type and entries.
type File struct {
	Type    string  `json:"type"`
	Path    string  `json:"path"`
	Content string  `json:"content"`
	Version int     `json:"version"`
	Entries []Entry `json:"entries"`
}

// Entry is a file a directory view lists.
type Entry struct {
	Path string `json:"path"`
	Size int    `json:"size"`
}

// Fact is an archival memory a search found.
type Fact struct {
	ID      string `json:"id"`
	Content string `json:"content"`
}

// Memory is the memory block as the cases drive it. Failures the block
// names are *conform.StoreError values whose Hint is the block's hint.
type Memory interface {
	// Member makes a signed-in user holding permissions in tenant.
	Member(ctx context.Context, tenant string, permissions ...string) (string, error)
	// Run runs a command in tenant as caller c and returns its result as
	// the block answered it: a file or directory (JSON null for nothing
	// there) or a number of files.
	Run(ctx context.Context, c conform.Caller, tenant string, cmd Command) (json.RawMessage, error)
	// Save saves a fact in tenant as caller c and returns its id.
	Save(ctx context.Context, c conform.Caller, tenant, content string, ns Namespace) (string, error)
	// Search finds the facts matching text in tenant as caller c.
	Search(ctx context.Context, c conform.Caller, tenant, text string, ns Namespace) ([]Fact, error)
	// Forget forgets a fact as caller c, or marks it superseded by another
	// ("" for none): false when there is none the caller may forget.
	Forget(ctx context.Context, c conform.Caller, id, supersededBy string) (bool, error)
}
