package scaffold_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/bridgestore"
	"github.com/bsadapter/bsadapter/internal/conform/conformtest"
	"github.com/bsadapter/bsadapter/internal/conform/suites"
	"github.com/bsadapter/bsadapter/internal/conform/suites/world"
	"github.com/bsadapter/bsadapter/internal/scaffold"
	"github.com/bsadapter/bsadapter/internal/testenv"
)

// A generated bridge declares the world capability when, and only when,
// the adapter implements the world contract: without it the world cases
// are skipped for that capability rather than run against nothing.
func TestWorldCapabilityOnlyWithTheContract(t *testing.T) {
	for _, c := range []struct {
		contracts []string
		want      bool
	}{
		{[]string{"chat", "streams", "workflows", "chat-state", "credentials"}, false},
		{[]string{"streams", "world"}, true},
	} {
		t.Run(strings.Join(c.contracts, ","), func(t *testing.T) {
			t.Parallel()
			dir := scaffoldInto(t, scaffold.Options{Name: "acme", SDKs: []string{"acme"}, Contracts: c.contracts})
			caps := startBridge(t, dir).Capabilities()
			if got := caps.Has(bridge.GroupWorld); got != c.want {
				t.Errorf("capabilities.world = %v, want %v", got, c.want)
			}
		})
	}
}

// runWorldSuite runs every case of the world suite over the bridge of the
// adapter in dir and returns the report.
func runWorldSuite(t *testing.T, dir string) *conform.Report {
	t.Helper()
	st, err := bridgestore.New(t.Context(), bridge.Options{Command: []string{testenv.NodeBin(t, "tsx"), "bsadapter.bridge.ts"}, Dir: dir, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatalf("start bridge: %v", err)
	}
	defer st.Close()
	cases, err := conform.Select(suites.Cases(), conform.Options{Suites: []string{world.Suite.Name}})
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != len(world.Suite.Cases) || len(cases) < 45 {
		t.Fatalf("selected %d world cases, the suite has %d", len(cases), len(world.Suite.Cases))
	}
	return conform.Run(t.Context(), st, cases, conform.Options{Parallel: 8})
}

// The generated memory World passes every world case over its own bridge
// (TestBridgeConformance, and npm test in TestEndToEnd); broken in one
// small way it fails exactly the cases of the rule it breaks, and passes
// the others: its green run is not a false one.
func TestGeneratedWorldMutants(t *testing.T) {
	for _, m := range []struct {
		name     string
		old, new string
		failed   []string
	}{
		{
			// A second run_cancelled is refused as a transition out of a
			// terminal state instead of being taken again.
			name:   "cancel-not-idempotent",
			old:    `if (data.eventType === "run_cancelled" && run.status === "cancelled") {`,
			new:    `if (data.eventType === "run_cancelled" && run.status === "cancelled" && false) {`,
			failed: []string{"world/run-cancelled-twice"},
		},
		{
			// An ascending page starts at the previous page's last row,
			// which the next page then holds again; runs.list reads newest
			// first and is unaffected.
			name:   "cursor-repeats-last",
			old:    `list = list.filter((r) => (desc ? r.seq < after : r.seq > after));`,
			new:    `list = list.filter((r) => (desc ? r.seq < after : r.seq >= after));`,
			failed: []string{"world/events-pages", "world/hooks-list", "world/steps-list"},
		},
		{
			// A hook_created whose token another run holds makes a second
			// hook instead of answering hook_conflict.
			name:   "hook-token-not-unique",
			old:    `if (holder !== undefined) {`,
			new:    `if (holder !== undefined && false) {`,
			failed: []string{"world/hook-conflict"},
		},
	} {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			dir := scaffoldInto(t, scaffold.Options{Name: "acme", SDKs: []string{"acme"}, Contracts: []string{"world"}})
			replaceIn(t, filepath.Join(dir, "src", "memory-world.ts"), m.old, m.new)
			rep := runWorldSuite(t, dir)
			var failed []string
			for _, r := range rep.Results {
				switch r.Outcome {
				case conform.Pass:
				case conform.Fail:
					failed = append(failed, r.ID)
				default:
					t.Errorf("%s: %s %s", r.ID, r.Outcome, r.Reason)
				}
			}
			slices.Sort(failed)
			if !slices.Equal(failed, m.failed) {
				t.Errorf("failed cases %v, want exactly %v\n%s", failed, m.failed, conformtest.Failures(rep))
			}
		})
	}
}
