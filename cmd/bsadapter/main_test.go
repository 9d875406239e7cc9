package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/internal/cli"
	"github.com/bsadapter/bsadapter/internal/testenv"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the scripts under testdata/script run the real command as
// "bsadapter", in a fresh process, through the same cli.Main the binary uses.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"bsadapter": func() { os.Exit(cli.Main(os.Args[1:], cli.OSStdio())) },
	})
}

// TestScripts runs every black-box scenario in testdata/script, one .txtar
// per scenario, named after the command it tests.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: false,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits": cmdExits,
			"gone":  cmdGone,
		},
		Condition: missingCondition,
		Setup: func(env *testscript.Env) error {
			// Start every script from a neutral environment: no colors
			// forced, not in CI unless the script says so.
			for _, k := range []string{"NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "CI", "BSADAPTER_DSN"} {
				env.Setenv(k, "")
			}
			env.Setenv("HOME", env.WorkDir)
			env.Setenv("XDG_CACHE_HOME", env.WorkDir+"/.cache")
			return nil
		},
	})
}

// cmdExits runs a program and checks its exit code, which plain exec and
// "! exec" cannot: "exits 2 bsadapter --bad" passes only on exit code 2.
// The program's stdout and stderr are kept for the stdout and stderr
// commands that follow.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: %q is not an exit code", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
	}
}

// missingCondition is the condition [missing:PROGRAM]: true when PROGRAM
// is not on PATH, so that "[missing:node] skip 'needs node'" skips the
// script. Under CI=true a missing program is an error that fails the
// script instead: CI must never pass by skipping.
func missingCondition(cond string) (bool, error) {
	prog, ok := strings.CutPrefix(cond, "missing:")
	if !ok {
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	if _, err := exec.LookPath(prog); err == nil {
		return false, nil
	}
	if testenv.InCI() {
		return false, fmt.Errorf("CI=true and %s is not on PATH (scripts/test installs it)", prog)
	}
	return true, nil
}

// cmdGone checks that the process whose pid is in each named file has
// ended (within 30 s, a bound a loaded machine meets): "gone bridge.pid"
// after a run proves it left no bridge behind. A zombie (ended, not yet
// reaped by init) counts as gone.
func cmdGone(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: gone PIDFILE...")
	}
	for _, f := range args {
		pid, err := strconv.Atoi(strings.TrimSpace(ts.ReadFile(f)))
		if err != nil {
			ts.Fatalf("gone: %s holds no pid: %v", f, err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for running(pid) {
			if time.Now().After(deadline) {
				ts.Fatalf("process %d (from %s) is still running", pid, f)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// running says whether pid is a live process.
func running(pid int) bool {
	if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		// "pid (comm) STATE ...": Z is a zombie, X is dead.
		if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && i+2 < len(stat) {
			return stat[i+2] != 'Z' && stat[i+2] != 'X'
		}
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	return p.Signal(syscall.Signal(0)) == nil
}

// [missing:PROGRAM] skips a script for a missing program, except under
// CI=true, where it fails it.
func TestMissingCondition(t *testing.T) {
	const absent = "missing:bsadapter-test-no-such-program"
	t.Setenv("CI", "")
	if ok, err := missingCondition(absent); !ok || err != nil {
		t.Errorf("outside CI: %v, %v; want true (skip)", ok, err)
	}
	if ok, err := missingCondition("missing:go"); ok || err != nil {
		t.Errorf("a program on PATH: %v, %v; want false", ok, err)
	}
	t.Setenv("CI", "true")
	if _, err := missingCondition(absent); err == nil || !strings.Contains(err.Error(), "CI=true") {
		t.Errorf("under CI: %v; want an error that fails the script", err)
	}
}
