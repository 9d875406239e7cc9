package bridgestore_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/bridgestore"
	"github.com/bsadapter/bsadapter/internal/conform/conformtest"
	"github.com/bsadapter/bsadapter/internal/testenv"
)

// graphBridge starts testdata/bridges/graph.mjs with flags.
func graphBridge(t *testing.T, flags ...string) conform.Store {
	t.Helper()
	node := testenv.Node(t)
	script, err := filepath.Abs(filepath.Join("testdata", "bridges", "graph.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := bridgestore.New(t.Context(), bridge.Options{Command: append([]string{node, script}, flags...), Timeout: 20 * time.Second})
	if err != nil {
		t.Fatalf("start the node compiler: %v", err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Errorf("close the node compiler: %v", err)
		}
	})
	return st
}

// A correct compiler in Node.js passes every graph-compiler case over the
// bridge; each broken one is caught by its rule's case alone.
func TestBridgeGraphCompiler(t *testing.T) {
	rep := runSuite(t, graphBridge(t), conform.SuiteGraphCompiler)
	if f := conformtest.Failures(rep); f != "" {
		t.Errorf("the correct node compiler failed cases:\n%s", f)
	}
	if n := rep.Count(conform.Pass); n != len(rep.Results) || n == 0 {
		t.Errorf("%d of %d graph-compiler cases passed", n, len(rep.Results))
	}
	for _, tc := range []struct {
		bug  string
		want []string
	}{
		{"lossy", []string{"graph-compiler/json-round-trip"}},
		{"nondeterministic", []string{"graph-compiler/deterministic"}},
		{"mutates-input", []string{"graph-compiler/input-not-mutated"}},
		{"accepts-cycles", []string{"graph-compiler/invalid-rejected"}},
	} {
		t.Run(tc.bug, func(t *testing.T) {
			t.Parallel()
			rep := runSuite(t, graphBridge(t, "--bug="+tc.bug), conform.SuiteGraphCompiler)
			if got := rep.Failed(); !sameSet(got, tc.want) {
				t.Errorf("failed cases: got %v, want exactly %v\n%s", got, tc.want, conformtest.Failures(rep))
			}
		})
	}
}
