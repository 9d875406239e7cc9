package bridgestore_test

import (
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/conformtest"
	"github.com/bsadapter/bsadapter/internal/conform/suites/credentials"
)

// credentialsBridge starts testdata/bridges/credentials.mjs with flags.
func credentialsBridge(t *testing.T, flags ...string) conform.Store {
	t.Helper()
	return nodeBridge(t, "credentials.mjs", "the node provider", flags...)
}

// A correct provider in Node.js passes every credentials case over the
// bridge, none skipped.
func TestBridgeCredentialsPasses(t *testing.T) {
	rep := runSuite(t, credentialsBridge(t), credentials.Suite.Name)
	if f := conformtest.Failures(rep); f != "" {
		t.Errorf("the correct node provider failed cases:\n%s", f)
	}
	if n := rep.Count(conform.Pass); n != len(rep.Results) || n == 0 {
		t.Errorf("%d of %d credentials cases passed; skipped: %v", n, len(rep.Results), outcomes(rep, conform.Skipped))
	}
	// The block's own rules (its caller check, its audit events) are not
	// an adapter's provider's.
	want := []string{"credentials/service-role-only", "credentials/audit-events"}
	if got := notApplicable(rep); !sameSet(got, want) {
		t.Errorf("not applicable: got %v, want %v", got, want)
	}
}

// A provider without an inbound scheme has the inbound cases skipped,
// saying so.
func TestBridgeCredentialsWithoutInbound(t *testing.T) {
	rep := runSuite(t, credentialsBridge(t, "--no-inbound"), credentials.Suite.Name)
	if f := conformtest.Failures(rep); f != "" {
		t.Errorf("unexpected failures:\n%s", f)
	}
	want := []string{"credentials/inbound-signed-accepted", "credentials/inbound-tampered-refused"}
	if got := outcomes(rep, conform.Skipped); !sameSet(got, want) {
		t.Errorf("skipped: got %v, want %v", got, want)
	}
	for _, r := range rep.Results {
		if r.Outcome == conform.Skipped && !strings.Contains(r.Reason, "inbound") {
			t.Errorf("%s skipped for %q", r.ID, r.Reason)
		}
	}
}

// Each broken provider is caught by the cases of the rule it breaks, and
// by no other case. The cases share the one provider of the bridge, so a
// provider that mixes up namespaces also disturbs the cases running beside
// the one that catches it; one case at a time shows which rule it breaks.
func TestBrokenCredentialsBridgesCaught(t *testing.T) {
	for _, tc := range []struct {
		bug  string
		want []string
	}{
		{"stale-cache", []string{"credentials/reseed-seen"}},
		{"ignore-tenant", []string{"credentials/tenants-apart"}},
		{"revoke-all-users", []string{"credentials/revoke-one-user"}},
		{"verify-ignores-body", []string{"credentials/inbound-tampered-refused"}},
		{"token-in-rows", []string{"credentials/no-token-at-rest"}},
	} {
		t.Run(tc.bug, func(t *testing.T) {
			t.Parallel()
			rep := runSuiteParallel(t, credentialsBridge(t, "--bug="+tc.bug), credentials.Suite.Name, 1)
			if got := rep.Failed(); !sameSet(got, tc.want) {
				t.Errorf("failed cases: got %v, want exactly %v\n%s", got, tc.want, conformtest.Failures(rep))
			}
		})
	}
}
