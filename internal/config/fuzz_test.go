package config

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// repeatsKey says whether any object in the JSON value v, at any depth,
// gives a key twice.
func repeatsKey(v []byte) bool {
	dec := json.NewDecoder(strings.NewReader(string(v)))
	t, err := dec.Token()
	if err != nil {
		return false
	}
	switch t {
	case json.Delim('{'):
		keys := map[string]bool{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return false
			}
			var e json.RawMessage
			if dec.Decode(&e) != nil {
				return false
			}
			if keys[k.(string)] || repeatsKey(e) {
				return true
			}
			keys[k.(string)] = true
		}
	case json.Delim('['):
		for dec.More() {
			var e json.RawMessage
			if dec.Decode(&e) != nil {
				return false
			}
			if repeatsKey(e) {
				return true
			}
		}
	}
	return false
}

var lineColRe = regexp.MustCompile(`: line (\d+), column (\d+): `)

// FuzzParse holds the config parser to its promises on any bytes: every
// error names the file first, and a line and column it names are in the
// file; whatever loads is JSON with no key given twice, and written back
// as JSON it loads the same.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"name": "langchain", "format": "langchain-v1", "sdk": "@langchain/core",
  "bridge": {"command": ["npx","tsx","bsadapter.bridge.ts"]}, "fixtures": "fixtures"}`,
		`{"fixtures": ["a", "b/c.jsonl"]}`,
		`{"name": "x", "fixture": "f"}`,
		`{"bridge": {"cmd": ["node"]}}`,
		`{"bridge": {"command": "node bridge.mjs"}}`,
		`{"bridge": {"command": []}}`,
		`{"fixtures": 3}`, `{"fixtures": null}`, `{"name": 1}`, `{"name": "x",}`, ``, `[1]`, `{} {}`,
		"{\n  \"name\": \"x\",\n  \"bridge\": {\"command\": [\"node\"]",
		`{"name": "x", "fixtures": "a",` + "\n" + `  "fixtures": "b"}`,
		`{"name": "x", "bridge": {"command": ["a"], "command": ["b"]}}`,
		"\xEF\xBB\xBF{\"name\": \"x\"}",
		`{"roundTrip": {"ignore": [{"path": "/id", "reason": "a", "reason": "b"}]}}`,
		`{"roundTrip": {"parts": ["text"], "parts": ["file"]}}`,
		`{"$schema": "https://example.com/s.json", "n\u0061me": "x", "name": "y"}`,
	} {
		f.Add([]byte(s))
	}
	const path = "dir/bsadapter.json"
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := parse(path, "/abs/"+path, data)
		if err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, path+": ") {
				t.Fatalf("the error does not start with the file: %q", msg)
			}
			if m := lineColRe.FindStringSubmatch(msg); m != nil {
				line, _ := strconv.Atoi(m[1])
				col, _ := strconv.Atoi(m[2])
				lines := strings.Split(string(data), "\n")
				if line < 1 || line > len(lines) || col < 1 || col > len(lines[line-1])+1 {
					t.Fatalf("%q: the place is not in the file", msg)
				}
			}
			return
		}
		if !json.Valid(data) {
			t.Fatalf("loaded a file that is not JSON: %q", data)
		}
		if repeatsKey(data) {
			t.Fatalf("loaded %q, which gives a key twice", data)
		}
		doc := map[string]any{"name": c.Name, "format": c.Format, "sdk": c.SDK}
		if c.Bridge.Command != nil {
			doc["bridge"] = map[string]any{"command": c.Bridge.Command}
		}
		if c.Fixtures != nil {
			doc["fixtures"] = c.Fixtures
		}
		again, _ := json.Marshal(doc)
		c2, err := parse(path, "/abs/"+path, again)
		if err != nil {
			t.Fatalf("%q loaded, but written back as %s it does not: %v", data, again, err)
		}
		if c2.Name != c.Name || c2.Format != c.Format || c2.SDK != c.SDK || !slices.Equal(c2.Bridge.Command, c.Bridge.Command) || !slices.Equal(c2.Fixtures, c.Fixtures) {
			t.Fatalf("%q loads as %+v, written back as %s as %+v", data, c, again, c2)
		}
	})
}
