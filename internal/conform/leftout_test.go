package conform

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

// Implemented leaves out only the suites a store does not implement; one it
// implements but cannot run stays in, so that its skips are seen.
func TestImplementedLeavesOutOnlyWhatTheStoreDoesNotImplement(t *testing.T) {
	// The store implements streams, cannot run registry (a defect to
	// report case by case) and does not implement chat.
	store := &fakeStore{refuse: map[string]error{"registry": errors.New("the installed blocks lack a function"), "chat": NotImplemented("no chat here")}}
	noop := func(*T, bare) {}
	streams, registry := fakeSuite("streams", CaseOf[bare]{ID: "streams/a", Run: noop}), fakeSuite("registry", CaseOf[bare]{ID: "registry/c", Run: noop})
	chat := fakeSuite("chat", CaseOf[bare]{ID: "chat/b", Run: noop}, CaseOf[bare]{ID: "chat/d", Run: noop})
	cases := []Case{streams.Cases[0], chat.Cases[0], registry.Cases[0], chat.Cases[1]}
	kept, out := Implemented(store, cases)
	var ids []string
	for _, c := range kept {
		ids = append(ids, c.ID)
	}
	if !slices.Equal(ids, []string{"streams/a", "registry/c"}) {
		t.Errorf("kept %v", ids)
	}
	if len(out) != 1 || out[0] != (LeftOut{Suite: "chat", Cases: 2, Reason: "no chat here"}) {
		t.Errorf("left out %+v", out)
	}
	if !IsNotImplemented(fmt.Errorf("wrapped: %w", NotImplemented("x"))) || IsNotImplemented(errors.New("x")) {
		t.Error("IsNotImplemented does not follow wrapping")
	}
}
