// Package templates embeds the adapter templates that "bsadapter new"
// renders. Files end in .tmpl and use text/template with the delimiters
// [% and %], which never occur in TypeScript, JSON or SQL, so the template
// sources stay valid-looking code. Which file goes where is decided by
// internal/scaffold; this package only holds and lists them.
package templates

import (
	"embed"
	"io/fs"
	"strings"
)

// FS holds every template file, under adapter/ (the adapter's own files),
// package/ (files only a standalone npm package has), presets/<preset>/
// (converters and sample fixtures per preset), docs/ and sql/.
//
//go:embed adapter package presets docs sql
var FS embed.FS

// LeftDelim and RightDelim are the text/template delimiters of every file.
const (
	LeftDelim  = "[%"
	RightDelim = "%]"
)

// Presets lists the converter presets, each a folder under presets/.
var Presets = []string{"generic", "langchain", "ai-sdk", "ai-sdk-model", "chat-sdk", "openai-chat", "openai-responses", "anthropic"}

// Files returns the paths of all template files in lexical order.
func Files() ([]string, error) {
	var out []string
	err := fs.WalkDir(FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".tmpl") {
			out = append(out, path)
		}
		return nil
	})
	return out, err
}
