package cli

import "testing"

// Only the reports that list every message keep the passing ones: the
// text report without -v and the annotations count them.
func TestCheckFixturesDropPassed(t *testing.T) {
	for _, tc := range []struct {
		format  string
		verbose bool
		drop    bool
	}{
		{"text", false, true}, {"github", false, true},
		{"text", true, false}, {"json", false, false}, {"junit", false, false},
	} {
		o := &checkFixturesOptions{format: tc.format, verbose: tc.verbose}
		if got := o.request("").DropPassed; got != tc.drop {
			t.Errorf("--format %s, verbose %v: DropPassed %v, want %v", tc.format, tc.verbose, got, tc.drop)
		}
	}
}
