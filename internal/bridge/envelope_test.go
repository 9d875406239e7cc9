package bridge

import (
	"encoding/json"
	"testing"
)

// The fast envelope split agrees with encoding/json on every line it
// accepts, and refuses the odd ones (the slow path then decides).
func TestSplitEnvelope(t *testing.T) {
	accept := []string{
		`{"jsonrpc":"2.0","id":1,"result":{"message":{"id":"a\"}","parts":[{"t":"]"}]}}}`,
		` { "id" : 7 , "jsonrpc" : "2.0", "result" : null } `,
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"boom","data":{"hint":"X"}}}`,
		`{"jsonrpc":"2.0","id":3,"result":"a\\\"b"}`,
		`{"jsonrpc":"2.0","id":4,"result":[1,2,{"x":[]}]}`,
		`{}`,
		`{"jsonrpc":"2.0","method":"log","params":{"a":[1]}}`,
	}
	for _, line := range accept {
		env, ok := splitEnvelope([]byte(line))
		if !ok {
			t.Errorf("refused %s", line)
			continue
		}
		var ref struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Result  json.RawMessage `json:"result"`
			Error   json.RawMessage `json:"error"`
			Method  json.RawMessage `json:"method"`
		}
		if err := json.Unmarshal([]byte(line), &ref); err != nil {
			t.Fatal(err)
		}
		if env.JSONRPC != ref.JSONRPC || string(env.ID) != string(ref.ID) || string(env.Result) != string(ref.Result) || string(env.Error) != string(ref.Error) || string(env.Method) != string(ref.Method) {
			t.Errorf("%s:\n got %+v\nwant %+v", line, env, ref)
		}
	}
	refuse := []string{
		``, `hello`, `[1]`, `{"id":1`, `{"id":1,}`, `{"id":1} x`, `{"i\u0064":1}`, `{"id" 1}`, `{"result":"abc}`, `{"result":{"a":1}`,
	}
	for _, line := range refuse {
		if _, ok := splitEnvelope([]byte(line)); ok {
			t.Errorf("accepted %q", line)
		}
	}
}
