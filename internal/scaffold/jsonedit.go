package scaffold

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Edit is an in-place change of an existing file, planned in memory.
type Edit struct {
	Path   string
	Before []byte
	After  []byte
	// Summary says what the edit does, one line per change.
	Summary []string
}

// The package.json edit is textual, not a re-encode: members are inserted
// into the existing text, indented like their neighbours, so the file's
// order, formatting and anything else in it stay exactly as they were.

type member struct {
	key              string
	keyStart, valEnd int
	valStart         int
}

type object struct {
	open, close int // offsets of '{' and '}'
	members     []member
}

type scanner struct {
	src []byte
	// name is the file name used in error messages.
	name string
}

func (s *scanner) errAt(i int, msg string) error {
	line := 1 + bytes.Count(s.src[:min(i, len(s.src))], []byte("\n"))
	return fmt.Errorf("%s:%d: %s", s.name, line, msg)
}

func (s *scanner) ws(i int) int {
	for i < len(s.src) && strings.IndexByte(" \t\r\n", s.src[i]) >= 0 {
		i++
	}
	return i
}

func (s *scanner) str(i int) (string, int, error) {
	if i >= len(s.src) || s.src[i] != '"' {
		return "", i, s.errAt(i, "expected a string")
	}
	j := i + 1
	for j < len(s.src) {
		switch s.src[j] {
		case '\\':
			j += 2
			continue
		case '"':
			var v string
			if err := json.Unmarshal(s.src[i:j+1], &v); err != nil {
				return "", i, s.errAt(i, "bad string: "+err.Error())
			}
			return v, j + 1, nil
		}
		j++
	}
	return "", i, s.errAt(i, "unterminated string")
}

func (s *scanner) value(i int) (int, error) {
	i = s.ws(i)
	if i >= len(s.src) {
		return i, s.errAt(i, "unexpected end of file")
	}
	switch s.src[i] {
	case '{':
		o, err := s.object(i)
		return o.close + 1, err
	case '[':
		j := s.ws(i + 1)
		if j < len(s.src) && s.src[j] == ']' {
			return j + 1, nil
		}
		for {
			end, err := s.value(j)
			if err != nil {
				return end, err
			}
			j = s.ws(end)
			if j < len(s.src) && s.src[j] == ',' {
				j++
				continue
			}
			if j < len(s.src) && s.src[j] == ']' {
				return j + 1, nil
			}
			return j, s.errAt(j, "expected , or ]")
		}
	case '"':
		_, end, err := s.str(i)
		return end, err
	default:
		j := i
		for j < len(s.src) && strings.IndexByte(",}] \t\r\n", s.src[j]) < 0 {
			j++
		}
		return j, nil
	}
}

func (s *scanner) object(i int) (object, error) {
	o := object{open: i}
	j := s.ws(i + 1)
	if j < len(s.src) && s.src[j] == '}' {
		o.close = j
		return o, nil
	}
	for {
		j = s.ws(j)
		key, end, err := s.str(j)
		if err != nil {
			return o, err
		}
		m := member{key: key, keyStart: j}
		j = s.ws(end)
		if j >= len(s.src) || s.src[j] != ':' {
			return o, s.errAt(j, "expected :")
		}
		m.valStart = s.ws(j + 1)
		if m.valEnd, err = s.value(m.valStart); err != nil {
			return o, err
		}
		o.members = append(o.members, m)
		j = s.ws(m.valEnd)
		if j < len(s.src) && s.src[j] == ',' {
			j++
			continue
		}
		if j < len(s.src) && s.src[j] == '}' {
			o.close = j
			return o, nil
		}
		return o, s.errAt(j, "expected , or }")
	}
}

func (s *scanner) root() (object, error) {
	if !json.Valid(s.src) {
		var v any
		err := json.Unmarshal(s.src, &v)
		return object{}, fmt.Errorf("%s is not valid JSON: %v", s.name, err)
	}
	i := s.ws(0)
	if i >= len(s.src) || s.src[i] != '{' {
		return object{}, s.errAt(i, "the top level is not an object")
	}
	return s.object(i)
}

// unique refuses an object that gives a key twice: JSON (and npm) keep the
// last one, while find finds the first, so an edit there could land where
// nobody reads it.
func (s *scanner) unique(o object) error {
	seen := make(map[string]bool, len(o.members))
	for _, m := range o.members {
		if seen[m.key] {
			return s.errAt(m.keyStart, fmt.Sprintf("key %q is given twice; JSON keeps only the last one, so remove the one you do not mean", m.key))
		}
		seen[m.key] = true
	}
	return nil
}

