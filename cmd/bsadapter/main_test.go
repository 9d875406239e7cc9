package main

import (
	"os"
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
