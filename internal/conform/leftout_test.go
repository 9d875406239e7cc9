package conform

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

// leftOutStore implements the streams suite, cannot run the registry
// suite (a defect to report case by case), and does not implement chat.
type leftOutStore struct{ bareStore }

func (leftOutStore) Supports(suite string) error {
	switch suite {
	case SuiteRegistry:
		return errors.New("the installed blocks lack a function")
	case SuiteChat:
		return NotImplemented("no chat here")
	}
	return nil
}

// Implemented leaves out only the suites a store does not implement; one it
// implements but cannot run stays in, so that its skips are seen.
func TestImplementedLeavesOutOnlyWhatTheStoreDoesNotImplement(t *testing.T) {
	cases := []Case{{ID: "streams/a", Suite: SuiteStreams}, {ID: "chat/b", Suite: SuiteChat}, {ID: "registry/c", Suite: SuiteRegistry}, {ID: "chat/d", Suite: SuiteChat}}
	kept, out := Implemented(&leftOutStore{}, cases)
	var ids []string
	for _, c := range kept {
		ids = append(ids, c.ID)
	}
	if !slices.Equal(ids, []string{"streams/a", "registry/c"}) {
		t.Errorf("kept %v", ids)
	}
	if len(out) != 1 || out[0] != (LeftOut{Suite: SuiteChat, Cases: 2, Reason: "no chat here"}) {
		t.Errorf("left out %+v", out)
	}
	if !IsNotImplemented(fmt.Errorf("wrapped: %w", NotImplemented("x"))) || IsNotImplemented(errors.New("x")) {
		t.Error("IsNotImplemented does not follow wrapping")
	}
}
