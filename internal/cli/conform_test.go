package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites"
	"github.com/bsadapter/bsadapter/internal/conform/suites/aicache"
	"github.com/bsadapter/bsadapter/internal/conform/suites/aitaskrunner"
	"github.com/bsadapter/bsadapter/internal/conform/suites/builder"
	"github.com/bsadapter/bsadapter/internal/conform/suites/builderrecords"
	"github.com/bsadapter/bsadapter/internal/conform/suites/chat"
	"github.com/bsadapter/bsadapter/internal/conform/suites/chatstate"
	"github.com/bsadapter/bsadapter/internal/conform/suites/credentials"
	"github.com/bsadapter/bsadapter/internal/conform/suites/embedder"
	"github.com/bsadapter/bsadapter/internal/conform/suites/engine"
	"github.com/bsadapter/bsadapter/internal/conform/suites/graphcompiler"
	"github.com/bsadapter/bsadapter/internal/conform/suites/knowledge"
	"github.com/bsadapter/bsadapter/internal/conform/suites/memory"
	"github.com/bsadapter/bsadapter/internal/conform/suites/registry"
	"github.com/bsadapter/bsadapter/internal/conform/suites/streams"
	"github.com/bsadapter/bsadapter/internal/conform/suites/world"
	"github.com/bsadapter/bsadapter/internal/pgserver/pgtest"
	"github.com/bsadapter/bsadapter/internal/testenv"
)

// The live view counts what finished, lists what runs with its time and
// every failure so far, and clears itself when the run ends.
func TestConformProgressView(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var m interface {
		View() string
	} = newProgressModel("memory", 3, Style{}, t0)
	step := func(msg any) {
		next, _ := m.(progressModel).Update(msg)
		m = next.(progressModel)
	}
	a := &conform.Case{ID: "streams/a"}
	b := &conform.Case{ID: "streams/b"}
	c := &conform.Case{ID: "registry/c"}
	step(progressEvent{Case: a})
	step(progressEvent{Case: b})
	step(progressTick(t0.Add(1500 * time.Millisecond)))
	v := m.View()
	for _, want := range []string{"conform memory  0/3", "0 passed", "0 failed", "running streams/a 1.5s", "running streams/b 1.5s"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	step(progressEvent{Case: a, Done: true, Result: conform.Result{ID: a.ID, Outcome: conform.Pass}})
	step(progressEvent{Case: b, Done: true, Result: conform.Result{ID: b.ID, Outcome: conform.Fail}})
	step(progressEvent{Case: c})
	step(progressEvent{Case: c, Done: true, Result: conform.Result{ID: c.ID, Outcome: conform.Skipped}})
	v = m.View()
	for _, want := range []string{"3/3", "1 passed", "1 failed", "1 skipped", "FAIL streams/b"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "running") {
		t.Errorf("finished cases still shown as running:\n%s", v)
	}
	step(progressDone{})
	if v := m.View(); v != "" {
		t.Errorf("the view must clear at the end, got %q", v)
	}
}

// Main with a terminal on stderr (but CI unset) runs the live view and
// still writes the report to stdout; with CI set it prints plain lines.
func TestConformProgressModes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		env   map[string]string
		plain bool
	}{
		{"terminal", map[string]string{"NO_COLOR": "1"}, false},
		{"ci", map[string]string{"CI": "true", "NO_COLOR": "1"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := Main([]string{"conform", "--store", "memory", "--suite", "registry"}, Stdio{
				In: strings.NewReader(""), Out: &out, Err: &errb, ErrTTY: true,
				Env: func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok },
			})
			if code != 0 {
				t.Fatalf("exit %d; stderr:\n%s", code, errb.String())
			}
			if !strings.Contains(out.String(), "passed, 0 failed") {
				t.Errorf("no report on stdout:\n%s", out.String())
			}
			gotPlain := strings.Contains(errb.String(), "ok registry/list-filters")
			if gotPlain != tc.plain {
				t.Errorf("plain progress lines: %v, want %v; stderr:\n%s", gotPlain, tc.plain, errb.String())
			}
			// The live view hides the cursor while it runs and shows it
			// again at the end (a run this fast may end before a frame).
			live := strings.Contains(errb.String(), "\x1b[?25l") && strings.Contains(errb.String(), "\x1b[?25h")
			if live == tc.plain {
				t.Errorf("live view ran: %v, want %v; stderr:\n%q", live, !tc.plain, errb.String())
			}
		})
	}
}

