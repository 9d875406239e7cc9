package main

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/bsadapter/bsadapter/internal/cli"
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
		},
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
