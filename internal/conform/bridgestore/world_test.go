package bridgestore_test

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/bridgestore"
	"github.com/bsadapter/bsadapter/internal/conform/conformtest"
	"github.com/bsadapter/bsadapter/internal/conform/suites"
	"github.com/bsadapter/bsadapter/internal/conform/suites/world"
	"github.com/bsadapter/bsadapter/internal/testenv"
)

// worldModules is the node_modules folder that holds @workflow/world-local
// at the version the world suite was written against: tools/node's, or
// the folder BSADAPTER_WORLD_MODULES names.
func worldModules(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("BSADAPTER_WORLD_MODULES")
	if dir == "" {
		dir = filepath.Join(testenv.RepoRoot(t), "tools", "node", "node_modules")
	}
	raw, err := os.ReadFile(filepath.Join(dir, "@workflow", "world-local", "package.json"))
	if err != nil {
		testenv.Missing(t, "@workflow/world-local is not installed in %s: add \"@workflow/world-local\": %q (and @workflow/world %s) to tools/node/package.json and run 'npm install --no-save --prefix tools/node'",
			dir, world.LocalVersion, world.InterfaceVersion)
	}
	var pkg struct{ Version string }
	if err := json.Unmarshal(raw, &pkg); err != nil || pkg.Version != world.LocalVersion {
		testenv.Missing(t, "%s holds @workflow/world-local %q; the world suite is checked against %s: pin that version in tools/node/package.json",
			dir, pkg.Version, world.LocalVersion)
	}
	return dir
}

// worldLocalBridge starts testdata/bridges/world.mjs over world-local with
// flags.
func worldLocalBridge(t *testing.T, flags ...string) conform.Store {
	t.Helper()
	modules := worldModules(t)
	node := testenv.Node(t)
	script, err := filepath.Abs(filepath.Join("testdata", "bridges", "world.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := append([]string{node, script, "--module=@workflow/world-local", "--from=" + filepath.Dir(modules),
		"--factory=createWorld", `--options={"dataDir":"$DATA_DIR","port":"$PORT","recoverActiveRuns":false}`}, flags...)
	// The bridge makes its World's data folders in TMPDIR and removes them
	// when it is shut down; a bridge killed instead leaves them.
	tmp := t.TempDir()
	// Not t.Context() itself: it ends before the cleanup below runs, and
	// its end would kill the bridge rather than shut it down.
	st, err := bridgestore.New(context.WithoutCancel(t.Context()), bridge.Options{Command: cmd, Timeout: 30 * time.Second, Env: []string{"TMPDIR=" + tmp}})
	if err != nil {
		t.Fatalf("start the world bridge over world-local: %v", err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Errorf("close the world bridge: %v", err)
		}
		if left, _ := os.ReadDir(tmp); len(left) != 0 {
			t.Errorf("the world bridge left %d data folders behind (first %s): it was not shut down", len(left), left[0].Name())
		}
	})
	return st
}

// runWorld runs the world suite against st, four cases at a time, with
// room for a busy machine: a World on files is slow, and the mutants run
// one after the other.
func runWorld(t *testing.T, st conform.Store) *conform.Report {
	t.Helper()
	cases, err := conform.Select(suites.Cases(), conform.Options{Suites: []string{world.Suite.Name}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	return conform.Run(ctx, st, cases, conform.Options{Parallel: 4})
}

// world-local, the Workflow SDK's reference World, wrapped by the generic
// world bridge, passes every case of the world suite but those of its
// known departures from the interface (see knownWorldLocalBugs).
func TestBridgeWorldLocal(t *testing.T) {
	start := time.Now()
	rep := runWorld(t, worldLocalBridge(t))
	t.Logf("the world suite over world-local: %d cases in %s", len(rep.Results), time.Since(start).Round(time.Millisecond))
	if got := rep.Failed(); !sameSet(got, knownWorldLocalBugs) {
		t.Errorf("failed cases: got %v, want exactly world-local's known bugs %v\n%s", got, knownWorldLocalBugs, conformtest.Failures(rep))
	}
	if n := rep.Count(conform.Skipped); n != 0 {
		t.Errorf("%d world cases skipped over the bridge", n)
	}
}

// knownWorldLocalBugs are the cases world-local fails, each a departure
// from the World interface's rules reproduced without bsadapter (see
// docs/upstream-interfaces.md, "World").
var knownWorldLocalBugs = []string{"world/run-not-found"}

// A World that logs to stdout and wants Dates where its types say Date
// (as world-postgres does) fares as world-local does: the bridge keeps
// stdout for the protocol and gives the World Dates, not JSON strings.
func TestBridgeWorldStrict(t *testing.T) {
	modules := worldModules(t)
	node := testenv.Node(t)
	script, err := filepath.Abs(filepath.Join("testdata", "bridges", "world.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	local := (&url.URL{Scheme: "file", Path: filepath.Join(modules, "@workflow", "world-local", "dist", "index.js")}).String()
	opts, err := json.Marshal(map[string]any{"localModule": local, "dataDir": "$DATA_DIR", "port": "$PORT", "recoverActiveRuns": false})
	if err != nil {
		t.Fatal(err)
	}
	cmd := []string{node, script, "--module=./testdata/bridges/world-strict.mjs", "--factory=createWorld", "--options=" + string(opts)}
	st, err := bridgestore.New(context.WithoutCancel(t.Context()), bridge.Options{Command: cmd, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatalf("start the world bridge over the strict World: %v", err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Errorf("close the world bridge: %v", err)
		}
	})
	rep := runWorld(t, st)
	if got := rep.Failed(); !sameSet(got, knownWorldLocalBugs) {
		t.Errorf("failed cases: got %v, want exactly world-local's known bugs %v\n%s", got, knownWorldLocalBugs, conformtest.Failures(rep))
	}
}

// Each fault the world bridge adds to world-local is caught by the cases
// of the rule it breaks, beside world-local's own.
func TestBrokenWorldBridgesCaught(t *testing.T) {
	worldModules(t)
	for _, m := range []mutant{
		{"cursor-ignored", []string{"world/events-pages", "world/runs-list", "world/steps-list", "world/hooks-list"}},
		{"desc-ignored", []string{"world/events-in-order"}},
		{"resolve-none-ignored", []string{"world/resolve-data-none"}},
		{"live-read-snapshot", []string{"world/stream-live"}},
		{"wrong-attempt", []string{"world/queue-delivers"}},
	} {
		t.Run(m.bug, func(t *testing.T) {
			rep := runWorld(t, worldLocalBridge(t, "--bug="+m.bug))
			want := append(append([]string{}, m.want...), knownWorldLocalBugs...)
			if got := rep.Failed(); !sameSet(got, want) {
				t.Errorf("failed cases: got %v, want exactly %v\n%s", got, want, conformtest.Failures(rep))
			}
		})
	}
}
