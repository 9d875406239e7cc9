// Package watch reports changes to the files under a set of folders, in
// batches: a batch is sent once the files have been quiet for a short
// spell, so that an editor's save (a temporary file written, then renamed
// over the old one) or a formatter that rewrites ten files is one batch,
// not a dozen.
//
// Folders are watched recursively, and a folder created later (mkdir -p,
// git checkout) is watched from the moment it appears, the files already
// in it reported. node_modules, .git and every other dot-folder are never
// watched, nor are the files editors keep beside the ones they edit (vim's
// swap files and its 4913 probe, Emacs's #autosaves# and .#locks, backups
// ending in ~). It never prints anything.
package watch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// DefaultQuiet is how long the files must be quiet before a batch is sent.
const DefaultQuiet = 60 * time.Millisecond

// maxDelay bounds how long a batch waits for quiet: a file that is
// written to without pause (a log) still gives a batch now and then.
const maxDelay = time.Second

// Batch is one set of changes.
type Batch struct {
	// Paths are the files (or folders) that changed, created, were
	// removed or renamed: absolute, cleaned, sorted, each once.
	Paths []string
	// Overflow says the system dropped events (its queue overflowed): the
	// batch may miss paths, and a caller should treat everything as
	// changed.
	Overflow bool
}

// Options says what to watch.
type Options struct {
	// Roots are folders (watched recursively) or files (only that file
	// is reported; its folder is watched for it, so that a save by
	// rename is seen).
	Roots []string
	// Quiet is how long the files must be quiet before a batch is sent
	// (0 is DefaultQuiet).
	Quiet time.Duration
}

// Watcher watches the roots until Close.
type Watcher struct {
	fsw     *fsnotify.Watcher
	quiet   time.Duration
	batches chan Batch
	errs    chan error
	done    chan struct{}
	wg      sync.WaitGroup

	// dirs are the folders watched recursively; files maps a folder
	// watched for single files to the names wanted in it.
	mu    sync.Mutex
	dirs  map[string]bool
	files map[string]map[string]bool
}

// New starts watching the roots. Each root must exist.
func New(opts Options) (*Watcher, error) {
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, limitErr(err)
	}
	w := &Watcher{
		fsw: fsw, quiet: opts.Quiet,
		batches: make(chan Batch), errs: make(chan error, 1), done: make(chan struct{}),
		dirs: map[string]bool{}, files: map[string]map[string]bool{},
	}
	if w.quiet <= 0 {
		w.quiet = DefaultQuiet
	}
	for _, r := range opts.Roots {
		if err := w.addRoot(r); err != nil {
			fsw.Close()
			return nil, err
		}
	}
	w.wg.Add(1)
	go w.loop()
	return w, nil
}

// Batches delivers the batches. A batch not taken yet grows with the
// changes that come after it.
func (w *Watcher) Batches() <-chan Batch { return w.batches }

// Errors delivers what went wrong while watching (a folder that could not
// be watched); watching goes on.
func (w *Watcher) Errors() <-chan error { return w.errs }

// Close stops watching and waits until the watcher's goroutine is gone.
func (w *Watcher) Close() error {
	select {
	case <-w.done:
		return nil
	default:
	}
	close(w.done)
	err := w.fsw.Close()
	w.wg.Wait()
	return err
}

func (w *Watcher) addRoot(root string) error {
	abs, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		dir, name := filepath.Split(abs)
		dir = filepath.Clean(dir)
		w.mu.Lock()
		if w.files[dir] == nil {
			w.files[dir] = map[string]bool{}
		}
		w.files[dir][name] = true
		w.mu.Unlock()
		if err := w.fsw.Add(dir); err != nil {
			return fmt.Errorf("watch %s: %w", dir, limitErr(err))
		}
		return nil
	}
	_, err = w.addTree(abs)
	return err
}

// addTree watches dir and every folder below it that is not skipped, and
// returns the files found in them (those a watch added now may have
// missed being created).
func (w *Watcher) addTree(dir string) ([]string, error) {
	var found []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			// A folder that went away or cannot be read is not watched.
			return nil
		}
		if !d.IsDir() {
			if !SkipFile(d.Name()) {
				found = append(found, p)
			}
			return nil
		}
		if p != dir && SkipDir(d.Name()) {
			return filepath.SkipDir
		}
		if err := w.fsw.Add(p); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipDir
			}
			return fmt.Errorf("watch %s: %w", p, limitErr(err))
		}
		w.mu.Lock()
		w.dirs[p] = true
		w.mu.Unlock()
		return nil
	})
	return found, err
}

