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

// engineBridge starts testdata/bridges/engine.mjs with flags.
func engineBridge(t *testing.T, flags ...string) conform.Store {
	t.Helper()
	node := testenv.Node(t)
	script, err := filepath.Abs(filepath.Join("testdata", "bridges", "engine.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := bridgestore.New(t.Context(), bridge.Options{Command: append([]string{node, script}, flags...), Timeout: 20 * time.Second})
	if err != nil {
		t.Fatalf("start the node engine adapter: %v", err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Errorf("close the node engine adapter: %v", err)
		}
	})
	return st
}

// A correct engine adapter in Node.js passes every engine case over the
// bridge; each broken one is caught by its rule's case alone.
func TestBridgeEngine(t *testing.T) {
	rep := runSuite(t, engineBridge(t), conform.SuiteEngine)
	if f := conformtest.Failures(rep); f != "" {
		t.Errorf("the correct node engine adapter failed cases:\n%s", f)
	}
	if n := rep.Count(conform.Pass); n != len(rep.Results) || n == 0 {
		t.Errorf("%d of %d engine cases passed", n, len(rep.Results))
	}
	for _, tc := range []struct {
		bug  string
		want []string
	}{
		{"terminated-is-running", []string{"engine/status-map-total"}},
		{"guess-unknown", []string{"engine/unknown-status-refused"}},
		{"start-ignores-key", []string{"engine/start-idempotent"}},
		{"ignores-cancel", []string{"engine/cancel-reaches-engine"}},
		{"drops-error", []string{"engine/records-follow-registry"}},
	} {
		t.Run(tc.bug, func(t *testing.T) {
			t.Parallel()
			rep := runSuite(t, engineBridge(t, "--bug="+tc.bug), conform.SuiteEngine)
			if got := rep.Failed(); !sameSet(got, tc.want) {
				t.Errorf("failed cases: got %v, want exactly %v\n%s", got, tc.want, conformtest.Failures(rep))
			}
		})
	}
}
