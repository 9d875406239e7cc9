package scaffold

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// decodeObject decodes a JSON object, or nil.
func decodeObject(b []byte) map[string]any {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if dec.Decode(&m) != nil {
		return nil
	}
	return m
}

// FuzzPackageJSONEdit holds the package.json edit to its promises on any
// text: an edit it plans is valid JSON, equal to the text it started from
// but for the members it adds (the export entry and the optional peer),
// and planning it again on its own result changes nothing.
func FuzzPackageJSONEdit(f *testing.F) {
	for _, s := range []string{
		"{\r\n\t\"name\": \"better-supabase\",\r\n\t\"exports\": {\r\n\t\t\".\": \"./dist/index.js\"\r\n\t}\r\n}\r\n",
		"{\n  \"name\": \"better-supabase\",\n  \"exports\": {},\n  \"peerDependencies\": { \"@acme/sdk\": \"^1\" },\n  \"peerDependenciesMeta\": {}\n}\n",
		`{"name": "better-supabase", "exports": "./x.js"}`,
		`{"name": "better-supabase",`,
		`[1]`,
		`{"name": "better-supabase"}`,
		`{"exports": {"./acme": {"@better-supabase/source": "./src/acme/index.ts", "types": "./dist/acme/index.d.ts", "default": "./dist/acme/index.js"}}}`,
		`{"peerDependencies": {"@acme/sdk": "*"}, "peerDependenciesMeta": {"@acme/sdk": {"optional": false}}}`,
		`{"exports": {}, "exports": {"./x": "y"}}`,
	} {
		f.Add([]byte(s))
	}
	sdks := []string{"@acme/sdk"}
	f.Fuzz(func(t *testing.T, src []byte) {
		e, err := editPackageJSON("package.json", src, "acme", sdks)
		if err != nil {
			return
		}
		if !json.Valid(e.After) {
			t.Fatalf("the edit of %q is not JSON: %q", src, e.After)
		}
		before, after := decodeObject(src), decodeObject(e.After)
		if before == nil || after == nil {
			t.Fatalf("the edit of %q is not an object: %q", src, e.After)
		}
		// The edit's own members, taken out again, leave the start; a
		// member that was there already is left as it was.
		take := func(field, key string, added any) {
			if old, had := before[field].(map[string]any); had {
				if _, has := old[key]; has {
					return
				}
			}
			obj, ok := after[field].(map[string]any)
			if !ok || !reflect.DeepEqual(obj[key], added) {
				t.Fatalf("the edit of %q lacks %s[%q] = %v: %q", src, field, key, added, e.After)
			}
			delete(obj, key)
			if _, had := before[field]; !had && len(obj) == 0 {
				delete(after, field)
			}
		}
		take("exports", "./acme", map[string]any{"@better-supabase/source": "./src/acme/index.ts", "types": "./dist/acme/index.d.ts", "default": "./dist/acme/index.js"})
		take("peerDependencies", "@acme/sdk", "*")
		take("peerDependenciesMeta", "@acme/sdk", map[string]any{"optional": true})
		if !reflect.DeepEqual(before, after) {
			t.Fatalf("the edit of %q changed more than its members: %q", src, e.After)
		}
		again, err := editPackageJSON("package.json", e.After, "acme", sdks)
		if err != nil || !bytes.Equal(again.After, e.After) {
			t.Fatalf("a second edit of %q changed it: %v\n%q", e.After, err, again.After)
		}
	})
}
