package lint

import (
	"bytes"
	"encoding/json"
	"strings"
)

// jsonKeyOffsets returns the byte offset of every object key in a JSON
// document, by its path: keys joined with "\x00" ("exports\x00./langchain").
// Array elements are not named; the rules only point at object keys.
func jsonKeyOffsets(data []byte) map[string]int {
	out := map[string]int{}
	dec := json.NewDecoder(bytes.NewReader(data))
	type level struct {
		obj     bool
		wantKey bool
		key     string
	}
	var stack []level
	path := func(key string) string {
		var parts []string
		for _, l := range stack[:len(stack)-1] {
			if l.obj {
				parts = append(parts, l.key)
			}
		}
		return strings.Join(append(parts, key), "\x00")
	}
	for {
		before := int(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return out
		}
		if n := len(stack); n > 0 && stack[n-1].obj && stack[n-1].wantKey {
			if key, ok := tok.(string); ok {
				off := before + bytes.IndexByte(data[before:], '"')
				stack[n-1].key = key
				stack[n-1].wantKey = false
				out[path(key)] = off
				continue
			}
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				stack = append(stack, level{obj: true, wantKey: true})
			case '[':
				stack = append(stack, level{})
			case '}', ']':
				stack = stack[:len(stack)-1]
				if n := len(stack); n > 0 && stack[n-1].obj {
					stack[n-1].wantKey = true
				}
			}
		default:
			if n := len(stack); n > 0 && stack[n-1].obj {
				stack[n-1].wantKey = true
			}
		}
	}
}

// keyPath joins JSON keys the way jsonKeyOffsets names them.
func keyPath(keys ...string) string { return strings.Join(keys, "\x00") }

// orderedKeys returns the keys of a JSON object in the order the file
// has them.
func orderedKeys(raw json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return keys
		}
		k, _ := tok.(string)
		keys = append(keys, k)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return keys
		}
	}
	return keys
}
