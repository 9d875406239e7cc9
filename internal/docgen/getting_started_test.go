package docgen

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/internal/cli"
	"github.com/bsadapter/bsadapter/internal/testenv"
)

// consoleStep is one "$ command" of a ```console block and the lines the
// page shows it printing.
type consoleStep struct {
	cmd string
	out []string
}

// consoleSteps reads every ```console block of a Markdown page, in order.
func consoleSteps(doc string) []consoleStep {
	var steps []consoleStep
	in := false
	for _, l := range strings.Split(doc, "\n") {
		switch {
		case strings.HasPrefix(l, "```console"):
			in = true
		case in && strings.HasPrefix(l, "```"):
			in = false
		case in && strings.HasPrefix(l, "$ "):
			steps = append(steps, consoleStep{cmd: strings.TrimPrefix(l, "$ ")})
		case in && len(steps) > 0:
			steps[len(steps)-1].out = append(steps[len(steps)-1].out, l)
		}
	}
	return steps
}

var durations = regexp.MustCompile(`\b\d+(\.\d+)?(ns|µs|us|ms|s)\b`)

// matchOutput compares what a command printed with what the page shows:
// line by line, durations aside, where a line "..." on the page stands
// for any number of lines.
func matchOutput(page, got []string) bool {
	norm := func(s string) string { return durations.ReplaceAllString(strings.TrimRight(s, " "), "<d>") }
	if len(page) == 0 {
		return len(got) == 0
	}
	if page[0] == "..." {
		for i := 0; i <= len(got); i++ {
			if matchOutput(page[1:], got[i:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && norm(page[0]) == norm(got[0]) && matchOutput(page[1:], got[1:])
}

// TestGettingStartedIsTrue runs every command of docs/getting-started.md,
// in order, in a temporary folder, and checks that each prints what the
// page shows. The page's prose steps are done here too: npm install is
// replaced by the test's own node packages (no network), the failing
// fixture is written from the page's JSON block, and the store is broken
// the way the page says.
func TestGettingStartedIsTrue(t *testing.T) {
	testenv.Node(t)
	nodeModules := testenv.NodeModules(t)
	testenv.NodeBin(t, "tsx")
	doc := string(readDoc(t, "getting-started.md"))
	steps := consoleSteps(doc)
	if len(steps) < 8 {
		t.Fatalf("found only %d console steps in getting-started.md", len(steps))
	}
	t.Chdir(t.TempDir())

	last := -1
	for i, st := range steps {
		args := strings.Fields(st.cmd)
		switch {
		case st.cmd == "echo $?":
			if len(st.out) != 1 || st.out[0] != fmt.Sprint(last) {
				t.Errorf("step %d: the page says the exit code was %v; it was %d", i+1, st.out, last)
			}
			continue
		case args[0] == "cd":
			t.Chdir(args[1])
			continue
		case args[0] == "npm" && args[1] == "install":
			// The adapter's devDependencies (tsx, typescript) are the
			// ones tools/node installs for the tests.
			if err := os.Symlink(nodeModules, "node_modules"); err != nil {
				t.Fatal(err)
			}
			continue
		case args[0] != "bsadapter":
			t.Fatalf("step %d: the test does not know how to run %q", i+1, st.cmd)
		}

		var undo func()
		switch st.cmd {
		case "bsadapter check-fixtures":
			if strings.Contains(strings.Join(st.out, "\n"), "FAIL ") {
				undo = writeFailingFixture(t, doc)
			}
		case "bsadapter conform --store=bridge --suite streams":
			undo = breakMemoryStore(t)
		}
		var out, errb bytes.Buffer
		env := func(k string) (string, bool) {
			switch k {
			case "NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "BSADAPTER_DSN":
				return "", false
			}
			return os.LookupEnv(k)
		}
		last = cli.Main(args[1:], cli.Stdio{In: strings.NewReader(""), Out: &out, Err: &errb, Env: env})
		if undo != nil {
			undo()
		}
		if last == cli.ExitUsage && strings.Contains(st.cmd, "--store=pg") {
			testenv.Missing(t, "conform --store=pg found no PostgreSQL: %s", errb.String())
		}
		got := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
		if !matchOutput(st.out, got) {
			t.Errorf("step %d: $ %s\nthe page shows:\n  %s\nit printed (exit %d):\n  %s\nstderr:\n%s",
				i+1, st.cmd, strings.Join(st.out, "\n  "), last, strings.Join(got, "\n  "), errb.String())
		}
	}
}

// writeFailingFixture writes the fixture the page shows into the adapter
// and returns a function that removes it.
func writeFailingFixture(t *testing.T, doc string) func() {
	t.Helper()
	const intro = "as\n`fixtures/07-unknown-block.json`:"
	if !strings.Contains(doc, intro) {
		t.Fatalf("getting-started.md no longer introduces fixtures/07-unknown-block.json as the test expects")
	}
	body := fencedAfter(t, []byte(doc), intro)
	path := filepath.Join("fixtures", "07-unknown-block.json")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return func() { os.Remove(path) }
}

// breakMemoryStore makes the scaffold's memory store overwrite stored
// chunks, as the page describes, and returns a function that repairs it.
func breakMemoryStore(t *testing.T) func() {
	t.Helper()
	path := filepath.Join("src", "memory-stream-store.ts")
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(orig), "\n")
	n := 0
	for i, l := range lines {
		if strings.Contains(l, "s.chunks.push(chunks[i]!)") {
			lines[i] = "      s.chunks[fromIdx + i] = chunks[i]!;"
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%s has %d lines pushing chunks; the page's way of breaking the store no longer applies", path, n)
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return func() { os.WriteFile(path, orig, 0o644) }
}

func TestMatchOutput(t *testing.T) {
	page := []string{"a", "...", "ok in 0.26s"}
	if !matchOutput(page, []string{"a", "x", "y", "ok in 1.5s"}) {
		t.Error("... did not stand for two lines")
	}
	if !matchOutput(page, []string{"a", "ok in 3ms"}) {
		t.Error("... did not stand for no line")
	}
	if matchOutput(page, []string{"a", "x", "ok in 1s", "extra"}) {
		t.Error("an extra last line matched")
	}
	if matchOutput([]string{"6 passed"}, []string{"5 passed"}) {
		t.Error("different text matched")
	}
}

// TestExitCodesExampleIsTrue runs the example of docs/exit-codes.md: an
// error on stderr with its hint, and the exit code.
func TestExitCodesExampleIsTrue(t *testing.T) {
	steps := consoleSteps(string(readDoc(t, "exit-codes.md")))
	if len(steps) != 2 || !strings.HasPrefix(steps[0].cmd, "bsadapter ") || steps[1].cmd != "echo $?" {
		t.Fatalf("exit-codes.md: want one bsadapter command and 'echo $?', got %+v", steps)
	}
	var out, errb bytes.Buffer
	code := cli.Main(strings.Fields(steps[0].cmd)[1:], cli.Stdio{In: strings.NewReader(""), Out: &out, Err: &errb})
	got := strings.Split(strings.TrimRight(out.String()+errb.String(), "\n"), "\n")
	if !matchOutput(steps[0].out, got) {
		t.Errorf("$ %s\nthe page shows:\n  %s\nit printed:\n  %s", steps[0].cmd, strings.Join(steps[0].out, "\n  "), strings.Join(got, "\n  "))
	}
	if want := strings.Join(steps[1].out, ""); fmt.Sprint(code) != want {
		t.Errorf("exit code %d, the page says %s", code, want)
	}
}
