package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/internal/bridge/bridgetest"
	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites"
	"github.com/bsadapter/bsadapter/internal/testenv"
)

// shardRun is one run's JSON report, read generically.
type shardRun struct {
	code int
	doc  map[string]any
	raw  string
}

func runJSON(t *testing.T, args ...string) shardRun {
	t.Helper()
	code, out, errOut := runMain(t, append(args, "--format", "json")...)
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%s: exit %d, not a JSON report: %v\n%s%s", strings.Join(args, " "), code, err, out, errOut)
	}
	return shardRun{code, doc, out}
}

// untimed drops what differs from run to run (durations) and the shard
// description, recursively.
func untimed(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if k == "elapsedMs" || k == "timing" || k == "shard" {
				continue
			}
			out[k] = untimed(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = untimed(e)
		}
		return out
	}
	return v
}

// outcomes maps each result's key (a case ID, or a message's file and
// index) to its outcome, failing on a key seen twice.
func outcomes(t *testing.T, doc map[string]any, into map[string]string, what string) int {
	t.Helper()
	results, _ := doc["results"].([]any)
	for _, r := range results {
		m := r.(map[string]any)
		key, outcome := fmt.Sprint(m["id"]), fmt.Sprint(m["outcome"])
		if _, ok := m["id"]; !ok {
			key, outcome = fmt.Sprintf("%v#%v", m["file"], m["index"]), fmt.Sprint(m["status"])
		}
		if _, dup := into[key]; dup {
			t.Errorf("%s: %s ran twice", what, key)
		}
		into[key] = outcome
	}
	return len(results)
}

