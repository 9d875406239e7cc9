package scaffold_test

import (
	"os"
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
	"github.com/bsadapter/bsadapter/internal/conform/suites/chatstate"
	"github.com/bsadapter/bsadapter/internal/scaffold"
	"github.com/bsadapter/bsadapter/internal/testenv"
)

// The line of the generated bridge that builds the state adapter it
// serves: the one an author changes to hand in another.
const memoryStateLine = "const chatState: StateAdapter = new MemoryChatState({ now });"

// handInState writes a generated adapter (streams and chat-state) whose
// bridge serves the state adapter expr builds, imported as importLine,
// in place of the memory one: the one line an author changes, and its
// import. The SDK packages come from tools/node.
func handInState(t *testing.T, importLine, expr string) string {
	t.Helper()
	dir := scaffoldInto(t, scaffold.Options{Name: "acme", SDKs: []string{"acme"}, Contracts: []string{"streams", "chat-state"}})
	modules := testenv.NodeModules(t)
	for _, pkg := range []string{"@chat-adapter/state-memory", "@chat-adapter/state-redis", "chat"} {
		if _, err := os.Stat(filepath.Join(modules, pkg, "package.json")); err != nil {
			testenv.Missing(t, "%s is not installed under tools/node: run 'npm install --no-save --prefix tools/node'", pkg)
		}
	}
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "bsadapter.bridge.ts")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(src), memoryStateLine) != 1 {
		t.Fatalf("the generated bridge does not build its state adapter in one line %q", memoryStateLine)
	}
	out := importLine + "\n" + strings.Replace(string(src), memoryStateLine, "const chatState: StateAdapter = "+expr+";", 1)
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The Chat SDK's own published state adapters, handed in to the generated
// bridge, pass every chat-state case that applies to them: the bridge
// connects them (they refuse every call before connect()), declares no
// clock for them (they read the system's time, so the TTL cases wait for
// real TTLs, with no --real-ttls), and declares no queue expiry model (they
// leave stale entries to the caller, as the SDK's interface allows), so
// the three cases of the block's queue rule are reported as not applying.
func TestPublishedStateAdapters(t *testing.T) {
	tsx := testenv.NodeBin(t, "tsx")
	var blockRule []string
	for _, c := range suites.Cases() {
		if c.Block == chatstate.QueueExpiry {
			blockRule = append(blockRule, c.ID)
		}
	}
	for _, tc := range []struct {
		name, importLine, expr string
		redis                  bool
	}{
		{"state-memory", `import { createMemoryState } from "@chat-adapter/state-memory";`, "createMemoryState()", false},
		{"state-redis", `import { createRedisState } from "@chat-adapter/state-redis";`, `createRedisState({ url: process.env["REDIS_URL"], keyPrefix: "bsadapter-test" })`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := handInState(t, tc.importLine, tc.expr)
			var env []string
			if tc.redis {
				env = append(env, "REDIS_URL="+testenv.Redis(t))
			}
			opts := bridge.Options{Command: []string{tsx, "bsadapter.bridge.ts"}, Dir: dir, Env: env, Timeout: 2 * time.Minute}

			// What the bridge declares for the store it was handed.
			c, err := bridge.Start(t.Context(), opts)
			if err != nil {
				t.Fatalf("start the bridge: %v", err)
			}
			caps := c.Capabilities()
			clock, _ := caps.Value(bridge.CapClock)
			if !caps.Has(bridge.GroupChatState) || caps.Has(bridge.CapClock) || string(clock) != `["streamStore"]` {
				t.Errorf("capabilities: chatState %v, clock %s (true: %v); want chatState, and the clock for the memory stream store only",
					caps.Has(bridge.GroupChatState), clock, caps.Has(bridge.CapClock))
			}
			if _, ok := caps.Value(bridge.CapChatQueueExpiry); ok || caps.Has(bridge.CapChatQueueExpiry) {
				t.Errorf("the bridge declares %s for a state adapter that does not say", bridge.CapChatQueueExpiry)
			}
			if err := c.Close(); err != nil {
				t.Errorf("close: %v", err)
			}

			st, err := bridgestore.New(t.Context(), opts)
			if err != nil {
				t.Fatalf("start the bridge: %v", err)
			}
			defer st.Close()
			cases, err := conform.Select(suites.Cases(), conform.Options{Suites: []string{chatstate.Suite.Name}})
			if err != nil {
				t.Fatal(err)
			}
			rep := conform.Run(t.Context(), st, cases, conform.Options{Parallel: 8})
			if f := conformtest.Failures(rep); f != "" {
				t.Errorf("%s failed cases:\n%s", tc.name, f)
			}
			var notHeld []string
			for _, n := range rep.NotApplicable {
				notHeld = append(notHeld, n.ID)
			}
			slices.Sort(notHeld)
			slices.Sort(blockRule)
			if !slices.Equal(notHeld, blockRule) {
				t.Errorf("cases not applicable: %v, want the queue rule's %v", notHeld, blockRule)
			}
			if n := rep.Count(conform.Pass); n != len(cases)-len(blockRule) || n != len(rep.Results) {
				t.Errorf("%d of %d cases passed (%d ran)", n, len(cases)-len(blockRule), len(rep.Results))
			}
			if tc.redis {
				// The Redis adapter kept its state in Redis: the bridge
				// really used the server.
				assertRedisKeys(t, env[0][len("REDIS_URL="):], "bsadapter-test:")
			}
		})
	}
}

// assertRedisKeys checks that the Redis server at url holds keys with
// prefix (subscriptions stay, as the suite never unsubscribes all).
func assertRedisKeys(t *testing.T, url, prefix string) {
	t.Helper()
	keys, err := testenv.RedisKeys(url, prefix+"*")
	if err != nil {
		t.Fatalf("ask redis for its keys: %v", err)
	}
	if len(keys) == 0 {
		t.Errorf("redis holds no key with the prefix %q", prefix)
	}
}
