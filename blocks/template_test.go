package blocks

import (
	"strings"
	"testing"
)

// The template's key names what it installs: the same blocks give the same
// key, and a change to any module's SQL or version, or to the registry
// bookkeeping, gives another, so that no cached server keeps old blocks.
func TestTemplateKey(t *testing.T) {
	key := (Template{}).Key()
	if key != (Template{}).Key() || !strings.HasPrefix(key, "blocks-") {
		t.Fatalf("key %q is not stable", key)
	}
	saved, savedRegistry := modules, registry
	t.Cleanup(func() { modules, registry = saved, savedRegistry })
	for _, change := range []func(){
		func() { modules[len(modules)-1].SQL += "\n-- changed" },
		func() { modules[0].Version += ".1" },
		func() { registry += "\n-- changed" },
	} {
		modules = append([]Module(nil), saved...)
		registry = savedRegistry
		change()
		if (Template{}).Key() == key {
			t.Errorf("a change to the blocks kept the key %s", key)
		}
	}
}