// checkShards runs args unsharded and in N parts for N in 1..maxN:
// the parts hold every result of the whole run once, with the same
// outcome, each part says which it is, and merge-reports of the parts
// gives the whole run's report (timings apart) and its exit status. (How
// evenly the parts share the cases is TestConformShardBalance's.)
func checkShards(t *testing.T, maxN int, args ...string) {
	t.Helper()
	whole := runJSON(t, args...)
	want := map[string]string{}
	outcomes(t, whole.doc, want, "the whole run")
	if len(want) == 0 {
		t.Fatalf("%s: the whole run has no results\n%s", strings.Join(args, " "), whole.raw)
	}
	dir := t.TempDir()
	for n := 1; n <= maxN; n++ {
		got := map[string]string{}
		var files []string
		var sizes []int
		for k := 1; k <= n; k++ {
			part := runJSON(t, append(args, "--shard", fmt.Sprintf("%d/%d", k, n))...)
			sh, _ := part.doc["shard"].(map[string]any)
			if sh == nil || sh["index"] != float64(k) || sh["total"] != float64(n) {
				t.Fatalf("part %d/%d: shard %v", k, n, part.doc["shard"])
			}
			if part.code != 0 && part.code != 1 {
				t.Fatalf("part %d/%d: exit %d\n%s", k, n, part.code, part.raw)
			}
			sizes = append(sizes, outcomes(t, part.doc, got, fmt.Sprintf("%d parts", n)))
			f := filepath.Join(dir, fmt.Sprintf("part-%d-of-%d.json", k, n))
			if err := os.WriteFile(f, []byte(part.raw), 0o644); err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		if !reflect.DeepEqual(got, want) {
			for id, o := range want {
				if got[id] != o {
					t.Errorf("%d parts: %s is %q, the whole run says %q", n, id, got[id], o)
				}
			}
			for id := range got {
				if _, ok := want[id]; !ok {
					t.Errorf("%d parts: %s is not in the whole run", n, id)
				}
			}
			t.FailNow()
		}
		t.Logf("%d parts: %v results", n, sizes)
		// The files given in reverse: merge-reports orders them itself.
		rev := make([]string, len(files))
		for i, f := range files {
			rev[len(files)-1-i] = f
		}
		merged := runJSON(t, append([]string{"merge-reports"}, rev...)...)
		if merged.code != whole.code {
			t.Errorf("%d parts: merge-reports exits %d, the whole run %d", n, merged.code, whole.code)
		}
		if _, ok := merged.doc["shard"]; ok {
			t.Errorf("%d parts: the merged report still says it is a part", n)
		}
		if a, b := untimed(merged.doc), untimed(whole.doc); !reflect.DeepEqual(a, b) {
			ja, _ := json.MarshalIndent(a, "", " ")
			jb, _ := json.MarshalIndent(b, "", " ")
			t.Fatalf("%d parts: the merged report differs from the whole run's\nmerged:\n%.3000s\nwhole:\n%.3000s", n, ja, jb)
		}
		// Every format comes from the merged result.
		for _, format := range []string{"text", "junit", "github"} {
			code, out, errOut := runMain(t, append([]string{"merge-reports", "--format", format}, files...)...)
			if code != whole.code || out == "" {
				t.Errorf("%d parts, --format %s: exit %d\n%s%s", n, format, code, out, errOut)
			}
		}
	}
}

// The parts of conform --store memory are the whole run, each case once
// and with its outcome, and merge back into its report.
func TestConformShardsMergeToTheWholeRun(t *testing.T) {
	checkShards(t, 5, "conform", "--store", "memory")
}

// The parts of check-fixtures over the SDK message corpus, in canonical
// mode (most native messages fail there, with schema problems) and in
// converter mode over the Node test bridge, are the whole run.
func TestCheckFixturesShardsMergeToTheWholeRun(t *testing.T) {
	corpus := testenv.Corpus(t)
	t.Run("canonical", func(t *testing.T) {
		checkShards(t, 5, "check-fixtures", "--no-bridge", corpus)
	})
	t.Run("converter", func(t *testing.T) {
		bridge := strings.Join(bridgetest.NodeBridge(t, "--wrap"), " ")
		checkShards(t, 5, "check-fixtures", "--bridge", bridge, corpus)
	})
	// With snapshots beside the fixtures, each mismatch's note is in the
	// merged report once, in the run's file order.
	t.Run("snapshots", func(t *testing.T) {
		bridge := strings.Join(bridgetest.NodeBridge(t, "--wrap"), " ")
		dir := t.TempDir()
		files, _ := filepath.Glob(filepath.Join(corpus, "langchain", "*.json"))
		if len(files) < 5 {
			t.Fatalf("the LangChain corpus has %d files", len(files))
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644)
		}
		if code, out, errOut := runMain(t, "check-fixtures", "--bridge", bridge, "--update", dir); code != 0 {
			t.Fatalf("--update: exit %d\n%s%s", code, out, errOut)
		}
		snaps, _ := filepath.Glob(filepath.Join(dir, "*.canonical.json"))
		if len(snaps) != len(files) {
			t.Fatalf("%d snapshots for %d files", len(snaps), len(files))
		}
		// Three snapshots differ from what the converter gives now: their
		// notes come from different parts.
		for _, i := range []int{0, 1, len(snaps) - 1} {
			os.WriteFile(snaps[i], []byte(`{"id":"x","role":"user","parts":[]}`+"\n"), 0o644)
		}
		whole := runJSON(t, "check-fixtures", "--bridge", bridge, dir)
		notes, _ := whole.doc["snapshots"].([]any)
		if whole.code != 1 || len(notes) != 3 {
			t.Fatalf("the whole run: exit %d, %d snapshot notes, want 3 mismatches\n%s", whole.code, len(notes), whole.raw)
		}
		checkShards(t, 4, "check-fixtures", "--bridge", bridge, dir)
	})
}

// The parts of a generated run are ranges of its messages; with a bridge
// that drops step parts some fail, and the merged report lists them as
// the whole run does.
func TestCheckFixturesGeneratedShards(t *testing.T) {
	bridge := strings.Join(bridgetest.NodeBridge(t, "--fault=dropstep"), " ")
	checkShards(t, 3, "check-fixtures", "--bridge", bridge, "--generate", "120", "--seed", "7")
}

