package report

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// A log has one run with its driver and results (an empty list, not
// null, when there are none); places are 1-based, relative paths stay
// relative URIs and absolute ones become file URIs.
func TestSARIF(t *testing.T) {
	log := NewSARIF(SARIFDriver{Name: "t", InformationURI: "https://example.invalid"}, nil)
	var b bytes.Buffer
	if err := WriteSARIF(&b, log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"results": []`) || !strings.Contains(b.String(), `"version": "2.1.0"`) || !strings.HasSuffix(b.String(), "}\n") {
		t.Errorf("empty log:\n%s", b.String())
	}
	for _, c := range []struct {
		file, uri string
		line, col int
	}{
		{"src/a b.ts", "src/a%20b.ts", 1, 1},
		{"/abs/x.ts", "file:///abs/x.ts", 1, 1},
	} {
		l := NewSARIFLocation(c.file, 0, -3, "")
		if l.PhysicalLocation.ArtifactLocation.URI != c.uri || l.PhysicalLocation.Region.StartLine != c.line || l.PhysicalLocation.Region.StartColumn != c.col || l.Message != nil {
			t.Errorf("%s: %+v", c.file, l)
		}
	}
	if l := NewSARIFLocation("a.ts", 3, 4, "imports x"); l.Message == nil || l.Message.Text != "imports x" || l.PhysicalLocation.Region.StartLine != 3 {
		t.Errorf("with a message: %+v", l)
	}
}

// Write picks the form of the format asked for, and refuses one the
// results do not have rather than printing something else.
func TestWrite(t *testing.T) {
	res := Results{
		JSON:        map[string]int{"a": 1},
		Annotations: func() []Annotation { return []Annotation{{Level: LevelNotice, Title: "t", Message: "m"}} },
		SARIF:       func() *SARIF { return NewSARIF(SARIFDriver{Name: "t"}, nil) },
	}
	res.Text = func(w io.Writer) error { _, err := io.WriteString(w, "text\n"); return err }
	for format, want := range map[string]string{"json": "{\n  \"a\": 1\n}\n", "text": "text\n", "github": "::notice title=t::m\n"} {
		var b bytes.Buffer
		if err := Write(&b, format, res); err != nil || b.String() != want {
			t.Errorf("%s: %q, %v", format, b.String(), err)
		}
	}
	var b bytes.Buffer
	if err := Write(&b, "sarif", res); err != nil || !json.Valid(b.Bytes()) {
		t.Errorf("sarif: %v\n%s", err, b.String())
	}
	b.Reset()
	if err := Write(&b, "junit", res); err == nil || b.Len() != 0 {
		t.Errorf("junit without a JUnit form: %v, %q", err, b.String())
	}
}
