package lint

import (
	"fmt"
	"regexp"
	"strings"
)

// IgnoreWord starts a comment that silences one finding:
//
//	// bsadapter-lint-ignore RULE: reason
//
// on the line of the finding or on the line above it. In a .sql file,
// "-- bsadapter-lint-ignore no-sql-file: reason" anywhere silences the
// file's no-sql-file finding.
const IgnoreWord = "bsadapter-lint-ignore"

var ignoreRe = regexp.MustCompile(`^\s*\*?\s*` + IgnoreWord + `(?:\s+([A-Za-z0-9_-]+))?\s*(?::\s*(.*?))?\s*(?:\*/)?\s*$`)

// directive is one ignore comment.
type directive struct {
	file   string // relative to the root
	line   int
	col    int
	rule   string
	reason string
	whole  bool // applies to the whole file (no-sql-file in a .sql file)
	used   bool
}

// collectIgnores reads the ignore comments of a file; a malformed one is
// itself a finding.
func (l *linter) collectIgnores(f *sourceFile, comments []comment, marker string) {
	for _, c := range comments {
		for _, text := range strings.Split(c.text, "\n") {
			if !strings.Contains(text, IgnoreWord) {
				continue
			}
			m := ignoreRe.FindStringSubmatch(text)
			line, col := f.li.pos(c.off)
			rel := l.rel(f.abs)
			if m == nil {
				continue // the word in prose, not a directive
			}
			rule, reason := m[1], strings.TrimSpace(m[2])
			bad := func(msg string) {
				l.add(Finding{Rule: RuleIgnore, File: rel, Line: line, Column: col, Message: msg,
					Evidence: clip(strings.TrimSpace(text)),
					Fix:      fmt.Sprintf("write it as: %s %s RULE: why this finding does not apply", marker, IgnoreWord)})
			}
			switch {
			case rule == "":
				bad("this ignore comment names no rule")
				continue
			case !knownRule(rule):
				bad(fmt.Sprintf("this ignore comment names %q, which is not a rule (rules: %s)", rule, ruleIDs()))
				continue
			case reason == "":
				bad(fmt.Sprintf("this ignore comment for %s gives no reason; it silences nothing until it says why", rule))
				continue
			}
			d := &directive{file: rel, line: line, col: col, rule: rule, reason: reason, whole: marker == "--" && rule == RuleSQLFile}
			l.mu.Lock()
			l.ignores = append(l.ignores, d)
			l.mu.Unlock()
		}
	}
}

func knownRule(id string) bool {
	_, ok := RuleByID(id)
	return ok && id != RuleIgnore
}

func ruleIDs() string {
	var ids []string
	for _, r := range Rules {
		if r.ID != RuleIgnore {
			ids = append(ids, r.ID)
		}
	}
	return strings.Join(ids, ", ")
}

// applyIgnores splits the findings into those that stand and those an
// ignore comment silences, and lists the comments that silenced nothing.
func (l *linter) applyIgnores(all []Finding) (kept, suppressed []Finding, unused []Ignore) {
	for _, f := range all {
		var hit *directive
		for _, d := range l.ignores {
			if d.rule != f.Rule || d.file != f.File {
				continue
			}
			if d.whole || d.line == f.Line || d.line+1 == f.Line {
				hit = d
				break
			}
		}
		if hit == nil || f.Rule == RuleIgnore {
			kept = append(kept, f)
			continue
		}
		hit.used = true
		f.Reason = hit.reason
		suppressed = append(suppressed, f)
	}
	for _, d := range l.ignores {
		if !d.used {
			unused = append(unused, Ignore{File: d.file, Line: d.line, Column: d.col, Rule: d.rule, Reason: d.reason})
		}
	}
	sortLinks(unused)
	return kept, suppressed, unused
}

func sortLinks(ls []Ignore) {
	for i := 1; i < len(ls); i++ {
		for j := i; j > 0 && (ls[j].File < ls[j-1].File || ls[j].File == ls[j-1].File && ls[j].Line < ls[j-1].Line); j-- {
			ls[j], ls[j-1] = ls[j-1], ls[j]
		}
	}
}
