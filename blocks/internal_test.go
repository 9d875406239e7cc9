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