// SkipDir says whether a folder of this name is never watched:
// node_modules and every dot-folder (.git, .cache, .next).
func SkipDir(name string) bool {
	return name == "node_modules" || (strings.HasPrefix(name, ".") && name != "." && name != "..")
}

// SkipFile says whether a file of this name is an editor's scratch file,
// never a change of its own: vim's swap files and its 4913 write probe,
// Emacs's #autosave# and .#lock files, backups ending in ~.
func SkipFile(name string) bool {
	switch {
	case name == "4913", name == ".DS_Store":
		return true
	case strings.HasSuffix(name, "~"), strings.HasPrefix(name, ".#"):
		return true
	case strings.HasPrefix(name, "#") && strings.HasSuffix(name, "#"):
		return true
	}
	ext := filepath.Ext(name)
	return len(ext) == 4 && strings.HasPrefix(ext, ".sw") || len(ext) == 4 && strings.HasPrefix(ext, ".sv")
}

// wanted says whether a change to p is reported.
func (w *Watcher) wanted(p string) bool {
	dir, name := filepath.Split(p)
	dir = filepath.Clean(dir)
	if SkipFile(name) {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.dirs[dir] {
		return true
	}
	return w.files[dir][name]
}

func (w *Watcher) loop() {
	defer w.wg.Done()
	var (
		pending  = map[string]bool{}
		overflow bool
		timer    *time.Timer
		timerC   <-chan time.Time
		first    time.Time
		out      chan Batch
		ready    Batch
	)
	arm := func() {
		if timer == nil {
			timer = time.NewTimer(w.quiet)
		} else {
			timer.Reset(w.quiet)
		}
		timerC = timer.C
	}
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		select {
		case <-w.done:
			return
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			for _, p := range w.handle(ev) {
				pending[p] = true
			}
			if len(pending) == 0 && !overflow {
				continue
			}
			if first.IsZero() {
				first = time.Now()
			}
			if time.Since(first) < maxDelay {
				arm()
			}
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				overflow = true
				if first.IsZero() {
					first = time.Now()
				}
				arm()
				continue
			}
			w.report(err)
		case <-timerC:
			timerC = nil
			first = time.Time{}
			// A batch nobody has taken yet grows.
			b := Batch{Overflow: overflow}
			for p := range pending {
				b.Paths = append(b.Paths, p)
			}
			ready = merge(ready, b)
			pending, overflow = map[string]bool{}, false
			out = w.batches
		case out <- ready:
			out, ready = nil, Batch{}
		}
	}
}

func merge(a, b Batch) Batch {
	paths := append(slices.Clone(a.Paths), b.Paths...)
	slices.Sort(paths)
	return Batch{Paths: slices.Compact(paths), Overflow: a.Overflow || b.Overflow}
}

// handle turns one event into the paths it reports, watching a folder
// that appeared (and reporting the files already in it).
func (w *Watcher) handle(ev fsnotify.Event) []string {
	p := filepath.Clean(ev.Name)
	if !w.wanted(p) {
		return nil
	}
	if ev.Has(fsnotify.Create) {
		if st, err := os.Lstat(p); err == nil && st.IsDir() {
			if SkipDir(filepath.Base(p)) {
				return nil
			}
			w.mu.Lock()
			recursive := w.dirs[filepath.Dir(p)]
			w.mu.Unlock()
			if !recursive {
				return nil
			}
			found, err := w.addTree(p)
			if err != nil {
				w.report(err)
			}
			return append(found, p)
		}
	}
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		w.mu.Lock()
		for d := range w.dirs {
			if d == p || strings.HasPrefix(d, p+string(filepath.Separator)) {
				delete(w.dirs, d)
			}
		}
		w.mu.Unlock()
	}
	if ev.Op == fsnotify.Chmod {
		// A touch of the mode or times only (an indexer, a backup tool):
		// the contents are the same.
		return nil
	}
	return []string{p}
}

func (w *Watcher) report(err error) {
	select {
	case w.errs <- err:
	default:
	}
}

// limitErr explains the errors that mean the system's limit on watches
// (or on inotify instances) is reached.
func limitErr(err error) error {
	msg := err.Error()
	if strings.Contains(msg, "no space left on device") || strings.Contains(msg, "too many open files") {
		return fmt.Errorf("%w (the system's limit of watched folders is reached: raise it, on Linux with 'sysctl fs.inotify.max_user_watches=524288' and fs.inotify.max_user_instances)", err)
	}
	return err
}
