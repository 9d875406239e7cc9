package lint

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/bsadapter/bsadapter/internal/filekind"
)

// MaxFileSize is the largest file lint reads. An adapter's files are
// written by hand and far smaller; a bigger one is generated or minified
// code, which would cost seconds and hundreds of megabytes to read for
// nothing. Such a file is refused, not skipped: a file left unread could
// hide an eager import of the SDK behind a clean report.
const MaxFileSize = 4 << 20

// refusedFile is a file lint will not read: a named pipe, a device or a
// socket (reading one could block for ever, or never end), a symbolic
// link loop, or a file larger than MaxFileSize.
type refusedFile struct {
	path string // absolute
	why  string // "is a named pipe, not a regular file", ...
	fix  string
}

func (r *refusedFile) Error() string { return displayPath(r.path) + " " + r.why }

// usage turns the refusal into the error the CLI shows (exit 2).
func (r *refusedFile) usage() *UsageError {
	return &UsageError{Msg: SafeName(displayPath(r.path)) + " " + r.why, Fix: r.fix}
}

// checkFile refuses what is not a regular file of at most MaxFileSize.
func checkFile(p string, st fs.FileInfo) *refusedFile {
	mode := st.Mode()
	if !mode.IsRegular() {
		if mode.IsDir() {
			return &refusedFile{path: p, why: "is a folder where lint expects a file", fix: "rename the folder, or remove it"}
		}
		return &refusedFile{path: p, why: filekind.IsNot(mode, filekind.Regular) + "; lint reads only regular files and did not open it",
			fix: "replace it with a regular file, or remove it"}
	}
	if st.Size() > MaxFileSize {
		return tooBig(p, st.Size())
	}
	return nil
}

func tooBig(p string, size int64) *refusedFile {
	return &refusedFile{path: p,
		why: fmt.Sprintf("is %.1f MiB, more than the %d MiB lint reads in one file; nothing was linted", float64(size)/(1<<20), MaxFileSize>>20),
		fix: "an adapter's source is written by hand: move generated or minified code out of the adapter's source folders and out of the entry points' imports"}
}

// statFile is os.Stat that names a link loop.
func statFile(p string) (fs.FileInfo, error) {
	st, err := os.Stat(p)
	if err != nil && isLoop(err) {
		return nil, &refusedFile{path: p, why: "is a symbolic link loop", fix: "point the link at a file"}
	}
	return st, err
}

// readFile reads a regular file of at most MaxFileSize. It looks before
// opening (opening a named pipe waits for a writer), opens without
// waiting in case the file was swapped since, and looks again at what it
// opened. A file it will not read comes back as *refusedFile.
func readFile(p string) ([]byte, error) {
	st, err := statFile(p)
	if err != nil {
		return nil, err
	}
	if r := checkFile(p, st); r != nil {
		return nil, r
	}
	f, err := os.OpenFile(p, os.O_RDONLY|openNoWait, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return nil, err
	}
	if r := checkFile(p, st); r != nil {
		return nil, r
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileSize {
		return nil, tooBig(p, int64(len(data)))
	}
	return data, nil
}

// regularFile reports whether p is a file lint may read: false with no
// error when there is nothing there (or it cannot be looked at), false
// with a *refusedFile when what is there is not to be read.
func regularFile(p string) (bool, error) {
	st, err := statFile(p)
	if err != nil {
		var r *refusedFile
		if errors.As(err, &r) {
			return false, err
		}
		return false, nil
	}
	if st.IsDir() {
		return false, nil
	}
	if r := checkFile(p, st); r != nil {
		return false, r
	}
	return true, nil
}

// refusalToUsage turns a refused file into the usage error that names it, and
// leaves other errors as they are.
func refusalToUsage(err error) error {
	var r *refusedFile
	if errors.As(err, &r) {
		return r.usage()
	}
	return err
}

// isLoop says whether err is the system's "too many levels of symbolic
// links".
func isLoop(err error) bool {
	var errno syscall.Errno
	return errors.As(err, &errno) && errno == syscall.ELOOP
}

// displayPath is p as an error message shows it: relative to the current
// folder when it is below it.
func displayPath(p string) string {
	if wd, err := os.Getwd(); err == nil && within(p, wd) {
		return relSlash(wd, p)
	}
	return filepath.ToSlash(p)
}

// CheckFile returns a *UsageError naming p when p is there but is not a
// file lint may read (a named pipe, a device, a link loop), and nil when
// it is a regular file, a folder, or nothing.
func CheckFile(p string) error {
	st, err := statFile(p)
	if err != nil {
		var r *refusedFile
		if errors.As(err, &r) {
			return r.usage()
		}
		return nil
	}
	if st.IsDir() || st.Mode().IsRegular() {
		return nil
	}
	return checkFile(p, st).usage()
}
