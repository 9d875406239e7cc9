// Package schemas embeds the JSON Schemas that bsadapter checks against and
// compiles them without ever fetching anything: every $id is an identifier,
// resolved from the embedded files only.
package schemas

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// FS holds the embedded schema files, one NAME.json per schema.
//
//go:embed *.json
var FS embed.FS

// AiMessageV1 is the name of the canonical message schema.
const AiMessageV1 = "ai-message-v1"

// PartTypes lists the nine canonical part types in the order the schema's
// oneOf names them.
var PartTypes = []string{"text", "reasoning", "file", "tool-call", "tool-result", "tool-approval", "source", "data", "step"}

// PartDef returns the $defs entry of ai-message-v1 that describes a part of
// the given type, and false for a type that is not one of the nine.
func PartDef(partType string) (string, bool) {
	if !slices.Contains(PartTypes, partType) {
		return "", false
	}
	var b strings.Builder
	for i, word := range strings.Split(partType, "-") {
		if i > 0 {
			word = strings.ToUpper(word[:1]) + word[1:]
		}
		b.WriteString(word)
	}
	return b.String() + "Part", true
}

// Info describes one embedded schema.
type Info struct {
	Name  string `json:"name"`
	ID    string `json:"id"`
	Title string `json:"title"`
}

// List returns the embedded schemas sorted by name.
func List() ([]Info, error) {
	entries, err := fs.Glob(FS, "*.json")
	if err != nil {
		return nil, err
	}
	var out []Info
	for _, e := range entries {
		data, err := FS.ReadFile(e)
		if err != nil {
			return nil, err
		}
		var head struct {
			ID    string `json:"$id"`
			Title string `json:"title"`
		}
		if err := json.Unmarshal(data, &head); err != nil {
			return nil, fmt.Errorf("embedded schema %s: %w", e, err)
		}
		out = append(out, Info{Name: strings.TrimSuffix(e, ".json"), ID: head.ID, Title: head.Title})
	}
	return out, nil
}

// Names returns the names of the embedded schemas.
func Names() []string {
	infos, _ := List()
	names := make([]string, len(infos))
	for i, in := range infos {
		names[i] = in.Name
	}
	return names
}

// Read returns the bytes of the named schema; the name may carry a .json
// suffix.
func Read(name string) ([]byte, error) {
	name = strings.TrimSuffix(name, ".json")
	data, err := FS.ReadFile(name + ".json")
	if err != nil {
		return nil, fmt.Errorf("no embedded schema %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	return data, nil
}

// ID returns the $id of the named schema.
func ID(name string) (string, error) {
	for _, in := range mustList() {
		if in.Name == strings.TrimSuffix(name, ".json") {
			return in.ID, nil
		}
	}
	return "", fmt.Errorf("no embedded schema %q (known: %s)", name, strings.Join(Names(), ", "))
}

func mustList() []Info {
	infos, _ := List()
	return infos
}

var (
	compileOnce sync.Once
	compiler    *jsonschema.Compiler
	compileErr  error
	compiledMu  sync.Mutex
	compiled    = map[string]*jsonschema.Schema{}
)

// embeddedLoader refuses every URL that is not an embedded schema, so that
// compiling never touches the network or the file system.
type embeddedLoader struct{ byID map[string][]byte }

func (l embeddedLoader) Load(url string) (any, error) {
	data, ok := l.byID[url]
	if !ok {
		return nil, fmt.Errorf("schema %s is not embedded in bsadapter and is never fetched", url)
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(data))
}

func setup() {
	loader := embeddedLoader{byID: map[string][]byte{}}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	for _, in := range mustList() {
		data, err := Read(in.Name)
		if err != nil {
			compileErr = err
			return
		}
		loader.byID[in.ID] = data
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			compileErr = fmt.Errorf("embedded schema %s: %w", in.Name, err)
			return
		}
		if err := c.AddResource(in.ID, doc); err != nil {
			compileErr = fmt.Errorf("embedded schema %s: %w", in.Name, err)
			return
		}
	}
	c.UseLoader(loader)
	compiler = c
}

// Compile returns the compiled schema at ref, which is a schema name
// ("ai-message-v1") optionally followed by a JSON Pointer fragment
// ("ai-message-v1#/$defs/textPart"). Compiled schemas are cached.
func Compile(ref string) (*jsonschema.Schema, error) {
	compileOnce.Do(setup)
	if compileErr != nil {
		return nil, compileErr
	}
	name, frag, _ := strings.Cut(ref, "#")
	id, err := ID(name)
	if err != nil {
		return nil, err
	}
	url := id
	if frag != "" {
		url += "#" + frag
	}
	compiledMu.Lock()
	defer compiledMu.Unlock()
	if s, ok := compiled[url]; ok {
		return s, nil
	}
	s, err := compiler.Compile(url)
	if err != nil {
		return nil, err
	}
	compiled[url] = s
	return s, nil
}
