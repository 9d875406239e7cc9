package release

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/bsadapter/bsadapter/internal/testenv"
)

// The release the tests install: built here for this machine, or the real
// snapshot when BSADAPTER_RELEASE_DIST names GoReleaser's dist folder (then
// BSADAPTER_RELEASE_VERSION is the version its binaries must report).
const (
	fakeVersion = "1.2.3-test"
	fakeCommit  = "0123456789abcdef"
	fakeDate    = "2026-11-30T00:00:00Z"
)

var (
	buildOnce  sync.Once
	builtDir   string
	builtErr   error
	scratchDir string // removed by TestMain
)

func TestMain(m *testing.M) {
	code := m.Run()
	if scratchDir != "" {
		os.RemoveAll(scratchDir)
	}
	os.Exit(code)
}

// sourceRelease returns a folder holding the archive for this machine and
// checksums.txt, and the version its binary reports.
func sourceRelease(t *testing.T) (dir, version string) {
	t.Helper()
	if dist := os.Getenv("BSADAPTER_RELEASE_DIST"); dist != "" {
		v := os.Getenv("BSADAPTER_RELEASE_VERSION")
		if v == "" {
			t.Fatal("BSADAPTER_RELEASE_DIST is set but BSADAPTER_RELEASE_VERSION is not: set it to the version the snapshot binaries report")
		}
		return dist, v
	}
	root := testenv.RepoRoot(t)
	buildOnce.Do(func() { builtDir, builtErr = buildFakeRelease(root) })
	if builtErr != nil {
		t.Fatalf("building a release for this machine: %v", builtErr)
	}
	return builtDir, fakeVersion
}

// buildFakeRelease builds bsadapter with its version set through ldflags,
// as .goreleaser.yaml does, and packs it like the release does. It keeps
// the build settings of the rest of the test run (no -trimpath, cgo as the
// machine has it) so that the build cache of the other packages' tests
// serves it: a static, trimmed build compiles every dependency again,
// minutes on a cold cache. scripts/release-check tests the archives that
// GoReleaser really builds, static and trimmed.
func buildFakeRelease(root string) (string, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", err
	}
	scratchDir, err = os.MkdirTemp("", "bsadapter-release-test-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(scratchDir, "bsadapter")
	ldflags := fmt.Sprintf("-s -w -X %[1]s.version=%s -X %[1]s.commit=%s -X %[1]s.date=%s", VersionPackage, fakeVersion, fakeCommit, fakeDate)
	cmd := exec.Command(goBin, "build", "-ldflags", ldflags, "-o", bin, "./cmd/bsadapter")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	exe, err := os.ReadFile(bin)
	if err != nil {
		return "", err
	}
	license, err := os.ReadFile(filepath.Join(root, "LICENSE"))
	if err != nil {
		return "", err
	}
	dir := filepath.Join(scratchDir, "release")
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", err
	}
	archive, err := tarGz([]tarEntry{{"bsadapter", 0o755, exe}, {"LICENSE", 0o644, license}})
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, HostArchive()), archive, 0o644); err != nil {
		return "", err
	}
	// A second archive makes checksums.txt look like a real one, with the
	// host's line not the first.
	other := ArchiveName("windows", "arm64")
	sums := fmt.Sprintf("%s  %s\n%s  %s\n", sha256Hex([]byte("other")), other, sha256Hex(archive), HostArchive())
	return dir, os.WriteFile(filepath.Join(dir, ChecksumsFile), []byte(sums), 0o644)
}

type tarEntry struct {
	name string
	mode int64
	data []byte
}

func tarGz(entries []tarEntry) ([]byte, error) {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		if err := tw.WriteHeader(&tar.Header{Name: e.name, Mode: e.mode, Size: int64(len(e.data)), Typeflag: tar.TypeReg}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// served is a copy of the release on a local HTTP server, which the test
// may alter first, and the log of the paths requested.
type served struct {
	dir, url string
	mu       sync.Mutex
	paths    []string
}

func (s *served) requested() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.paths)
}

