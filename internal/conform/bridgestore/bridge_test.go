package bridgestore_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/bridgestore"
	"github.com/bsadapter/bsadapter/internal/conform/conformtest"
	"github.com/bsadapter/bsadapter/internal/testenv"
)

// nodeStore starts testdata/bridges/memstore.mjs with flags.
func nodeStore(t *testing.T, flags ...string) conform.Store {
	t.Helper()
	node := testenv.Node(t)
	script, err := filepath.Abs(filepath.Join("testdata", "bridges", "memstore.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := bridgestore.New(t.Context(), bridge.Options{Command: append([]string{node, script}, flags...), Timeout: 20 * time.Second})
	if err != nil {
		t.Fatalf("start the node store: %v", err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Errorf("close the node store: %v", err)
		}
	})
	return st
}

func runAll(t *testing.T, st conform.Store) *conform.Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	return conform.Run(ctx, st, conform.Cases(), conform.Options{Parallel: 8})
}

func outcomes(rep *conform.Report, o conform.Outcome) []string {
	var ids []string
	for _, r := range rep.Results {
		if r.Outcome == o {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

// bridgeSkips are the cases a StreamStore and registry bridge cannot run:
// the protocol has no bounded read, no way to move the store's clock, no
// caller identity or permissions for the registry and no chat methods, and
// the TS interface reports apiVersion only in-process.
func bridgeSkips() []string {
	skips := []string{
		"streams/api-version-and-name",
		"streams/read-page-past-max", "streams/read-page-missing",
		"streams/ttl-expired-purged", "streams/ttl-unexpired-kept", "streams/purge-closed-window", "streams/open-expired-unchanged",
		"registry/purge-terminal-past-window",
		"registry/actor-sees-own-run", "registry/tenant-members-read-with-workflow-read", "registry/cancel-by-actor-or-tenant-admin",
	}
	for _, c := range conform.Cases() {
		if c.Suite == conform.SuiteChat || c.Suite == conform.SuiteChatState || c.Suite == conform.SuiteCredentials || c.Suite == conform.SuiteGraphCompiler || c.Suite == conform.SuiteEngine || c.Suite == conform.SuiteBuilder {
			skips = append(skips, c.ID)
		}
	}
	return skips
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// A correct store in Node.js passes every case the bridge protocol can
// carry, and the rest are reported as skipped with a reason.
func TestBridgeNodeStorePasses(t *testing.T) {
	rep := runAll(t, nodeStore(t))
	if f := conformtest.Failures(rep); f != "" {
		t.Errorf("the correct node store failed cases:\n%s", f)
	}
	var derived []string
	for _, c := range conform.Cases() {
		if c.Suite == conform.SuiteChat || c.Suite == conform.SuiteChatState || c.Suite == conform.SuiteCredentials || c.Suite == conform.SuiteGraphCompiler || c.Suite == conform.SuiteEngine || c.Suite == conform.SuiteBuilder || c.Needs == conform.FeatureBoundedRead || c.Needs == conform.FeatureClock || c.Needs == conform.FeatureIdentity || c.Needs == conform.FeatureTenants {
			derived = append(derived, c.ID)
		}
	}
	if !sameSet(derived, bridgeSkips()) {
		t.Errorf("the table's Needs disagree with the cases a bridge skips:\n table %v\n skips %v", derived, bridgeSkips())
	}
	if got := outcomes(rep, conform.Skipped); !sameSet(got, bridgeSkips()) {
		t.Errorf("skipped cases:\n got %v\nwant %v", got, bridgeSkips())
	}
	for _, r := range rep.Results {
		if r.Outcome == conform.Skipped && r.Reason == "" {
			t.Errorf("%s was skipped without a reason", r.ID)
		}
	}
	if rep.Count(conform.Pass) < 40 {
		t.Errorf("only %d cases passed over the bridge", rep.Count(conform.Pass))
	}
}

// Each broken store is caught by the cases for the rule it breaks, and by
// no other case.
func TestBrokenBridgesCaught(t *testing.T) {
	for _, tc := range []struct {
		bug  string
		want []string
	}{
		{"overwrite", []string{"streams/append-retry-first-write-wins"}},
		{"gaps", []string{"streams/append-gap-refused"}},
		{"ignore-close", []string{"streams/append-after-close-refused"}},
		{"leak-owners", []string{"streams/stranger-sees-nothing", "streams/anon-sees-nothing"}},
		{"cancel-status", []string{"registry/cancel-request-keeps-status"}},
	} {
		t.Run(tc.bug, func(t *testing.T) {
			t.Parallel()
			rep := runAll(t, nodeStore(t, "--bug="+tc.bug))
			if got := rep.Failed(); !sameSet(got, tc.want) {
				t.Errorf("failed cases: got %v, want exactly %v\n%s", got, tc.want, conformtest.Failures(rep))
			}
			for _, r := range rep.Results {
				if r.Outcome == conform.Fail && (len(r.Failures) == 0 || r.Rule == "") {
					t.Errorf("%s failed without naming its rule and a failure", r.ID)
				}
			}
		})
	}
}

// A bridge that does not take callers, or declares no registry, gets
// those cases skipped with the reason rather than failed.
func TestBridgeUndeclaredIsSkipped(t *testing.T) {
	rep := runAll(t, nodeStore(t, "--no-callers", "--no-registry"))
	if f := conformtest.Failures(rep); f != "" {
		t.Errorf("unexpected failures:\n%s", f)
	}
	for _, r := range rep.Results {
		switch {
		case r.Suite == conform.SuiteRegistry:
			if r.Outcome != conform.Skipped || !strings.Contains(r.Reason, "capabilities.runRegistry") {
				t.Errorf("%s: %s (%s), want skipped naming capabilities.runRegistry", r.ID, r.Outcome, r.Reason)
			}
		case strings.Contains(r.ID, "owner") || strings.Contains(r.ID, "stranger") || strings.Contains(r.ID, "anon") || r.ID == "streams/only-service-writes":
			if r.Outcome != conform.Skipped || !strings.Contains(r.Reason, "caller") {
				t.Errorf("%s: %s (%s), want skipped for lack of caller identity", r.ID, r.Outcome, r.Reason)
			}
		}
	}
}
