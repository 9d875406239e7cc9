package termsetup

import "testing"

func TestDarkBackground(t *testing.T) {
	for in, want := range map[string]bool{"": true, "15;0": true, "0;15": false, "0;default;7": false, "7;8": true, "x": true} {
		if got := DarkBackground(in); got != want {
			t.Errorf("DarkBackground(%q) = %v, want %v", in, got, want)
		}
	}
}