// serve copies the host archive and checksums.txt of the release into a
// fresh folder and serves it on 127.0.0.1 until the test ends.
func serve(t *testing.T, alter func(dir string)) *served {
	t.Helper()
	src, _ := sourceRelease(t)
	s := &served{dir: t.TempDir()}
	for _, name := range []string{HostArchive(), ChecksumsFile} {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatalf("the release lacks %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(s.dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if alter != nil {
		alter(s.dir)
	}
	files := http.FileServer(http.Dir(s.dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.paths = append(s.paths, r.URL.Path)
		s.mu.Unlock()
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	s.url = srv.URL + "/"
	return s
}

// install is one run of install.sh and what it left behind.
type install struct {
	code           int
	stdout, stderr string
	binDir, tmpDir string
}

// runInstall runs install.sh with sh in a clean environment: its own HOME,
// TMPDIR and install folder, so that leftovers can be checked.
func runInstall(t *testing.T, baseURL string, extraEnv []string, args ...string) install {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		testenv.Missing(t, "sh is not on PATH")
	}
	work := t.TempDir()
	res := install{binDir: filepath.Join(work, "bin"), tmpDir: filepath.Join(work, "tmp")}
	if err := os.Mkdir(res.tmpDir, 0o755); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(testenv.RepoRoot(t), "install.sh")
	cmd := exec.Command(sh, append([]string{script}, args...)...)
	cmd.Dir = work
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + filepath.Join(work, "home"),
		"TMPDIR=" + res.tmpDir,
		"BSADAPTER_INSTALL_DIR=" + res.binDir,
		"BSADAPTER_INSTALL_BASE_URL=" + baseURL,
	}, extraEnv...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	res.stdout, res.stderr = out.String(), errb.String()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		res.code = ee.ExitCode()
	default:
		t.Fatalf("running install.sh: %v", err)
	}
	// Whatever happened, the script's temporary folder must be gone.
	if left, _ := os.ReadDir(res.tmpDir); len(left) > 0 {
		t.Errorf("install.sh left %d entries in TMPDIR, e.g. %s", len(left), left[0].Name())
	}
	return res
}

// assertNothingInstalled checks a failed run: exit 1, the expected
// message, the promise that nothing was installed, and no file at all in
// the install folder.
func assertNothingInstalled(t *testing.T, r install, wantMsg string) {
	t.Helper()
	assertRefused(t, r, 1, wantMsg)
}

// assertRefused is assertNothingInstalled with the exit code to expect.
func assertRefused(t *testing.T, r install, code int, wantMsg string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit code %d, want %d\nstderr:\n%s", r.code, code, r.stderr)
	}
	if !strings.Contains(r.stderr, wantMsg) {
		t.Errorf("stderr does not say %q:\n%s", wantMsg, r.stderr)
	}
	if !strings.Contains(r.stderr, "nothing was installed") {
		t.Errorf("stderr does not say that nothing was installed:\n%s", r.stderr)
	}
	if r.stdout != "" {
		t.Errorf("a failed install printed on stdout: %q", r.stdout)
	}
	if entries, _ := os.ReadDir(r.binDir); len(entries) > 0 {
		t.Errorf("the install folder is not empty after a failure: %s", entries[0].Name())
	}
}

