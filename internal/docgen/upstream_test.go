package docgen

// Tests of docs/upstream-interfaces.md, the record of better-supabase's
// interfaces and kits. Upstream itself cannot be read from a test, so
// these keep honest what can be checked here: the bsadapter cases the page
// names exist, every section about an interface or a kit says which file
// and commit it was read from, every kit has its signature, and every kit
// check is mapped to cases or marked as covered by none.

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/internal/conform/suites"
)

// upstreamPage is what the checker found on the page, so that the test can
// tell a clean page from a page the checker failed to read.
type upstreamPage struct {
	problems   []string
	caseIDs    int // case IDs named, counting repeats
	readFrom   int // "Read from" lines
	signatures int // kit signatures
	checkRows  int // rows of kit check tables
}

var (
	// readFromPair is one "`path` at `commit`" of a "Read from" line.
	readFromPair = regexp.MustCompile("`([^`]+)` at `([^`]+)`")
	commitRE     = regexp.MustCompile(`^[0-9a-f]{7,40}$`)
	// upstreamPath is a file inside better-supabase's repository: a
	// relative path whose last element has an extension, so that a folder,
	// a machine path or a stray word is refused.
	upstreamPath = regexp.MustCompile(`^(packages|apps)/[A-Za-z0-9_.@/-]+/[A-Za-z0-9_-]+\.[a-z]+$`)
	backticked   = regexp.MustCompile("`([^`]+)`")
	kitName      = regexp.MustCompile(`^test[A-Z][A-Za-z]*$`)
)

// caseIDPattern matches a backticked bsadapter case ID of one of the given
// suites. Longer names come first, so that "chat-state/..." is not read as
// a case of "chat".
func caseIDPattern(suiteNames []string) *regexp.Regexp {
	names := slices.Clone(suiteNames)
	slices.SortFunc(names, func(a, b string) int { return len(b) - len(a) })
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = regexp.QuoteMeta(n)
	}
	return regexp.MustCompile("`((?:" + strings.Join(quoted, "|") + ")/[a-z0-9][a-z0-9-]*)`")
}