// In a real terminal (tmux), the live view shows the cases running with
// their time while they run; when they time out, the report lands on
// stdout with the rule and the timeout.
func TestConformLiveViewInATerminal(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		testenv.Missing(t, "tmux is not installed (apt-get install tmux; scripts/test does it)")
	}
	node := testenv.Node(t)
	root := testenv.RepoRoot(t)
	bin := filepath.Join(t.TempDir(), "bsadapter")
	if out, err := exec.Command("go", "build", "-o", bin, filepath.Join(root, "cmd", "bsadapter")).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	sockDir, err := os.MkdirTemp("", "bsa-conform-tmux")
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(sockDir, "s")
	tm := func(args ...string) string {
		out, err := exec.Command(tmux, append([]string{"-S", sock}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	t.Cleanup(func() {
		exec.Command(tmux, "-S", sock, "kill-server").Run()
		os.RemoveAll(sockDir)
	})
	store := filepath.Join(root, "internal", "conform", "bridgestore", "testdata", "bridges", "memstore.mjs")
	command := fmt.Sprintf("env -u CI -u NO_COLOR %s conform --bridge '%s %s --bug=hang-read' --run 'streams/live-read-(sees-later-appends|resumed)$' --timeout 3s; echo exit=$?; sleep 60",
		bin, node, store)
	tm("new-session", "-d", "-s", "conform", "-x", "120", "-y", "30", command)
	waitFor := func(want string) string {
		deadline := time.Now().Add(30 * time.Second)
		for {
			screen := tm("capture-pane", "-p", "-t", "conform")
			if strings.Contains(screen, want) {
				return screen
			}
			if time.Now().After(deadline) {
				t.Fatalf("the terminal never showed %q; last screen:\n%s", want, screen)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	screen := waitFor("running streams/live-read-sees-later-appends")
	for _, want := range []string{"conform bridge: memstore-hang-read  0/2", "0 passed", "running streams/live-read-resumed"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the live view lacks %q:\n%s", want, screen)
		}
	}
	screen = waitFor("exit=")
	for _, want := range []string{"FAIL streams/live-read-sees-later-appends", "did not finish within its timeout of 3s", "0 passed, 2 failed", "exit=1"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the final screen lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "running streams/") {
		t.Errorf("the live view left a stale frame:\n%s", screen)
	}
}

// The whole command against PostgreSQL (a running server, --dsn): every
// case of every suite passes, JSON on stdout, exit 0, and the databases
// it made are gone afterwards.
func TestConformPGThroughTheCommand(t *testing.T) {
	srv := pgtest.Server(t)
	dsn := srv.ConnString("postgres")
	countDBs := func() int {
		conn, err := srv.Connect(t.Context(), "postgres")
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(context.Background())
		var n int
		if err := conn.QueryRow(t.Context(), "select count(*) from pg_database where datname like 'bsadapter_%'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := countDBs()
	var out, errb bytes.Buffer
	code := Main([]string{"conform", "--dsn", dsn, "--format", "json"}, Stdio{
		In: strings.NewReader(""), Out: &out, Err: &errb,
		Env: func(k string) (string, bool) { return "", false },
	})
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	var doc struct {
		SchemaVersion int `json:"schemaVersion"`
		Store         string
		Summary       struct{ Total, Passed, Failed, Skipped int }
		Results       []struct{ Suite string }
		LeftOut       []conform.LeftOut
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, out.String())
	}
	// Without pgvector the knowledge and memory suites are left out with
	// their modules.
	leftOut := pgLeftOut
	vector := pgtest.HasVector(t)
	if !vector {
		leftOut = append(slices.Clone(pgLeftOut), knowledge.Suite.Name, memory.Suite.Name)
	}
	left := suiteCases(leftOut...)
	if doc.SchemaVersion != conform.ReportSchemaVersion || doc.Store != "pg (dsn)" || doc.Summary.Total != len(suites.Cases())-left || doc.Summary.Passed != doc.Summary.Total || doc.Summary.Skipped != 0 {
		t.Errorf("report: %+v", doc.Summary)
	}
	checkLeftOut(t, doc.LeftOut, leftOut)
	for _, r := range doc.Results {
		if slices.Contains(leftOut, r.Suite) {
			t.Errorf("a case of the left-out suite %s ran", r.Suite)
		}
	}
	if after := countDBs(); after != before {
		t.Errorf("the run left databases behind: %d before, %d after", before, after)
	}
	if !vector {
		pgtest.NeedVector(t)
	}
}

// pgLeftOut are the suites pg does not implement: those that check an
// adapter's own code.
var pgLeftOut = []string{engine.Suite.Name, graphcompiler.Suite.Name, builder.Suite.Name, world.Suite.Name, embedder.Suite.Name, aitaskrunner.Suite.Name}

// suiteCases counts the cases of the suites.
func suiteCases(names ...string) int {
	n := 0
	for _, c := range suites.Cases() {
		if slices.Contains(names, c.Suite) {
			n++
		}
	}
	return n
}

// checkLeftOut checks that a report left out exactly the suites want, in
// suite order, each with its number of cases and a reason.
func checkLeftOut(t *testing.T, got []conform.LeftOut, want []string) {
	t.Helper()
	var names []string
	for _, l := range got {
		names = append(names, l.Suite)
		if l.Cases != suiteCases(l.Suite) || l.Reason == "" {
			t.Errorf("left out %+v: want %d cases and a reason", l, suiteCases(l.Suite))
		}
	}
	if !slices.Equal(names, want) {
		t.Errorf("left out suites %v, want %v", names, want)
	}
}

// conformNodeStore runs conform against the Node reference store
// memstore.mjs started with flags (such as "--v1"), with args after, and
// returns the exit code, stdout and stderr.
func conformNodeStore(t *testing.T, flags string, args ...string) (int, string, string) {
	t.Helper()
	node := testenv.Node(t)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(root, "internal", "conform", "bridgestore", "testdata", "bridges", "memstore.mjs")
	var out, errb bytes.Buffer
	code := Main(append([]string{"conform", "--bridge", strings.TrimSpace(fmt.Sprintf("'%s' '%s' %s", node, store, flags))}, args...), Stdio{
		In: strings.NewReader(""), Out: &out, Err: &errb,
		Env: func(k string) (string, bool) { return "", false },
	})
	return code, out.String(), errb.String()
}

// A bridge that offers only a StreamStore and a run registry runs those
// suites alone and names the others, once each, with the reason; a suite
// named with --suite runs anyway, each of its cases skipped with the
// reason, so that asking for it is never a quiet green.
func TestConformLeavesOutWhatTheBridgeDoesNotImplement(t *testing.T) {
	run := func(args ...string) (int, string) {
		code, out, _ := conformNodeStore(t, "", args...)
		return code, out
	}
	code, text := run()
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, text)
	}
	others := []string{chat.Suite.Name, chatstate.Suite.Name, credentials.Suite.Name, engine.Suite.Name, graphcompiler.Suite.Name, builder.Suite.Name, builderrecords.Suite.Name, world.Suite.Name, embedder.Suite.Name, aitaskrunner.Suite.Name,
		aicache.Suite.Name, knowledge.Suite.Name, memory.Suite.Name}
	for _, suite := range others {
		if strings.Contains(text, "SKIP "+suite+"/") {
			t.Errorf("a case of the left-out suite %s is reported:\n%s", suite, text)
		}
	}
	if want := fmt.Sprintf("\n    credentials (%d cases): the bridge does not declare capabilities.credentials\n", suiteCases(credentials.Suite.Name)); !strings.Contains(text, want) {
		t.Errorf("the text lacks %q:\n%s", want, text)
	}
	if want := fmt.Sprintf("ok %d cases against bridge: memstore", suiteCases(streams.Suite.Name, registry.Suite.Name)); !strings.Contains(text, want) {
		t.Errorf("the summary lacks %q:\n%s", want, text)
	}

	code, js := run("--format", "json")
	var doc struct{ LeftOut []conform.LeftOut }
	if err := json.Unmarshal([]byte(js), &doc); code != 0 || err != nil {
		t.Fatalf("exit %d, %v:\n%s", code, err, js)
	}
	checkLeftOut(t, doc.LeftOut, others)

	code, text = run("--suite", "credentials,streams")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, text)
	}
	if strings.Count(text, "SKIP credentials/") != suiteCases(credentials.Suite.Name) {
		t.Errorf("a named suite the bridge does not offer: %d SKIP lines, want %d:\n%s", strings.Count(text, "SKIP credentials/"), suiteCases(credentials.Suite.Name), text)
	}
	if strings.Contains(text, "not selected") {
		t.Errorf("with --suite nothing is left out:\n%s", text)
	}
}

// Against a version 1 bridge, conform says for each case that did not run
// which capability it needs, and the run passes what the bridge passed.
func TestConformVersion1BridgeSaysWhatDidNotRun(t *testing.T) {
	code, out, errOut := conformNodeStore(t, "--v1 --no-callers", "--suite", "streams,registry", "--parallel", "8")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	need := map[conform.Feature]string{
		conform.FeatureIdentity: "streamStore.identity", conform.FeatureBoundedRead: "streamStore.readPage",
		conform.FeatureLiveRead: "streamStore.liveRead", conform.FeatureStatusDetails: "streamStore.statusDetails",
		conform.FeatureCallers: "streamStore.callers", conform.FeatureTenants: "runRegistry.callers",
	}
	skipped := 0
	for _, c := range suites.Cases() {
		capName, ok := need[c.Needs]
		if !ok || c.Suite == chat.Suite.Name {
			continue
		}
		skipped++
		want := fmt.Sprintf("SKIP %s: needs capability %s (%s), which is bridge protocol version 2's; the bridge speaks version 1\n", c.ID, capName, c.Needs)
		if c.Needs == conform.FeatureCallers {
			want = fmt.Sprintf("SKIP %s: needs capability %s (%s); a version 1 bridge offers it by answering the method streamStore.callers", c.ID, capName, c.Needs)
		}
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q", want)
		}
	}
	owners := 0
	for _, c := range suites.Cases() {
		if c.Suite != chat.Suite.Name && (c.Needs == conform.FeatureCallers || c.Needs == conform.FeatureTenants) {
			owners++
		}
	}
	if want := "\n    capability runRegistry.callers (tenant permissions): registry/actor-sees-own-run, "; !strings.Contains(out, want) {
		t.Errorf("the list of cases not run lacks %q:\n%s", want, out)
	}
	if want := "\n    capability streamStore.liveRead (incremental live read): streams/live-read-incremental, "; !strings.Contains(out, want) {
		t.Errorf("the list of cases not run lacks %q:\n%s", want, out)
	}
	if want := fmt.Sprintf("0 failed, %d skipped", skipped); !strings.Contains(out, want) {
		t.Errorf("the summary lacks %q:\n%s", want, out)
	}
	if want := fmt.Sprintf("; %d owner rules did not run", owners); !strings.Contains(out, want) {
		t.Errorf("the summary lacks %q:\n%s", want, out)
	}
}