func hostUname(t *testing.T) []string {
	t.Helper()
	s := map[string]string{"linux": "Linux", "darwin": "Darwin"}[runtime.GOOS]
	m := map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[runtime.GOARCH]
	if s == "" || m == "" {
		t.Skipf("install.sh installs on Linux and macOS on amd64 and arm64, not %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	return []string{"BSADAPTER_INSTALL_UNAME_S=" + s, "BSADAPTER_INSTALL_UNAME_M=" + m}
}

func TestInstallScriptInstallsAWorkingBinary(t *testing.T) {
	env := hostUname(t)
	_, version := sourceRelease(t)
	s := serve(t, nil)
	r := runInstall(t, s.url, env)
	if r.code != 0 {
		t.Fatalf("install.sh failed with exit %d:\n%s", r.code, r.stderr)
	}
	bin := filepath.Join(r.binDir, "bsadapter")
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("the installed binary does not run: %v", err)
	}
	if want := "bsadapter " + version + " "; !strings.HasPrefix(string(out), want) {
		t.Fatalf("installed bsadapter reports %q, want it to start with %q", out, want)
	}
	if !strings.Contains(r.stdout, "installed "+strings.TrimSpace(string(out))) || !strings.Contains(r.stdout, bin) {
		t.Errorf("install.sh does not report the installed version and path:\n%s", r.stdout)
	}
	if fi, err := os.Stat(bin); err != nil || fi.Mode().Perm()&0o111 == 0 {
		t.Errorf("installed binary is not executable: %v %v", fi.Mode(), err)
	}
	if entries, _ := os.ReadDir(r.binDir); len(entries) != 1 {
		t.Errorf("the install folder holds %d entries, want only bsadapter", len(entries))
	}
	want := []string{"/" + ChecksumsFile, "/" + HostArchive()}
	if got := s.requested(); !slices.Equal(got, want) {
		t.Errorf("install.sh requested %v, want %v", got, want)
	}
}

// TestInstallScriptFlagsAndReinstall installs into a folder given with
// --bin-dir over an older file, which must be replaced in place. It lets
// the script ask the real uname.
func TestInstallScriptFlagsAndReinstall(t *testing.T) {
	hostUname(t) // only to skip on platforms without a release
	var env []string
	s := serve(t, nil)
	dir := filepath.Join(t.TempDir(), "custom bin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bsadapter"), []byte("#!/bin/sh\necho old\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := runInstall(t, s.url, env, "--bin-dir", dir)
	if r.code != 0 {
		t.Fatalf("install.sh --bin-dir failed with exit %d:\n%s", r.code, r.stderr)
	}
	out, err := exec.Command(filepath.Join(dir, "bsadapter"), "version").Output()
	if err != nil || !strings.HasPrefix(string(out), "bsadapter ") {
		t.Fatalf("the reinstalled binary reports %q (%v), want a bsadapter version", out, err)
	}
	if entries, _ := os.ReadDir(r.binDir); len(entries) > 0 {
		t.Errorf("--bin-dir did not override BSADAPTER_INSTALL_DIR")
	}
	if !strings.Contains(r.stderr, "is not on your PATH") {
		t.Errorf("no PATH hint for a folder that is not on PATH:\n%s", r.stderr)
	}
}

func TestInstallScriptChecksumMismatch(t *testing.T) {
	env := hostUname(t)
	s := serve(t, func(dir string) {
		path := filepath.Join(dir, ChecksumsFile)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// Corrupt the archive's own line, keeping the format intact.
		var lines []string
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			if f := strings.Fields(l); len(f) == 2 && f[1] == HostArchive() {
				l = sha256Hex([]byte("not the archive")) + "  " + f[1]
			}
			lines = append(lines, l)
		}
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	r := runInstall(t, s.url, env)
	assertNothingInstalled(t, r, "checksum mismatch for "+HostArchive())
}

// TestInstallScriptKeepsExistingOnFailure: a failed upgrade must leave the
// installed binary byte for byte as it was.
func TestInstallScriptKeepsExistingOnFailure(t *testing.T) {
	env := hostUname(t)
	s := serve(t, func(dir string) {
		// Same size, different bytes: only the checksum can tell.
		path := filepath.Join(dir, HostArchive())
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		data[len(data)/2] ^= 0xff
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	})
	dir := t.TempDir()
	old := []byte("#!/bin/sh\necho bsadapter 0.0.1\n")
	if err := os.WriteFile(filepath.Join(dir, "bsadapter"), old, 0o755); err != nil {
		t.Fatal(err)
	}
	r := runInstall(t, s.url, env, "--bin-dir", dir)
	if r.code != 1 || !strings.Contains(r.stderr, "checksum mismatch") {
		t.Fatalf("a corrupted archive was not refused (exit %d):\n%s", r.code, r.stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "bsadapter")); !bytes.Equal(got, old) {
		t.Fatalf("the existing bsadapter was changed by a failed install")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("a failed install left %d files in the folder, want only the old bsadapter", len(entries))
	}
}

func TestInstallScriptMissingArchive(t *testing.T) {
	env := hostUname(t)
	s := serve(t, func(dir string) {
		if err := os.Remove(filepath.Join(dir, HostArchive())); err != nil {
			t.Fatal(err)
		}
	})
	r := runInstall(t, s.url, env)
	assertNothingInstalled(t, r, "cannot download "+s.url+HostArchive())
	if !strings.Contains(r.stderr, "404") {
		t.Errorf("the message does not carry the HTTP status:\n%s", r.stderr)
	}
	if !strings.Contains(r.stderr, "no build for") {
		t.Errorf("the message does not explain a missing archive:\n%s", r.stderr)
	}
}

func TestInstallScriptMissingChecksumLine(t *testing.T) {
	env := hostUname(t)
	s := serve(t, func(dir string) {
		line := sha256Hex([]byte("x")) + "  " + ArchiveName("plan9", "amd64") + "\n"
		if err := os.WriteFile(filepath.Join(dir, ChecksumsFile), []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	r := runInstall(t, s.url, env)
	assertNothingInstalled(t, r, "checksums.txt at "+strings.TrimSuffix(s.url, "/")+" has no line for "+HostArchive())
}

func TestInstallScriptNotAnArchive(t *testing.T) {
	env := hostUname(t)
	junk := []byte("<html>a captive portal page</html>\n")
	s := serve(t, func(dir string) {
		if err := os.WriteFile(filepath.Join(dir, HostArchive()), junk, 0o644); err != nil {
			t.Fatal(err)
		}
		sums := sha256Hex(junk) + "  " + HostArchive() + "\n"
		if err := os.WriteFile(filepath.Join(dir, ChecksumsFile), []byte(sums), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	r := runInstall(t, s.url, env)
	assertNothingInstalled(t, r, "cannot unpack bsadapter from "+HostArchive())
}

func TestInstallScriptUnsupportedPlatforms(t *testing.T) {
	cases := []struct {
		name, unameS, unameM, want string
	}{
		{"os", "SunOS", "x86_64", "unsupported operating system 'SunOS'"},
		{"arch", "Linux", "riscv64", "unsupported architecture 'riscv64'"},
		{"32-bit", "Darwin", "i386", "unsupported architecture 'i386'"},
		{"windows", "MINGW64_NT-10.0", "x86_64", "does not install on Windows"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := serve(t, nil)
			r := runInstall(t, s.url, []string{"BSADAPTER_INSTALL_UNAME_S=" + c.unameS, "BSADAPTER_INSTALL_UNAME_M=" + c.unameM})
			assertNothingInstalled(t, r, c.want)
			if !strings.Contains(r.stderr, "go install github.com/bsadapter/bsadapter/cmd/bsadapter@latest") {
				t.Errorf("no way forward offered:\n%s", r.stderr)
			}
			if got := s.requested(); len(got) > 0 {
				t.Errorf("install.sh downloaded %v for a platform it cannot install", got)
			}
		})
	}
}

// TestInstallScriptMapsPlatforms checks the uname mapping by asking for
// archives that are not served: the 404 names the archive it chose.
func TestInstallScriptMapsPlatforms(t *testing.T) {
	cases := map[[2]string]string{
		{"Linux", "x86_64"}:  "bsadapter_linux_amd64.tar.gz",
		{"Linux", "aarch64"}: "bsadapter_linux_arm64.tar.gz",
		{"Darwin", "arm64"}:  "bsadapter_darwin_arm64.tar.gz",
		{"Darwin", "x86_64"}: "bsadapter_darwin_amd64.tar.gz",
	}
	s := serve(t, func(dir string) {
		if err := os.Remove(filepath.Join(dir, HostArchive())); err != nil {
			t.Fatal(err)
		}
	})
	for uname, archive := range cases {
		r := runInstall(t, s.url, []string{"BSADAPTER_INSTALL_UNAME_S=" + uname[0], "BSADAPTER_INSTALL_UNAME_M=" + uname[1]})
		if r.code != 1 || !strings.Contains(r.stderr, "cannot download "+s.url+archive) {
			t.Errorf("%s %s: want a download of %s, got exit %d:\n%s", uname[0], uname[1], archive, r.code, r.stderr)
		}
	}
}

// TestInstallScriptUsage: bad options are usage errors (exit 2, as for
// bsadapter) and --help prints the options; neither downloads anything.
func TestInstallScriptUsage(t *testing.T) {
	s := serve(t, nil)
	r := runInstall(t, s.url, nil, "--prefix", "/x")
	assertRefused(t, r, 2, "unknown option '--prefix'")
	r = runInstall(t, s.url, nil, "--version")
	assertRefused(t, r, 2, "--version needs a value")
	r = runInstall(t, s.url, nil, "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "--bin-dir DIR") || !strings.Contains(r.stdout, "BSADAPTER_INSTALL_BASE_URL") {
		t.Errorf("--help: exit %d, stdout:\n%s", r.code, r.stdout)
	}
	if entries, _ := os.ReadDir(r.binDir); len(entries) > 0 {
		t.Errorf("--help installed something")
	}
	if got := s.requested(); len(got) > 0 {
		t.Errorf("usage errors and --help downloaded %v", got)
	}
}

// TestSnapshotArchives checks every archive of a GoReleaser snapshot: the
// names install.sh expects, the binary and the files the release promises,
// and checksums.txt covering them all. It runs only under
// scripts/release-check, which builds the snapshot.
func TestSnapshotArchives(t *testing.T) {
	dist := os.Getenv("BSADAPTER_RELEASE_DIST")
	if dist == "" {
		t.Skip("set BSADAPTER_RELEASE_DIST to a GoReleaser dist folder (scripts/release-check does)")
	}
	sums, err := os.ReadFile(filepath.Join(dist, ChecksumsFile))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		if f := strings.Fields(l); len(f) == 2 {
			listed[f[1]] = f[0]
		}
	}
	for _, p := range Platforms {
		name := ArchiveName(p[0], p[1])
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dist, name))
			if err != nil {
				t.Fatalf("missing archive: %v", err)
			}
			if listed[name] != sha256Hex(data) {
				t.Errorf("checksums.txt has %q for %s, the file hashes to %s", listed[name], name, sha256Hex(data))
			}
			names, err := archiveNames(name, data)
			if err != nil {
				t.Fatal(err)
			}
			exe := "bsadapter"
			if p[0] == "windows" {
				exe = "bsadapter.exe"
			}
			for _, want := range append([]string{exe}, ArchiveFiles...) {
				if !slices.Contains(names, want) {
					t.Errorf("%s lacks %s (it holds %v)", name, want, names)
				}
			}
		})
	}
}

func archiveNames(name string, data []byte) ([]string, error) {
	var names []string
	if strings.HasSuffix(name, ".zip") {
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return nil, err
		}
		for _, f := range zr.File {
			names = append(names, f.Name)
		}
		return names, nil
	}
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names, nil
		}
		if err != nil {
			return nil, err
		}
		names = append(names, h.Name)
	}
}

