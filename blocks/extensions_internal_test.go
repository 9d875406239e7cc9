package blocks

import (
	"strings"
	"testing"
)

func TestVersionAtLeast(t *testing.T) {
	for _, c := range []struct {
		have, min string
		want      bool
	}{
		{"0.8.0", "0.8", true}, {"0.8", "0.8.0", true}, {"0.7.4", "0.8", false}, {"0.10.0", "0.8", true},
		{"1.0", "0.8", true}, {"0.8.1", "0.8.2", false}, {"0.9dev", "0.8", true}, {"0.7dev", "0.8", false},
	} {
		if got := versionAtLeast(c.have, c.min); got != c.want {
			t.Errorf("versionAtLeast(%q, %q) = %v, want %v", c.have, c.min, got, c.want)
		}
	}
}

func TestParseExtensions(t *testing.T) {
	got, err := parseExtensions("vector >= 0.8, pg_trgm")
	if err != nil || len(got) != 2 || got[0] != (Extension{"vector", "0.8"}) || got[1] != (Extension{"pg_trgm", ""}) {
		t.Errorf("parseExtensions = %v, %v", got, err)
	}
	if got[0].String() != "vector >= 0.8" {
		t.Errorf("String() = %q", got[0].String())
	}
	for _, bad := range []string{"", "vector > 0.8", "vector >= x", "Vector", "vector >= 0.8; drop"} {
		if _, err := parseExtensions(bad); err == nil || !strings.Contains(err.Error(), "-- needs-extension: vector >= 0.8") {
			t.Errorf("parseExtensions(%q): %v, want an error showing the header's form", bad, err)
		}
	}
}
