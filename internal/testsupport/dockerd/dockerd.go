//go:build linux

// Package dockerd gives tests a Docker engine of their own and a
// PostgreSQL image that no registry has to serve.
//
// The engine is a dockerd started for the test binary: its data root, exec
// root and socket live in a temporary folder, published ports bind to
// 127.0.0.1 only, it leaves the host's firewall alone, and Stop removes
// all of it. One engine runs at a time on a machine (a lock file), since
// engines share the docker0 bridge.
//
// The image is built from a Debian root made with debootstrap
// (postgresql-15 included) and an entrypoint that behaves like the
// official postgres image's; when this machine's PostgreSQL 15 has
// pgvector 0.8 or newer (scripts/pgvector.sh builds it), its files are
// copied in, so the image offers the vector extension too. The root is
// kept as a tarball in a cache folder outside the repository, keyed by
// the recipe (pgvector's files included), and imported into each engine
// with docker import.
package dockerd

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/internal/testenv"
	"golang.org/x/sys/unix"
)

// Engine is a running dockerd.
type Engine struct {
	// Host is its DOCKER_HOST value, unix://<dir>/docker.sock.
	Host string
	dir  string
	cmd  *exec.Cmd
	done chan struct{}
	lock *os.File
}

var (
	mu     sync.Mutex
	shared *Engine
	images = map[string]bool{}
)

// Shared returns the test binary's engine, starting it on first use; the
// binary's TestMain stops it with StopShared. Without dockerd (or
// without root) the test is skipped, or fails under CI=true.
func Shared(t testing.TB) *Engine {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	if shared != nil {
		return shared
	}
	bin, err := exec.LookPath("dockerd")
	if err != nil {
		testenv.Missing(t, "dockerd is not installed (apt-get install docker.io; scripts/test does it on Debian)")
	}
	if os.Geteuid() != 0 {
		testenv.Missing(t, "starting a Docker engine needs root")
	}
	if _, err := exec.LookPath("docker"); err != nil {
		testenv.Missing(t, "the docker command is not installed (apt-get install docker.io)")
	}
	e, err := start(bin)
	if err != nil {
		t.Fatalf("dockerd: %v", err)
	}
	shared = e
	return e
}

// StopShared stops the shared engine, if one was started, and removes
// everything it made.
func StopShared() error {
	mu.Lock()
	defer mu.Unlock()
	if shared == nil {
		return nil
	}
	err := shared.stop()
	shared = nil
	images = map[string]bool{}
	return err
}

func start(bin string) (*Engine, error) {
	lockPath := filepath.Join(os.TempDir(), "bsadapter-test-dockerd.lock")
	lock, err := os.OpenFile(lockPath, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	// Another test binary's engine may be running: wait for it (a few
	// minutes at most, the length of a package's docker tests).
	deadline := time.Now().Add(10 * time.Minute)
	for unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
		if time.Now().After(deadline) {
			lock.Close()
			return nil, errors.New("another test's Docker engine held " + lockPath + " for 10 minutes")
		}
		time.Sleep(200 * time.Millisecond)
	}
	// A short folder: the socket path must stay under 107 bytes.
	dir, err := os.MkdirTemp("/tmp", "bsa-dockerd-")
	if err != nil {
		lock.Close()
		return nil, err
	}
	e := &Engine{Host: "unix://" + filepath.Join(dir, "docker.sock"), dir: dir, lock: lock, done: make(chan struct{})}
	logf, err := os.Create(filepath.Join(dir, "dockerd.log"))
	if err != nil {
		e.cleanup()
		return nil, err
	}
	defer logf.Close()
	e.cmd = exec.Command(bin,
		"--data-root", filepath.Join(dir, "data"),
		"--exec-root", filepath.Join(dir, "exec"),
		"--pidfile", filepath.Join(dir, "dockerd.pid"),
		"--host", e.Host,
		// Published ports on loopback only; no rules in the host's
		// firewall (the userland proxy forwards instead).
		"--ip", "127.0.0.1",
		"--iptables=false", "--ip6tables=false",
		// No registry is ever contacted: no mirrors, and every image the
		// tests use is imported locally.
		"--config-file", writeConfig(dir),
	)
	e.cmd.Stdout, e.cmd.Stderr = logf, logf
	e.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := e.cmd.Start(); err != nil {
		e.cleanup()
		return nil, err
	}
	go func() { e.cmd.Wait(); close(e.done) }()
	for i := 0; ; i++ {
		if ping(e.Host) == nil {
			return e, nil
		}
		select {
		case <-e.done:
			log, _ := os.ReadFile(filepath.Join(dir, "dockerd.log"))
			e.cleanup()
			return nil, fmt.Errorf("dockerd exited during start-up:\n%s", tail(log, 15))
		case <-time.After(100 * time.Millisecond):
		}
		if i > 300 {
			log, _ := os.ReadFile(filepath.Join(dir, "dockerd.log"))
			e.stop()
			return nil, fmt.Errorf("dockerd did not answer within 30s:\n%s", tail(log, 15))
		}
	}
}

