package report

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html"
	"io"
)

// The report page's style and script, inlined into every page: the file
// needs nothing beside it and loads nothing from the network.
var (
	//go:embed html/report.css
	htmlCSS string
	//go:embed html/report.js
	htmlJS string
)

// The kinds of results an HTML report (and a job summary) knows how to
// lay out: they say how to read the JSON document.
const (
	KindConform       = "conform"
	KindCheckFixtures = "check-fixtures"
	KindLint          = "lint"
)

// HTML is one self-contained HTML report: the command's JSON document
// (the same one --format json prints) and which command made it.
type HTML struct {
	// Kind is KindConform, KindCheckFixtures or KindLint.
	Kind string
	// Title heads the page ("bsadapter conform" when empty).
	Title string
	// Doc is the command's JSON document.
	Doc any
}

// htmlData is what the page's script reads.
type htmlData struct {
	Kind string `json:"kind"`
	Doc  any    `json:"doc"`
}

// WriteHTML writes h as one HTML file with its style, script and data
// inline. The data is the JSON document inside a script element of type
// application/json, encoded with '<', '>' and '&' escaped, so no string
// in it (a message holding "</script>") can end the element; the script
// puts every value on the page as text, never as markup. A content
// security policy forbids every load from outside the file.
func WriteHTML(w io.Writer, h HTML) error {
	switch h.Kind {
	case KindConform, KindCheckFixtures, KindLint:
	default:
		return fmt.Errorf("report: no HTML layout for results of kind %q", h.Kind)
	}
	title := h.Title
	if title == "" {
		title = "bsadapter " + h.Kind
	}
	data, err := json.Marshal(htmlData{Kind: h.Kind, Doc: h.Doc})
	if err != nil {
		return fmt.Errorf("report: encode the document for HTML: %w", err)
	}
	var b bytes.Buffer
	b.Grow(len(data) + len(htmlCSS) + len(htmlJS) + 1024)
	b.WriteString(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>`)
	b.WriteString(html.EscapeString(title))
	b.WriteString("</title>\n<style>\n")
	b.WriteString(htmlCSS)
	b.WriteString("</style>\n</head>\n<body>\n<noscript><p>This report is drawn by a script in the page; allow scripts for this file to see it. The data is in the element with id \"bsadapter-data\".</p></noscript>\n<main id=\"app\" data-kind=\"")
	b.WriteString(html.EscapeString(h.Kind))
	b.WriteString("\"><h1>")
	b.WriteString(html.EscapeString(title))
	b.WriteString("</h1></main>\n<script type=\"application/json\" id=\"bsadapter-data\">")
	b.Write(data)
	b.WriteString("</script>\n<script>\n")
	b.WriteString(htmlJS)
	b.WriteString("</script>\n</body>\n</html>\n")
	_, err = w.Write(b.Bytes())
	return err
}
