package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites"
	"github.com/bsadapter/bsadapter/internal/scaffold"
)

// throwaway is the subject of the throwaway suite below.
type throwaway struct{}

// throwawayProvider is the throwaway suite's provider interface: what a
// store implements to offer the suite.
type throwawayProvider interface {
	Throwaway(context.Context) (conform.Opener[throwaway], error)
}

// throwawayStore implements the throwaway suite and nothing else.
type throwawayStore struct{}

func (throwawayStore) Name() string { return "throwaway" }
func (throwawayStore) Close() error { return nil }
func (throwawayStore) Throwaway(context.Context) (conform.Opener[throwaway], error) {
	return func(*conform.T) (throwaway, error) { return throwaway{}, nil }, nil
}

// A suite is its package and one line of the list: a suite added to
// suites.All, and nothing else, shows in the command's help and --list,
// in the catalog, among the bridge's method groups, among the contracts
// 'new' accepts, and in the suites a store that does not implement it is
// said to have left out; a store that implements its provider runs it.
func TestAddingASuiteIsOneLine(t *testing.T) {
	s := conform.NewSuite(conform.Info{
		Name: "throwaway", Contract: "throwaway", BridgeGroup: "throwawayGroup",
		Intro: "A suite that exists only in this test.",
	}, throwawayProvider.Throwaway, []conform.CaseOf[throwaway]{
		{ID: "throwaway/holds", Rule: "the throwaway rule holds", Run: func(t *conform.T, _ throwaway) { t.Eq("one", 1, 1) }},
	})
	old := suites.All
	suites.All = append(slices.Clip(old), s)
	t.Cleanup(func() { suites.All = old })

	if code, out, errOut := runMain(t, "conform", "--list"); code != 0 || !strings.Contains(out, "throwaway/holds") {
		t.Errorf("conform --list: exit %d, the throwaway case not listed:\n%s%s", code, out, errOut)
	}
	if code, out, _ := runMain(t, "conform", "--help"); code != 0 || !strings.Contains(strings.Join(strings.Fields(out), " "), "ai-cache, knowledge, memory, throwaway. By default") || !strings.Contains(out, "graph-compiler, builder, builder-records, world, embedder, ai-task-runner, ai-cache, knowledge, memory, throwaway (default") {
		t.Errorf("conform --help does not name the throwaway suite (exit %d):\n%s", code, out)
	}
	var cat bytes.Buffer
	if err := conform.WriteCatalog(&cat, suites.All); err != nil || !strings.Contains(cat.String(), "## throwaway (1 cases)\n\nA suite that exists only in this test.") || !strings.Contains(cat.String(), "| `throwaway/holds` | the throwaway rule holds | interface | - |") {
		t.Errorf("the catalog lacks the throwaway suite (%v)", err)
	}
	if !slices.Contains(suites.BridgeGroups(), "throwawayGroup") {
		t.Errorf("bridge groups %v lack the throwaway suite's", suites.BridgeGroups())
	}
	if err := scaffold.ValidateContracts([]string{"chat", "throwaway"}); err != nil || !strings.HasSuffix(scaffold.ContractList(), ", throwaway") {
		t.Errorf("new --contracts does not take the throwaway contract: %v (the list: %s)", err, scaffold.ContractList())
	}

	// The memory store has no throwaway provider: a run leaves the suite
	// out and says why; named, the suite is refused for that store.
	code, out, errOut := runMain(t, "conform", "--store", "memory", "--format", "json")
	var doc struct {
		LeftOut []conform.LeftOut `json:"leftOut"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || !slices.Contains(doc.LeftOut, conform.LeftOut{Suite: "throwaway", Cases: 1, Reason: "the memory store does not implement the throwaway suite's interface"}) {
		t.Errorf("conform --store memory: exit %d, left out %+v\n%s", code, doc.LeftOut, errOut)
	}
	if code, _, errOut := runMain(t, "conform", "--store", "memory", "--suite", "throwaway"); code != 2 || !strings.Contains(errOut, "memory runs none of the selected suites (throwaway: the memory store does not implement the throwaway suite's interface)") {
		t.Errorf("conform --suite throwaway on memory: exit %d\n%s", code, errOut)
	}
	rep := conform.Run(t.Context(), throwawayStore{}, s.Cases, conform.Options{})
	if rep.Count(conform.Pass) != 1 {
		t.Errorf("a store with the provider did not pass the throwaway suite: %+v", rep.Results)
	}
}
