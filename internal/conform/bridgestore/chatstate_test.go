package bridgestore_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/testenv"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/bridgestore"
	"github.com/bsadapter/bsadapter/internal/conform/conformtest"
	"github.com/bsadapter/bsadapter/internal/conform/suites"
	"github.com/bsadapter/bsadapter/internal/conform/suites/chatstate"
)

// chatStateBridge starts testdata/bridges/chat-state.mjs with flags.
func chatStateBridge(t *testing.T, flags ...string) conform.Store {
	t.Helper()
	return nodeBridge(t, "chat-state.mjs", "the node state adapter", flags...)
}

// A correct state adapter in Node.js, with a clock, passes every
// chat-state case over the bridge: none is skipped.
func TestBridgeChatStatePasses(t *testing.T) {
	rep := runSuite(t, chatStateBridge(t), chatstate.Suite.Name)
	if f := conformtest.Failures(rep); f != "" {
		t.Errorf("the correct node state adapter failed cases:\n%s", f)
	}
	if n := rep.Count(conform.Pass); n != len(rep.Results) || n == 0 {
		t.Errorf("%d of %d chat-state cases passed over the bridge; skipped: %v", n, len(rep.Results), outcomes(rep, conform.Skipped))
	}
}

// Without the clock capability, and with one the run does not move
// (--real-ttls), the TTL cases wait for real TTLs of a second: every case
// runs, none is skipped, and the correct adapter passes them all.
func TestBridgeChatStateWithoutClock(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags []string
		opts  []bridgestore.Option
	}{
		{"no clock", []string{"--no-clock"}, nil},
		{"real TTLs", nil, []bridgestore.Option{bridgestore.RealTTLs()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st := nodeBridgeWith(t, "chat-state.mjs", "the node state adapter", tc.opts, tc.flags...)
			rep := runSuite(t, st, chatstate.Suite.Name)
			if f := conformtest.Failures(rep); f != "" {
				t.Errorf("unexpected failures:\n%s", f)
			}
			if n := rep.Count(conform.Pass); n != len(rep.Results) || n != suiteCount(chatstate.Suite.Name) {
				t.Errorf("%d of %d chat-state cases passed; skipped: %v", n, len(rep.Results), outcomes(rep, conform.Skipped))
			}
		})
	}
}

// suiteCount counts the cases of suite.
func suiteCount(suite string) int {
	n := 0
	for _, c := range suites.Cases() {
		if c.Suite == suite {
			n++
		}
	}
	return n
}

// Each broken state adapter is caught by the cases of the rule it breaks,
// and by no other case.
func TestBrokenChatStateBridgesCaught(t *testing.T) {
	for _, tc := range []struct {
		bug  string
		want []string
		// withClock are the further cases that fail when the cases move
		// the clock: the ones that check with it what real time cannot.
		withClock []string
	}{
		{"release-ignores-token", []string{"chat-state/lock-wrong-token"}, nil},
		{"lock-check-then-set", []string{"chat-state/lock-one-winner", "chat-state/concurrent-lock"}, nil},
		{"null-is-a-miss", []string{"chat-state/value-null-not-a-miss"}, nil},
		{"list-cap-keeps-oldest", []string{"chat-state/list-cap-keeps-newest"}, nil},
		{"queue-counts-expired", []string{"chat-state/queue-expired-skipped", "chat-state/queue-expired-arrival-takes-no-place", "chat-state/queue-entry-expires"}, nil},
		{"expired-takes-a-place", []string{"chat-state/queue-expired-arrival-takes-no-place"}, nil},
		{"lock-never-expires", []string{"chat-state/lock-expired"}, []string{"chat-state/lock-extend-moves-expiry"}},
		{"set-ignores-ttl", []string{"chat-state/value-ttl", "chat-state/set-if-not-exists-expired"}, nil},
		{"list-ignores-ttl", []string{"chat-state/list-ttl", "chat-state/list-append-refreshes-ttl"}, nil},
		{"list-keeps-first-ttl", []string{"chat-state/list-append-refreshes-ttl"}, nil},
	} {
		// The TTL rules are caught whether the cases move the clock or
		// wait for real TTLs.
		for _, flags := range [][]string{nil, {"--no-clock"}} {
			t.Run(strings.TrimSpace(tc.bug+" "+strings.Join(flags, " ")), func(t *testing.T) {
				t.Parallel()
				rep := runSuite(t, chatStateBridge(t, append(flags, "--bug="+tc.bug)...), chatstate.Suite.Name)
				want := tc.want
				if flags == nil {
					want = append(slices.Clone(want), tc.withClock...)
				}
				if got := rep.Failed(); !sameSet(got, want) {
					t.Errorf("failed cases: got %v, want exactly %v\n%s", got, want, conformtest.Failures(rep))
				}
			})
		}
	}
}

