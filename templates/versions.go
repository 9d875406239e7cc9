package templates

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing/fstest"
	"time"
)

// A template version is the whole tree of template files, named by a
// hash of it: an ID such as "t-3f9c0a1b2c4d5e6f". An adapter records the
// ID of the templates it was generated from; bsadapter upgrade renders
// that version again, with the adapter's recorded answers, as the base of
// its three-way merge. So every version an adapter can record must stay
// renderable by later releases of bsadapter:
//
//   - the current templates are FS itself;
//   - each released version is kept as versions/ID.tar.gz, embedded: the
//     release process adds the snapshot of the templates it ships
//     (go run ./internal/cmd/tmplsnap), and a test checks every snapshot
//     against its name.
//
// A version that is neither (templates changed since the last release, in
// a build of bsadapter that is not a release) is only known to the build
// that made it; upgrade refuses it by name instead of guessing a base.

//go:embed versions
var snapshots embed.FS

// IDPrefix starts every template version ID.
const IDPrefix = "t-"

var idPattern = regexp.MustCompile(`^t-[0-9a-f]{16}$`)

// ValidID says whether s is shaped like a template version ID.
func ValidID(s string) bool { return idPattern.MatchString(s) }

// IDOf returns the version ID of the template tree fsys: a hash over the
// path and content of every .tmpl file in it.
func IDOf(fsys fs.FS) (string, error) {
	files, err := filesOf(fsys)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", f, len(data))
		h.Write(data)
	}
	return IDPrefix + hex.EncodeToString(h.Sum(nil))[:16], nil
}

func filesOf(fsys fs.FS) ([]string, error) {
	var out []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".tmpl") {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

var current = sync.OnceValues(func() (string, error) { return IDOf(FS) })

// CurrentID is the version ID of the templates this bsadapter holds.
func CurrentID() string {
	id, err := current()
	if err != nil {
		panic(err) // the embedded tree is always readable
	}
	return id
}

// UnknownVersionError is a version this bsadapter has no templates for.
type UnknownVersionError struct {
	ID    string
	Known []string
}

func (e *UnknownVersionError) Error() string {
	return fmt.Sprintf("template version %s is not one this bsadapter can reproduce (it has %s)", e.ID, strings.Join(e.Known, ", "))
}

// extra holds snapshots added at run time (tests of older versions).
var extra = map[string]fs.FS{}

// Register makes fsys available as a template version and returns its
// ID. Tests use it to stand in for an older release.
func Register(fsys fs.FS) (string, error) {
	id, err := IDOf(fsys)
	if err != nil {
		return "", err
	}
	extra[id] = fsys
	return id, nil
}

// Known lists the template versions this bsadapter can reproduce: the
// current one first, then the snapshots.
func Known() []string {
	out := []string{CurrentID()}
	entries, _ := fs.ReadDir(snapshots, "versions")
	for _, e := range entries {
		if id, ok := strings.CutSuffix(e.Name(), ".tar.gz"); ok && id != out[0] {
			out = append(out, id)
		}
	}
	for id := range extra {
		if id != out[0] {
			out = append(out, id)
		}
	}
	sort.Strings(out[1:])
	return out
}

// Version returns the template tree of a version: the current templates,
// an embedded snapshot, or one registered. A snapshot whose content does
// not hash to its name is an error, never used.
func Version(id string) (fs.FS, error) {
	if id == CurrentID() {
		return FS, nil
	}
	if f, ok := extra[id]; ok {
		return f, nil
	}
	if !ValidID(id) {
		return nil, &UnknownVersionError{ID: id, Known: Known()}
	}
	b, err := snapshots.ReadFile("versions/" + id + ".tar.gz")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &UnknownVersionError{ID: id, Known: Known()}
	}
	if err != nil {
		return nil, err
	}
	fsys, err := Unpack(b)
	if err != nil {
		return nil, fmt.Errorf("templates/versions/%s.tar.gz: %w", id, err)
	}
	got, err := IDOf(fsys)
	if err != nil {
		return nil, err
	}
	if got != id {
		return nil, fmt.Errorf("templates/versions/%s.tar.gz holds version %s: the snapshot was changed after its release", id, got)
	}
	return fsys, nil
}

// Snapshot packs the .tmpl files of fsys as a gzip-compressed tar with
// fixed times and modes, so that one tree always gives the same bytes.
func Snapshot(fsys fs.FS) ([]byte, error) {
	files, err := filesOf(fsys)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	tw := tar.NewWriter(zw)
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		hdr := &tar.Header{Name: f, Mode: 0o644, Size: int64(len(data)), ModTime: time.Unix(0, 0).UTC(), Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Unpack reads a Snapshot back into a tree.
func Unpack(b []byte) (fs.FS, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(zr)
	out := fstest.MapFS{}
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if hdr.Typeflag != tar.TypeReg || !fs.ValidPath(hdr.Name) || path.Clean(hdr.Name) != hdr.Name {
			return nil, fmt.Errorf("entry %q is not a template file", hdr.Name)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		out[hdr.Name] = &fstest.MapFile{Data: data, Mode: 0o644}
	}
	return out, nil
}