// The parts of conform are as even as can be, the whole-store cases
// (which run alone) too, and the same from run to run.
func TestConformShardBalance(t *testing.T) {
	all := map[string]bool{}
	var sizes []int
	for k := 1; k <= 4; k++ {
		p := runJSON(t, "conform", "--store", "memory", "--shard", fmt.Sprintf("%d/4", k))
		again := runJSON(t, "conform", "--store", "memory", "--shard", fmt.Sprintf("%d/4", k))
		ids := func(d map[string]any) []string {
			var out []string
			for _, r := range d["results"].([]any) {
				out = append(out, r.(map[string]any)["id"].(string))
			}
			return out
		}
		if a, b := ids(p.doc), ids(again.doc); !reflect.DeepEqual(a, b) {
			t.Errorf("part %d/4 ran other cases the second time", k)
		}
		for _, id := range ids(p.doc) {
			all[id] = true
		}
		sizes = append(sizes, len(ids(p.doc)))
	}
	lo, hi := sizes[0], sizes[0]
	for _, s := range sizes {
		lo, hi = min(lo, s), max(hi, s)
	}
	if hi-lo > 1 {
		t.Errorf("part sizes %v: more than one case apart", sizes)
	}
}

// Bad --shard values and bad sets of reports are refused with the flag
// or the file and the fix.
func TestShardAndMergeErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"conform", "--store", "memory", "--shard", "0/3"}, "K must be between 1 and N"},
		{[]string{"conform", "--store", "memory", "--shard", "4/3"}, "K must be between 1 and N"},
		{[]string{"conform", "--store", "memory", "--shard", "a/b"}, "not K/N with whole numbers"},
		{[]string{"conform", "--store", "memory", "--shard", "3"}, "is not K/N"},
		{[]string{"conform", "--store", "memory", "--shard", "1/0"}, "must be at least 1"},
		{[]string{"conform", "--store", "memory", "--run", "^streams/open-true-then-false$", "--shard", "1/2"}, "2 parts for 1 selected cases"},
		{[]string{"conform", "--store", "memory", "--list", "--shard", "1/2"}, "does not apply to --list"},
		{[]string{"check-fixtures", "--no-bridge", "--shard", "2/1", "."}, "K must be between 1 and N"},
		{[]string{"check-fixtures", "--bridge", "x", "--generate", "3", "--seed", "1", "--shard", "1/4"}, "too few messages for 4 parts"},
		{[]string{"check-fixtures", "--bridge", "x", "--generate", "30", "--shard", "1/4"}, "needs --seed"},
		{[]string{"merge-reports"}, "needs the JSON report of every part"},
	} {
		code, out, errOut := runMain(t, tc.args...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "hint:") {
			t.Errorf("%s: exit %d, want 2 and %q with a hint\n%s%s", strings.Join(tc.args, " "), code, tc.want, out, errOut)
		}
	}

	dir := t.TempDir()
	fix := filepath.Join(dir, "fixtures")
	os.MkdirAll(fix, 0o755)
	for _, n := range []string{"a", "b"} {
		os.WriteFile(filepath.Join(fix, n+".json"), []byte(`{"id":"m","role":"user","parts":[{"type":"text","text":"hi"}]}`), 0o644)
	}
	code, _, errOut := runMain(t, "check-fixtures", "--no-bridge", "--shard", "1/3", fix)
	if code != ExitUsage || !strings.Contains(errOut, "2 files, too few for 3 parts") || !strings.Contains(errOut, "--shard 1/2") {
		t.Errorf("3 parts of 2 files: exit %d\n%s", code, errOut)
	}

	write := func(name string, args ...string) string {
		t.Helper()
		r := runJSON(t, args...)
		f := filepath.Join(dir, name)
		os.WriteFile(f, []byte(r.raw), 0o644)
		return f
	}
	c1 := write("c1.json", "conform", "--store", "memory", "--suite", "streams", "--shard", "1/2")
	c2 := write("c2.json", "conform", "--store", "memory", "--suite", "streams", "--shard", "2/2")
	o2 := write("o2.json", "conform", "--store", "memory", "--suite", "registry", "--shard", "2/2")
	c13 := write("c13.json", "conform", "--store", "memory", "--suite", "streams", "--shard", "1/3")
	whole := write("whole.json", "conform", "--store", "memory", "--suite", "streams")
	f1 := write("f1.json", "check-fixtures", "--no-bridge", "--shard", "1/2", fix)
	// A part that stopped before its end lacks cases; a case copied into
	// another part is there twice.
	edit := func(name, from string, change func(results []any) []any) string {
		t.Helper()
		data, _ := os.ReadFile(from)
		var doc map[string]any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		doc["results"] = change(doc["results"].([]any))
		out, _ := json.Marshal(doc)
		f := filepath.Join(dir, name)
		os.WriteFile(f, out, 0o644)
		return f
	}
	short := edit("short.json", c2, func(r []any) []any { return r[1:] })
	c1data, _ := os.ReadFile(c1)
	var c1doc map[string]any
	json.Unmarshal(c1data, &c1doc)
	twice := edit("twice.json", c2, func(r []any) []any { return append(r, c1doc["results"].([]any)[0]) })
	notJSON := filepath.Join(dir, "notes.txt")
	os.WriteFile(notJSON, []byte("hello"), 0o644)
	for _, tc := range []struct {
		files []string
		want  string
	}{
		{[]string{c1}, "the report of part 2/2 is missing"},
		{[]string{c1, c1, c2}, "are both part 1/2"},
		{[]string{c1, o2}, o2 + " is part of another run than " + c1},
		{[]string{c1, c13}, c13 + " is part 1 of 3, but " + c1 + " is part 1 of 2"},
		{[]string{c1, whole}, whole + " is not the report of a part of a run"},
		{[]string{c1, f1}, f1 + " is a report of check-fixtures, but " + c1 + " is one of conform"},
		{[]string{c1, notJSON}, notJSON + " is not a JSON report"},
		{[]string{c1, short}, "is in no part's report: the part that ran it stopped before its end"},
		{[]string{c1, twice}, " is in " + c1 + " and in " + twice},
		{[]string{c1, filepath.Join(dir, "missing.json")}, "missing.json"},
	} {
		code, out, errOut := runMain(t, append([]string{"merge-reports"}, tc.files...)...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "hint:") {
			t.Errorf("merge-reports %v: exit %d, want 2 and %q with a hint\n%s%s", tc.files, code, tc.want, out, errOut)
		}
	}
}

