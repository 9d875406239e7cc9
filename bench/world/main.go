// Command world-bench measures two runners side by side on the same World,
// @workflow/world-local at the version the world suite is checked
// against: bsadapter's world suite over the bridge protocol (the built
// binary, testdata/bridges/world.mjs wrapping tools/node's world-local,
// every case), and @workflow/world-testing's own 12 tests run by vitest
// on world-local, as that package runs them. It prints, for each, the
// tests or cases, how many members of the World it reaches (for the
// suite, the members the bridge calls, counted in its code; for the kit,
// the count recorded in docs/upstream-interfaces.md), the median and the
// slowest of the runs, and the ratio of the medians. Run it through
// bench/world/run.
//
// world-testing and vitest are not among tools/node's packages: the bench
// installs them from the npm registry into a temporary prefix at pinned
// versions and removes it at the end. Node 20 lacks
// Promise.withResolvers, which the Workflow runtime calls; the bench gives
// every Node process of the kit's run a small polyfill through
// NODE_OPTIONS.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/bsadapter/bsadapter/bench/internal/benchkit"
	"github.com/bsadapter/bsadapter/internal/conform/suites/world"
)

// vitestVersion is the vitest the kit's run uses, within the range
// world-testing KitVersion asks of its peer (^4.1.10).
const vitestVersion = "4.1.12"

// kitMembers is how many members of the World world-testing's 12 tests
// reach through the Workflow runtime (docs/upstream-interfaces.md,
// "world-testing's 12 tests").
const kitMembers = 11

// script is the generic world bridge the suite runs over.
const script = "internal/conform/bridgestore/testdata/bridges/world.mjs"

// knownFailures are the world suite's cases world-local fails, each a bug
// of world-local's (see docs/upstream-interfaces.md); a run with any other
// failure, or a skip, is an error.
var knownFailures = []string{"world/run-not-found"}

func main() {
	runs := flag.Int("runs", 3, "timed runs of the world suite over the bridge")
	kitRuns := flag.Int("kit-runs", 2, "timed runs of world-testing's tests (each takes minutes)")
	flag.Parse()
	if *runs < 1 || *kitRuns < 1 {
		fmt.Fprintln(os.Stderr, "world-bench: -runs and -kit-runs must be at least 1")
		os.Exit(2)
	}
	benchkit.Done("world-bench", run(*runs, *kitRuns))
}

func run(runs, kitRuns int) error {
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return fmt.Errorf("node is needed for both runners: %w", err)
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return fmt.Errorf("npm is needed to install world-testing into a temporary prefix: %w", err)
	}
	modules := filepath.Join(root, "tools", "node", "node_modules")
	if v, err := installed(modules, "@workflow/world-local"); err != nil || v != world.LocalVersion {
		return fmt.Errorf("tools/node must hold @workflow/world-local %s (found %q, %v): run 'npm install --no-save --prefix tools/node' from the repository's root", world.LocalVersion, v, err)
	}
	bridgeScript := filepath.Join(root, script)
	members, err := bridgeMembers(bridgeScript)
	if err != nil {
		return err
	}

	tmp, bin, err := benchkit.BuildInTemp("world-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	bridge := strings.Join([]string{quote(node), quote(bridgeScript), "--module=@workflow/world-local",
		quote("--from=" + filepath.Dir(modules)), "--factory=createWorld",
		quote(`--options={"dataDir":"$DATA_DIR","port":"$PORT","recoverActiveRuns":false}`)}, " ")
	var suite []time.Duration
	cases := 0
	for i := range runs {
		fmt.Fprintf(os.Stderr, "world suite over the bridge, run %d of %d...\n", i+1, runs)
		d, n, err := suiteRun(bin, bridge)
		if err != nil {
			return err
		}
		suite, cases = append(suite, d), n
	}

	kit := filepath.Join(tmp, "kit")
	fmt.Fprintf(os.Stderr, "installing @workflow/world-testing %s and vitest %s from the registry...\n", world.KitVersion, vitestVersion)
	if err := installKit(npm, kit); err != nil {
		return err
	}
	var own []time.Duration
	tests := 0
	for i := range kitRuns {
		fmt.Fprintf(os.Stderr, "world-testing's tests, run %d of %d...\n", i+1, kitRuns)
		d, n, err := kitRun(node, kit)
		if err != nil {
			return err
		}
		own, tests = append(own, d), n
	}

	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "runner (on world-local %s)\ttests\tWorld members reached\tmedian\tslowest\truns\tmedian / suite's\n", world.LocalVersion)
	fmt.Fprintf(tw, "world suite over the bridge\t%d cases\t%d\t%s\t%s\t%d\t1.00\n", cases, members, benchkit.Round(benchkit.MedianMean(suite)), benchkit.Round(slices.Max(suite)), runs)
	fmt.Fprintf(tw, "world-testing %s (vitest %s)\t%d tests\t%d\t%s\t%s\t%d\t%.2f\n", world.KitVersion, vitestVersion, tests, kitMembers,
		benchkit.Round(benchkit.MedianMean(own)), benchkit.Round(slices.Max(own)), kitRuns, float64(benchkit.MedianMean(own))/float64(benchkit.MedianMean(suite)))
	return tw.Flush()
}

// installed returns the version of the package name in the node_modules
// folder modules.
func installed(modules, name string) (string, error) {
	raw, err := os.ReadFile(filepath.Join(modules, filepath.FromSlash(name), "package.json"))
	if err != nil {
		return "", err
	}
	var pkg struct{ Version string }
	if err := json.Unmarshal(raw, &pkg); err != nil {
		return "", fmt.Errorf("%s's package.json: %w", name, err)
	}
	return pkg.Version, nil
}

