package bridgestore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

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
	}{
		{"release-ignores-token", []string{"chat-state/lock-wrong-token"}},
		{"lock-check-then-set", []string{"chat-state/lock-one-winner", "chat-state/concurrent-lock"}},
		{"null-is-a-miss", []string{"chat-state/value-null-not-a-miss"}},
		{"list-cap-keeps-oldest", []string{"chat-state/list-cap-keeps-newest"}},
		{"queue-counts-expired", []string{"chat-state/queue-expired-skipped", "chat-state/queue-expired-arrival-takes-no-place", "chat-state/queue-entry-expires"}},
		{"expired-takes-a-place", []string{"chat-state/queue-expired-arrival-takes-no-place"}},
		{"lock-never-expires", []string{"chat-state/lock-expired"}},
		{"set-ignores-ttl", []string{"chat-state/value-ttl", "chat-state/set-if-not-exists-expired"}},
	} {
		// The TTL rules are caught whether the cases move the clock or
		// wait for real TTLs.
		for _, flags := range [][]string{nil, {"--no-clock"}} {
			t.Run(strings.TrimSpace(tc.bug+" "+strings.Join(flags, " ")), func(t *testing.T) {
				t.Parallel()
				rep := runSuite(t, chatStateBridge(t, append(flags, "--bug="+tc.bug)...), chatstate.Suite.Name)
				if got := rep.Failed(); !sameSet(got, tc.want) {
					t.Errorf("failed cases: got %v, want exactly %v\n%s", got, tc.want, conformtest.Failures(rep))
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
