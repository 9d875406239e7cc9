// Package npmreg is a tiny npm registry on 127.0.0.1 for tests: it serves
// the package documents and tarballs it is given, counts the requests, and
// hands out the environment that points npm at it. Tests use it so that a
// download really goes through npm without ever contacting a real
// registry.
package npmreg

import (
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/bsadapter/bsadapter/internal/testenv"
)

// Registry serves packages over HTTP on a loopback port.
type Registry struct {
	// URL is the registry's address, e.g. http://127.0.0.1:41234/.
	URL string

	mu       sync.Mutex
	pkgs     map[string]map[string][]byte // name: version: tarball
	tarballs map[string][]byte            // URL path: tarball
	docHits  int
	tgzHits  int
}

// Start starts a registry that lives until the test ends.
func Start(t testing.TB) *Registry {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &Registry{URL: "http://" + ln.Addr().String() + "/", pkgs: map[string]map[string][]byte{}, tarballs: map[string][]byte{}}
	srv := &http.Server{Handler: r}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return r
}

// Refusing returns the address of a registry that refuses every
// connection (nothing listens there): what npm meets offline.
func Refusing(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr + "/"
}

// Add publishes tarball tgz as version of package name; the package
// document gives its integrity, as a real registry does.
func (r *Registry) Add(name, version string, tgz []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pkgs[name] == nil {
		r.pkgs[name] = map[string][]byte{}
	}
	r.pkgs[name][version] = tgz
	r.tarballs[r.tarballPath(name, version)] = tgz
}

func (r *Registry) tarballPath(name, version string) string {
	return "/" + name + "/-/" + path.Base(name) + "-" + version + ".tgz"
}

// Integrity returns npm's integrity string (sha512, base64) of b.
func Integrity(b []byte) string {
	h := sha512.Sum512(b)
	return "sha512-" + base64.StdEncoding.EncodeToString(h[:])
}

// Requests returns how many package documents and tarballs were asked for.
func (r *Registry) Requests() (docs, tarballs int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.docHits, r.tgzHits
}

// Env returns the environment variables that point npm at the registry,
// with a cache of its own in cacheDir (so that npm's cache of an earlier
// test does not answer for the registry) and without update checks.
func (r *Registry) Env(cacheDir string) map[string]string {
	return EnvFor(r.URL, cacheDir)
}

// EnvFor is Env for any registry address, e.g. Refusing's.
func EnvFor(registry, cacheDir string) map[string]string {
	return map[string]string{
		"npm_config_registry":        registry,
		"npm_config_cache":           cacheDir,
		"npm_config_update_notifier": "false",
		"npm_config_audit":           "false",
		"npm_config_fund":            "false",
	}
}

// ServeHTTP answers GET /<name> with the package document and GET of a
// tarball path with the tarball.
func (r *Registry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if tgz, ok := r.tarballs[req.URL.Path]; ok {
		r.tgzHits++
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(tgz)
		return
	}
	raw := req.URL.EscapedPath()
	name, err := url.PathUnescape(strings.TrimPrefix(raw, "/"))
	if err != nil {
		http.NotFound(w, req)
		return
	}
	versions, ok := r.pkgs[name]
	if !ok {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"error":"Not found"}`))
		return
	}
	r.docHits++
	type dist struct {
		Tarball   string `json:"tarball"`
		Integrity string `json:"integrity"`
		Shasum    string `json:"shasum"`
	}
	type version struct {
		Name    string `json:"name"`
		Version string `json:"version"`
		Dist    dist   `json:"dist"`
	}
	doc := struct {
		Name     string             `json:"name"`
		DistTags map[string]string  `json:"dist-tags"`
		Versions map[string]version `json:"versions"`
	}{Name: name, DistTags: map[string]string{}, Versions: map[string]version{}}
	base := strings.TrimSuffix(r.URL, "/")
	for v, tgz := range versions {
		sum := sha1.Sum(tgz)
		doc.Versions[v] = version{Name: name, Version: v, Dist: dist{
			Tarball:   base + r.tarballPath(name, v),
			Integrity: Integrity(tgz),
			Shasum:    hex.EncodeToString(sum[:]),
		}}
		doc.DistTags["latest"] = v
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(doc)
}

// TarballDir is where scripts/test keeps the real tarballs the tests
// serve (fetched once, like the node packages): BSADAPTER_TEST_NPM_DIR,
// else bsadapter-test/npm in the user's cache folder.
func TarballDir() string {
	if d := os.Getenv("BSADAPTER_TEST_NPM_DIR"); d != "" {
		return d
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "bsadapter-test", "npm")
	}
	return filepath.Join(base, "bsadapter-test", "npm")
}

// Tarball returns the tarball of name@version that scripts/test fetched
// into TarballDir, named as npm pack names it. When it is not there the
// test is skipped, or fails under CI=true.
func Tarball(t testing.TB, name, version string) []byte {
	t.Helper()
	file := strings.ReplaceAll(strings.TrimPrefix(name, "@"), "/", "-") + "-" + version + ".tgz"
	p := filepath.Join(TarballDir(), file)
	b, err := os.ReadFile(p)
	if err != nil {
		testenv.Missing(t, "the tarball of %s@%s is not in %s (scripts/test fetches it with npm pack)", name, version, TarballDir())
	}
	return b
}
