package scaffold

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"

	"github.com/bsadapter/bsadapter/templates"
)

// RecordFile is what new, add and upgrade write beside bsadapter.json:
// the template version the adapter's files were generated from, the
// answers they were generated with, and a hash of each generated file as
// generated. add and upgrade render the templates again with those
// answers; the hashes tell which files the author changed since.
const RecordFile = "bsadapter.generated.json"

// Record is RecordFile's content.
type Record struct {
	Comment string `json:"$comment"`
	// Templates is the template version (templates.CurrentID of the
	// bsadapter that wrote it).
	Templates string `json:"templates"`
	// Root is the folder the file paths are relative to, from the
	// record's folder: "." for a package, the checkout's top for a
	// subpath.
	Root    string  `json:"root"`
	Answers Answers `json:"answers"`
	// Files maps each generated file to "sha256:HEX" of its content as
	// the templates rendered it.
	Files map[string]string `json:"files"`
}

// Answers are the options an adapter was generated with.
type Answers struct {
	Name        string   `json:"name"`
	PackageName string   `json:"packageName,omitempty"`
	SDKs        []string `json:"sdks"`
	Format      string   `json:"format"`
	Preset      string   `json:"preset"`
	Contracts   []string `json:"contracts"`
	Storage     string   `json:"storage,omitempty"`
	Placement   string   `json:"placement"`
}

const recordComment = "Written by bsadapter new, add and upgrade: the templates and answers this adapter was generated with, and a hash of each file as generated. bsadapter upgrade and add read it; do not edit it."

// Hash is how the record names a file's content.
func Hash(b []byte) string {
	h := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(h[:])
}

var hashPattern = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

func answersOf(o *Options) Answers {
	a := Answers{Name: o.Name, SDKs: slices.Clone(o.SDKs), Format: o.Format, Preset: o.Preset, Contracts: slices.Clone(o.Contracts), Storage: o.Storage, Placement: o.Placement}
	if o.Placement == PlacementPackage {
		a.PackageName = o.PackageName
	}
	return a
}

// options turns recorded answers back into options for the adapter
// whose files are under root.
func (a Answers) options(root string) *Options {
	return &Options{Name: a.Name, PackageName: a.PackageName, SDKs: slices.Clone(a.SDKs), Format: a.Format, Preset: a.Preset,
		Contracts: slices.Clone(a.Contracts), Storage: a.Storage, Placement: a.Placement, Dir: root}
}

// newRecord encodes the record of files rendered from template version
// id with the options o.
func newRecord(o *Options, id string, files []File) ([]byte, error) {
	l := layoutFor(o)
	r := Record{Comment: recordComment, Templates: id, Root: rel(l.bridge, "."), Answers: answersOf(o), Files: map[string]string{}}
	if r.Root == "./." {
		r.Root = "."
	}
	for _, f := range files {
		r.Files[f.Path] = Hash(f.Data)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// RecordError is a record that cannot be used, naming the file and what
// is wrong in it.
type RecordError struct {
	File string
	Msg  string
	Fix  string
}

func (e *RecordError) Error() string { return e.File + ": " + e.Msg }

// parseRecord reads and checks a record (file names it in errors).
func parseRecord(file string, b []byte) (*Record, error) {
	bad := func(fix, format string, args ...any) error {
		return &RecordError{File: file, Msg: fmt.Sprintf(format, args...), Fix: fix}
	}
	restore := "restore it from version control (git checkout -- " + RecordFile + ")"
	var r Record
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			line, col := lineCol(b, se.Offset)
			return nil, bad(restore, "line %d, column %d: %v", line, col, err)
		case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
			line, col := lineCol(b, int64(len(b)))
			return nil, bad(restore, "line %d, column %d: the JSON ends before the record does", line, col)
		case errors.As(err, &te):
			line, col := lineCol(b, te.Offset)
			return nil, bad(restore, "line %d, column %d: %q should be %s, not %s", line, col, te.Field, te.Type, te.Value)
		}
		return nil, bad(restore, "%v", err)
	}
	switch {
	case r.Templates == "":
		return nil, bad(restore, `"templates" is missing: which template version generated the adapter is not known`)
	case !templates.ValidID(r.Templates):
		return nil, bad("restore it from version control; a version such as \"dev\" or an edited one cannot be reproduced", `"templates" is %q, not a template version (t- and 16 hex digits)`, r.Templates)
	case r.Root != "." && r.Root != "../../../..":
		return nil, bad(restore, `"root" is %q: it is "." for a package and "../../../.." for a subpath`, r.Root)
	case len(r.Files) == 0:
		return nil, bad(restore, `"files" is empty: the record lists every generated file`)
	}
	for p, h := range r.Files {
		if !filepath.IsLocal(filepath.FromSlash(p)) || path.Clean(p) != p {
			return nil, bad(restore, `"files" names %q, which is not a clean path inside the adapter`, p)
		}
		if !hashPattern.MatchString(h) {
			return nil, bad(restore, `"files" gives %q for %s: a hash is "sha256:" and 64 hex digits`, h, p)
		}
	}
	return &r, nil
}

func lineCol(b []byte, off int64) (int, int) {
	if off > int64(len(b)) {
		off = int64(len(b))
	}
	line := 1 + bytes.Count(b[:off], []byte("\n"))
	col := int(off) - bytes.LastIndexByte(b[:off], '\n')
	return line, col
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
