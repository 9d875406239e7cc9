package blocks

import (
	"strings"
	"testing"
)

// The template's key names what it installs: the same blocks give the same
// key, and a change to any module's SQL, version or mode, or to the
// registry bookkeeping, gives another, so that no cached server keeps old
// blocks. Another set of modules has a key of its own.
func TestTemplateKey(t *testing.T) {
	key := (Template{}).Key()
	if key != (Template{}).Key() || key != (Template{Set: Embedded()}).Key() || !strings.HasPrefix(key, "blocks-") {
		t.Fatalf("key %q is not stable", key)
	}
	for _, change := range []func(s *Set){
		func(s *Set) { s.modules[len(s.modules)-1].SQL += "\n-- changed" },
		func(s *Set) { s.modules[0].Version += ".1" },
		func(s *Set) { s.modules[0].Mode = "custom" },
		func(s *Set) { s.registry += "\n-- changed" },
	} {
		s := &Set{modules: append([]Module(nil), embedded.modules...), registry: embedded.registry, source: "changed"}
		change(s)
		if (Template{Set: s}).Key() == key {
			t.Errorf("a change to the blocks kept the key %s", key)
		}
	}
}
