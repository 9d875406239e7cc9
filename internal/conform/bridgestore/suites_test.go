package bridgestore_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/bridgestore"
	"github.com/bsadapter/bsadapter/internal/conform/conformtest"
	"github.com/bsadapter/bsadapter/internal/conform/suites"
	"github.com/bsadapter/bsadapter/internal/conform/suites/builder"
	"github.com/bsadapter/bsadapter/internal/conform/suites/engine"
	"github.com/bsadapter/bsadapter/internal/conform/suites/graphcompiler"
	"github.com/bsadapter/bsadapter/internal/testenv"
)

// nodeBridge starts the Node.js reference bridge testdata/bridges/SCRIPT
// with flags; what names it in failures ("the node provider").
func nodeBridge(t *testing.T, script, what string, flags ...string) conform.Store {
	t.Helper()
	return nodeBridgeWith(t, script, what, nil, flags...)
}

// nodeBridgeWith is nodeBridge with the store's options.
func nodeBridgeWith(t *testing.T, script, what string, opts []bridgestore.Option, flags ...string) conform.Store {
	t.Helper()
	node := testenv.Node(t)
	path, err := filepath.Abs(filepath.Join("testdata", "bridges", script))
	if err != nil {
		t.Fatal(err)
	}
	// Not t.Context(): it ends before the cleanup closes the bridge, which
	// would then be killed rather than shut down.
	st, err := bridgestore.New(context.WithoutCancel(t.Context()), bridge.Options{Command: append([]string{node, path}, flags...), Timeout: 2 * time.Minute}, opts...)
	if err != nil {
		t.Fatalf("start %s: %v", what, err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Errorf("close %s: %v", what, err)
		}
	})
	return st
}

func runSuite(t *testing.T, st conform.Store, suite string) *conform.Report {
	t.Helper()
	return runSuiteParallel(t, st, suite, 8)
}

// runSuiteParallel runs suite's cases against st, par at a time.
func runSuiteParallel(t *testing.T, st conform.Store, suite string, par int) *conform.Report {
	t.Helper()
	cases, err := conform.Select(suites.Cases(), conform.Options{Suites: []string{suite}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	return conform.Run(ctx, st, cases, conform.Options{Parallel: par})
}

// mutant is a reference bridge started with --bug=BUG and the cases that
// must fail against it, no more and no fewer.
type mutant struct {
	bug  string
	want []string
}

// checkMutants runs suite against each mutant of script (par cases at a
// time) and checks that exactly its rule's cases fail.
func checkMutants(t *testing.T, script, what, suite string, par int, mutants []mutant) {
	t.Helper()
	for _, m := range mutants {
		t.Run(m.bug, func(t *testing.T) {
			t.Parallel()
			rep := runSuiteParallel(t, nodeBridge(t, script, what, "--bug="+m.bug), suite, par)
			if got := rep.Failed(); !sameSet(got, m.want) {
				t.Errorf("failed cases: got %v, want exactly %v\n%s", got, m.want, conformtest.Failures(rep))
			}
		})
	}
}

// A correct engine adapter, graph compiler and builder runtime in Node.js
// pass every case of their suite over the bridge; each broken one is
// caught by its rule's case alone.
func TestBridgeSuites(t *testing.T) {
	for _, s := range []struct {
		suite, script, what string
		mutants             []mutant
	}{
		{engine.Suite.Name, "engine.mjs", "the node engine adapter", []mutant{
			{"terminated-is-running", []string{"engine/status-map-total"}},
			{"guess-unknown", []string{"engine/unknown-status-refused"}},
			{"start-ignores-key", []string{"engine/start-idempotent"}},
			{"ignores-cancel", []string{"engine/cancel-reaches-engine"}},
			{"drops-error", []string{"engine/records-follow-registry"}},
		}},
		{graphcompiler.Suite.Name, "graph-compiler.mjs", "the node compiler", []mutant{
			{"lossy", []string{"graph-compiler/json-round-trip"}},
			{"nondeterministic", []string{"graph-compiler/deterministic"}},
			{"mutates-input", []string{"graph-compiler/input-not-mutated"}},
			{"accepts-cycles", []string{"graph-compiler/invalid-rejected"}},
			{"from-to", []string{"graph-compiler/json-round-trip", "graph-compiler/deterministic", "graph-compiler/input-not-mutated"}},
		}},
		{builder.Suite.Name, "builder.mjs", "the node builder runtime", []mutant{
			{"retries-step", []string{"builder/step-called-once"}},
			{"skips-sleep", []string{"builder/sleep-durable-timer"}},
			{"signal-by-node", []string{"builder/approval-signal"}},
			{"strict-approval", []string{"builder/approval-branches"}},
			{"denied-stops", []string{"builder/approval-branches", "builder/only-active-edges"}},
			{"runs-both-branches", []string{"builder/only-active-edges"}},
			{"outputs-miss-trigger", []string{"builder/step-sees-results", "builder/outputs-of-nodes-that-ran"}},
			{"step-in-config", []string{"builder/step-called-once", "builder/step-sees-results", "builder/outputs-of-nodes-that-ran"}},
		}},
	} {
		t.Run(s.suite, func(t *testing.T) {
			rep := runSuite(t, nodeBridge(t, s.script, s.what), s.suite)
			if f := conformtest.Failures(rep); f != "" {
				t.Errorf("%s failed cases:\n%s", s.what, f)
			}
			if n := rep.Count(conform.Pass); n != len(rep.Results) || n == 0 {
				t.Errorf("%d of %d %s cases passed", n, len(rep.Results), s.suite)
			}
			checkMutants(t, s.script, s.what, s.suite, 8, s.mutants)
		})
	}
}
