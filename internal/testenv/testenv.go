// Package testenv finds what the project's tests need outside Go: Node.js
// and the node packages under tools/node, the shared SDK message corpus,
// and the repository root. A missing component skips the test, except when
// CI=true, where it fails it: CI must never pass by skipping.
package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// InCI reports whether the tests run under CI (CI=true), where a missing
// component is a failure rather than a skip.
func InCI() bool {
	v := os.Getenv("CI")
	return v != "" && v != "0" && v != "false"
}

// Missing skips the test, or fails it under CI, because something it needs
// is not there. The message says what to install.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if InCI() {
		t.Fatalf("CI=true and a test component is missing: "+format, args...)
	}
	t.Skipf("skipped: "+format, args...)
}

// RepoRoot returns the repository's top folder.
func RepoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("testenv: cannot locate the source file")
	}
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Node returns the path of the node binary.
func Node(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("node")
	if err != nil {
		Missing(t, "node is not on PATH (install Node.js 20 or newer; scripts/test does it on Debian)")
	}
	return p
}

// NodeModules returns tools/node/node_modules, where scripts/test installs
// the node packages the tests use (ajv, ajv-cli, tsx, typescript, the SARIF schema in @microsoft/jest-sarif).
func NodeModules(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(RepoRoot(t), "tools", "node", "node_modules")
	if _, err := os.Stat(filepath.Join(dir, "ajv")); err != nil {
		Missing(t, "node packages are not installed: run 'npm install --no-save --prefix tools/node' (scripts/test does it)")
	}
	return dir
}

// NodeBin returns the path of an executable installed in tools/node
// (node_modules/.bin/NAME).
func NodeBin(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(NodeModules(t), ".bin", name)
	if _, err := os.Stat(p); err != nil {
		Missing(t, "%s is not installed under tools/node: run 'npm install --no-save --prefix tools/node'", name)
	}
	return p
}

// Corpus returns the shared SDK message corpus (shared/corpus/sdk-messages
// beside the repository), or the folder BSADAPTER_CORPUS names.
func Corpus(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("BSADAPTER_CORPUS")
	if dir == "" {
		dir = filepath.Join(RepoRoot(t), "..", "shared", "corpus", "sdk-messages")
	}
	if _, err := os.Stat(dir); err != nil {
		Missing(t, "the SDK message corpus is not at %s (set BSADAPTER_CORPUS)", dir)
	}
	return dir
}

// Probes returns the files of the SQL probes measured on better-supabase,
// one corpus per file (*.jsonl; each probe names its module): those of the
// folder shared/spec/probes beside the repository, or of the folder
// BSADAPTER_PROBES names, or that one file when it names a file.
func Probes(t testing.TB) []string {
	t.Helper()
	path := os.Getenv("BSADAPTER_PROBES")
	if path == "" {
		path = filepath.Join(RepoRoot(t), "..", "shared", "spec", "probes")
	}
	fi, err := os.Stat(path)
	if err != nil {
		Missing(t, "the SQL probe corpus is not at %s (set BSADAPTER_PROBES)", path)
	}
	if !fi.IsDir() {
		return []string{path}
	}
	files, err := filepath.Glob(filepath.Join(path, "*.jsonl"))
	if err != nil || len(files) == 0 {
		Missing(t, "the folder %s holds no probe corpus (*.jsonl; set BSADAPTER_PROBES)", path)
	}
	return files
}

// Chromium returns the Chromium (or Chrome) the browser tests drive: the
// BSADAPTER_TEST_CHROMIUM variable, else chromium, chromium-browser or
// google-chrome on PATH.
func Chromium(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("BSADAPTER_TEST_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	Missing(t, "no Chromium on PATH for the HTML report's browser tests (apt-get install chromium; scripts/test does it on Debian), or set BSADAPTER_TEST_CHROMIUM to a Chrome binary")
	return ""
}
