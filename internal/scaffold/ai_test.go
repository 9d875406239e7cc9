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
	"github.com/bsadapter/bsadapter/internal/conform/suites/aitaskrunner"
	"github.com/bsadapter/bsadapter/internal/conform/suites/embedder"
	"github.com/bsadapter/bsadapter/internal/scaffold"
	"github.com/bsadapter/bsadapter/internal/testenv"
)

// A generated bridge declares the embedder and aiTaskRunner capabilities
// when, and only when, the adapter implements their contracts: without
// them their cases are skipped for the capability rather than run
// against nothing.
func TestAiCapabilitiesOnlyWithTheirContracts(t *testing.T) {
	for _, c := range []struct {
		contracts        []string
		embedder, runner bool
	}{
		{[]string{"chat", "streams", "workflows", "world"}, false, false},
		{[]string{"embedder"}, true, false},
		{[]string{"streams", "ai-task-runner"}, false, true},
	} {
		t.Run(strings.Join(c.contracts, ","), func(t *testing.T) {
			t.Parallel()
			dir := scaffoldInto(t, scaffold.Options{Name: "acme", SDKs: []string{"acme"}, Contracts: c.contracts})
			caps := startBridge(t, dir).Capabilities()
			if got := caps.Has(bridge.GroupEmbedder); got != c.embedder {
				t.Errorf("capabilities.embedder = %v, want %v", got, c.embedder)
			}
			if got := caps.Has(bridge.GroupAiTaskRunner); got != c.runner {
				t.Errorf("capabilities.aiTaskRunner = %v, want %v", got, c.runner)
			}
		})
	}
}

// runAiSuites runs every case of the embedder and ai-task-runner suites
// over the bridge of the adapter in dir and returns the report.
func runAiSuites(t *testing.T, dir string) *conform.Report {
	t.Helper()
	st, err := bridgestore.New(t.Context(), bridge.Options{Command: []string{testenv.NodeBin(t, "tsx"), "bsadapter.bridge.ts"}, Dir: dir, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatalf("start bridge: %v", err)
	}
	defer st.Close()
	cases, err := conform.Select(suites.Cases(), conform.Options{Suites: []string{embedder.Suite.Name, aitaskrunner.Suite.Name}})
	if err != nil {
		t.Fatal(err)
	}
	if want := len(embedder.Suite.Cases) + len(aitaskrunner.Suite.Cases); len(cases) != want || want < 19 {
		t.Fatalf("selected %d cases, the two suites have %d", len(cases), want)
	}
	return conform.Run(t.Context(), st, cases, conform.Options{Parallel: 8})
}

// The generated Embedder and AiTaskRunner pass their suites over their own
// bridge (TestBridgeConformance, and npm test in TestEndToEnd); broken in
// one small way each fails exactly the cases of the rule it breaks, and
// passes the others: their green run is not a false one.
func TestGeneratedAiMutants(t *testing.T) {
	for _, m := range []struct {
		name, file string
		old, new   string
		failed     []string
	}{
		{
			// Without the whole text's feature a text of punctuation only
			// has no word to hash: its vector is all zeros, scaled to NaN.
			name:   "words-only",
			file:   "memory-embedder.ts",
			old:    `add("text:" + text, 0.5);`,
			new:    `void text;`,
			failed: []string{"embedder/finite-numbers"},
		},
		{
			// The runner checks its signal but does not hand it to the
			// assistant, which then works on after the abort.
			name:   "runner-keeps-its-signal",
			file:   "memory-ai-task-runner.ts",
			old:    "      signal,\n    });",
			new:    "      signal: new AbortController().signal,\n    });",
			failed: []string{"ai-task-runner/abort-while-running"},
		},
	} {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			dir := scaffoldInto(t, scaffold.Options{Name: "acme", SDKs: []string{"acme"}, Contracts: []string{"embedder", "ai-task-runner"}})
			replaceIn(t, filepath.Join(dir, "src", m.file), m.old, m.new)
			rep := runAiSuites(t, dir)
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
