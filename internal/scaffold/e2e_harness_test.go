package scaffold

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/internal/testenv"
)

// E2E is the harness the end-to-end tests share (TestEndToEnd,
// TestAIPresetsEndToEnd, TestSDKPresets, TestLivingEndToEnd): a bsadapter
// binary built from this checkout into a folder of the test's own, npm,
// and a runner of commands under one environment and one time limit.
//
// It is exported for the tests of package scaffold_test; being in a test
// file, it is in no build but the tests'.
type E2E struct {
	Work string // the test's folder: the binary is in it, the adapters go in it
	Bin  string // bsadapter, built from this checkout
	Npm  string // npm, from PATH
	// Env is what commands run with: the test's environment, no colours,
	// npm quiet, and BSADAPTER naming Bin (the generated conformance tests
	// find bsadapter through it).
	Env []string
	// Timeout bounds each command.
	Timeout time.Duration
}

// NewE2E prepares an end-to-end test: it skips the test under -short
// (never under CI), needs Node.js and npm (missing, they skip the test,
// or fail it under CI), and builds bsadapter into a temporary folder.
// what names the run in the skip message ("the end-to-end run").
func NewE2E(t *testing.T, what string) *E2E {
	t.Helper()
	if testing.Short() && !testenv.InCI() {
		t.Skip("-short: " + what + " installs node packages (never skipped under CI)")
	}
	testenv.Node(t)
	npm, err := exec.LookPath("npm")
	if err != nil {
		testenv.Missing(t, "npm is not on PATH (install Node.js 20 or newer)")
	}
	work := t.TempDir()
	bin := filepath.Join(work, "bsadapter")
	build := exec.Command("go", "build", "-o", bin, "github.com/bsadapter/bsadapter/cmd/bsadapter")
	build.Dir = testenv.RepoRoot(t)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return &E2E{
		Work:    work,
		Bin:     bin,
		Npm:     npm,
		Env:     append(os.Environ(), "NO_COLOR=1", "npm_config_update_notifier=false", "npm_config_fund=false", "npm_config_audit=false", "BSADAPTER="+bin),
		Timeout: 10 * time.Minute,
	}
}

// Run runs name with args in dir, under Env; it must succeed. It answers
// the command's stdout.
func (h *E2E) Run(t *testing.T, dir, name string, args ...string) []byte {
	t.Helper()
	stdout, _ := h.command(t, h.Env, dir, []int{0}, name, args...)
	return stdout
}

// RunEnv is Run under env instead of Env.
func (h *E2E) RunEnv(t *testing.T, env []string, dir, name string, args ...string) []byte {
	t.Helper()
	stdout, _ := h.command(t, env, dir, []int{0}, name, args...)
	return stdout
}

// RunExit runs name with args in dir, under Env; it must exit with one of
// codes (check-fixtures exits 1 when a message fails, say). It answers the
// command's stdout and stderr.
func (h *E2E) RunExit(t *testing.T, dir string, codes []int, name string, args ...string) (stdout, stderr []byte) {
	t.Helper()
	return h.command(t, h.Env, dir, codes, name, args...)
}

// Install runs npm install in dir. better-supabase is not on npm: peers
// are left out.
func (h *E2E) Install(t *testing.T, dir string) {
	t.Helper()
	h.Run(t, dir, h.Npm, "install", "--legacy-peer-deps", "--no-audit", "--no-fund", "--prefer-offline")
}

// TypeCheck runs the adapter's own type check (npm run typecheck) in dir.
func (h *E2E) TypeCheck(t *testing.T, dir string) {
	t.Helper()
	h.Run(t, dir, h.Npm, "run", "typecheck")
}

// StrictTSConfig extends the generated tsconfig.json with the strictest
// settings in common use: inside a better-supabase checkout the checkout's
// tsconfig applies, not the generated one.
const StrictTSConfig = `{"extends": "./tsconfig.json", "compilerOptions": {"exactOptionalPropertyTypes": true, "noImplicitOverride": true,
  "noPropertyAccessFromIndexSignature": true, "verbatimModuleSyntax": true, "isolatedModules": true, "noImplicitReturns": true,
  "noFallthroughCasesInSwitch": true, "noUnusedLocals": true, "noUnusedParameters": true}}`

// TypeCheckStrict type-checks the adapter in dir under the strictest
// settings in common use (written to tsconfig.strict.json there).
func (h *E2E) TypeCheckStrict(t *testing.T, dir string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "tsconfig.strict.json"), []byte(StrictTSConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	h.Run(t, dir, h.Npm, "exec", "--no", "--", "tsc", "--noEmit", "-p", "tsconfig.strict.json")
}

// command runs name with args in dir under env, within Timeout, and fails
// the test unless it exits with one of codes; the failure shows the
// command, the folder, how it ended and both its outputs.
func (h *E2E) command(t *testing.T, env []string, dir string, codes []int, name string, args ...string) (stdout, stderr []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), h.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code, ended := 0, "exit 0"
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			// Not started, or not waited for: no exit code to judge.
			code = -1
		} else {
			code = ee.ExitCode()
		}
		ended = err.Error()
	}
	if code < 0 || !slices.Contains(codes, code) {
		want := fmt.Sprint(codes[0])
		if len(codes) > 1 {
			want = fmt.Sprintf("one of %v", codes)
		}
		t.Fatalf("%s %s (in %s): %s, want exit %s\nstdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), dir, ended, want, out.Bytes(), errOut.Bytes())
	}
	return out.Bytes(), errOut.Bytes()
}
