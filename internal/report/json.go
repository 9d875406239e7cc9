package report

import (
	"encoding/json"
	"io"

	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/schemas"
)

// WriteJSON writes doc as one indented JSON document. '<', '>' and '&'
// stay as they are: the documents are read by programs, not embedded in
// HTML.
func WriteJSON(w io.Writer, doc any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// The documents below are what the commands without a report of their
// own print with --format json. Each has a schemaVersion, raised when a
// field changes meaning or goes away. The fields of those that began as
// maps stand in the order the maps were printed (sorted by key), so that
// their output stays the same.

// Version is "bsadapter version --format json".
type Version struct {
	SchemaVersion int    `json:"schemaVersion"`
	Version       string `json:"version"`
	Commit        string `json:"commit"`
	Date          string `json:"date"`
	GoVersion     string `json:"goVersion"`
	Platform      string `json:"platform"`
	// Postgres says which PostgreSQL a run would use and where it comes
	// from (a pgserver.Choice).
	Postgres any `json:"postgres,omitempty"`
}

// NewVersion returns the document with its schemaVersion set.
func NewVersion(version, commit, date, goVersion, platform string) Version {
	return Version{SchemaVersion: 1, Version: version, Commit: commit, Date: date, GoVersion: goVersion, Platform: platform}
}

// Modules is "bsadapter blocks list --format json".
type Modules struct {
	Modules       []blocks.Module `json:"modules"`
	SchemaVersion int             `json:"schemaVersion"`
	// Source is the folder the modules come from (--blocks); empty for
	// the embedded blocks.
	Source string `json:"source,omitempty"`
}

// NewModules returns the document with its schemaVersion set.
func NewModules(mods []blocks.Module) Modules {
	return Modules{Modules: nonNil(mods), SchemaVersion: 1}
}

// Install is "bsadapter blocks install --format json": what happened to
// each module and, when installing stopped, why.
type Install struct {
	Database      string                `json:"database"`
	Error         string                `json:"error,omitempty"`
	Modules       []blocks.ModuleResult `json:"modules"`
	SchemaVersion int                   `json:"schemaVersion"`
	// Source is the folder the modules come from (--blocks); empty for
	// the embedded blocks.
	Source string `json:"source,omitempty"`
}

// NewInstall returns the document with its schemaVersion set; err is the
// error that stopped the installation, or nil.
func NewInstall(database string, mods []blocks.ModuleResult, err error) Install {
	doc := Install{Database: database, Modules: nonNil(mods), SchemaVersion: 1}
	if err != nil {
		doc.Error = err.Error()
	}
	return doc
}

// Schemas is "bsadapter schema --list --format json".
type Schemas struct {
	SchemaVersion int            `json:"schemaVersion"`
	Schemas       []schemas.Info `json:"schemas"`
}

// NewSchemas returns the document with its schemaVersion set.
func NewSchemas(infos []schemas.Info) Schemas { return Schemas{1, nonNil(infos)} }

// Cases is "bsadapter conform --list --format json".
type Cases struct {
	Cases         []Case `json:"cases"`
	SchemaVersion int    `json:"schemaVersion"`
}

// Case is one conformance case in the list: its stable ID, its suite, the
// rule it checks, whose rule that is, and its time limit.
type Case struct {
	ID    string `json:"id"`
	Suite string `json:"suite"`
	Rule  string `json:"rule"`
	// Source is whose rule the case checks: "interface" (every store's)
	// or "block" (a SQL block's behaviour beyond its interface).
	Source string `json:"source"`
	// BlockRule names the block rule of a case whose Source is "block".
	BlockRule string `json:"blockRule,omitempty"`
	TimeoutMs int64  `json:"timeoutMs"`
}

// NewCases returns the document with its schemaVersion set.
func NewCases(cases []Case) Cases { return Cases{nonNil(cases), 1} }

// Bench is "bsadapter conform --bench --format json": one row of
// results (R) per concurrency level.
type Bench[R any] struct {
	ChunkBytes    int    `json:"chunkBytes"`
	PageChunks    int    `json:"pageChunks"`
	Results       []R    `json:"results"`
	SchemaVersion int    `json:"schemaVersion"`
	Store         string `json:"store"`
}

// NewBench returns the document with its schemaVersion set.
func NewBench[R any](store string, chunkBytes, pageChunks int, results []R) Bench[R] {
	return Bench[R]{chunkBytes, pageChunks, nonNil(results), 1, store}
}

// Scaffold is "bsadapter new --format json": what was (or, with
// --dry-run, would be) written, and what to do next.
type Scaffold struct {
	SchemaVersion int      `json:"schemaVersion"`
	DryRun        bool     `json:"dryRun"`
	Name          string   `json:"name"`
	Format        string   `json:"format"`
	Preset        string   `json:"preset"`
	Placement     string   `json:"placement"`
	Contracts     []string `json:"contracts"`
	Root          string   `json:"root"`
	Files         []string `json:"files"`
	Overwritten   []string `json:"overwritten,omitempty"`
	Edits         []string `json:"edits,omitempty"`
	NextDir       string   `json:"nextDir"`
	Next          string   `json:"next"`
}

// ScaffoldVersion is Scaffold's schemaVersion.
const ScaffoldVersion = 1

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
