package blocks

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestErrorLine(t *testing.T) {
	sql := "-- ü header\nselect 1;\nselect broken;\n"
	// The server counts characters, not bytes, from 1.
	pos := int32(len([]rune(sql[:strings.Index(sql, "broken")]))) + 1
	err := &sqlError{&pgconn.PgError{Message: "x", Position: pos}}
	if got := errorLine(sql, err); got != 3 {
		t.Errorf("line %d, want 3", got)
	}
	ie := &InstallError{Module: "streams", Line: errorLine(sql, err), Err: err}
	if !strings.Contains(ie.Error(), "install streams (sql/streams.sql line 3): ") {
		t.Errorf("message %q does not name the file and line", ie.Error())
	}
	// Errors that do not come from the module's SQL have no line.
	if got := errorLine(sql, &pgconn.PgError{Position: pos}); got != 0 {
		t.Errorf("registry error got line %d", got)
	}
	if got := errorLine(sql, errors.New("x")); got != 0 {
		t.Errorf("plain error got line %d", got)
	}
}

// A broken embedded module is caught when the package loads.
func TestLoadRejectsBrokenModules(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"no header":        {"sql/registry.sql": "", "sql/x.sql": "select 1;"},
		"wrong file":       {"sql/registry.sql": "", "sql/x.sql": "-- bsadapter block: y\n-- version: 1\n"},
		"bad version":      {"sql/registry.sql": "", "sql/x.sql": "-- bsadapter block: x\n-- version: one\n"},
		"unknown requires": {"sql/registry.sql": "", "sql/x.sql": "-- bsadapter block: x\n-- version: 1\n-- requires: z\n"},
		"cycle": {"sql/registry.sql": "",
			"sql/x.sql": "-- bsadapter block: x\n-- version: 1\n-- requires: y\n",
			"sql/y.sql": "-- bsadapter block: y\n-- version: 1\n-- requires: x\n"},
	} {
		_, _, err := load(mapFS(files))
		if err == nil {
			t.Errorf("%s: loaded without error", name)
		}
	}
}

func mapFS(files map[string]string) fstest.MapFS {
	m := fstest.MapFS{}
	for k, v := range files {
		m[k] = &fstest.MapFile{Data: []byte(v)}
	}
	return m
}

// A header is a line of its own, wherever it is in the file; the same
// text inside a line is not one. Functions are found whatever the case
// of the SQL, helpers (a leading _) left out.
func TestHeaderLinesAndFunctions(t *testing.T) {
	sql := "-- bsadapter block: x\n" +
		"-- version: 2\n" +
		"select 1; -- version: 9\n" +
		"CREATE OR REPLACE FUNCTION Better_Supabase.X_Get(a int) returns int language sql as 'select 1';\n" +
		"create\n  function \"better_supabase\".\"x_put\" (a int) returns int language sql as 'select 1';\n" +
		"Create Function better_supabase._x_helper() returns int language sql as 'select 1';\n" +
		"-- requires: y, z\n"
	m, ok, err := parseHeader("sql/x.sql", sql)
	if err != nil || !ok {
		t.Fatalf("parseHeader: ok %v, %v", ok, err)
	}
	if m.Name != "x" || m.Version != "2" || strings.Join(m.Requires, ",") != "y,z" {
		t.Errorf("name %q, version %q, requires %q; want x, 2, [y z]", m.Name, m.Version, m.Requires)
	}
	if got := strings.Join(m.Functions, ","); got != "better_supabase.x_get,better_supabase.x_put" {
		t.Errorf("functions %s, want better_supabase.x_get,better_supabase.x_put", got)
	}
}
