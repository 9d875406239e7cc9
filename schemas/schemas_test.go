package schemas_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/bsadapter/bsadapter/internal/testenv"
	"github.com/bsadapter/bsadapter/schemas"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

type schemaCase struct {
	Name    string          `json:"name"`
	Valid   bool            `json:"valid"`
	Why     string          `json:"why"`
	Message json.RawMessage `json:"message"`
}

func loadCases(t *testing.T) (valid, invalid []schemaCase) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "messages.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct{ Valid, Invalid []schemaCase }
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	return file.Valid, file.Invalid
}

func decode(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestEmbeddedFS(t *testing.T) {
	if err := fstest.TestFS(schemas.FS, "ai-message-v1.json"); err != nil {
		t.Fatal(err)
	}
}

func TestListAndRead(t *testing.T) {
	infos, err := schemas.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 1 || infos[0].Name != "ai-message-v1" || infos[0].ID != "https://unpkg.com/better-supabase/schemas/ai-message-v1.json" {
		t.Fatalf("List() = %+v", infos)
	}
	if _, err := schemas.Read("ai-message-v2"); err == nil {
		t.Fatal("Read of an unknown schema succeeded")
	}
	a, _ := schemas.Read("ai-message-v1")
	b, _ := schemas.Read("ai-message-v1.json")
	if !bytes.Equal(a, b) || len(a) == 0 {
		t.Fatal("Read with and without .json differ")
	}
}

func TestPartDefsCoverTheOneOf(t *testing.T) {
	data, _ := schemas.Read(schemas.AiMessageV1)
	var doc struct {
		Defs map[string]json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var part struct {
		OneOf []struct {
			Ref string `json:"$ref"`
		} `json:"oneOf"`
	}
	if err := json.Unmarshal(doc.Defs["part"], &part); err != nil {
		t.Fatal(err)
	}
	var refs []string
	for _, o := range part.OneOf {
		refs = append(refs, o.Ref)
	}
	for _, typ := range schemas.PartTypes {
		def, ok := schemas.PartDef(typ)
		if !ok {
			t.Fatalf("PartDef(%q) not found", typ)
		}
		if !slices.Contains(refs, "#/$defs/"+def) {
			t.Errorf("part type %s maps to %s, which the oneOf does not name (%v)", typ, def, refs)
		}
		var p struct {
			Properties struct {
				Type struct {
					Const string `json:"const"`
				} `json:"type"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(doc.Defs[def], &p); err != nil {
			t.Fatal(err)
		}
		if p.Properties.Type.Const != typ {
			t.Errorf("$defs/%s has type const %q, want %q", def, p.Properties.Type.Const, typ)
		}
	}
	if len(refs) != len(schemas.PartTypes) {
		t.Errorf("oneOf has %d branches, want %d", len(refs), len(schemas.PartTypes))
	}
	if _, ok := schemas.PartDef("image"); ok {
		t.Error("PartDef(image) reported a definition")
	}
}

func TestGoValidator(t *testing.T) {
	valid, invalid := loadCases(t)
	if len(valid) < 10 || len(invalid) < 25 {
		t.Fatalf("want at least 10 valid and 25 invalid cases, have %d and %d", len(valid), len(invalid))
	}
	s, err := schemas.Compile(schemas.AiMessageV1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range valid {
		if err := s.Validate(decode(t, c.Message)); err != nil {
			t.Errorf("valid case %q rejected: %v", c.Name, err)
		}
	}
	for _, c := range invalid {
		if err := s.Validate(decode(t, c.Message)); err == nil {
			t.Errorf("invalid case %q (%s) accepted", c.Name, c.Why)
		}
	}
}

func TestCompileFragment(t *testing.T) {
	s, err := schemas.Compile("ai-message-v1#/$defs/textPart")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(map[string]any{"type": "text", "text": "x"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(map[string]any{"type": "text"}); err == nil {
		t.Fatal("a text part without text passed the textPart definition")
	}
	if _, err := schemas.Compile("no-such-schema"); err == nil {
		t.Fatal("compiling an unknown schema succeeded")
	}
}

// TestAgreesWithAjv checks every case with ajv's draft 2020-12 class (what
// upstream uses) and requires the same verdict as the Go validator: a
// disagreement would let an adapter pass here and fail upstream.
func TestAgreesWithAjv(t *testing.T) {
	node := testenv.Node(t)
	modules := testenv.NodeModules(t)
	cmd := exec.Command(node, filepath.Join("testdata", "ajv-check.mjs"), modules, "ai-message-v1.json", filepath.Join("testdata", "messages.json"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ajv: %v\n%s", err, stderr.String())
	}
	var verdicts []struct {
		Name   string   `json:"name"`
		Valid  bool     `json:"valid"`
		Errors []string `json:"errors"`
	}
	if err := json.Unmarshal(out, &verdicts); err != nil {
		t.Fatalf("ajv output: %v\n%s", err, out)
	}
	valid, invalid := loadCases(t)
	all := append(valid, invalid...)
	if len(verdicts) != len(all) {
		t.Fatalf("ajv judged %d messages, want %d", len(verdicts), len(all))
	}
	s, err := schemas.Compile(schemas.AiMessageV1)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range all {
		goValid := s.Validate(decode(t, c.Message)) == nil
		if verdicts[i].Name != c.Name {
			t.Fatalf("verdict %d is for %q, want %q", i, verdicts[i].Name, c.Name)
		}
		if verdicts[i].Valid != goValid {
			t.Errorf("%q: Go says valid=%v, ajv says valid=%v %v", c.Name, goValid, verdicts[i].Valid, verdicts[i].Errors)
		}
		if verdicts[i].Valid != c.Valid {
			t.Errorf("%q: ajv says valid=%v, the case expects %v", c.Name, verdicts[i].Valid, c.Valid)
		}
	}
}
