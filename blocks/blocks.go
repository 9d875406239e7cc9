// Package blocks embeds the better-supabase SQL blocks that bsadapter checks
// adapters against (supabase-base, streams, ai-chat, workflows), lists them
// with their versions, dependencies and functions, and installs them into a
// PostgreSQL database.
//
// Every block lives in schema better_supabase. Each module is installed in
// its own transaction, in dependency order, and recorded in
// better_supabase.modules, so that installing twice changes nothing and a
// failure leaves the database as it was.
package blocks

import (
	"context"
	"embed"
	"errors"

	"github.com/jackc/pgx/v5"
)

//go:embed sql/*.sql
var files embed.FS

// FS returns the embedded SQL files (sql/<module>.sql).
func FS() embed.FS { return files }

// Module is one embedded SQL module.
type Module struct {
	// Name is the module's upstream name, such as "streams".
	Name string `json:"name"`
	// Version is the module's version as upstream numbers it.
	Version string `json:"version"`
	// Requires names the modules that must be installed first.
	Requires []string `json:"requires"`
	// Functions lists the SQL functions the module defines, schema-qualified.
	Functions []string `json:"functions"`
	// SQL is the module's SQL, without the registry bookkeeping.
	SQL string `json:"-"`
}

// List returns every embedded module in dependency order.
func List() []Module { return nil }

// SQL returns the SQL that installs the named modules and everything they
// require, in dependency order, one transaction per module, including the
// registry bookkeeping. No names means every module.
func SQL(names ...string) (string, error) { return "", errors.New("blocks: not implemented yet") }

// Report says what Install did with each module, in the order it handled
// them.
type Report struct {
	Modules []ModuleResult `json:"modules"`
}

// ModuleResult is what happened to one module.
type ModuleResult struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// Action is "installed", "already" (that version was installed before)
	// or "skipped" (the database already provides it, e.g. supabase-base on
	// a Supabase database).
	Action string `json:"action"`
}

// Install installs the named modules (none means all) and their
// dependencies into the database conn is connected to.
func Install(ctx context.Context, conn *pgx.Conn, names ...string) (Report, error) {
	return Report{}, errors.New("blocks: not implemented yet")
}
