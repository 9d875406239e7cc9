//go:build linux

package pgserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// extTemplate is a Template whose content depends on extensions.
type extTemplate struct{ probeTemplate }

func (extTemplate) NeededExtensions() []string { return []string{"vector"} }

// A cached cluster is keyed by whether the server's files offer the
// extensions the template needs, and at which version: installing
// pgvector after a cluster was cached without it gives another key, so the
// modules left out before are installed instead of staying out.
func TestCacheKeyFollowsTheServersExtensions(t *testing.T) {
	root := t.TempDir()
	bin := filepath.Join(root, "bin")
	ext := filepath.Join(root, "share", "postgresql", "extension")
	for _, d := range []string{bin, ext} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(ext, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("plpgsql.control", "default_version = '1.0'\n")
	key := func() string {
		k := cacheKey("15.18", extTemplate{}, extensionFingerprint(bin, "15.18", extTemplate{}))
		// The key names a folder: a plain file name.
		if strings.ContainsAny(k, "\x00/ ") {
			t.Fatalf("cache key %q is no plain file name", k)
		}
		return k
	}
	without := key()
	write("vector.control", "comment = 'vector data type'\ndefault_version = '0.8.0'\n")
	with := key()
	if with == without {
		t.Fatalf("the key did not change when vector.control appeared: %s", with)
	}
	write("vector.control", "default_version = '0.8.1'\n")
	if newer := key(); newer == with {
		t.Errorf("the key did not change with the extension's version: %s", newer)
	}
	if got := extensionFingerprint(bin, "15.18", probeTemplate{}); got != "" {
		t.Errorf("a template that needs no extension got the fingerprint %q", got)
	}
	if got := controlVersion(filepath.Join(ext, "vector.control")); got != "0.8.1" {
		t.Errorf("controlVersion = %q, want 0.8.1", got)
	}
	if got := controlVersion(filepath.Join(ext, "missing.control")); got != "none" {
		t.Errorf("controlVersion of a missing file = %q, want none", got)
	}
}