func writeConfig(dir string) string {
	p := filepath.Join(dir, "daemon.json")
	os.WriteFile(p, []byte(`{"registry-mirrors": [], "features": {"buildkit": false}}`+"\n"), 0o600)
	return p
}

func ping(host string) error {
	sock := strings.TrimPrefix(host, "unix://")
	c := &http.Client{Timeout: time.Second, Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	resp, err := c.Get("http://docker/_ping")
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		return errors.New(resp.Status)
	}
	return nil
}

// Docker runs the docker command against the engine.
func (e *Engine) Docker(args ...string) (string, error) {
	cmd := exec.Command("docker", args...)
	cmd.Env = append(os.Environ(), "DOCKER_HOST="+e.Host)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if err != nil {
		return out.String(), fmt.Errorf("docker %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return strings.TrimSpace(out.String()), nil
}

// stop removes every container, stops dockerd and removes its folders.
func (e *Engine) stop() error {
	if ids, err := e.Docker("ps", "-aq"); err == nil && ids != "" {
		e.Docker(append([]string{"rm", "-f", "-v"}, strings.Fields(ids)...)...)
	}
	var err error
	if e.cmd != nil && e.cmd.Process != nil {
		e.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-e.done:
		case <-time.After(20 * time.Second):
			syscall.Kill(-e.cmd.Process.Pid, syscall.SIGKILL)
			<-e.done
			err = errors.New("dockerd did not stop within 20s")
		}
		// containerd-shims of a daemon killed hard.
		syscall.Kill(-e.cmd.Process.Pid, syscall.SIGKILL)
	}
	e.cleanup()
	return err
}

func (e *Engine) cleanup() {
	// Overlay mounts under the data root would make RemoveAll fail.
	if b, err := os.ReadFile("/proc/self/mounts"); err == nil {
		var mounts []string
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) > 1 && strings.HasPrefix(f[1], e.dir+"/") {
				mounts = append(mounts, f[1])
			}
		}
		for i := len(mounts) - 1; i >= 0; i-- {
			unix.Unmount(mounts[i], unix.MNT_DETACH)
		}
	}
	os.RemoveAll(e.dir)
	if e.lock != nil {
		unix.Flock(int(e.lock.Fd()), unix.LOCK_UN)
		e.lock.Close()
	}
}

