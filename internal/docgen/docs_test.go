package docgen

// Tests of the hand-written pages under docs/: the bridge protocol's
// example bridge and exchange really run, every environment variable the
// code reads is documented, and relative links point at files that exist.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/cli"
	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/bridgestore"
	"github.com/bsadapter/bsadapter/internal/conform/conformtest"
	"github.com/bsadapter/bsadapter/internal/conform/suites"
	"github.com/bsadapter/bsadapter/internal/conform/suites/registry"
	"github.com/bsadapter/bsadapter/internal/conform/suites/streams"
	"github.com/bsadapter/bsadapter/internal/testenv"
)

// fencedAfter returns the body of the first fenced code block that follows
// the line containing marker in the Markdown file.
func fencedAfter(t *testing.T, doc []byte, marker string) string {
	t.Helper()
	text := string(doc)
	i := strings.Index(text, marker)
	if i < 0 {
		t.Fatalf("marker %q not found", marker)
	}
	rest := text[i:]
	open := strings.Index(rest, "\n```")
	if open < 0 {
		t.Fatalf("no code block after %q", marker)
	}
	rest = rest[open+4:]
	rest = rest[strings.Index(rest, "\n")+1:] // skip the info string
	end := strings.Index(rest, "\n```")
	if end < 0 {
		t.Fatalf("unterminated code block after %q", marker)
	}
	return rest[:end+1]
}