// TestInstallScriptWithWget hides curl from install.sh, which must then
// download with wget. The PATH it gets links every other program.
func TestInstallScriptWithWget(t *testing.T) {
	env := hostUname(t)
	if _, err := exec.LookPath("wget"); err != nil {
		testenv.Missing(t, "wget is not on PATH (apt-get install wget)")
	}
	shim := t.TempDir()
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if e.Name() == "curl" {
				continue
			}
			// The first folder on PATH wins, as it would for the shell.
			_ = os.Symlink(filepath.Join(dir, e.Name()), filepath.Join(shim, e.Name()))
		}
	}
	s := serve(t, nil)
	r := runInstall(t, s.url, append(env, "PATH="+shim))
	if r.code != 0 {
		t.Fatalf("install.sh with wget failed with exit %d:\n%s", r.code, r.stderr)
	}
	if out, err := exec.Command(filepath.Join(r.binDir, "bsadapter"), "version").Output(); err != nil || !strings.HasPrefix(string(out), "bsadapter ") {
		t.Fatalf("the binary installed with wget reports %q (%v)", out, err)
	}
	// And a missing archive is still a clear refusal with wget's words.
	s2 := serve(t, func(dir string) { os.Remove(filepath.Join(dir, HostArchive())) })
	r = runInstall(t, s2.url, append(env, "PATH="+shim))
	assertNothingInstalled(t, r, "cannot download "+s2.url+HostArchive())
	if !strings.Contains(r.stderr, "404") {
		t.Errorf("wget's reason (HTTP 404) is not in the message:\n%s", r.stderr)
	}
	if strings.Contains(r.stderr, "curl") {
		t.Errorf("curl was used although it is not on PATH:\n%s", r.stderr)
	}
}
