package cli

import (
	"errors"
	"strings"
	"testing"
)

func TestPGFlagsOptions(t *testing.T) {
	for _, c := range []struct {
		flags    pgFlags
		env      map[string]string
		strategy string
		dsn      string
		err      string
	}{
		{flags: pgFlags{strategy: "auto"}, strategy: "auto"},
		{flags: pgFlags{strategy: "auto"}, env: map[string]string{"BSADAPTER_DSN": "postgres://e/x"}, strategy: "auto", dsn: "postgres://e/x"},
		{flags: pgFlags{strategy: "dsn", dsn: "postgres://f/x"}, env: map[string]string{"BSADAPTER_DSN": "postgres://e/x"}, strategy: "dsn", dsn: "postgres://f/x"},
		{flags: pgFlags{strategy: "dsn"}, err: "--pg dsn needs a connection string"},
		{flags: pgFlags{strategy: "local", dsn: "postgres://f/x"}, err: "--pg local and a DSN do not go together"},
		{flags: pgFlags{strategy: "docker"}, env: map[string]string{"BSADAPTER_DSN": "postgres://e/x"}, err: "--pg docker and a DSN do not go together"},
		{flags: pgFlags{strategy: "cloud"}, err: `--pg "cloud" is not one of auto, dsn, local, docker`},
	} {
		app := &App{Stdio: Stdio{Env: func(k string) (string, bool) { v, ok := c.env[k]; return v, ok }}}
		opts, err := c.flags.options(app)
		if c.err != "" {
			var ee *ExitError
			if err == nil || !strings.Contains(err.Error(), c.err) || !errors.As(err, &ee) || ee.Code != ExitUsage {
				t.Errorf("%+v: error %v, want a usage error %q", c.flags, err, c.err)
			}
			continue
		}
		if err != nil || opts.Strategy != c.strategy || opts.DSN != c.dsn {
			t.Errorf("%+v env %v: %+v, %v; want strategy %s dsn %q", c.flags, c.env, opts, err, c.strategy, c.dsn)
		}
	}
}
