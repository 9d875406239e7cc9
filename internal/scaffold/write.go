package scaffold

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/bsadapter/bsadapter/internal/filekind"
)

// ConflictError lists files that already exist where the plan would
// create them.
type ConflictError struct {
	Root  string
	Paths []string
}

func (e *ConflictError) Error() string {
	shown := e.Paths
	more := ""
	if len(shown) > 5 {
		more = fmt.Sprintf(" and %d more", len(shown)-5)
		shown = shown[:5]
	}
	return fmt.Sprintf("%s already has %s%s; refusing to overwrite", e.Root, strings.Join(shown, ", "), more)
}

// NotAFolderError says the target (or a folder above it) is not a folder:
// a file, a device, a named pipe or a socket.
type NotAFolderError struct {
	Root, File string
	// Kind says what File is ("a file", "a character device", ...); ""
	// reads as "a file".
	Kind string
}

func (e *NotAFolderError) Error() string {
	kind := e.Kind
	if kind == "" {
		kind = "a file"
	}
	if e.Root == e.File {
		return fmt.Sprintf("%s is %s, not a folder", e.Root, kind)
	}
	return fmt.Sprintf("cannot write into %s: %s is %s, not a folder", e.Root, e.File, kind)
}

// checkRoot fails when the root, or the nearest existing folder above it,
// is not a folder.
func checkRoot(root string) error {
	for d := root; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err == nil {
			if !fi.IsDir() {
				return &NotAFolderError{Root: root, File: d, Kind: filekind.Of(fi.Mode())}
			}
			return nil
		}
		if !errors.Is(err, fs.ErrNotExist) && !isNotDir(err) {
			return err
		}
		if filepath.Dir(d) == d {
			return nil
		}
	}
}

// Conflicts returns the plan's files that already exist under its root.
func (p *Plan) Conflicts() ([]string, error) {
	if err := checkRoot(p.Root); err != nil {
		return nil, err
	}
	var out []string
	for _, f := range p.Files {
		_, err := os.Lstat(filepath.Join(p.Root, filepath.FromSlash(f.Path)))
		switch {
		case err == nil:
			out = append(out, f.Path)
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrInvalid):
		case isNotDir(err):
			// A parent is a file: writing would fail; report it as a conflict.
			out = append(out, f.Path)
		default:
			return nil, err
		}
	}
	return out, nil
}

func isNotDir(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "not a directory")
}

// Result says what Write did.
type Result struct {
	Created     []string
	Overwritten []string
	Edited      []string
}

// RollbackError is a write that failed and could not be fully undone: Err
// is why the write failed, Leftovers what is still there that the write
// made or changed (each with why it could not be undone).
type RollbackError struct {
	Err       error
	Leftovers []string
}

func (e *RollbackError) Error() string {
	return fmt.Sprintf("%v; undoing the write failed too, so these are left: %s", e.Err, strings.Join(e.Leftovers, "; "))
}

// Unwrap returns why the write failed.
func (e *RollbackError) Unwrap() error { return e.Err }

// Write writes the plan. It refuses to overwrite existing files unless
// force is set, never writes outside the plan's root (symbolic links
// included: all writes go through an os.Root), and on any failure removes
// every file and folder it created and restores what it overwrote or
// edited, through the same roots; what it could not undo is listed in the
// error (a *RollbackError).
func Write(p *Plan, force bool) (*Result, error) {
	return writePlan(p, force, nil)
}

// undo remembers what a write made, to take it back. The folders made
// above and at the plan's root are relative to base (the nearest folder
// that existed); everything inside the plan's root is relative to root.
type undo struct {
	base, root *os.Root
	baseDir    string // base's folder, for messages
	chain      []string
	dirs       []string
	files      []string
	restore    []File
}

