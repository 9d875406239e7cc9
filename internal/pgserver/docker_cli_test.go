//go:build linux

package pgserver_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/internal/cli"
	"github.com/bsadapter/bsadapter/internal/testsupport/dockerd"
)

// bsadapter conform --pg docker from start to end, against the tests'
// own engine and image: every suite passes, the container is kept and the
// second run uses it, and a missing image names itself and the ways out.
func TestConformPGDocker(t *testing.T) {
	e := dockerd.Shared(t)
	t.Setenv("DOCKER_HOST", e.Host)
	img := e.PostgresImage(t)
	if ids, _ := e.Docker("ps", "-aq", "--filter", "label=org.bsadapter.kept"); ids != "" {
		if _, err := e.Docker(append([]string{"rm", "-f"}, strings.Fields(ids)...)...); err != nil {
			t.Fatal(err)
		}
	}
	var out, errb bytes.Buffer
	var kept string
	for i, want := range []string{"kept for later runs", "reused the kept container"} {
		out.Reset()
		errb.Reset()
		args := []string{"conform", "--pg", "docker", "--pg-image", img}
		code := cli.Main(args, cli.Stdio{Out: &out, Err: &errb, In: strings.NewReader("")})
		if code != cli.ExitOK {
			t.Fatalf("run %d: %v: exit %d\nstdout:\n%s\nstderr:\n%s", i+1, args, code, out.String(), errb.String())
		}
		if !strings.Contains(out.String(), "pg (docker)") || !strings.Contains(out.String(), " passed, 0 failed") {
			t.Errorf("run %d: report:\n%s", i+1, out.String())
		}
		if !strings.Contains(errb.String(), "PostgreSQL container "+img+" ready") || !strings.Contains(errb.String(), want) {
			t.Errorf("run %d: stderr does not say the container was ready (%s):\n%s", i+1, want, errb.String())
		}
		if ids, _ := e.Docker("ps", "-aq", "--filter", "label=org.bsadapter.run"); ids != "" {
			t.Errorf("run %d: containers left after the run: %s", i+1, ids)
		}
		ids, _ := e.Docker("ps", "-q", "--no-trunc", "--filter", "label=org.bsadapter.kept")
		if i == 0 {
			kept = ids
		}
		if len(strings.Fields(ids)) != 1 || ids != kept {
			t.Errorf("run %d: kept containers %q, want the first run's %q", i+1, ids, kept)
		}
	}
	// Only the template stays in the kept container: no run's database.
	dbs, err := e.Docker("exec", "-u", "postgres", kept, "psql", "-Atc", "select datname from pg_database where datname like 'bsadapter%' order by 1")
	if err != nil {
		t.Fatal(err)
	}
	if dbs != "bsadapter_template" {
		t.Errorf("databases in the kept container after the runs: %q, want only bsadapter_template", dbs)
	}

	out.Reset()
	errb.Reset()
	code := cli.Main([]string{"conform", "--pg", "docker", "--pg-image", "127.0.0.1:1/bsadapter/none:15"}, cli.Stdio{Out: &out, Err: &errb, In: strings.NewReader("")})
	if code != cli.ExitUsage {
		t.Fatalf("missing image: exit %d, want %d\n%s", code, cli.ExitUsage, errb.String())
	}
	for _, want := range []string{"127.0.0.1:1/bsadapter/none:15", "could not be pulled", "--pg-image", "--pg local"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("missing image: stderr does not say %q:\n%s", want, errb.String())
		}
	}
	if strings.Contains(errb.String(), "start Docker") {
		t.Errorf("missing image: tells to start a running Docker:\n%s", errb.String())
	}
}
