//go:build linux

package pgserver

import (
	"context"
	"strings"
	"testing"
)

func TestWhich(t *testing.T) {
	ctx := context.Background()
	if c := Which(ctx, Options{DSN: "postgres://alice:secret@db.example:6543/app"}); c.Strategy != "dsn" || c.Source != "postgres://alice@db.example:6543/app" {
		t.Errorf("with a DSN: %+v", c)
	}
	old := searchPlaces
	empty := t.TempDir()
	searchPlaces = func(yield func(string) bool) { yield(empty) }
	c := Which(ctx, Options{Strategy: "local"})
	searchPlaces = old
	if c.Strategy != "" || len(c.Tried) != 1 || !strings.Contains(c.Tried[0], "no PostgreSQL binaries in "+empty) {
		t.Errorf("local without binaries: %+v", c)
	}

	needLocal(t)
	bin, _ := findBinaries()
	if c := Which(ctx, Options{}); c.Strategy != "local" || c.Source != bin+" (system binaries)" || c.Version == "" {
		t.Errorf("auto with binaries in %s: %+v", bin, c)
	}
}
