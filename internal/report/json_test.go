package report

import (
	"bytes"
	"testing"
)

// Documents are indented, end in a newline, keep '<', '>' and '&' as they
// are, and print empty lists as [] rather than null.
func TestWriteJSON(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, NewCases(nil)); err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"cases\": [],\n  \"schemaVersion\": 1\n}\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	b.Reset()
	WriteJSON(&b, NewCases([]Case{{ID: "s/x", Suite: "s", Rule: "n >= 0 && a<b", TimeoutMs: 10}}))
	if !bytes.Contains(b.Bytes(), []byte(`"rule": "n >= 0 && a<b"`)) {
		t.Errorf("escaped: %s", b.String())
	}
	b.Reset()
	WriteJSON(&b, NewInstall("db", nil, nil))
	if want := "{\n  \"database\": \"db\",\n  \"modules\": [],\n  \"schemaVersion\": 1\n}\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
