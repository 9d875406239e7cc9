package cli

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/internal/pgserver"
	"github.com/spf13/cobra"
)

// pgOptionsOf runs cmd (conform or doctor, made with a runF that keeps
// its PostgreSQL flags in *got) with args in the folder dir, and returns
// the pgserver options the App makes of those flags.
func pgOptionsOf(t *testing.T, dir string, newCmd func(*App, **pgFlags) *cobra.Command, args ...string) (pgserver.Options, error) {
	t.Helper()
	app := &App{Stdio: Stdio{Out: io.Discard, Err: io.Discard, Env: func(string) (string, bool) { return "", false }},
		Getwd: func() (string, error) { return dir, nil }}
	var got *pgFlags
	cmd := newCmd(app, &got)
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	if got == nil {
		t.Fatalf("%v: the run was not reached", args)
	}
	return app.Postgres(got)
}

func conformPG(app *App, got **pgFlags) *cobra.Command {
	return newConformCmd(app, func(_ context.Context, o *conformOptions) error { *got = &o.pg; return nil })
}

func doctorPG(app *App, got **pgFlags) *cobra.Command {
	return newDoctorCmd(app, func(_ context.Context, o *doctorOptions) error { *got = &o.pg; return nil })
}

func adapterDir(t *testing.T, body string) string {
	t.Helper()
	dir := t.TempDir()
	if body != "" {
		if err := os.WriteFile(filepath.Join(dir, "bsadapter.json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// PostgreSQL's waits: a flag wins over bsadapter.json's postgres
// section, which wins over pgserver's defaults (0 in the options), each
// wait on its own, for conform and doctor alike.
func TestPGWaitsPrecedence(t *testing.T) {
	both := adapterDir(t, `{"name": "x", "postgres": {"startTimeout": "3m", "installTimeout": "7m"}}`)
	installOnly := adapterDir(t, `{"name": "x", "postgres": {"installTimeout": "45s"}}`)
	none := adapterDir(t, `{"name": "x"}`)
	noFile := adapterDir(t, "")
	for _, c := range []struct {
		name           string
		dir            string
		args           []string
		start, install time.Duration
	}{
		{"file", both, nil, 3 * time.Minute, 7 * time.Minute},
		{"a flag over the file", both, []string{"--pg-start-timeout", "1m"}, time.Minute, 7 * time.Minute},
		{"the other flag over the file", both, []string{"--pg-install-timeout", "20m"}, 3 * time.Minute, 20 * time.Minute},
		{"both flags over the file", both, []string{"--pg-start-timeout", "10s", "--pg-install-timeout", "11s"}, 10 * time.Second, 11 * time.Second},
		{"one key in the file", installOnly, nil, 0, 45 * time.Second},
		{"no postgres section", none, nil, 0, 0},
		{"no bsadapter.json", noFile, nil, 0, 0},
		{"flags without a file", noFile, []string{"--pg-install-timeout", "90s"}, 0, 90 * time.Second},
	} {
		for name, newCmd := range map[string]func(*App, **pgFlags) *cobra.Command{"conform": conformPG, "doctor": doctorPG} {
			opts, err := pgOptionsOf(t, c.dir, newCmd, c.args...)
			if err != nil || opts.StartTimeout != c.start || opts.PrepareTimeout != c.install {
				t.Errorf("%s, %s: start %s, install %s, %v; want %s and %s", name, c.name, opts.StartTimeout, opts.PrepareTimeout, err, c.start, c.install)
			}
		}
	}
}

// A bsadapter.json that does not load stops conform when a wait is left
// to it, naming the file and the key; with both flags given it is not
// read. doctor goes on with the defaults: the file is one of its checks.
func TestPGWaitsBrokenConfig(t *testing.T) {
	dir := adapterDir(t, `{"name": "x", "postgres": {"installTimeout": "5"}}`)
	file := filepath.Join(dir, "bsadapter.json")
	_, err := pgOptionsOf(t, dir, conformPG)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitUsage ||
		!strings.Contains(err.Error(), file+`: "postgres.installTimeout" must be a positive duration in a string, like "90s" or "2m", not "5"`) ||
		!strings.Contains(ee.Hint, "--pg-install-timeout") {
		t.Errorf("conform: %v (%+v)", err, ee)
	}
	opts, err := pgOptionsOf(t, dir, conformPG, "--pg-start-timeout", "1m", "--pg-install-timeout", "2m")
	if err != nil || opts.StartTimeout != time.Minute || opts.PrepareTimeout != 2*time.Minute {
		t.Errorf("conform with both flags: %+v, %v", opts, err)
	}
	opts, err = pgOptionsOf(t, dir, doctorPG)
	if err != nil || opts.StartTimeout != 0 || opts.PrepareTimeout != 0 {
		t.Errorf("doctor: %+v, %v", opts, err)
	}
}

// The flags' own rules hold whatever the file says: zero or less is a
// usage error that points at the key as the other way.
func TestPGWaitFlagsMustBePositive(t *testing.T) {
	for _, c := range []struct {
		f    pgFlags
		want string
	}{
		{pgFlags{strategy: "auto", startSet: true}, "--pg-start-timeout must be positive, got 0s"},
		{pgFlags{strategy: "auto", installSet: true, installTimeout: -time.Second}, "--pg-install-timeout must be positive, got -1s"},
		{pgFlags{strategy: "auto", startTimeout: -time.Minute}, "--pg-start-timeout must be positive"},
	} {
		err := c.f.validate()
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != ExitUsage || !strings.Contains(err.Error(), c.want) || !strings.Contains(ee.Hint, "in bsadapter.json") {
			t.Errorf("%+v: %v (%+v), want %q", c.f, err, ee, c.want)
		}
	}
	if err := (&pgFlags{strategy: "auto"}).validate(); err != nil {
		t.Errorf("no waits given: %v", err)
	}
}
