package bridgestore_test

import (
	"cmp"
	"context"
	"fmt"
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
	"github.com/bsadapter/bsadapter/internal/conform/suites/registry"
	"github.com/bsadapter/bsadapter/internal/conform/suites/streams"
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
	// Not t.Context(): it ends before the cleanup closes the bridge, which
	// would then be killed rather than shut down.
	st, err := bridgestore.New(context.WithoutCancel(t.Context()), bridge.Options{Command: append([]string{node, script}, flags...), Timeout: 2 * time.Minute})
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

func runAll(t *testing.T, st conform.Store) *conform.Report { return runAt(t, st, 8) }

func runAt(t *testing.T, st conform.Store, parallel int) *conform.Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	return conform.Run(ctx, st, suites.Cases(), conform.Options{Parallel: parallel})
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

// chatCases are the cases the example store does not run: every suite but
// streams and registry (the protocol has no chat methods, and the store
// declares none of the other interfaces).
func chatCases() []string {
	var ids []string
	for _, c := range suites.Cases() {
		if !storeSuite(c.Suite) {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// storeSkips returns the streams and registry cases of rep that were
// skipped, found by their IDs' prefix: a complete store has none.
func storeSkips(rep *conform.Report) []string {
	var ids []string
	for _, r := range rep.Results {
		if r.Outcome == conform.Skipped && (strings.HasPrefix(r.ID, "streams/") || strings.HasPrefix(r.ID, "registry/")) {
			ids = append(ids, r.ID+" ("+r.Reason+")")
		}
	}
	return ids
}

// needing returns the cases of the streams and registry suites that need
// one of features.
func needing(features ...conform.Feature) []string {
	var ids []string
	for _, c := range suites.Cases() {
		if storeSuite(c.Suite) && slices.Contains(features, c.Needs) {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

func storeSuite(s string) bool { return s == streams.Suite.Name || s == registry.Suite.Name }

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// A complete store in Node.js, over protocol version 2, runs every streams
// and registry case and passes them: only chat is skipped. It does so with
// its clock moved by the cases and, without the clock capability, with the
// cases waiting for real TTLs.
func TestBridgeNodeStorePasses(t *testing.T) {
	for _, flags := range [][]string{nil, {"--no-clock"}} {
		t.Run(strings.Join(append([]string{"v2"}, flags...), " "), func(t *testing.T) {
			t.Parallel()
			rep := runAll(t, nodeStore(t, flags...))
			if f := conformtest.Failures(rep); f != "" {
				t.Errorf("the correct node store failed cases:\n%s", f)
			}
			if got := storeSkips(rep); len(got) > 0 {
				t.Errorf("a complete store skipped streams and registry cases: %v", got)
			}
			if got := outcomes(rep, conform.Skipped); !sameSet(got, chatCases()) {
				t.Errorf("skipped cases:\n got %v\nwant only the chat suite", got)
			}
			if n := rep.Count(conform.Pass); n != len(suites.Cases())-len(chatCases()) {
				t.Errorf("%d cases passed, want every streams and registry case", n)
			}
		})
	}
}

// A version 1 bridge keeps passing what it passed, and each case it cannot
// run is skipped with the capability it needs named.
func TestBridgeVersion1(t *testing.T) {
	rep := runAll(t, nodeStore(t, "--v1"))
	if f := conformtest.Failures(rep); f != "" {
		t.Errorf("the version 1 node store failed cases:\n%s", f)
	}
	v2 := needing(conform.FeatureIdentity, conform.FeatureBoundedRead, conform.FeatureLiveRead, conform.FeatureStatusDetails, conform.FeatureTenants)
	if got := outcomes(rep, conform.Skipped); !sameSet(got, append(v2, chatCases()...)) {
		t.Errorf("skipped cases:\n got %v\nwant %v and chat", got, v2)
	}
	for _, r := range rep.Results {
		if r.Outcome != conform.Skipped || !storeSuite(r.Suite) {
			continue
		}
		capName := bridgestore.Capability(r.Needs)
		if capName == "" || !strings.Contains(r.Reason, capName) || !strings.Contains(r.Reason, "version 1") {
			t.Errorf("%s: reason %q does not name its capability and the bridge's version", r.ID, r.Reason)
		}
	}
}

// keptExpired are the cases of the streams block's rule that keeps an
// expired stream until a purge: a store whose streams expire by themselves
// is not held to them.
var keptExpired = []string{"streams/ttl-expired-purged", "streams/open-expired-unchanged"}

// notApplicable returns the IDs of the cases rep did not hold the store to.
func notApplicable(rep *conform.Report) []string {
	var ids []string
	for _, n := range rep.NotApplicable {
		ids = append(ids, n.ID)
	}
	return ids
}

// A store whose streams expire by themselves, as Redis keys with a TTL do,
// declares streamStore.expiry "self" and passes every streams and registry
// case that applies to it, with its clock moved and waiting for real
// TTLs: all but the two cases of the block's expiry, which the report
// lists apart, naming the declaration. A store that declares "purge", the
// default, runs them all.
func TestBridgeSelfExpiringStore(t *testing.T) {
	for _, tc := range []struct {
		flags []string
		skip  []string
	}{
		{[]string{"--expiry=self"}, keptExpired},
		{[]string{"--expiry=self", "--no-clock"}, keptExpired},
		{[]string{"--expiry=purge"}, nil},
	} {
		t.Run(strings.Join(tc.flags, " "), func(t *testing.T) {
			t.Parallel()
			rep := runAll(t, nodeStore(t, tc.flags...))
			if f := conformtest.Failures(rep); f != "" {
				t.Errorf("the correct node store failed cases:\n%s", f)
			}
			if got := storeSkips(rep); len(got) > 0 {
				t.Errorf("a complete store skipped streams and registry cases: %v", got)
			}
			if got := notApplicable(rep); !sameSet(got, tc.skip) {
				t.Errorf("cases not applicable: got %v, want %v", got, tc.skip)
			}
			for _, n := range rep.NotApplicable {
				if n.BlockRule != streams.KeepsExpired.Name || !strings.Contains(n.Reason, bridge.CapStreamExpiry+` "self"`) {
					t.Errorf("%s: not applicable as %q for %q, want the block rule %q and the declaration named", n.ID, n.BlockRule, n.Reason, streams.KeepsExpired.Name)
				}
			}
			if n := rep.Count(conform.Pass); n != len(suites.Cases())-len(chatCases())-len(tc.skip) {
				t.Errorf("%d cases passed, want every streams and registry case but %v", n, tc.skip)
			}
			if want := fmt.Sprintf("; %d cases of block rules the store does not keep did not apply", len(tc.skip)); (len(tc.skip) > 0) != strings.Contains(conform.Summary(rep), want) {
				t.Errorf("summary %q: want it to say %q only when cases did not apply", conform.Summary(rep), want)
			}
		})
	}
}

// A bridge that declares an expiry model bsadapter does not know is
// refused at the start, with the capability and the two values it takes.
func TestBridgeUnknownExpiry(t *testing.T) {
	node := testenv.Node(t)
	script, err := filepath.Abs(filepath.Join("testdata", "bridges", "memstore.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"--expiry=redis", "--expiry"} {
		st, err := bridgestore.New(t.Context(), bridge.Options{Command: []string{node, script, flag}, Timeout: 2 * time.Minute})
		if err == nil {
			st.Close()
			t.Errorf("%s: the store started", flag)
			continue
		}
		for _, s := range []string{"capabilities." + bridge.CapStreamExpiry, `"purge"`, `"self"`} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: error %q does not name %s", flag, err, s)
			}
		}
	}
}

// Each broken store is caught by the cases for the rule it breaks, and by
// no other case, with the cases running eight at a time. A store that
// never expires fails the TTL cases whichever expiry it declares: with
// "self", the interface's one, as the block's do not apply.
func TestBrokenBridgesCaught(t *testing.T) {
	for _, tc := range []struct {
		bug      string
		flags    []string
		want     []string
		parallel int
	}{
		{"never-expire", nil, []string{"streams/ttl-expired-gone", "streams/ttl-expired-purged", "streams/open-expired-unchanged"}, 0},
		{"never-expire", []string{"--no-clock"}, []string{"streams/ttl-expired-gone", "streams/ttl-expired-purged", "streams/open-expired-unchanged"}, 0},
		{"never-expire", []string{"--expiry=self"}, []string{"streams/ttl-expired-gone"}, 0},
		{"never-expire", []string{"--expiry=self", "--no-clock"}, []string{"streams/ttl-expired-gone"}, 0},
		{"overwrite", nil, []string{"streams/append-retry-first-write-wins"}, 0},
		{"gaps", nil, []string{"streams/append-gap-refused"}, 0},
		{"ignore-close", nil, []string{"streams/append-after-close-refused", "streams/closed-checked-before-gap"}, 0},
		{"leak-owners", nil, []string{"streams/stranger-sees-nothing", "streams/anon-sees-nothing"}, 0},
		{"cancel-status", nil, []string{"registry/cancel-request-keeps-status"}, 0},
		{"racy-append", nil, []string{"streams/concurrent-writers-same-index", "streams/overlapping-retry-stored-once"}, 0},
		{"status-no-cancel", nil, []string{"streams/status-cancelled-after-cancel"}, 0},
		{"gap-before-closed", nil, []string{"streams/closed-checked-before-gap"}, 0},
		{"vanish-expired", nil, []string{"streams/ttl-expired-purged", "streams/open-expired-unchanged"}, 0},
		{"vanish-expired", []string{"--no-clock"}, []string{"streams/ttl-expired-purged", "streams/open-expired-unchanged"}, 0},
		{"purge-alive", nil, []string{"streams/ttl-unexpired-kept", "streams/purge-closed-window"}, 0},
		{"purge-alive", []string{"--no-clock"}, []string{"streams/ttl-unexpired-kept", "streams/purge-closed-window"}, 0},
		{"no-page-clamp", nil, []string{"streams/read-page-past-max"}, 0},
		{"live-batch", nil, []string{"streams/live-read-incremental", "streams/live-read-resumed-incremental", "streams/live-read-abort"}, 0},
		{"abort-ignored", nil, []string{"streams/live-read-abort"}, 0},
		{"kind-lost", nil, []string{"streams/status-kind-and-expiry"}, 0},
		{"purge-young", nil, []string{"registry/purge-keeps-recent-runs", "registry/purge-terminal-past-window"}, 0},
		{"purge-young", []string{"--no-clock"}, []string{"registry/purge-keeps-recent-runs", "registry/purge-terminal-past-window"}, 0},
		{"runs-leak", nil, []string{"registry/actor-sees-own-run", "registry/tenant-members-read-with-workflow-read"}, 0},
		{"read-any-tenant", nil, []string{"registry/tenant-members-read-with-workflow-read"}, 0},
		{"cancel-anyone", nil, []string{"registry/cancel-by-actor-or-tenant-admin"}, 0},
		// One case at a time, the cases find the same faults.
		{"racy-append", nil, []string{"streams/concurrent-writers-same-index", "streams/overlapping-retry-stored-once"}, 1},
		{"vanish-expired", []string{"--no-clock"}, []string{"streams/ttl-expired-purged", "streams/open-expired-unchanged"}, 1},
	} {
		parallel := cmp.Or(tc.parallel, 8)
		t.Run(fmt.Sprintf("%s parallel=%d", strings.Join(append([]string{tc.bug}, tc.flags...), " "), parallel), func(t *testing.T) {
			t.Parallel()
			rep := runAt(t, nodeStore(t, append([]string{"--bug=" + tc.bug}, tc.flags...)...), parallel)
			if got := rep.Failed(); !sameSet(got, tc.want) {
				t.Errorf("failed cases: got %v, want exactly %v\n%s", got, tc.want, conformtest.Failures(rep))
			}
			var na []string
			if slices.Contains(tc.flags, "--expiry=self") {
				na = keptExpired
			}
			if got := notApplicable(rep); !sameSet(got, na) {
				t.Errorf("cases not applicable: got %v, want %v", got, na)
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
// those cases skipped with the reason rather than failed, and the summary
// says how many owner rules did not run.
func TestBridgeUndeclaredIsSkipped(t *testing.T) {
	rep := runAll(t, nodeStore(t, "--no-callers", "--no-registry"))
	if f := conformtest.Failures(rep); f != "" {
		t.Errorf("unexpected failures:\n%s", f)
	}
	owners := needing(conform.FeatureCallers)
	for _, r := range rep.Results {
		switch {
		case r.Suite == registry.Suite.Name:
			if r.Outcome != conform.Skipped || !strings.Contains(r.Reason, "capabilities.runRegistry") {
				t.Errorf("%s: %s (%s), want skipped naming capabilities.runRegistry", r.ID, r.Outcome, r.Reason)
			}
		case slices.Contains(owners, r.ID):
			if r.Outcome != conform.Skipped || !strings.Contains(r.Reason, "streamStore.callers") {
				t.Errorf("%s: %s (%s), want skipped naming streamStore.callers", r.ID, r.Outcome, r.Reason)
			}
		}
	}
	if want := fmt.Sprintf("; %d owner rules did not run", len(owners)); !strings.Contains(conform.Summary(rep), want) {
		t.Errorf("summary %q does not say %q", conform.Summary(rep), want)
	}
}

// A bridge without callers skips the registry's caller cases too, each
// naming runRegistry.callers, and counts them among the owner rules that
// did not run. One whose store takes callers but cannot grant (it answers
// runRegistry.grant with method not found) runs the actor's case and
// skips those that need a grant.
func TestBridgeRegistryCallersUndeclared(t *testing.T) {
	tenants := needing(conform.FeatureTenants)
	t.Run("no-callers", func(t *testing.T) {
		t.Parallel()
		rep := runAll(t, nodeStore(t, "--no-callers"))
		if f := conformtest.Failures(rep); f != "" {
			t.Errorf("unexpected failures:\n%s", f)
		}
		for _, r := range rep.Results {
			if slices.Contains(tenants, r.ID) && (r.Outcome != conform.Skipped || !strings.Contains(r.Reason, bridge.CapRunCallers)) {
				t.Errorf("%s: %s (%s), want skipped naming %s", r.ID, r.Outcome, r.Reason, bridge.CapRunCallers)
			}
		}
		owners := len(needing(conform.FeatureCallers)) + len(tenants)
		if want := fmt.Sprintf("; %d owner rules did not run: ", owners); !strings.Contains(conform.Summary(rep), want) {
			t.Errorf("summary %q does not say %q", conform.Summary(rep), want)
		}
	})
	t.Run("no-grants", func(t *testing.T) {
		t.Parallel()
		rep := runAll(t, nodeStore(t, "--no-grants"))
		if f := conformtest.Failures(rep); f != "" {
			t.Errorf("unexpected failures:\n%s", f)
		}
		want := []string{"registry/tenant-members-read-with-workflow-read", "registry/cancel-by-actor-or-tenant-admin"}
		if got := outcomes(rep, conform.Skipped); !sameSet(got, append(want, chatCases()...)) {
			t.Errorf("skipped: got %v, want %v and chat", got, want)
		}
		for _, r := range rep.Results {
			if slices.Contains(want, r.ID) && !strings.Contains(r.Reason, bridge.MethodRunGrant) {
				t.Errorf("%s skipped for %q, want %s named", r.ID, r.Reason, bridge.MethodRunGrant)
			}
		}
		if want := fmt.Sprintf("; %d owner rules did not run: ", len(want)); !strings.Contains(conform.Summary(rep), want) {
			t.Errorf("summary %q does not say %q", conform.Summary(rep), want)
		}
	})
}
