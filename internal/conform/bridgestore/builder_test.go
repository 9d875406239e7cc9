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

// builderBridge starts testdata/bridges/builder.mjs with flags.
func builderBridge(t *testing.T, flags ...string) conform.Store {
	t.Helper()
	node := testenv.Node(t)
	script, err := filepath.Abs(filepath.Join("testdata", "bridges", "builder.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := bridgestore.New(t.Context(), bridge.Options{Command: append([]string{node, script}, flags...), Timeout: 20 * time.Second})
	if err != nil {
		t.Fatalf("start the node builder runtime: %v", err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Errorf("close the node builder runtime: %v", err)
		}
	})
	return st
}

// A correct builder runtime in Node.js passes every builder case over the
// bridge; each broken one is caught by its rule's case alone.
func TestBridgeBuilder(t *testing.T) {
	rep := runSuite(t, builderBridge(t), conform.SuiteBuilder)
	if f := conformtest.Failures(rep); f != "" {
		t.Errorf("the correct node builder runtime failed cases:\n%s", f)
	}
	if n := rep.Count(conform.Pass); n != len(rep.Results) || n == 0 {
		t.Errorf("%d of %d builder cases passed", n, len(rep.Results))
	}
	for _, tc := range []struct {
		bug  string
		want []string
	}{
		{"retries-step", []string{"builder/step-called-once"}},
		{"skips-sleep", []string{"builder/sleep-durable-timer"}},
		{"signal-by-node", []string{"builder/approval-signal"}},
		{"denied-continues", []string{"builder/approval-denied-stops"}},
		{"runs-both-branches", []string{"builder/only-active-edges"}},
		{"outputs-miss-trigger", []string{"builder/outputs-of-nodes-that-ran"}},
	} {
		t.Run(tc.bug, func(t *testing.T) {
			t.Parallel()
			rep := runSuite(t, builderBridge(t, "--bug="+tc.bug), conform.SuiteBuilder)
			if got := rep.Failed(); !sameSet(got, tc.want) {
				t.Errorf("failed cases: got %v, want exactly %v\n%s", got, tc.want, conformtest.Failures(rep))
			}
		})
	}
}