func readDoc(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "docs", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// exampleBridge writes the Python bridge of docs/bridge-protocol.md into a
// temporary folder and returns the command that runs it.
func exampleBridge(t *testing.T) []string {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		testenv.Missing(t, "python3 is not on PATH (the bridge protocol's example bridge is Python; apt-get install python3)")
	}
	code := fencedAfter(t, readDoc(t, "bridge-protocol.md"), "<!-- example-bridge:")
	path := filepath.Join(t.TempDir(), "bridge.py")
	if err := os.WriteFile(path, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{python, path}
}

// TestBridgeDocExchangeIsReal replays every request of the documented
// exchange, pipelined as bsadapter sends them, against the documented
// bridge, and checks each answer against the documented one.
func TestBridgeDocExchangeIsReal(t *testing.T) {
	argv := exampleBridge(t)
	exchange := fencedAfter(t, readDoc(t, "bridge-protocol.md"), "<!-- example-exchange:")
	var requests []string
	var notes []json.RawMessage // the notifications, in the order they travel
	want := map[string]json.RawMessage{}
	for n, line := range strings.Split(strings.TrimSpace(exchange), "\n") {
		dir, msg, ok := strings.Cut(line, " ")
		var probe struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if !ok || (dir != "->" && dir != "<-") || json.Unmarshal([]byte(msg), &probe) != nil {
			t.Fatalf("exchange line %d is not '-> <json>' or '<- <json>': %s", n+1, line)
		}
		if dir == "<-" && len(probe.ID) == 0 && probe.Method != "" {
			notes = append(notes, json.RawMessage(msg))
			continue
		}
		if len(probe.ID) == 0 {
			t.Fatalf("exchange line %d has no id and is not a notification from the bridge: %s", n+1, line)
		}
		if dir == "->" {
			requests = append(requests, msg)
			continue
		}
		if _, dup := want[string(probe.ID)]; dup {
			t.Fatalf("exchange line %d: a second answer for id %s", n+1, probe.ID)
		}
		want[string(probe.ID)] = json.RawMessage(msg)
	}
	if len(requests) != len(want) {
		t.Fatalf("the exchange has %d requests and %d answers", len(requests), len(want))
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin = strings.NewReader(strings.Join(requests, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the example bridge failed: %v\n%s", err, stderr.String())
	}
	got := map[string]json.RawMessage{}
	var gotNotes []json.RawMessage
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var probe struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &probe); err != nil {
			t.Fatalf("the example bridge wrote a line that is not JSON: %q", sc.Text())
		}
		line := append(json.RawMessage(nil), sc.Bytes()...)
		if len(probe.ID) == 0 {
			gotNotes = append(gotNotes, line)
			continue
		}
		got[string(probe.ID)] = line
	}
	for id, w := range want {
		g, ok := got[id]
		if !ok {
			t.Errorf("id %s: the bridge did not answer; the page says %s", id, w)
			continue
		}
		if !jsonEqual(t, g, w) {
			t.Errorf("id %s:\n  bridge: %s\n  page:   %s", id, g, w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("the bridge wrote %d answers, the page shows %d", len(got), len(want))
	}
	if len(gotNotes) != len(notes) {
		t.Errorf("the bridge sent %d notifications, the page shows %d", len(gotNotes), len(notes))
	}
	for i := range min(len(gotNotes), len(notes)) {
		if !jsonEqual(t, gotNotes[i], notes[i]) {
			t.Errorf("notification %d:\n  bridge: %s\n  page:   %s", i+1, gotNotes[i], notes[i])
		}
	}
}

// jsonEqual compares two JSON documents. A string "<time>" on the page
// (b) stands for any RFC 3339 time: the example's clock is the real one;
// "<uuid>" stands for any UUID, an id the store chose.
func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return sameJSON(x, y)
}

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

func sameJSON(got, page any) bool {
	switch p := page.(type) {
	case string:
		if p == "<time>" {
			g, ok := got.(string)
			_, err := time.Parse(time.RFC3339Nano, g)
			return ok && err == nil
		}
		if p == "<uuid>" {
			g, ok := got.(string)
			return ok && uuidRE.MatchString(g)
		}
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(p) {
			return false
		}
		for k, v := range p {
			if gv, ok := g[k]; !ok || !sameJSON(gv, v) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(p) {
			return false
		}
		for i := range p {
			if !sameJSON(g[i], p[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(got, page)
}

// TestBridgeDocExampleConforms runs bsadapter's own streams and registry
// suites against the documented Python bridge, through the real bridge
// client: the example is a working bridge, not a sketch, and a complete
// one: no case is skipped, whether the cases move its clock or wait for
// real TTLs.
func TestBridgeDocExampleConforms(t *testing.T) {
	for _, real := range []bool{false, true} {
		t.Run(fmt.Sprintf("real-ttls=%v", real), func(t *testing.T) {
			t.Parallel()
			var opts []bridgestore.Option
			if real {
				opts = append(opts, bridgestore.RealTTLs())
			}
			exampleConforms(t, opts...)
		})
	}
}

func exampleConforms(t *testing.T, opts ...bridgestore.Option) {
	argv := exampleBridge(t)
	// Not t.Context(): it ends before the cleanup closes the bridge, which
	// would then be killed rather than shut down.
	store, err := bridgestore.New(context.WithoutCancel(t.Context()), bridge.Options{Command: argv, ClientVersion: "0.0.0-test"}, opts...)
	if err != nil {
		t.Fatalf("starting the example bridge: %v", err)
	}
	t.Cleanup(func() {
		if err := store.Close(); err != nil {
			t.Errorf("closing the example bridge: %v", err)
		}
	})
	for _, suite := range []*conform.Suite{streams.Suite, registry.Suite} {
		if err := suite.Open(t.Context(), store); err != nil {
			t.Fatalf("the example bridge does not offer the %s suite: %v", suite.Name, err)
		}
	}
	cases, err := conform.Select(suites.Cases(), conform.Options{Suites: []string{streams.Suite.Name, registry.Suite.Name}})
	if err != nil {
		t.Fatal(err)
	}
	rep := conform.Run(t.Context(), store, cases, conform.Options{Parallel: 8})
	if f := conformtest.Failures(rep); f != "" {
		t.Errorf("the example bridge failed cases:\n%s", f)
	}
	skipped := 0
	for _, r := range rep.Results {
		if r.Outcome == conform.Skipped && (strings.HasPrefix(r.ID, "streams/") || strings.HasPrefix(r.ID, "registry/")) {
			skipped++
			t.Errorf("%s skipped: %s", r.ID, r.Reason)
		}
	}
	if skipped > 0 || rep.Count(conform.Pass) != len(cases) {
		t.Errorf("%d of %d cases passed, %d streams and registry cases skipped", rep.Count(conform.Pass), len(cases), skipped)
	}
}

// TestEnvironmentVariablesAreDocumented finds every BSADAPTER_* variable
// and the other variables the code reads by name, and checks that
// docs/environment.md describes each one.
func TestEnvironmentVariablesAreDocumented(t *testing.T) {
	root := testenv.RepoRoot(t)
	page := string(readDoc(t, "environment.md"))
	// Variables read only by tests or by the release tooling are not
	// part of the user's environment.
	testOnly := map[string]bool{"BSADAPTER_CORPUS": true, "BSADAPTER_RELEASE_DIST": true, "BSADAPTER_RELEASE_VERSION": true}
	lit := regexp.MustCompile(`"(BSADAPTER_[A-Z0-9_]+|NO_COLOR|CLICOLOR|CLICOLOR_FORCE|CI|DOCKER_HOST|XDG_CACHE_HOME|XDG_RUNTIME_DIR)"`)
	shell := regexp.MustCompile(`\b(BSADAPTER_[A-Z0-9_]+)\b`)
	found := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "testdata", "dist", "build", "docs":
				return filepath.SkipDir
			}
			return nil
		}
		var names []string
		switch {
		case strings.HasSuffix(path, "_test.go"):
			return nil
		case strings.HasSuffix(path, ".go"):
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range lit.FindAllStringSubmatch(string(data), -1) {
				names = append(names, m[1])
			}
		case rel == "install.sh":
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range shell.FindAllStringSubmatch(string(data), -1) {
				names = append(names, m[1])
			}
		}
		for _, n := range names {
			if !testOnly[n] && found[n] == "" {
				found[n] = rel
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := found["BSADAPTER_INSTALL_BASE_URL"]; !ok {
		t.Fatalf("the scan found no variable of install.sh; it is not looking at the code (found %v)", found)
	}
	var missing []string
	for n, where := range found {
		if !strings.Contains(page, "`"+n+"`") {
			missing = append(missing, fmt.Sprintf("%s (read in %s)", n, where))
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Fatalf("docs/environment.md does not document:\n  %s", strings.Join(missing, "\n  "))
	}
}

// TestDocsLinksResolve checks every relative link of every page under
// docs/ (and the README's links into docs/): the file must exist, and a
// #fragment must name a heading of that file.
func TestDocsLinksResolve(t *testing.T) {
	root := testenv.RepoRoot(t)
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	var pages []string
	filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			pages = append(pages, path)
		}
		return nil
	})
	pages = append(pages, filepath.Join(root, "README.md"))
	if len(pages) < 5 {
		t.Fatalf("found only %d pages", len(pages))
	}
	for _, page := range pages {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, page)
		for _, m := range link.FindAllStringSubmatch(stripCode(string(data)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), file)
			}
			if rel == "README.md" && !strings.HasPrefix(file, "docs/") {
				// Outside docs/, a README link only has to name a file that exists.
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s: link %q: %v", rel, target, err)
				}
				continue
			}
			body, err := os.ReadFile(path)
			if err != nil {
				t.Errorf("%s: link %q: no such file", rel, target)
				continue
			}
			if frag != "" && !hasAnchor(string(body), frag) {
				t.Errorf("%s: link %q: no heading with anchor #%s", rel, target, frag)
			}
		}
	}
}

// stripCode removes fenced code blocks, whose brackets are not links.
func stripCode(s string) string {
	var b strings.Builder
	in := false
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			in = !in
			continue
		}
		if !in {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// hasAnchor reports whether a heading of the Markdown text gets the given
// GitHub anchor (lower case, spaces to dashes, punctuation dropped).
func hasAnchor(text, anchor string) bool {
	for _, l := range strings.Split(stripCode(text), "\n") {
		if !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.ToLower(strings.TrimSpace(strings.TrimLeft(l, "#")))
		var a strings.Builder
		for _, r := range h {
			switch {
			case r == ' ':
				a.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
				a.WriteRune(r)
			}
		}
		if a.String() == anchor {
			return true
		}
	}
	return false
}

// TestExitCodesPageMatchesCode: docs/exit-codes.md has one table row per
// exit code the code defines, and no other.
func TestExitCodesPageMatchesCode(t *testing.T) {
	page := string(readDoc(t, "exit-codes.md"))
	row := regexp.MustCompile("(?m)^\\| `(\\d+)` \\|")
	var documented []string
	for _, m := range row.FindAllStringSubmatch(page, -1) {
		documented = append(documented, m[1])
	}
	var defined []string
	for _, c := range []int{cli.ExitOK, cli.ExitFailed, cli.ExitUsage, cli.ExitInterrupted} {
		defined = append(defined, fmt.Sprint(c))
	}
	if strings.Join(documented, ",") != strings.Join(defined, ",") {
		t.Fatalf("docs/exit-codes.md documents codes %v; the code defines %v", documented, defined)
	}
}