func (o object) find(key string) (member, bool) {
	for _, m := range o.members {
		if m.key == key {
			return m, true
		}
	}
	return member{}, false
}

// lineIndent returns the whitespace that starts the line holding offset i.
func lineIndent(src []byte, i int) string {
	start := bytes.LastIndexByte(src[:i], '\n') + 1
	end := start
	for end < len(src) && (src[end] == ' ' || src[end] == '\t') {
		end++
	}
	return string(src[start:end])
}

// indents returns the indentation of o's members and one indentation unit.
func (s *scanner) indents(o object, unit string) (string, string) {
	closeIndent := lineIndent(s.src, o.close)
	if len(o.members) > 0 {
		mi := lineIndent(s.src, o.members[0].keyStart)
		if strings.HasPrefix(mi, closeIndent) && len(mi) > len(closeIndent) {
			return mi, mi[len(closeIndent):]
		}
	}
	return lineIndent(s.src, o.open) + unit, unit
}

type insertion struct {
	at   int
	text string
}

// kv is an ordered JSON member to insert: a string value or nested members.
type kv struct {
	key  string
	str  *string
	kids []kv
}

func strv(key, v string) kv { return kv{key: key, str: &v} }

func (k kv) render(indent, unit, nl string) string {
	key, _ := json.Marshal(k.key)
	if k.str != nil {
		v, _ := json.Marshal(*k.str)
		return string(key) + ": " + string(v)
	}
	if k.key == "optional" && k.kids == nil {
		return string(key) + ": true"
	}
	var b strings.Builder
	b.WriteString(string(key) + ": {" + nl)
	for i, c := range k.kids {
		b.WriteString(indent + unit + c.render(indent+unit, unit, nl))
		if i < len(k.kids)-1 {
			b.WriteString(",")
		}
		b.WriteString(nl)
	}
	b.WriteString(indent + "}")
	return b.String()
}

// addAfter plans the insertion of members right after member m of o.
func (s *scanner) addAfter(o object, m member, unit, nl string, kvs []kv) insertion {
	mi, u := s.indents(o, unit)
	var b strings.Builder
	for _, k := range kvs {
		b.WriteString("," + nl + mi + k.render(mi, u, nl))
	}
	return insertion{at: m.valEnd, text: b.String()}
}

// addMembers plans the insertion of members at the end of object o.
func (s *scanner) addMembers(o object, unit, nl string, kvs []kv) insertion {
	mi, u := s.indents(o, unit)
	var b strings.Builder
	for i, k := range kvs {
		if i > 0 || len(o.members) > 0 {
			b.WriteString(",")
		}
		b.WriteString(nl + mi + k.render(mi, u, nl))
	}
	if len(o.members) == 0 {
		// {} becomes a multi-line object closed at the object's own indent.
		b.WriteString(nl + lineIndent(s.src, o.open))
		return insertion{at: o.open + 1, text: b.String() + "\x00" + string(s.src[o.open+1:o.close])}
	}
	return insertion{at: o.members[len(o.members)-1].valEnd, text: b.String()}
}

// planPackageJSONEdit plans the export entry (three conditions, in
// upstream's order) and the optional peer in the checkout's package.json.
func planPackageJSONEdit(o *Options) (*Edit, error) {
	rel := path.Join(PackageDir, "package.json")
	file := filepath.Join(o.Dir, filepath.FromSlash(rel))
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("--placement subpath needs a better-supabase checkout: %w", err)
	}
	return editPackageJSON(rel, src, o.Name, o.SDKs)
}

