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

// NotAFolderError says the target (or a folder above it) is a file.
type NotAFolderError struct{ Root, File string }

func (e *NotAFolderError) Error() string {
	if e.Root == e.File {
		return fmt.Sprintf("%s is a file, not a folder", e.Root)
	}
	return fmt.Sprintf("cannot write into %s: %s is a file, not a folder", e.Root, e.File)
}

// checkRoot fails when the root, or the nearest existing folder above it,
// is not a folder.
func checkRoot(root string) error {
	for d := root; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err == nil {
			if !fi.IsDir() {
				return &NotAFolderError{Root: root, File: d}
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

// Write writes the plan. It refuses to overwrite existing files unless
// force is set, never writes outside the plan's root (symbolic links
// included: all writes go through an os.Root), and on any failure removes
// every file and folder it created, so nothing is left behind.
func Write(p *Plan, force bool) (res *Result, err error) {
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

	var createdDirs []string // absolute, in creation order
	var createdFiles []string
	var restore []File // edited or overwritten files and their old content
	defer func() {
		if err == nil {
			return
		}
		for i := len(createdFiles) - 1; i >= 0; i-- {
			os.Remove(createdFiles[i])
		}
		for _, f := range restore {
			os.WriteFile(f.Path, f.Data, 0o644)
		}
		for i := len(createdDirs) - 1; i >= 0; i-- {
			os.Remove(createdDirs[i])
		}
	}()

	// Create the root (and missing parents) ourselves, remembering them.
	rootAbs, err := filepath.Abs(p.Root)
	if err != nil {
		return nil, err
	}
	if err := mkdirAllTracked(rootAbs, &createdDirs); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(rootAbs)
	if err != nil {
		return nil, err
	}
	defer root.Close()

	res = &Result{}
	for _, f := range p.Files {
		native := filepath.FromSlash(f.Path)
		dirs := parents(path.Dir(f.Path))
		for _, d := range dirs {
			if _, serr := root.Lstat(filepath.FromSlash(d)); errors.Is(serr, fs.ErrNotExist) {
				if err = root.Mkdir(filepath.FromSlash(d), 0o755); err != nil {
					return nil, fmt.Errorf("create %s: %w", d, err)
				}
				createdDirs = append(createdDirs, filepath.Join(rootAbs, filepath.FromSlash(d)))
			}
		}
		old, rerr := root.ReadFile(native)
		existed := rerr == nil
		if err = root.WriteFile(native, f.Data, 0o644); err != nil {
			return nil, fmt.Errorf("write %s: %w", f.Path, err)
		}
		if existed {
			restore = append(restore, File{Path: filepath.Join(rootAbs, native), Data: old})
			res.Overwritten = append(res.Overwritten, f.Path)
		} else {
			createdFiles = append(createdFiles, filepath.Join(rootAbs, native))
			res.Created = append(res.Created, f.Path)
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
			err = fmt.Errorf("%s changed while bsadapter was running; run it again", e.Path)
			return nil, err
		}
		if err = root.WriteFile(native, e.After, 0o644); err != nil {
			return nil, fmt.Errorf("write %s: %w", e.Path, err)
		}
		restore = append(restore, File{Path: filepath.Join(rootAbs, native), Data: e.Before})
		res.Edited = append(res.Edited, e.Path)
	}
	return res, nil
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

func mkdirAllTracked(dir string, created *[]string) error {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err == nil {
			if !fi.IsDir() {
				return fmt.Errorf("%s is not a folder", d)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	for i := len(missing) - 1; i >= 0; i-- {
		if err := os.Mkdir(missing[i], 0o755); err != nil {
			return err
		}
		*created = append(*created, missing[i])
	}
	return nil
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
