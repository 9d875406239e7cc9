//go:build linux

package bridge

import (
	"context"
	"testing"
)

// A bridge that never ran is not said to have written nothing to stderr,
// and an empty first word is named as such, whether the command comes
// from --bridge "”" or from bsadapter.json.
func TestStartFaultsSayNothingOfStderr(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{[]string{""}, `the bridge command '' names no program: its first word is empty`},
		{[]string{"", "bridge.mjs"}, `the bridge command '' bridge.mjs names no program: its first word is empty`},
		{[]string{"bsadapter-no-such-bridge"}, `cannot start the bridge bsadapter-no-such-bridge: exec: "bsadapter-no-such-bridge": executable file not found in $PATH`},
	} {
		_, err := Start(context.Background(), Options{Command: tc.argv})
		if faultOf(err) != FaultStart || err.Error() != tc.want {
			t.Errorf("%q: got %v, want %s", tc.argv, err, tc.want)
		}
	}
}
