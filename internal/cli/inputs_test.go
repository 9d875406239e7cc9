package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
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
		{flags: pgFlags{strategy: "cloud"}, err: `--pg "cloud" is not one of auto, dsn, local, npm, docker`},
	} {
		app := &App{Stdio: Stdio{Env: func(k string) (string, bool) { v, ok := c.env[k]; return v, ok }}}
		opts, err := app.Postgres(&c.flags)
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

// Every command with --bridge refuses an empty one as a usage error,
// whatever the other flags: the flag is read in one place.
func TestEmptyBridgeIsAUsageErrorEverywhere(t *testing.T) {
	extra := map[string][][]string{
		"conform":        {nil, {"--store", "memory", "--list"}, {"--store", "bridge"}, {"--bench"}},
		"check-fixtures": {nil, {"--no-bridge"}, {"--format", "json", "."}},
	}
	root := NewRootCmd(&App{Stdio: Stdio{Out: io.Discard, Err: io.Discard}})
	seen := 0
	for _, c := range root.Commands() {
		if c.Flags().Lookup("bridge") == nil {
			continue
		}
		seen++
		flags, ok := extra[c.Name()]
		if !ok {
			t.Errorf("%s has --bridge: add it to this test", c.Name())
			flags = [][]string{nil}
		}
		for _, more := range flags {
			for _, empty := range []string{"", "  "} {
				args := append([]string{c.Name(), "--bridge", empty}, more...)
				var out, errb bytes.Buffer
				code := Main(args, Stdio{In: strings.NewReader(""), Out: &out, Err: &errb})
				if code != ExitUsage || !strings.Contains(errb.String(), "bsadapter: --bridge: the bridge command is empty") || out.Len() != 0 {
					t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out.String(), errb.String())
				}
			}
		}
	}
	if seen != len(extra) {
		t.Errorf("%d commands have --bridge, the test knows %d", seen, len(extra))
	}
}

// TestDSNNotPostgres: a URL of another kind is refused before any
// connection, without showing its password; a server that answers in
// another protocol (HTTP) is said to be one.
func TestDSNNotPostgres(t *testing.T) {
	newApp := func() *App { return &App{Stdio: Stdio{Env: func(string) (string, bool) { return "", false }}} }
	for dsn, want := range map[string]string{
		"mysql://u:secret@db.example:3306/x": "--dsn (or BSADAPTER_DSN) is a mysql:// URL, a connection string of another database, not a PostgreSQL connection string",
		"https://example.com/db":             "--dsn (or BSADAPTER_DSN) is an https:// URL (a web address), not a PostgreSQL connection string",
	} {
		f := pgFlags{strategy: "auto", dsn: dsn, dsnGiven: true}
		_, err := newApp().Postgres(&f)
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", dsn, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: the error shows the password: %v", dsn, err)
		}
	}
	for _, dsn := range []string{"postgres://u@h/db", "postgresql://u@h/db", "host=h user=u dbname=db"} {
		f := pgFlags{strategy: "auto", dsn: dsn, dsnGiven: true}
		if _, err := newApp().Postgres(&f); err != nil {
			t.Errorf("%s: %v", dsn, err)
		}
	}

	// A real TCP server that answers like a web server does to bytes it
	// cannot parse.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
			c.Close()
		}
	}()
	// With TLS off pgx reads the answer as a message; with the default
	// (prefer) it first asks for TLS, and the probe tells.
	for _, query := range []string{"?sslmode=disable&connect_timeout=5", "?connect_timeout=5"} {
		f := pgFlags{strategy: "auto", dsn: "postgres://u@" + ln.Addr().String() + "/db" + query, dsnGiven: true}
		_, err = newApp().StartPostgres(context.Background(), &f)
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != ExitUsage || !strings.Contains(err.Error(), "not in PostgreSQL's protocol") || !strings.Contains(ee.Hint, "check the host and port") {
			hint := ""
			if ee != nil {
				hint = ee.Hint
			}
			t.Errorf("HTTP server as DSN (%s): %v (hint %q)", query, err, hint)
		}
	}
}
