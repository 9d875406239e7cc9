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
// own engine and image: every suite passes, the container goes with the
// run, and a missing image names itself and the ways out.
func TestConformPGDocker(t *testing.T) {
	e := dockerd.Shared(t)
	t.Setenv("DOCKER_HOST", e.Host)
	img := e.PostgresImage(t)
	var out, errb bytes.Buffer
	args := []string{"conform", "--pg", "docker", "--pg-image", img}
	code := cli.Main(args, cli.Stdio{Out: &out, Err: &errb, In: strings.NewReader("")})
	if code != cli.ExitOK {
		t.Fatalf("%v: exit %d\nstdout:\n%s\nstderr:\n%s", args, code, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "pg (docker)") || !strings.Contains(out.String(), " passed, 0 failed") {
		t.Errorf("report:\n%s", out.String())
	}
	if !strings.Contains(errb.String(), "PostgreSQL container "+img+" ready") {
		t.Errorf("stderr does not say the container was ready:\n%s", errb.String())
	}
	if ids, _ := e.Docker("ps", "-aq", "--filter", "label=org.bsadapter.run"); ids != "" {
		t.Errorf("containers left after the run: %s", ids)
	}

	out.Reset()
	errb.Reset()
	code = cli.Main([]string{"conform", "--pg", "docker", "--pg-image", "127.0.0.1:1/bsadapter/none:15"}, cli.Stdio{Out: &out, Err: &errb, In: strings.NewReader("")})
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
