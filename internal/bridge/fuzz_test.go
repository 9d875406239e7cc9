package bridge

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// FuzzSplitEnvelope holds the one-pass split of a response line to the
// slow path's reading of it (encoding/json into a map, keys exact, the
// last of two equal keys winning): on every valid JSON line it accepts,
// the members it takes apart are the same bytes.
func FuzzSplitEnvelope(f *testing.F) {
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"message":{"id":"a\"}","parts":[{"t":"]"}]}}}`,
		` { "id" : 7 , "jsonrpc" : "2.0", "result" : null } `,
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"boom","data":{"hint":"X"}}}`,
		`{"jsonrpc":"2.0","id":3,"result":"a\\\"b"}`,
		`{"jsonrpc":"2.0","id":4,"result":[1,2,{"x":[]}]}`,
		`{}`,
		`{"jsonrpc":"2.0","method":"log","params":{"a":[1]}}`,
		``, `hello`, `[1]`, `{"id":1`, `{"id":1,}`, `{"id":1} x`, `{"i\u0064":1}`, `{"id" 1}`, `{"result":"abc}`, `{"result":{"a":1}`,
		`{"jsonrpc":"2.0","id":1,"id":2,"result":0}`,
		`{"jsonrpc":"2.0","ID":1,"result":0}`,
	} {
		f.Add([]byte(line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		env, ok := splitEnvelope(line)
		if !ok || !json.Valid(line) {
			return
		}
		var msg map[string]json.RawMessage
		if err := json.Unmarshal(line, &msg); err != nil {
			t.Fatalf("accepted %q, which is not an object: %v", line, err)
		}
		var rpc string
		if v, has := msg["jsonrpc"]; has && json.Unmarshal(v, &rpc) != nil {
			t.Fatalf("accepted %q with a jsonrpc that is not a string", line)
		}
		for _, m := range []struct {
			name      string
			got, want json.RawMessage
		}{{"id", env.ID, msg["id"]}, {"result", env.Result, msg["result"]}, {"error", env.Error, msg["error"]}, {"method", env.Method, msg["method"]}} {
			if string(m.got) != string(m.want) {
				t.Fatalf("%q: %s is %q, encoding/json says %q", line, m.name, m.got, m.want)
			}
		}
		if env.JSONRPC != rpc {
			t.Fatalf("%q: jsonrpc is %q, encoding/json says %q", line, env.JSONRPC, rpc)
		}
	})
}

// quoteArg writes s so that SplitCommand reads it back as one word.
func quoteArg(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// FuzzSplitCommand holds the command splitter to its rules: it never
// panics; the words it returns, each quoted and joined again, split into
// the same words; and a line with no quotes or backslashes splits at its
// blanks, byte for byte.
func FuzzSplitCommand(f *testing.F) {
	for _, s := range []string{
		"npx tsx bsadapter.bridge.ts",
		`  node  'my bridge.mjs'   --x="a b"  `,
		`node "say \"hi\"" a\ b ''`,
		`'$HOME' "\$HOME"`,
		"", "   ", `node 'x`, `node "x`, `node x\`,
		"node caf\xe9.mjs",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		args, err := SplitCommand(s)
		if err != nil {
			return
		}
		if len(args) == 0 {
			t.Fatalf("%q: no words and no error", s)
		}
		quoted := make([]string, len(args))
		for i, a := range args {
			quoted[i] = quoteArg(a)
		}
		again, err := SplitCommand(strings.Join(quoted, " "))
		if err != nil || !slices.Equal(again, args) {
			t.Fatalf("%q split into %q; quoted again it splits into %q, %v", s, args, again, err)
		}
		if !strings.ContainsAny(s, `'"\`) {
			want := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' })
			if !slices.Equal(args, want) {
				t.Fatalf("%q split into %q, want %q", s, args, want)
			}
		}
	})
}