// checkUpstreamPage reads the page line by line and returns what it found
// and every problem, each naming its line and what to change.
func checkUpstreamPage(page string, known map[string]bool, suiteNames []string) upstreamPage {
	var out upstreamPage
	bad := func(n int, format string, args ...any) {
		out.problems = append(out.problems, fmt.Sprintf("line %d: %s", n, fmt.Sprintf(format, args...)))
	}
	idRE := caseIDPattern(suiteNames)
	lines := strings.Split(page, "\n")

	// Case IDs, wherever they are named.
	inCode := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			inCode = !inCode
			continue
		}
		if inCode {
			continue
		}
		for _, m := range idRE.FindAllStringSubmatch(l, -1) {
			out.caseIDs++
			if !known[m[1]] {
				bad(i+1, "`%s` is not a bsadapter case; `go run ./cmd/bsadapter conform --list` lists them", m[1])
			}
		}
	}

	// Sections: a level-2 or level-3 heading and the lines up to the next one.
	type section struct {
		line    int // 1-based line of the heading
		heading string
		body    []string
		first   int // 1-based line of body[0]
	}
	var secs []section
	inCode = false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			inCode = !inCode
		}
		if !inCode && (strings.HasPrefix(l, "## ") || strings.HasPrefix(l, "### ")) {
			secs = append(secs, section{line: i + 1, heading: l, first: i + 2})
			continue
		}
		if len(secs) > 0 {
			secs[len(secs)-1].body = append(secs[len(secs)-1].body, l)
		}
	}

	for _, s := range secs {
		names := backticked.FindAllStringSubmatch(s.heading, -1)
		var readFrom []string // paths of the section's "Read from" lines
		for j, l := range s.body {
			if !strings.HasPrefix(l, "Read from ") {
				continue
			}
			out.readFrom++
			pairs := readFromPair.FindAllStringSubmatch(l, -1)
			if len(pairs) == 0 {
				bad(s.first+j, "a \"Read from\" line names no \"`path` at `commit`\"")
			}
			for _, p := range pairs {
				if !upstreamPath.MatchString(p[1]) {
					bad(s.first+j, "%q is not a file path inside better-supabase's repository (packages/... or apps/...)", p[1])
				}
				if !commitRE.MatchString(p[2]) {
					bad(s.first+j, "%q is not a commit: write 7 to 40 lower-case hex digits", p[2])
				}
				readFrom = append(readFrom, p[1])
			}
		}
		if len(names) > 0 && len(readFrom) == 0 {
			bad(s.line, "the section %q names upstream interfaces or kits but has no line \"Read from `path` at `commit`.\"", s.heading)
		}
		for _, n := range names {
			kit := n[1]
			if !kitName.MatchString(kit) {
				continue
			}
			if !slices.ContainsFunc(readFrom, func(p string) bool { return strings.HasPrefix(p, "packages/better-supabase/src/testing/") }) {
				bad(s.line, "the kit %s is not read from a file under packages/better-supabase/src/testing/", kit)
			}
			signed := false
			for _, l := range s.body {
				if strings.HasPrefix(l, "Signature: `"+kit+"(") {
					signed = true
					out.signatures++
				} else if strings.HasPrefix(l, "| `"+kit+"` | `(") {
					signed = true // counted with the table's rows
				}
			}
			if !signed {
				bad(s.line, "the kit %s has no signature: add a line \"Signature: `%s(...)`\" or a table row \"| `%s` | `(...)` |\"", kit, kit, kit)
			}
		}
	}

	// Tables: kit check tables map every check, and kit lists give a file
	// and a commit for every kit.
	var header []string
	for i, l := range lines {
		if !strings.HasPrefix(l, "|") {
			header = nil
			continue
		}
		cells := tableCells(l)
		if header == nil {
			header = cells
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(cells[0]), "---") {
			continue
		}
		if len(cells) != len(header) {
			bad(i+1, "the row has %d cells, its table's header %d", len(cells), len(header))
			continue
		}
		for c, h := range header {
			cell := strings.TrimSpace(cells[c])
			switch h {
			case "kit":
				if !slices.Contains(header, "signature") {
					break
				}
				sig := strings.TrimSpace(cells[slices.Index(header, "signature")])
				if m := backticked.FindStringSubmatch(cell); m == nil || !kitName.MatchString(m[1]) || !strings.HasPrefix(sig, "`(") {
					bad(i+1, "a kit row needs the kit as `testName` and its signature as `(parameters)`")
				} else {
					out.signatures++
				}
			case "bsadapter cases":
				out.checkRows++
				if !idRE.MatchString(cell) && !strings.HasPrefix(cell, "none") {
					bad(i+1, "the kit check maps to no bsadapter case: name the cases, or write \"none\" and why")
				}
			case "file":
				if m := backticked.FindStringSubmatch(cell); m == nil || !upstreamPath.MatchString(m[1]) {
					bad(i+1, "the file cell %q is not a backticked file path inside better-supabase's repository", cell)
				}
			case "commit":
				if m := backticked.FindStringSubmatch(cell); m == nil || !commitRE.MatchString(m[1]) {
					bad(i+1, "the commit cell %q is not a backticked commit of 7 to 40 hex digits", cell)
				}
			}
		}
	}
	return out
}