// Over the whole catalog, for any number of parts, the parts are
// disjoint, together are the cases, keep the catalog's order, differ by
// one case at most, and by one whole-store case (those that purge or move
// the clock, which run alone) at most.
func TestConformShardPlanOverTheCatalog(t *testing.T) {
	all := suites.Cases()
	for n := 1; n <= 9; n++ {
		seen := map[string]int{}
		var sizes, whole []int
		for k := 1; k <= n; k++ {
			part := conform.ShardOf(all, k, n)
			w, last := 0, -1
			for _, c := range part {
				if p, dup := seen[c.ID]; dup {
					t.Fatalf("%d parts: %s in parts %d and %d", n, c.ID, p, k)
				}
				seen[c.ID] = k
				i := slices.IndexFunc(all, func(x conform.Case) bool { return x.ID == c.ID })
				if i < last {
					t.Errorf("%d parts: part %d is not in the catalog's order at %s", n, k, c.ID)
				}
				last = i
				if c.WholeStore() {
					w++
				}
			}
			sizes, whole = append(sizes, len(part)), append(whole, w)
		}
		if len(seen) != len(all) {
			t.Errorf("%d parts hold %d of the %d cases", n, len(seen), len(all))
		}
		if slices.Max(sizes)-slices.Min(sizes) > 1 || slices.Max(whole)-slices.Min(whole) > 1 {
			t.Errorf("%d parts: sizes %v, whole-store cases %v: more than one apart", n, sizes, whole)
		}
		if n == 4 && slices.Max(whole) == 0 {
			t.Error("the catalog has no whole-store case to spread")
		}
	}
}
