//go:build linux

package bridge

import (
	"context"
	"errors"
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

// Start's errors are *StartError; an error of a call to a bridge that
// started is not, so that a caller can tell the two apart.
func TestStartErrorOnlyFromStart(t *testing.T) {
	_, err := Start(context.Background(), Options{Command: []string{"bsadapter-no-such-bridge"}})
	var se *StartError
	if !errors.As(err, &se) || faultOf(err) != FaultStart {
		t.Fatalf("Start: %#v", err)
	}
	c := start(t, context.Background(), goBridgeCmd(t))
	err = c.Call(context.Background(), "bsadapter.noSuchMethod", map[string]any{}, nil)
	if err == nil || errors.As(err, &se) {
		t.Fatalf("call: %#v", err)
	}
}