// A bridge whose store takes callers but cannot grant permissions runs the
// registry's actor case and lists the cases that need a grant as not run,
// with the reason rather than a capability it does declare.
func TestConformBridgeWithoutGrantsSaysWhatDidNotRun(t *testing.T) {
	code, out, errOut := conformNodeStore(t, "--no-grants", "--suite", "registry")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"\n    tenant permissions (the store cannot grant permissions in a tenant: the bridge answers runRegistry.grant with method not found): registry/tenant-members-read-with-workflow-read, registry/cancel-by-actor-or-tenant-admin\n",
		", 2 skipped in ",
		"; 2 owner rules did not run: the store takes no caller identity or grants no tenant permissions\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "capability runRegistry.callers") {
		t.Errorf("the output names a capability the bridge declares:\n%s", out)
	}
}

// A bridge whose streams expire by themselves runs every streams case
// that applies to it and says, in the text and in the JSON document, which
// cases of the block's expiry did not apply, and why; the summary counts
// them. Selecting only such a case runs nothing and says so.
func TestConformSelfExpiringBridgeSaysWhatDidNotApply(t *testing.T) {
	code, out, errOut := conformNodeStore(t, "--expiry=self", "--suite", "streams")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"- not applicable to bridge: memstore, which declares it does not keep these block rules (its interface does not promise them):\n" +
			"    expired streams kept until a purge (streams/ttl-expired-purged, streams/open-expired-unchanged): the bridge declares streamStore.expiry \"self\": its store expires streams by itself, which the StreamStore interface allows\n",
		fmt.Sprintf("ok %d cases against bridge: memstore: %d passed, 0 failed, 0 skipped", suiteCases(streams.Suite.Name)-2, suiteCases(streams.Suite.Name)-2),
		"; 2 cases of block rules the store does not keep did not apply\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}

	code, js, _ := conformNodeStore(t, "--expiry=self", "--suite", "streams", "--format", "json")
	var doc struct {
		Results       []conform.Result
		NotApplicable []conform.NotApplicable
	}
	if err := json.Unmarshal([]byte(js), &doc); code != 0 || err != nil {
		t.Fatalf("exit %d, %v:\n%s", code, err, js)
	}
	var ids []string
	for _, n := range doc.NotApplicable {
		ids = append(ids, n.ID)
		if n.BlockRule != streams.KeepsExpired.Name || n.Suite != streams.Suite.Name || n.Rule == "" || !strings.Contains(n.Reason, "streamStore.expiry") {
			t.Errorf("notApplicable entry %+v lacks its block rule, suite, rule or reason", n)
		}
	}
	if !slices.Equal(ids, []string{"streams/ttl-expired-purged", "streams/open-expired-unchanged"}) {
		t.Errorf("notApplicable lists %v", ids)
	}
	for _, r := range doc.Results {
		if slices.Contains(ids, r.ID) {
			t.Errorf("%s is among the results too", r.ID)
		}
	}

	code, out, _ = conformNodeStore(t, "--expiry=self", "--run", "open-expired-unchanged")
	if want := "ok 0 cases against bridge: memstore: 0 passed, 0 failed, 0 skipped"; code != 0 || !strings.Contains(out, want) || !strings.Contains(out, "; 1 case of a block rule the store does not keep did not apply\n") {
		t.Errorf("exit %d, want 0 and %q with the case that did not apply:\n%s", code, want, out)
	}
}