// bridgeMembers counts the distinct members of the World (world.x or
// world.x.y) that the bridge's code calls, outside its comments.
func bridgeMembers(path string) (int, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("the world bridge: %w (run from the repository's root)", err)
	}
	member := regexp.MustCompile(`\bworld\.([A-Za-z]+(?:\.[A-Za-z]+)?)`)
	seen := map[string]bool{}
	for line := range strings.SplitSeq(string(raw), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "//") {
			continue
		}
		for _, m := range member.FindAllStringSubmatch(line, -1) {
			if m[1] != "mjs" { // the bridge's own file name in its messages
				seen[m[1]] = true
			}
		}
	}
	if len(seen) == 0 {
		return 0, fmt.Errorf("%s calls no member of world: has the bridge changed its variable's name?", path)
	}
	return len(seen), nil
}

// suiteRun runs the world suite over the bridge once and returns its wall
// time and its number of cases.
func suiteRun(bin, bridge string) (time.Duration, int, error) {
	// world-local's known bugs fail cases: conform exits 1 with its report.
	rep, d, err := benchkit.Conform("", bin, "--store", "bridge", "--bridge", bridge, "--suite", "world")
	if err != nil {
		return 0, 0, err
	}
	var failed []string
	for _, r := range rep.Results {
		if r.Outcome != "passed" {
			failed = append(failed, r.ID)
		}
	}
	slices.Sort(failed)
	if !slices.Equal(failed, knownFailures) || rep.Summary.Skipped != 0 {
		return 0, 0, fmt.Errorf("conform --suite world: %d of %d passed; not passing: %v, where world-local's known bugs are exactly %v\n%s",
			rep.Summary.Passed, rep.Summary.Total, failed, knownFailures, rep.Stderr)
	}
	return d, rep.Summary.Total, nil
}

// polyfill gives Node 20 the Promise.withResolvers that the Workflow
// runtime calls.
const polyfill = `if (typeof Promise.withResolvers !== "function") {
  Promise.withResolvers = function withResolvers() {
    let resolve, reject;
    const promise = new this((res, rej) => { resolve = res; reject = rej; });
    return { promise, resolve, reject };
  };
}
`

// testFile runs world-testing's suite on world-local, as the package's
// createTestSuite is meant to be called: with the World's module name.
const testFile = `import { createTestSuite } from "@workflow/world-testing";
createTestSuite("@workflow/world-local");
`

// installKit installs world-testing and vitest into dir and writes the
// polyfill and the test file there.
func installKit(npm, dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, "test"), 0o755); err != nil {
		return err
	}
	files := map[string]string{
		"package.json":        `{"private": true, "type": "module"}` + "\n",
		"polyfill.mjs":        polyfill,
		"test/world.test.mjs": testFile,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte(text), 0o644); err != nil {
			return err
		}
	}
	cmd := exec.Command(npm, "install", "--no-audit", "--no-fund", "--save-exact",
		"@workflow/world-testing@"+world.KitVersion, "vitest@"+vitestVersion)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("npm install of world-testing %s: %w\n%s", world.KitVersion, err, out.String())
	}
	// The kit pins its own world-local; it must be the one the suite runs on.
	if v, err := installed(filepath.Join(dir, "node_modules"), "@workflow/world-local"); err != nil || v != world.LocalVersion {
		return fmt.Errorf("world-testing %s brought @workflow/world-local %q (%v), not %s: the two runs would not be on the same World", world.KitVersion, v, err, world.LocalVersion)
	}
	return nil
}

// kitRun runs world-testing's tests once with vitest in dir, on a fresh
// data folder, and returns the wall time and the number of tests.
func kitRun(node, dir string) (time.Duration, int, error) {
	data := filepath.Join(dir, ".workflow-data")
	if err := os.RemoveAll(data); err != nil {
		return 0, 0, err
	}
	report := filepath.Join(dir, "report.json")
	cmd := exec.Command(node, filepath.Join(dir, "node_modules", "vitest", "vitest.mjs"), "run", "--reporter=json", "--outputFile="+report, "test")
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Env = append(os.Environ(), "CI=1", "NO_COLOR=1", "WORKFLOW_LOCAL_DATA_DIR="+data,
		"NODE_OPTIONS=--import="+filepath.Join(dir, "polyfill.mjs"))
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	raw, rerr := os.ReadFile(report)
	if rerr != nil {
		return 0, 0, fmt.Errorf("world-testing's run wrote no report (%v, %v)\n%s", err, rerr, out.String())
	}
	var rep struct {
		NumTotalTests, NumPassedTests int
		TestResults                   []struct {
			AssertionResults []struct {
				Title           string
				Status          string
				FailureMessages []string
			}
		}
	}
	if jerr := json.Unmarshal(raw, &rep); jerr != nil {
		return 0, 0, fmt.Errorf("world-testing's report: %w", jerr)
	}
	if err != nil || rep.NumTotalTests == 0 || rep.NumPassedTests != rep.NumTotalTests {
		var failed []string
		for _, f := range rep.TestResults {
			for _, a := range f.AssertionResults {
				if a.Status != "passed" {
					failed = append(failed, fmt.Sprintf("%q (%s): %s", a.Title, a.Status, strings.Join(a.FailureMessages, "; ")))
				}
			}
		}
		return 0, 0, fmt.Errorf("world-testing: %d of %d tests passed (%v); a run with a failed test has no time of the kit's:\n%s\n%s",
			rep.NumPassedTests, rep.NumTotalTests, err, strings.Join(failed, "\n"), out.String())
	}
	return d, rep.NumTotalTests, nil
}

// quote single-quotes s for the bridge command line, which is split as a
// shell splits simple quoting.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