func tail(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// entrypoint behaves like the official postgres image's: as root it fixes
// the data folder's owner and runs itself again as postgres; on first
// start it runs initdb with POSTGRES_USER and POSTGRES_PASSWORD, starts a
// server on the unix socket only (which logs "database system is ready to
// accept connections"), creates POSTGRES_DB and stops it; then it runs
// postgres listening on every address, port 5432 (the second "ready").
const entrypoint = `#!/bin/sh
set -eu
export PATH=/usr/lib/postgresql/15/bin:$PATH
export PGDATA="${PGDATA:-/var/lib/postgresql/data}"
if [ "${1:-}" = postgres ]; then shift; fi
if [ "$(id -u)" = 0 ]; then
	mkdir -p "$PGDATA" /var/run/postgresql
	chown postgres:postgres "$PGDATA" /var/run/postgresql
	chmod 700 "$PGDATA"
	exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" postgres "$@"
fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
	if [ -z "${POSTGRES_PASSWORD:-}" ]; then
		echo "Error: the database is uninitialized and POSTGRES_PASSWORD is not set" >&2
		exit 1
	fi
	user="${POSTGRES_USER:-postgres}"
	db="${POSTGRES_DB:-$user}"
	pw=$(mktemp)
	printf '%s\n' "$POSTGRES_PASSWORD" > "$pw"
	initdb -D "$PGDATA" -U "$user" --pwfile="$pw" -E UTF8 --locale=C.UTF-8 --auth-local=trust --auth-host=scram-sha-256
	rm -f "$pw"
	echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
	pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -p 5432" -w start
	if [ "$db" != postgres ]; then
		psql -v ON_ERROR_STOP=1 -U "$user" -d postgres -c "CREATE DATABASE \"$db\""
	fi
	pg_ctl -D "$PGDATA" -m fast -w stop
	echo "PostgreSQL init process complete; ready for start up."
fi
exec postgres -c listen_addresses='*' -p 5432 "$@"
`

// debootstrapArgs make the image's root: Debian bookworm, the smallest
// variant, with PostgreSQL 15.
var debootstrapArgs = []string{"--variant=minbase", "--include=postgresql-15", "bookworm"}

// slimPaths are removed from the root: package caches, documentation,
// translations, and LLVM with PostgreSQL's JIT (a server without it runs
// the same SQL; it is half the root's size).
var slimPaths = []string{
	"var/cache/apt/archives/*.deb", "var/cache/apt/*.bin", "var/lib/apt/lists/*_*",
	"usr/share/doc", "usr/share/man", "usr/share/info", "usr/share/locale", "usr/share/i18n",
	"usr/lib/x86_64-linux-gnu/libLLVM-*", "usr/lib/aarch64-linux-gnu/libLLVM-*",
	"usr/lib/x86_64-linux-gnu/libz3.so*", "usr/lib/aarch64-linux-gnu/libz3.so*",
	"usr/lib/postgresql/15/lib/llvmjit*", "usr/lib/postgresql/15/lib/bitcode",
	// Debian's own cluster: the entrypoint makes its own.
	"var/lib/postgresql/15", "etc/postgresql/15",
}

// recipeKey names the image and its cached root by everything that goes
// into them.
func recipeKey() string {
	h := sha256.New()
	h.Write([]byte("2\x00" + strings.Join(debootstrapArgs, " ") + "\x00" + strings.Join(slimPaths, " ") + "\x00" + entrypoint))
	for _, f := range hostPgvector() {
		b, _ := os.ReadFile(f.from)
		h.Write([]byte("\x00" + f.to + "\x00"))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// hostPG15 is where this machine's PostgreSQL 15 keeps its extension
// library and files (Debian's layout, as in the image).
const (
	hostPG15Lib   = "/usr/lib/postgresql/15/lib"
	hostPG15Share = "/usr/share/postgresql/15/extension"
)

type copyFile struct{ from, to string }

// hostPgvector lists the files of this machine's pgvector for PostgreSQL
// 15, with where they go in the image's root, when it has pgvector 0.8 or
// newer; nothing otherwise. The library is built against PostgreSQL 15's
// headers and needs only the C library, so the image's PostgreSQL 15 (the
// same Debian release) loads it.
func hostPgvector() []copyFile {
	control, err := os.ReadFile(filepath.Join(hostPG15Share, "vector.control"))
	if err != nil || !pgvectorRecent(string(control)) {
		return nil
	}
	if _, err := os.Stat(filepath.Join(hostPG15Lib, "vector.so")); err != nil {
		return nil
	}
	files := []copyFile{
		{filepath.Join(hostPG15Lib, "vector.so"), "usr/lib/postgresql/15/lib/vector.so"},
		{filepath.Join(hostPG15Share, "vector.control"), "usr/share/postgresql/15/extension/vector.control"},
	}
	scripts, _ := filepath.Glob(filepath.Join(hostPG15Share, "vector--*.sql"))
	for _, f := range scripts {
		files = append(files, copyFile{f, "usr/share/postgresql/15/extension/" + filepath.Base(f)})
	}
	return files
}

// pgvectorRecent reads a vector.control's default_version: 0.8 or newer.
func pgvectorRecent(control string) bool {
	for _, line := range strings.Split(control, "\n") {
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(k) != "default_version" {
			continue
		}
		v = strings.Trim(strings.TrimSpace(v), "'")
		major, rest, _ := strings.Cut(v, ".")
		minor, _, _ := strings.Cut(rest, ".")
		if major != "0" {
			return major != ""
		}
		return len(minor) > 1 || minor >= "8"
	}
	return false
}

// HasPgvector reports whether the image PostgresImage makes carries
// pgvector (this machine's PostgreSQL 15 has it).
func HasPgvector() bool { return len(hostPgvector()) > 0 }

// slim removes slimPaths from root.
func slim(root string) {
	for _, pattern := range slimPaths {
		matches, _ := filepath.Glob(filepath.Join(root, pattern))
		for _, m := range matches {
			os.RemoveAll(m)
		}
	}
}

// CacheDir is where the image's root tarball is kept between test runs:
// BSADAPTER_TEST_DOCKER_DIR, else bsadapter-test/docker in the user's
// cache folder.
func CacheDir() string {
	if d := os.Getenv("BSADAPTER_TEST_DOCKER_DIR"); d != "" {
		return d
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(base, "bsadapter-test", "docker")
}

// ForgetImages makes the next PostgresImage import its image again (after
// a test removed it from the engine).
func ForgetImages() {
	mu.Lock()
	defer mu.Unlock()
	images = map[string]bool{}
}

// PostgresImage returns the name of a PostgreSQL 15 image in the engine
// that behaves like the official one, importing it first (and building
// its root with debootstrap first of all, once per recipe).
func (e *Engine) PostgresImage(t testing.TB) string {
	t.Helper()
	name := "bsadapter-test/postgres:15-" + recipeKey()
	mu.Lock()
	defer mu.Unlock()
	if images[name] {
		return name
	}
	root, err := rootTarball(t)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Docker("import",
		"--change", `ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]`,
		"--change", `CMD ["postgres"]`,
		"--change", "EXPOSE 5432",
		"--change", "ENV PGDATA=/var/lib/postgresql/data",
		root, name); err != nil {
		t.Fatal(err)
	}
	images[name] = true
	return name
}

// rootTarball returns the cached root tarball, building it when missing.
func rootTarball(t testing.TB) (string, error) {
	dir := CacheDir()
	p := filepath.Join(dir, "postgres15-root-"+recipeKey()+".tar")
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	if _, err := exec.LookPath("debootstrap"); err != nil {
		testenv.Missing(t, "debootstrap is not installed (apt-get install debootstrap; scripts/test does it on Debian)")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	lock, err := os.OpenFile(p+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
		return "", err
	}
	if _, err := os.Stat(p); err == nil {
		return p, nil // built by another test binary meanwhile
	}
	build, err := os.MkdirTemp(dir, ".build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(build)
	root := filepath.Join(build, "root")
	t.Logf("dockerd: building the PostgreSQL image's root with debootstrap (about a minute, once)")
	args := append(append([]string{}, debootstrapArgs...), root)
	if out, err := exec.Command("debootstrap", args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("debootstrap %s: %v\n%s", strings.Join(args, " "), err, tail(out, 20))
	}
	slim(root)
	for _, f := range hostPgvector() {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(f.to, ".so") {
			mode = 0o755
		}
		b, err := os.ReadFile(f.from)
		if err == nil {
			err = os.WriteFile(filepath.Join(root, f.to), b, mode)
		}
		if err != nil {
			return "", fmt.Errorf("copy pgvector into the image's root: %w", err)
		}
	}
	ep := filepath.Join(root, "usr/local/bin/docker-entrypoint.sh")
	if err := os.WriteFile(ep, []byte(entrypoint), 0o755); err != nil {
		return "", err
	}
	tmp := filepath.Join(build, "root.tar")
	if out, err := exec.Command("tar", "-C", root, "--numeric-owner", "-cf", tmp, ".").CombinedOutput(); err != nil {
		return "", fmt.Errorf("tar: %v\n%s", err, out)
	}
	if err := os.Rename(tmp, p); err != nil {
		return "", err
	}
	return p, nil
}
