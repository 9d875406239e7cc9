package lint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// at returns the line and column of a package.json key path, or of the
// closest enclosing key that exists, or 1:1.
func (l *linter) at(keys ...string) (int, int) {
	li := newLineIndex(string(l.t.pkgData))
	for n := len(keys); n > 0; n-- {
		if off, ok := l.t.keys[keyPath(keys[:n]...)]; ok {
			return li.pos(off)
		}
	}
	return 1, 1
}

func (l *linter) pkgFinding(rule, msg, fix string, keys ...string) {
	line, col := l.at(keys...)
	l.add(Finding{Rule: rule, File: l.rel(l.t.pkgPath), Line: line, Column: col, Message: msg, Fix: fix,
		Evidence: newLineIndex(string(l.t.pkgData)).excerpt(line, col)})
}

// packageRules checks package.json: each SDK an optional peer and not a
// dependency; for a subpath, its export entry.
func (l *linter) packageRules() {
	pkg := l.t.pkg
	for _, sdk := range l.t.sdks {
		_, inDeps := pkg.Dependencies[sdk]
		_, inPeers := pkg.PeerDependencies[sdk]
		optional := false
		var meta struct {
			Optional json.RawMessage `json:"optional"`
		}
		if raw, ok := pkg.PeerDependenciesMeta[sdk]; ok && json.Unmarshal(raw, &meta) == nil {
			optional = bytes.Equal(bytes.TrimSpace(meta.Optional), []byte("true"))
		}
		metaFix := fmt.Sprintf(`and "peerDependenciesMeta": {%q: {"optional": true}}`, sdk)
		switch {
		case inDeps:
			l.pkgFinding(RuleOptionalPeer,
				fmt.Sprintf("the SDK %s is in dependencies, so every app that installs the adapter installs it", sdk),
				fmt.Sprintf(`move %q from "dependencies" to "peerDependencies" %s`, sdk, metaFix),
				"dependencies", sdk)
		case !inPeers:
			l.pkgFinding(RuleOptionalPeer,
				fmt.Sprintf("the SDK %s is not in peerDependencies", sdk),
				fmt.Sprintf(`add "peerDependencies": {%q: "*"} (or the range you support) %s`, sdk, metaFix),
				"peerDependencies")
		case !optional:
			l.pkgFinding(RuleOptionalPeer,
				fmt.Sprintf("the SDK %s is a peer dependency but not an optional one", sdk),
				fmt.Sprintf(`set "peerDependenciesMeta": {%q: {"optional": true}}`, sdk),
				"peerDependenciesMeta", sdk, "optional")
		}
	}
	if l.t.kind == "subpath" {
		l.exportEntry()
	}
}

// exportEntry checks the subpath's export entry: three conditions in
// upstream's order, each pointing where upstream's do.
func (l *linter) exportEntry() {
	name := l.t.name
	sub := "./" + name
	want := []struct{ cond, target string }{
		{"@better-supabase/source", "./src/" + name + "/index.ts"},
		{"types", "./dist/" + name + "/index.d.ts"},
		{"default", "./dist/" + name + "/index.js"},
	}
	var wantText []string
	for _, w := range want {
		wantText = append(wantText, fmt.Sprintf("%q: %q", w.cond, w.target))
	}
	fix := fmt.Sprintf(`write the entry as %q: {%s}`, sub, strings.Join(wantText, ", "))
	raw, ok := exportsMap(l.t.pkg.Exports)[sub]
	if !ok {
		l.pkgFinding(RuleExportEntry, fmt.Sprintf("better-supabase's package.json has no export entry %q, so the subpath cannot be imported", sub), fix, "exports")
		return
	}
	var cond map[string]json.RawMessage
	if json.Unmarshal(raw, &cond) != nil {
		l.pkgFinding(RuleExportEntry, fmt.Sprintf("the export entry %q is not an object of conditions", sub), fix, "exports", sub)
		return
	}
	keys := orderedKeys(raw)
	var wantKeys []string
	for _, w := range want {
		wantKeys = append(wantKeys, w.cond)
	}
	if !slices.Equal(keys, wantKeys) {
		l.pkgFinding(RuleExportEntry, fmt.Sprintf("the export entry %q has the conditions %s; upstream's order is %s", sub, quoteAll(keys), quoteAll(wantKeys)), fix, "exports", sub)
		return
	}
	for _, w := range want {
		var s string
		if json.Unmarshal(cond[w.cond], &s) != nil || s != w.target {
			l.pkgFinding(RuleExportEntry, fmt.Sprintf("the export entry %q has %q -> %s; upstream's entries point at %s", sub, w.cond, string(cond[w.cond]), w.target), fix, "exports", sub, w.cond)
			return
		}
	}
}

func quoteAll(s []string) string {
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ", ")
}
