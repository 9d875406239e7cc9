package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"path"
	"sort"
	"strings"
)

// maxSummaryFailures caps the failures a job summary details: GitHub
// shows at most 1 MiB of summary per step, and a page of a few dozen
// diffs is what anyone reads there; the HTML report has them all.
const maxSummaryFailures = 50

// maxSummaryValue caps one value of a diff in the job summary.
const maxSummaryValue = 2000

// WriteJobSummary writes a command's results as GitHub-flavoured
// Markdown for a job summary (the file GITHUB_STEP_SUMMARY names): a
// heading with the verdict, a table with a row per suite (conform), per
// folder (check-fixtures) or per rule (lint), and each failure in a
// collapsed details section with its diff. doc is the command's JSON
// document and kind says which command made it.
func WriteJobSummary(w io.Writer, kind string, doc any) error {
	raw, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("report: encode the document for the job summary: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return fmt.Errorf("report: the document is not a JSON object: %w", err)
	}
	var b bytes.Buffer
	switch kind {
	case KindConform:
		conformSummary(&b, m)
	case KindCheckFixtures:
		fixturesSummary(&b, m)
	case KindLint:
		lintSummary(&b, m)
	default:
		return fmt.Errorf("report: no job summary for results of kind %q", kind)
	}
	_, err = w.Write(b.Bytes())
	return err
}

// mdFailure is one failure's collapsed section: its title (plain text)
// and its diff lines.
type mdFailure struct {
	title string
	lines []string
}

func str(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return fmt.Sprint(x)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func num(v any) int {
	f, _ := v.(float64)
	return int(f)
}

func list(v any) []map[string]any {
	a, _ := v.([]any)
	out := make([]map[string]any, 0, len(a))
	for _, x := range a {
		if o, ok := x.(map[string]any); ok {
			out = append(out, o)
		}
	}
	return out
}

// cell makes text safe in a table cell: one line, pipes escaped, markup
// shown as text.
func cell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = html.EscapeString(s)
	return strings.ReplaceAll(s, "|", `\|`)
}

