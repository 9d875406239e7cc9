// Package lint checks a better-supabase adapter against the adapter rules
// (contracts section 1): the SDK is an optional peer loaded lazily, the
// adapter ships no SQL and touches no block table, it imports only
// better-supabase's public exports, and tokens stay behind a
// credential_ref.
//
// The module graph comes from esbuild (its Go API parses the adapter's
// modules from its entry points, every package external, and a plugin
// records each import with its kind and what it resolves to); the rest
// reads the adapter's files with a small lexer.
// The package returns a Report; internal/cli prints it. It knows nothing
// about terminals or flags.
package lint

import (
	"context"
	"fmt"
	"sort"
)

// Rule IDs, stable: they appear in output, in SARIF and in ignore comments.
const (
	RuleEagerImport  = "sdk-eager-import"
	RuleOptionalPeer = "sdk-optional-peer"
	RuleExportEntry  = "export-entry"
	RuleSQLFile      = "no-sql-file"
	RuleSQLStatement = "no-sql-statement"
	RuleBlockTable   = "block-table"
	RuleEngineModule = "engine-module-name"
	RulePublicExport = "public-exports"
	RuleTokenOption  = "token-option"
	RuleCredential   = "credential-ref"
	RuleIgnore       = "lint-ignore"
)

// Rule describes one check.
type Rule struct {
	ID string `json:"id"`
	// Contract is the adapter rule (contracts section 1) it enforces, 0
	// for placement and for the linter's own checks.
	Contract int    `json:"contract"`
	Summary  string `json:"summary"`
	Detail   string `json:"detail"`
}

// Rules lists every rule in the order they are documented.
var Rules = []Rule{
	{RuleEagerImport, 3, "the SDK is loaded lazily", "No path from the package's entry points loads the SDK while the adapter is imported: no static import, re-export, top-level require or top-level await import() of it (type-only imports, and import() or require inside functions, are fine)."},
	{RuleOptionalPeer, 3, "the SDK is an optional peer", "The SDK is in peerDependencies with peerDependenciesMeta.<sdk>.optional true, and not in dependencies."},
	{RuleExportEntry, 0, "the subpath's export entry is upstream's", `Inside better-supabase the export entry "./NAME" has three conditions in this order: "@better-supabase/source" -> ./src/NAME/index.ts, "types" -> ./dist/NAME/index.d.ts, "default" -> ./dist/NAME/index.js.`},
	{RuleSQLFile, 1, "no SQL files in the adapter", "The adapter's source holds no .sql file: it owns no tables and calls the blocks."},
	{RuleSQLStatement, 1, "no SQL statements in the adapter", "No string in the adapter's source is a SQL statement (DDL, or DML against tables); call the blocks' functions instead."},
	{RuleBlockTable, 1, "no block table used directly", "No string in the adapter's source names a table of the blocks; the blocks' functions are the interface."},
	{RuleEngineModule, 2, "an engine's SQL module is named after the engine", "A SQL module beside the adapter is named after its engine (NAME-state, workflow-sdk-world), never like a block."},
	{RulePublicExport, 0, "only better-supabase's public exports", "Imports of better-supabase go through its package exports, never into its files."},
	{RuleTokenOption, 4, "no token in options or stored values", "No options type has a token-like field (token, apiKey, secret, password, accessToken, ...), and no value stored in rows (attributes, metadata, a data part) has one; take a credentialRef that a CredentialProvider resolves."},
	{RuleCredential, 4, "a credential_ref names its provider", "A credential_ref (credentialRef) is an object with a string provider."},
	{RuleIgnore, 0, "ignore comments are well-formed", "A bsadapter-lint-ignore comment names a known rule and gives a reason."},
}

// RuleByID returns the rule with that ID.
func RuleByID(id string) (Rule, bool) {
	for _, r := range Rules {
		if r.ID == id {
			return r, true
		}
	}
	return Rule{}, false
}

// Link is one step of an import chain: the file and the place in it of
// the import that leads on.
type Link struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	// Import is the module specifier written there.
	Import string `json:"import"`
}

// Finding is one broken rule.
type Finding struct {
	Rule string `json:"rule"`
	// File is relative to Report.Root, with forward slashes.
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Message string `json:"message"`
	// Chain is, for an eager SDK import, the imports from an entry point
	// to the file that loads the SDK; the last link is the finding itself.
	// A chain of more than 20 links keeps its first and last 10.
	Chain []Link `json:"chain,omitempty"`
	// ChainOmitted is how many links were left out of the middle of a
	// long chain, between its first ten and its last ten.
	ChainOmitted int `json:"chainOmitted,omitempty"`
	// Evidence is the source line or value that shows the problem.
	Evidence string `json:"evidence,omitempty"`
	Fix      string `json:"fix"`
	// Reason is set on a suppressed finding: the ignore comment's reason.
	Reason string `json:"reason,omitempty"`
}

// Ignore is an ignore comment.
type Ignore struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	Rule   string `json:"rule"`
	Reason string `json:"reason"`
}

// Target is what was linted.
type Target struct {
	// Kind is "package" or "subpath".
	Kind string `json:"kind"`
	// Name is the package name, or the subpath's name (better-supabase/NAME).
	Name string `json:"name"`
	// SDKs are the packages treated as the SDK.
	SDKs []string `json:"sdks"`
	// Entries are the entry points, relative to Root.
	Entries []string `json:"entries"`
}

// SchemaVersion is the version of the JSON report's shape.
const SchemaVersion = 1

// Report is the result of a lint run; as JSON it is the document
// "bsadapter lint --format json" prints.
type Report struct {
	SchemaVersion int `json:"schemaVersion"`
	// OK is true when nothing was found.
	OK bool `json:"ok"`
	// Root is the absolute folder file paths are relative to: the package,
	// or the better-supabase checkout for a subpath.
	Root   string `json:"root"`
	Target Target `json:"target"`
	// Files is how many files were read.
	Files      int       `json:"files"`
	Findings   []Finding `json:"findings"`
	Suppressed []Finding `json:"suppressed"`
	// UnusedIgnores are ignore comments that silenced nothing.
	UnusedIgnores []Ignore `json:"unusedIgnores,omitempty"`
}

// Options say what to lint.
type Options struct {
	// Dir is the adapter: a package folder, or inside a better-supabase
	// checkout the subpath's source or tests folder.
	Dir string
	// SDKs, when set, name the SDK packages instead of bsadapter.json's
	// sdk and the package's peer dependencies.
	SDKs []string
}

// UsageError is a problem with what was asked (no package.json, no SDK
// to check for, an entry point without source); the CLI exits 2 on it.
type UsageError struct {
	Msg string
	Fix string
}

func (e *UsageError) Error() string { return e.Msg }

func usagef(fix, format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...), Fix: fix}
}

// Run lints the adapter in opts.Dir.
func Run(ctx context.Context, opts Options) (*Report, error) {
	t, err := resolveTarget(opts)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l := &linter{t: t, files: map[string]*sourceFile{}}
	if err := l.run(ctx); err != nil {
		return nil, err
	}
	return l.report(), nil
}

func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		return a.Rule < b.Rule
	})
}
