package templates

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"text/template"
)

func TestFS(t *testing.T) {
	files, err := Files()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 20 {
		t.Fatalf("only %d template files embedded: %v", len(files), files)
	}
	if err := fstest.TestFS(FS, files...); err != nil {
		t.Fatal(err)
	}
}

// Every file parses as a template with the house delimiters, and none uses
// the default {{ }} delimiters by mistake (they would be copied verbatim).
func TestTemplatesParse(t *testing.T) {
	files, err := Files()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		data, err := fs.ReadFile(FS, name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := template.New(name).Delims(LeftDelim, RightDelim).Option("missingkey=error").Parse(string(data)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if strings.Contains(string(data), "{{") {
			t.Errorf("%s contains {{: the delimiters are [%% %%]", name)
		}
	}
}

func TestPresetsHaveConvertersAndFixtures(t *testing.T) {
	for _, p := range Presets {
		if _, err := fs.Stat(FS, "presets/"+p+"/converters.ts.tmpl"); err != nil {
			t.Errorf("preset %s: %v", p, err)
		}
		fixtures, err := fs.Glob(FS, "presets/"+p+"/fixtures/*.json.tmpl")
		if err != nil || len(fixtures) == 0 {
			t.Errorf("preset %s has no fixtures (%v)", p, err)
		}
	}
}