// run takes everything back, newest first, and returns what it could not.
func (u *undo) run() []string {
	var left []string
	note := func(dir, rel, what string, err error) {
		left = append(left, fmt.Sprintf("%s (%s: %v)", filepath.Join(dir, filepath.FromSlash(rel)), what, unwrapPath(err)))
	}
	rootDir := u.baseDir
	if len(u.chain) > 0 {
		rootDir = filepath.Join(u.baseDir, u.chain[len(u.chain)-1])
	}
	if u.root != nil {
		for i := len(u.files) - 1; i >= 0; i-- {
			if err := u.root.Remove(u.files[i]); err != nil && !errors.Is(err, fs.ErrNotExist) {
				note(rootDir, u.files[i], "cannot remove it", err)
			}
		}
		for i := len(u.restore) - 1; i >= 0; i-- {
			f := u.restore[i]
			if err := u.root.WriteFile(f.Path, f.Data, 0o644); err != nil {
				note(rootDir, f.Path, "cannot put its old content back", err)
			}
		}
		for i := len(u.dirs) - 1; i >= 0; i-- {
			if err := u.root.Remove(u.dirs[i]); err != nil && !errors.Is(err, fs.ErrNotExist) {
				note(rootDir, u.dirs[i], "cannot remove the folder", err)
			}
		}
	}
	for i := len(u.chain) - 1; i >= 0; i-- {
		if err := u.base.Remove(u.chain[i]); err != nil && !errors.Is(err, fs.ErrNotExist) {
			note(u.baseDir, u.chain[i], "cannot remove the folder", err)
		}
	}
	return left
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// writePlan is Write; after, when set, runs after each file is written
// (tests use it to change the tree in the middle of a write).
func writePlan(p *Plan, force bool, after func(rel string)) (res *Result, err error) {
	conflicts, err := p.Conflicts()
	if err != nil {
		return nil, err
	}
	if len(conflicts) > 0 && !force {
		return nil, &ConflictError{Root: p.Root, Paths: conflicts}
	}
	for _, f := range p.Files {
		if !filepath.IsLocal(filepath.FromSlash(f.Path)) {
			return nil, fmt.Errorf("%s would leave %s", f.Path, p.Root)
		}
	}
	rootAbs, err := filepath.Abs(p.Root)
	if err != nil {
		return nil, err
	}

	// The root and the folders missing above it are made through a root
	// at the nearest folder that exists; everything else through a root
	// at the plan's root, so that no path of the plan (nor a symbolic
	// link in the tree) leads outside it.
	baseDir, missing, err := nearestFolder(rootAbs)
	if err != nil {
		return nil, err
	}
	base, err := os.OpenRoot(baseDir)
	if err != nil {
		return nil, err
	}
	u := &undo{base: base, baseDir: baseDir}
	// One deferred step, so that the roots are still open for the undoing.
	defer func() {
		if err != nil {
			res = nil
			if left := u.run(); len(left) > 0 {
				err = &RollbackError{Err: err, Leftovers: left}
			}
		}
		if u.root != nil && u.root != base {
			u.root.Close()
		}
		base.Close()
	}()
	for _, d := range missing {
		if err = base.Mkdir(d, 0o755); err != nil {
			return nil, createErr(filepath.Join(baseDir, d), err)
		}
		u.chain = append(u.chain, d)
	}
	root := base
	if len(missing) > 0 {
		if root, err = base.OpenRoot(missing[len(missing)-1]); err != nil {
			return nil, err
		}
	}
	u.root = root

	res = &Result{}
	for _, f := range p.Files {
		native := filepath.FromSlash(f.Path)
		for _, d := range parents(path.Dir(f.Path)) {
			d := filepath.FromSlash(d)
			if _, serr := root.Lstat(d); errors.Is(serr, fs.ErrNotExist) {
				if err = root.Mkdir(d, 0o755); err != nil {
					return nil, createErr(filepath.Join(rootAbs, d), err)
				}
				u.dirs = append(u.dirs, d)
			}
		}
		old, rerr := root.ReadFile(native)
		existed := rerr == nil
		if err = root.WriteFile(native, f.Data, 0o644); err != nil {
			return nil, createErr(filepath.Join(rootAbs, native), err)
		}
		if existed {
			u.restore = append(u.restore, File{Path: native, Data: old})
			res.Overwritten = append(res.Overwritten, f.Path)
		} else {
			u.files = append(u.files, native)
			res.Created = append(res.Created, f.Path)
		}
		if after != nil {
			after(f.Path)
		}
	}
	for _, e := range p.Edits {
		if bytes.Equal(e.Before, e.After) {
			continue
		}
		native := filepath.FromSlash(e.Path)
		cur, rerr := root.ReadFile(native)
		if rerr != nil {
			return nil, rerr
		}
		if !bytes.Equal(cur, e.Before) {
			return nil, fmt.Errorf("%s changed while bsadapter was running; run it again", e.Path)
		}
		if err = root.WriteFile(native, e.After, 0o644); err != nil {
			return nil, createErr(filepath.Join(rootAbs, native), err)
		}
		u.restore = append(u.restore, File{Path: native, Data: e.Before})
		res.Edited = append(res.Edited, e.Path)
	}
	return res, nil
}

// WriteError is a file or folder of the plan that could not be created
// or written. Path is its full path.
type WriteError struct {
	Path string
	Err  error
}

func (e *WriteError) Error() string {
	if errors.Is(e.Err, fs.ErrNotExist) {
		// The folder it goes in exists (the write goes through it), yet
		// the system says "no such file": the folder takes no new
		// entries, as /proc and /sys do not.
		return fmt.Sprintf("cannot create %s: %v (%s does not take new files: it is not an ordinary folder, or it was removed meanwhile)", e.Path, e.Err, filepath.Dir(e.Path))
	}
	return fmt.Sprintf("cannot write %s: %v", e.Path, e.Err)
}

// Unwrap returns the system's error.
func (e *WriteError) Unwrap() error { return e.Err }

func createErr(path string, err error) error {
	return &WriteError{Path: path, Err: unwrapPath(err)}
}

// parents returns "a", "a/b", "a/b/c" for "a/b/c" ("." gives none).
func parents(dir string) []string {
	if dir == "." || dir == "" {
		return nil
	}
	var out []string
	parts := strings.Split(dir, "/")
	for i := range parts {
		out = append(out, strings.Join(parts[:i+1], "/"))
	}
	return out
}

// nearestFolder returns the nearest folder of dir and its parents that
// exists, and the folders below it to make, down to dir, as paths relative
// to it ("a", "a/b", ...).
func nearestFolder(dir string) (string, []string, error) {
	var names []string
	d := dir
	for {
		fi, err := os.Stat(d)
		if err == nil {
			if !fi.IsDir() {
				return "", nil, fmt.Errorf("%s is not a folder", d)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", nil, err
		}
		if filepath.Dir(d) == d {
			return "", nil, err
		}
		names = append(names, filepath.Base(d))
		d = filepath.Dir(d)
	}
	var missing []string
	for i := len(names) - 1; i >= 0; i-- {
		prev := ""
		if len(missing) > 0 {
			prev = missing[len(missing)-1]
		}
		missing = append(missing, filepath.Join(prev, names[i]))
	}
	return d, missing, nil
}

// Diff returns the edit as added and removed lines with their line
// numbers ("+12 ..." / "-12 ..."), for --dry-run.
func (e Edit) Diff() []string {
	a := strings.Split(string(e.Before), "\n")
	b := strings.Split(string(e.After), "\n")
	// Longest common subsequence over lines; package.json files are small.
	n, m := len(a), len(b)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []string
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			i++
			j++
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			// Removals first, so a changed line reads "-old" then "+new".
			out = append(out, fmt.Sprintf("-%d %s", i+1, a[i]))
			i++
		default:
			out = append(out, fmt.Sprintf("+%d %s", j+1, b[j]))
			j++
		}
	}
	return out
}