// The chat-state cases that move the bridge's one clock do so with no
// other case of the bridge in flight: cases that watch the clock while
// they run, mixed among them, never see it jump.
func TestBridgeChatStateClockMovesRunAlone(t *testing.T) {
	st := chatStateBridge(t)
	var moving []conform.Case
	for _, c := range suites.Cases() {
		if c.Suite == chatstate.Suite.Name && c.MovesClock {
			moving = append(moving, c)
		}
	}
	if len(moving) == 0 {
		t.Fatal("no chat-state case moves the clock")
	}
	const watch = 300 * time.Millisecond
	// The watchers are cases of the chat-state suite (they get the
	// suite's subject, the bridge's clock with it), one beside each case
	// that moves the clock.
	var watchers []conform.CaseOf[chatstate.State]
	for i := range moving {
		watchers = append(watchers, conform.CaseOf[chatstate.State]{ID: fmt.Sprintf("chat-state/watch-clock-%d", i),
			Rule: "the store's clock does not jump while this case runs", Run: func(t *conform.T, _ chatstate.State) {
				before, err := t.Clock().Advance(t.Context(), 0)
				t.Must("read the clock", err)
				start := time.Now()
				time.Sleep(watch)
				after, err := t.Clock().Advance(t.Context(), 0)
				t.Must("read the clock", err)
				if jump := after.Sub(before) - time.Since(start); jump > watch {
					t.Errorf("the clock jumped %s while the case ran", jump.Round(time.Millisecond))
				}
			}})
	}
	watching := conform.NewSuite(conform.Info{Name: chatstate.Suite.Name}, chatstate.Provider.ChatState, watchers)
	var cases []conform.Case
	for i, c := range moving {
		cases = append(cases, watching.Cases[i], c)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	rep := conform.Run(ctx, st, cases, conform.Options{Parallel: 8})
	if f := conformtest.Failures(rep); f != "" {
		t.Errorf("failed cases:\n%s", f)
	}
	if n := rep.Count(conform.Pass); n != len(cases) {
		t.Errorf("%d of %d cases passed", n, len(cases))
	}
}

// The three cases of queue expiry hold a state adapter to the
// chat-sdk-state block's rule only when its bridge declares it
// (chatState.queueExpiry "skip"). One that leaves stale entries to the
// caller, as the Chat SDK's interface allows, passes every other case
// and is told which cases it was not held to; declaring "skip" without
// keeping it fails them.
func TestBridgeChatStateQueueExpiryDeclared(t *testing.T) {
	var blockCases []string
	for _, c := range suites.Cases() {
		if c.Block == chatstate.QueueExpiry {
			blockCases = append(blockCases, c.ID)
		}
	}
	if len(blockCases) != 3 {
		t.Fatalf("cases of the queue expiry rule: %v, want 3", blockCases)
	}
	for _, tc := range []struct {
		flags      []string
		notHeld    []string
		wantFailed []string
	}{
		{[]string{"--queue-expiry=caller", "--bug=queue-counts-expired"}, blockCases, nil},
		{[]string{"--queue-expiry=none", "--bug=queue-counts-expired"}, blockCases, nil},
		{[]string{"--queue-expiry=none"}, blockCases, nil},
		{[]string{"--queue-expiry=skip", "--bug=queue-counts-expired"}, nil, blockCases},
	} {
		t.Run(strings.Join(tc.flags, " "), func(t *testing.T) {
			t.Parallel()
			rep := runSuite(t, chatStateBridge(t, tc.flags...), chatstate.Suite.Name)
			if got := rep.Failed(); !sameSet(got, tc.wantFailed) {
				t.Errorf("failed cases: got %v, want exactly %v\n%s", got, tc.wantFailed, conformtest.Failures(rep))
			}
			var notHeld []string
			for _, n := range rep.NotApplicable {
				notHeld = append(notHeld, n.ID)
				if !strings.Contains(n.Reason, "chatState.queueExpiry") {
					t.Errorf("%s is not held with the reason %q, which does not name the capability", n.ID, n.Reason)
				}
			}
			if !sameSet(notHeld, tc.notHeld) {
				t.Errorf("cases not held: got %v, want %v", notHeld, tc.notHeld)
			}
			if want := suiteCount(chatstate.Suite.Name) - len(tc.notHeld); len(rep.Results) != want {
				t.Errorf("%d cases ran, want %d", len(rep.Results), want)
			}
		})
	}
}

// A bridge whose capabilities declare a queue expiry model or a clock
// bsadapter does not know is stopped at the start, with the capability
// named and what it may be.
func TestBridgeChatStateBadDeclarations(t *testing.T) {
	node := testenv.Node(t)
	path, err := filepath.Abs(filepath.Join("testdata", "bridges", "chat-state.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		flag string
		want []string
	}{
		{"--queue-expiry=drop", []string{"chatState.queueExpiry", `"skip"`, `"caller"`}},
		{`--clock=["streams"]`, []string{"capabilities.clock", "streamStore, runRegistry, chatState"}},
		{`--clock="yes"`, []string{"capabilities.clock", "a list of the groups"}},
	} {
		t.Run(tc.flag, func(t *testing.T) {
			st, err := bridgestore.New(t.Context(), bridge.Options{Command: []string{node, path, tc.flag}, Timeout: 2 * time.Minute})
			if err == nil {
				st.Close()
				t.Fatal("the bridge started")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error does not say %q: %v", w, err)
				}
			}
		})
	}
}

// A bridge that declares the clock for a store that reads the real time
// instead cannot pass what it did not check: the extended lock outlives
// its extended TTL by the moved clock, and lock-extend-moves-expiry fails
// saying so. What else fails depends on how much real time passed, but
// only cases that move the clock may. The clock declared as a list of
// groups that names chatState is the same as true.
func TestBridgeChatStateClockIgnored(t *testing.T) {
	for _, flags := range [][]string{{"--bug=ignore-clock"}, {"--bug=ignore-clock", `--clock=["chatState"]`}} {
		t.Run(strings.Join(flags, " "), func(t *testing.T) {
			t.Parallel()
			rep := runSuite(t, chatStateBridge(t, flags...), chatstate.Suite.Name)
			failed := rep.Failed()
			if !slices.Contains(failed, "chat-state/lock-extend-moves-expiry") {
				t.Errorf("lock-extend-moves-expiry passed against a store that ignores the moved clock; failed: %v", failed)
			}
			moving := map[string]bool{}
			for _, c := range suites.Cases() {
				moving[c.ID] = c.MovesClock
			}
			for _, id := range failed {
				if !moving[id] {
					t.Errorf("%s failed, but it does not move the clock:\n%s", id, conformtest.Failures(rep))
				}
			}
			if f := conformtest.Failures(rep); !strings.Contains(f, "or does not read that clock") {
				t.Errorf("the failure does not say the store does not read the clock:\n%s", f)
			}
		})
	}
}

// A clock declared for other groups only is not moved for the chat-state
// cases: they wait for real TTLs, and a store that reads the real time
// passes them all.
func TestBridgeChatStateClockForOtherGroups(t *testing.T) {
	rep := runSuite(t, chatStateBridge(t, "--bug=ignore-clock", `--clock=["streamStore"]`), chatstate.Suite.Name)
	if f := conformtest.Failures(rep); f != "" {
		t.Errorf("unexpected failures:\n%s", f)
	}
	if n := rep.Count(conform.Pass); n != suiteCount(chatstate.Suite.Name) {
		t.Errorf("%d of %d cases passed", n, suiteCount(chatstate.Suite.Name))
	}
}
