// Package bridgetest gives tests the project's own test bridges as command
// lines: a Go bridge (built once per test binary) and a plain Node.js
// bridge, both converting a small made-up SDK format, with --fault=
// variants for every fault the bridge client must survive.
package bridgetest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/bsadapter/bsadapter/internal/testenv"
)

var (
	buildOnce sync.Once
	goBridge  string
	buildErr  error
	buildDir  string
)

// Main runs the tests and then removes the Go bridge built for them. A
// package that uses GoBridge calls it from TestMain:
// os.Exit(bridgetest.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	return code
}

// GoBridge builds the Go test bridge once per test binary and returns its
// command line with the given flags.
func GoBridge(t testing.TB, flags ...string) []string {
	t.Helper()
	src := filepath.Join(testenv.RepoRoot(t), "internal", "bridge", "testdata", "gobridge")
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "bsadapter-gobridge-")
		if buildErr != nil {
			return
		}
		goBridge = filepath.Join(buildDir, "gobridge")
		out, err := exec.Command("go", "build", "-o", goBridge, src).CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("building the Go test bridge: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return append([]string{goBridge}, flags...)
}

// NodeBridge returns the command line of the Node.js test bridge with the
// given flags (skipped, or failed under CI, without node).
func NodeBridge(t testing.TB, flags ...string) []string {
	t.Helper()
	node := testenv.Node(t)
	script := filepath.Join(testenv.RepoRoot(t), "internal", "bridge", "testdata", "nodebridge.mjs")
	return append([]string{node, script}, flags...)
}

// Alive reports whether process pid exists and is not a zombie (Linux).
func Alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command name in parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