func clip(s string) string {
	if len(s) <= maxSummaryValue {
		return s
	}
	cut := maxSummaryValue
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d more bytes)", len(s)-cut)
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// fence returns a code fence longer than any run of backticks in body.
func fence(body string) string {
	longest, run := 0, 0
	for _, r := range body {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// table writes a GFM table; the first column is left-aligned, the others
// (counts) right-aligned.
func table(b *bytes.Buffer, head []string, rows [][]string) {
	b.WriteString("| " + strings.Join(head, " | ") + " |\n|")
	for i := range head {
		if i == 0 {
			b.WriteString(" --- |")
		} else {
			b.WriteString(" ---: |")
		}
	}
	b.WriteString("\n")
	for _, r := range rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	b.WriteString("\n")
}

func failures(b *bytes.Buffer, fs []mdFailure, more int, what string) {
	if len(fs) == 0 {
		return
	}
	shown := fs
	if len(shown) > maxSummaryFailures {
		more += len(shown) - maxSummaryFailures
		shown = shown[:maxSummaryFailures]
	}
	for _, f := range shown {
		body := strings.Join(f.lines, "\n")
		fc := fence(body)
		fmt.Fprintf(b, "<details><summary>%s</summary>\n\n%sdiff\n%s\n%s\n\n</details>\n\n", html.EscapeString(strings.Join(strings.Fields(f.title), " ")), fc, body, fc)
	}
	if more > 0 {
		fmt.Fprintf(b, "and %d more %s, not shown here: the JSON or HTML report has them all.\n\n", more, what)
	}
}

// diffLines renders changes as a diff: "-" the value before, "+" after.
func diffLines(label string, changes []map[string]any) []string {
	if len(changes) == 0 {
		return nil
	}
	out := []string{"# " + label}
	for _, c := range changes {
		ptr := str(c["pointer"])
		if ptr == "" {
			ptr = "(whole value)"
		}
		if _, ok := c["before"]; ok {
			out = append(out, "- "+ptr+": "+oneLine(clip(str(c["before"]))))
		}
		if _, ok := c["after"]; ok {
			out = append(out, "+ "+ptr+": "+oneLine(clip(str(c["after"]))))
		}
	}
	return out
}

// count says "1 finding", "2 findings".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", "\\n") }

func problemLines(label string, ps []map[string]any) []string {
	if len(ps) == 0 {
		return nil
	}
	out := []string{"# " + label}
	for _, p := range ps {
		ptr := str(p["pointer"])
		if ptr == "" {
			ptr = "(message)"
		}
		out = append(out, "! "+ptr+": "+str(p["rule"]))
	}
	return out
}

func verdict(ok bool) string {
	if ok {
		return "✅"
	}
	return "❌"
}

func conformSummary(b *bytes.Buffer, m map[string]any) {
	s, _ := m["summary"].(map[string]any)
	ok := num(s["failed"]) == 0 && num(s["notRun"]) == 0
	fmt.Fprintf(b, "## %s bsadapter conform: %s\n\n", verdict(ok), cell(str(m["store"])))
	fmt.Fprintf(b, "%d cases: %d passed, %d failed, %d skipped, %d not run.\n\n",
		num(s["total"]), num(s["passed"]), num(s["failed"]), num(s["skipped"]), num(s["notRun"]))
	type counts struct{ passed, failed, skipped, notRun int }
	var order []string
	by := map[string]*counts{}
	var fs []mdFailure
	for _, r := range list(m["results"]) {
		suite := str(r["suite"])
		c := by[suite]
		if c == nil {
			c = &counts{}
			by[suite] = c
			order = append(order, suite)
		}
		switch Outcome(str(r["outcome"])) {
		case Passed:
			c.passed++
		case Failed:
			c.failed++
			f := mdFailure{title: str(r["id"]) + ": " + str(r["rule"])}
			if ms, ok := r["elapsedMs"]; ok {
				f.lines = append(f.lines, fmt.Sprintf("# %s ms", str(ms)))
			}
			for _, x := range list(r["failures"]) {
				_, hasE := x["expected"]
				_, hasA := x["actual"]
				if hasE || hasA {
					f.lines = append(f.lines, "# "+oneLine(str(x["what"])), "- expected: "+oneLine(clip(str(x["expected"]))), "+ actual:   "+oneLine(clip(str(x["actual"]))))
				} else {
					f.lines = append(f.lines, "! "+oneLine(clip(str(x["message"]))))
				}
			}
			fs = append(fs, f)
		case Skipped:
			c.skipped++
		case NotRun:
			c.notRun++
		}
	}
	rows := make([][]string, 0, len(order))
	for _, suite := range order {
		c := by[suite]
		rows = append(rows, []string{cell(suite), fmt.Sprint(c.passed), fmt.Sprint(c.failed), fmt.Sprint(c.skipped), fmt.Sprint(c.notRun)})
	}
	table(b, []string{"Suite", "Passed", "Failed", "Skipped", "Not run"}, rows)
	failures(b, fs, 0, "failed cases")
}

func fixturesSummary(b *bytes.Buffer, m map[string]any) {
	s, _ := m["summary"].(map[string]any)
	ok := num(s["failed"]) == 0 && num(s["fileErrors"]) == 0 && num(s["notRun"]) == 0 && str(m["bridgeError"]) == ""
	title := "bsadapter check-fixtures"
	if a, _ := m["adapter"].(map[string]any); a != nil && str(a["name"]) != "" {
		title += ": " + str(a["name"])
	}
	fmt.Fprintf(b, "## %s %s\n\n", verdict(ok), cell(title))
	fmt.Fprintf(b, "%d messages in %d files: %d passed, %d failed, %d with warnings, %d file errors.\n\n",
		num(s["messages"]), num(s["files"]), num(s["passed"]), num(s["failed"]), num(s["warnings"]), num(s["fileErrors"]))
	if e := str(m["bridgeError"]); e != "" {
		fmt.Fprintf(b, "The bridge stopped working: %s\n\n", cell(e))
	}
	type counts struct{ failed, warned, notRun, fileErrors int }
	by := map[string]*counts{}
	get := func(file string) *counts {
		dir := "(generated)"
		if file != "" {
			dir = path.Dir(file)
		}
		if by[dir] == nil {
			by[dir] = &counts{}
		}
		return by[dir]
	}
	var fs []mdFailure
	for _, r := range list(m["results"]) {
		c := get(str(r["file"]))
		where := str(r["file"])
		if where == "" {
			where = "generated"
		}
		if l := num(r["line"]); l > 0 {
			where += fmt.Sprintf(":%d", l)
		}
		if where == "generated" {
			where += fmt.Sprintf(" #%d", num(r["index"]))
		}
		switch Outcome(str(r["status"])) {
		case Failed:
			c.failed++
			f := mdFailure{title: where}
			if n := str(r["name"]); n != "" {
				f.title += " " + n
			}
			if e := str(r["error"]); e != "" {
				f.lines = append(f.lines, "! "+oneLine(clip(e)))
			}
			f.lines = append(f.lines, problemLines("schema", list(r["problems"]))...)
			f.lines = append(f.lines, diffLines("native round trip: - native message, + what came back", list(r["nativeRoundTrip"]))...)
			f.lines = append(f.lines, diffLines("canonical round trip", list(r["roundTrip"]))...)
			f.lines = append(f.lines, problemLines("round trip's message", list(r["roundTripProblems"]))...)
			f.lines = append(f.lines, problemLines("PostgreSQL cannot store", list(r["unstorable"]))...)
			f.lines = append(f.lines, diffLines("snapshot: - stored, + this run", list(r["snapshot"]))...)
			if in := str(r["input"]); in != "" {
				label := "# generated message"
				if r["shrunk"] == true {
					label = "# shrunk example"
				}
				f.lines = append(f.lines, label, "  "+clip(in))
			}
			fs = append(fs, f)
		case NotRun:
			c.notRun++
		default:
			c.warned++
		}
	}
	for _, fe := range list(m["fileErrors"]) {
		get(str(fe["file"])).fileErrors++
		fs = append(fs, mdFailure{title: fmt.Sprintf("%s:%d (file error)", str(fe["file"]), num(fe["line"])), lines: []string{"! " + oneLine(clip(str(fe["message"])))}})
	}
	dirs := make([]string, 0, len(by))
	for d := range by {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	rows := make([][]string, 0, len(dirs)+1)
	for _, d := range dirs {
		c := by[d]
		rows = append(rows, []string{cell(d), fmt.Sprint(c.failed), fmt.Sprint(c.warned), fmt.Sprint(c.notRun), fmt.Sprint(c.fileErrors)})
	}
	if len(rows) > 0 {
		table(b, []string{"Folder", "Failed", "Warned", "Not run", "File errors"}, rows)
	} else {
		table(b, []string{"Messages", "Passed", "Failed", "Warnings"}, [][]string{{fmt.Sprint(num(s["messages"])), fmt.Sprint(num(s["passed"])), fmt.Sprint(num(s["failed"])), fmt.Sprint(num(s["warnings"]))}})
	}
	failures(b, fs, num(m["omitted"]), "failed or warned messages")
}

func lintSummary(b *bytes.Buffer, m map[string]any) {
	t, _ := m["target"].(map[string]any)
	fmt.Fprintf(b, "## %s bsadapter lint: %s\n\n", verdict(m["ok"] == true), cell(str(t["name"])))
	findings, suppressed := list(m["findings"]), list(m["suppressed"])
	fmt.Fprintf(b, "%s read: %s, %d suppressed.\n\n", count(num(m["files"]), "file"), count(len(findings), "finding"), len(suppressed))
	type counts struct{ findings, suppressed int }
	by := map[string]*counts{}
	var rules []string
	get := func(rule string) *counts {
		if by[rule] == nil {
			by[rule] = &counts{}
			rules = append(rules, rule)
		}
		return by[rule]
	}
	var fs []mdFailure
	for _, f := range findings {
		get(str(f["rule"])).findings++
		x := mdFailure{title: fmt.Sprintf("%s:%d:%d %s: %s", str(f["file"]), num(f["line"]), num(f["column"]), str(f["rule"]), str(f["message"]))}
		if e := str(f["evidence"]); e != "" {
			x.lines = append(x.lines, fmt.Sprintf("- %d: %s", num(f["line"]), oneLine(clip(e))))
		}
		for i, l := range list(f["chain"]) {
			x.lines = append(x.lines, fmt.Sprintf("# %s%s:%d:%d import %q", strings.Repeat("  ", i), str(l["file"]), num(l["line"]), num(l["column"]), str(l["import"])))
		}
		if fix := str(f["fix"]); fix != "" {
			x.lines = append(x.lines, "+ fix: "+oneLine(clip(fix)))
		}
		fs = append(fs, x)
	}
	for _, f := range suppressed {
		get(str(f["rule"])).suppressed++
	}
	sort.Strings(rules)
	rows := make([][]string, 0, len(rules))
	for _, r := range rules {
		rows = append(rows, []string{cell(r), fmt.Sprint(by[r].findings), fmt.Sprint(by[r].suppressed)})
	}
	if len(rows) > 0 {
		table(b, []string{"Rule", "Findings", "Suppressed"}, rows)
	}
	failures(b, fs, 0, "findings")
}