// tableCells splits a Markdown table row into its trimmed cells. As on
// GitHub, every pipe ends a cell, inside a code span too, unless it is
// escaped as \|.
func tableCells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	row = strings.TrimSuffix(row, "|")
	var cells []string
	var cur strings.Builder
	escaped := false
	for _, r := range row {
		switch {
		case r == '|' && !escaped:
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteRune(r)
		}
		escaped = r == '\\' && !escaped
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

// knownCases is the set of every bsadapter case ID.
func knownCases() map[string]bool {
	known := map[string]bool{}
	for _, c := range suites.Cases() {
		known[c.ID] = true
	}
	return known
}

// TestUpstreamInterfacesPage checks docs/upstream-interfaces.md, and that
// the docs index and the conformance catalog link it.
func TestUpstreamInterfacesPage(t *testing.T) {
	got := checkUpstreamPage(string(readDoc(t, "upstream-interfaces.md")), knownCases(), suites.Names())
	for _, p := range got.problems {
		t.Errorf("docs/upstream-interfaces.md %s", p)
	}
	t.Logf("read %d case IDs, %d \"Read from\" lines, %d kit signatures, %d kit check rows", got.caseIDs, got.readFrom, got.signatures, got.checkRows)
	// A checker that reads nothing finds nothing wrong: these floors are
	// what the page holds today (five kits with their own section and
	// more in tables, nine streams checks, dozens of case IDs).
	if got.caseIDs < 40 || got.readFrom < 15 || got.signatures < 20 || got.checkRows < 28 {
		t.Errorf("the checker read %d case IDs, %d \"Read from\" lines, %d kit signatures and %d kit check rows; "+
			"the page has more, so the checker no longer reads it", got.caseIDs, got.readFrom, got.signatures, got.checkRows)
	}
	for _, doc := range []string{"README.md", "conformance.md"} {
		if !strings.Contains(string(readDoc(t, doc)), "](upstream-interfaces.md)") {
			t.Errorf("docs/%s does not link upstream-interfaces.md", doc)
		}
	}
}

// TestUpstreamPageCheckerCatchesMistakes feeds the checker pages with one
// mistake each and requires a problem naming the mistake's line.
func TestUpstreamPageCheckerCatchesMistakes(t *testing.T) {
	known := knownCases()
	names := suites.Names()
	const good = "## `StreamStore`\n\nRead from `packages/better-supabase/src/streams/store.ts` at `3cf204d`.\n\n" +
		"### `testStreamStore`\n\nRead from `packages/better-supabase/src/testing/streams.ts` at `3cf204da97495e37ae68929376a0a3cea94121c5`.\n\n" +
		"Signature: `testStreamStore(store: StreamStore)`\n\n" +
		"| # | upstream check | what it does | bsadapter cases |\n| --- | --- | --- | --- |\n" +
		"| 1 | \"opens a stream once\" | `a \\| b` | `streams/open-true-then-false` |\n" +
		"| 2 | \"x\" | y | none: no case |\n\n" +
		"| kit | signature | checks | file | commit |\n| --- | --- | --- | --- | --- |\n" +
		"| `testEventSink` | `(sink)` | z | `packages/better-supabase/src/testing/conformance.ts` | `1a828fa` |\n"
	if got := checkUpstreamPage(good, known, names); len(got.problems) > 0 || got.caseIDs != 1 || got.readFrom != 2 || got.signatures != 2 || got.checkRows != 2 {
		t.Fatalf("the well-formed page: %+v", got)
	}
	for _, tc := range []struct{ name, from, to, want string }{
		{"unknown case", "`streams/open-true-then-false`", "`streams/open-twice`", "line 13: `streams/open-twice` is not a bsadapter case"},
		{"a case of the longer suite name", "`streams/open-true-then-false`", "`chat-state/no-such-case`", "line 13: `chat-state/no-such-case` is not"},
		{"no Read from", "Read from `packages/better-supabase/src/streams/store.ts` at `3cf204d`.", "Read nothing.", "line 1: the section \"## `StreamStore`\" names upstream interfaces or kits but has no line"},
		{"short commit", "at `3cf204d`.", "at `3cf20`.", "line 3: \"3cf20\" is not a commit"},
		{"path outside the repository", "`packages/better-supabase/src/streams/store.ts`", "`../bs/src/streams/store.ts`", "line 3: \"../bs/src/streams/store.ts\" is not a file path"},
		{"kit row without a signature", "| `(sink)` |", "| sink |", "line 18: a kit row needs the kit"},
		{"kit outside src/testing", "src/testing/streams.ts", "src/streams/kit.ts", "line 5: the kit testStreamStore is not read from a file under"},
		{"no signature", "Signature: `testStreamStore(", "Takes: `testStreamStore(", "line 5: the kit testStreamStore has no signature"},
		{"unmapped check", "| none: no case |", "| |", "line 14: the kit check maps to no bsadapter case"},
		{"bad commit cell", "| `1a828fa` |", "| 1a828fa |", "line 18: the commit cell \"1a828fa\" is not"},
		{"bad file cell", "| `packages/better-supabase/src/testing/conformance.ts` |", "| conformance.ts |", "line 18: the file cell \"conformance.ts\" is not"},
		{"short row", "| 2 | \"x\" | y | none: no case |", "| 2 | \"x\" | none |", "line 14: the row has 3 cells"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(good, tc.from) {
				t.Fatalf("the page has no %q to change", tc.from)
			}
			page := strings.Replace(good, tc.from, tc.to, 1)
			got := checkUpstreamPage(page, known, names)
			if !slices.ContainsFunc(got.problems, func(p string) bool { return strings.HasPrefix(p, tc.want) }) {
				t.Errorf("want a problem starting %q; got %q", tc.want, got.problems)
			}
		})
	}
}