// editPackageJSON plans the edit of the package.json text src (named rel
// in errors) for the adapter name and its SDKs.
func editPackageJSON(rel string, src []byte, name string, sdks []string) (*Edit, error) {
	s := &scanner{src: src, name: rel}
	root, err := s.root()
	if err != nil {
		return nil, err
	}
	if err := s.unique(root); err != nil {
		return nil, err
	}
	nl := "\n"
	if bytes.Contains(src, []byte("\r\n")) {
		nl = "\r\n"
	}
	_, unit := s.indents(root, "  ")
	exportKey := "./" + name
	entry := kv{key: exportKey, kids: []kv{
		strv("@better-supabase/source", "./src/"+name+"/index.ts"),
		strv("types", "./dist/"+name+"/index.d.ts"),
		strv("default", "./dist/"+name+"/index.js"),
	}}
	edit := &Edit{Path: rel, Before: src}
	var ins []insertion
	var topLevel []kv

	if m, ok := root.find("exports"); ok {
		if src[m.valStart] != '{' {
			return nil, s.errAt(m.valStart, `"exports" is not an object; add the entry by hand`)
		}
		exports, _ := s.object(m.valStart)
		if err := s.unique(exports); err != nil {
			return nil, err
		}
		if existing, ok := exports.find(exportKey); ok {
			var have, want any
			_ = json.Unmarshal(src[existing.valStart:existing.valEnd], &have)
			_ = json.Unmarshal([]byte("{"+entry.render("", "", "")+"}"), &want)
			if !jsonEqual(have, want.(map[string]any)[exportKey]) {
				return nil, s.errAt(existing.keyStart, fmt.Sprintf("already exports %q differently", exportKey)+"; pick another NAME or remove that entry")
			}
		} else {
			ins = append(ins, s.addMembers(exports, unit, nl, []kv{entry}))
			edit.Summary = append(edit.Summary, fmt.Sprintf("exports: add %q (@better-supabase/source, types, default)", exportKey))
		}
	} else {
		topLevel = append(topLevel, kv{key: "exports", kids: []kv{entry}})
		edit.Summary = append(edit.Summary, fmt.Sprintf("exports: add the object with %q", exportKey))
	}

	for _, field := range []string{"peerDependencies", "peerDependenciesMeta"} {
		var kvs []kv
		for _, sdk := range sdks {
			if field == "peerDependencies" {
				kvs = append(kvs, strv(sdk, "*"))
			} else {
				kvs = append(kvs, kv{key: sdk, kids: []kv{{key: "optional"}}})
			}
		}
		m, ok := root.find(field)
		if !ok {
			// A new peerDependenciesMeta goes right after peerDependencies.
			if peers, has := root.find("peerDependencies"); has && field == "peerDependenciesMeta" {
				ins = append(ins, s.addAfter(root, peers, unit, nl, []kv{{key: field, kids: kvs}}))
			} else {
				topLevel = append(topLevel, kv{key: field, kids: kvs})
			}
			edit.Summary = append(edit.Summary, fmt.Sprintf("%s: add with %s", field, strings.Join(sdks, ", ")))
			continue
		}
		if src[m.valStart] != '{' {
			return nil, s.errAt(m.valStart, fmt.Sprintf("%q is not an object", field))
		}
		obj, _ := s.object(m.valStart)
		if err := s.unique(obj); err != nil {
			return nil, err
		}
		var missing []kv
		var names []string
		for _, k := range kvs {
			existing, has := obj.find(k.key)
			if !has {
				missing = append(missing, k)
				names = append(names, k.key)
				continue
			}
			// An SDK that is already a peer must already be an optional one
			// (contracts rule 3); the edit never rewrites an existing value.
			if field == "peerDependenciesMeta" {
				var meta struct{ Optional any }
				if json.Unmarshal(src[existing.valStart:existing.valEnd], &meta) != nil || meta.Optional != true {
					return nil, s.errAt(existing.keyStart, fmt.Sprintf(`peerDependenciesMeta %q does not make it optional; set "optional": true there (the SDK must be an optional peer), then run again`, k.key))
				}
			}
		}
		if len(missing) > 0 {
			ins = append(ins, s.addMembers(obj, unit, nl, missing))
			edit.Summary = append(edit.Summary, fmt.Sprintf("%s: add %s (optional peer)", field, strings.Join(names, ", ")))
		}
	}
	if len(topLevel) > 0 {
		ins = append(ins, s.addMembers(root, unit, nl, topLevel))
	}
	if len(ins) == 0 {
		return &Edit{Path: rel, Before: src, After: src}, nil
	}
	sort.SliceStable(ins, func(i, j int) bool { return ins[i].at > ins[j].at })
	out := slicesClone(src)
	for _, in := range ins {
		text, replaced, isReplace := strings.Cut(in.text, "\x00")
		end := in.at
		if isReplace {
			end = in.at + len(replaced)
		}
		out = append(out[:in.at:in.at], append([]byte(text), out[end:]...)...)
	}
	if !json.Valid(out) {
		return nil, fmt.Errorf("%s: the planned edit would not be valid JSON (a bug in bsadapter)", rel)
	}
	edit.After = out
	return edit, nil
}

func slicesClone(b []byte) []byte { return append([]byte(nil), b...) }

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// topLevelString returns a top-level string member of a JSON object.
func topLevelString(src []byte, key string) (string, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(src, &m); err != nil {
		return "", err
	}
	var v string
	err := json.Unmarshal(m[key], &v)
	return v, err
}
