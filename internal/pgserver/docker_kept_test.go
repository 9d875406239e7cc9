//go:build linux

package pgserver

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/internal/testsupport/dockerd"
)

// otherProbe is the probe template under another key, as after a change
// of what it installs.
type otherProbe struct{ probeTemplate }

func (otherProbe) Key() string { return "pgserver-probe-2" }

// removeKept removes every kept container, so that a test starts cold.
func removeKept(t *testing.T, e *dockerd.Engine) {
	t.Helper()
	if ids := keptContainers(t); len(ids) > 0 {
		if _, err := e.Docker(append([]string{"rm", "-f", "-v"}, ids...)...); err != nil {
			t.Fatal(err)
		}
	}
}

// startProbe starts the docker strategy with the template t and clones a
// database of it, which it checks holds the template's rows.
func startProbe(t *testing.T, img string, tmpl Template, log *bytes.Buffer) (*Server, string) {
	t.Helper()
	ctx := context.Background()
	opts := Options{Strategy: "docker", Image: img, Template: tmpl}
	if log != nil {
		opts.Log = log
	}
	s, err := Start(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := s.Template(ctx, tmpl)
	if err != nil {
		s.Close()
		t.Fatal(err)
	}
	db, err := s.CreateDatabase(ctx, tpl)
	if err != nil {
		s.Close()
		t.Fatal(err)
	}
	if n := countModules(t, s, db); n != 4 {
		t.Errorf("clone has %d rows, want 4", n)
	}
	return s, db
}

// A second run takes the first one's container (same id), with its
// template prepared; a template under another key gets a container of its
// own, which removes the first once no run uses it.
func TestDockerKeptReused(t *testing.T) {
	e, img := dockerEngine(t)
	removeKept(t, e)
	var log bytes.Buffer
	s, db1 := startProbe(t, img, probeTemplate{}, &log)
	s.Close()
	first := keptContainers(t)
	if len(first) != 1 {
		t.Fatalf("%d kept containers after a run, want 1", len(first))
	}
	if !strings.Contains(log.String(), "prepared the template in the kept container") {
		t.Errorf("the first run's log:\n%s", log.String())
	}
	if port, err := e.Docker("port", first[0], "5432/tcp"); err != nil || !strings.HasPrefix(port, "127.0.0.1:") || strings.Contains(port, "\n") {
		t.Errorf("the kept container publishes 5432 on %q (%v), want 127.0.0.1 only", port, err)
	}

	log.Reset()
	s, db2 := startProbe(t, img, probeTemplate{}, &log)
	if db1 == db2 {
		t.Errorf("both runs got database %s", db1)
	}
	if ids := keptContainers(t); len(ids) != 1 || ids[0] != first[0] {
		t.Errorf("kept containers in the second run: %v, want %v", ids, first)
	}
	if !strings.Contains(log.String(), "reused the kept container") {
		t.Errorf("the second run's log:\n%s", log.String())
	}
	s.Close()
	if c := Which(context.Background(), Options{Strategy: "docker", Image: img}); c.Strategy != "docker" || !c.Ready ||
		!strings.Contains(c.Source, "kept container bsadapter-pg-") || !strings.Contains(c.Source, "(running)") {
		t.Errorf("Which: %+v, want docker, ready, naming the kept container", c)
	}
	if c := Which(context.Background(), Options{Strategy: "docker", Image: "bsadapter-test/not-here:1"}); c.Ready || strings.Contains(c.Source, "kept") {
		t.Errorf("Which for an image not on the engine: %+v", c)
	}
	if hasDatabase(t, first[0], db2) {
		t.Errorf("the second run's database %s outlived Close", db2)
	}

	// A template under another key (changed blocks) gets a container of
	// its own, which supersedes the first: no run uses that, so it goes.
	// The first is minutes old in real use; here it is seconds old.
	oldYoung := keptYoung
	keptYoung = 0
	defer func() { keptYoung = oldYoung }()
	log.Reset()
	s, _ = startProbe(t, img, otherProbe{}, &log)
	s.Close()
	second := keptContainers(t)
	if len(second) != 1 || second[0] == first[0] {
		t.Errorf("kept containers after a run of another template: %v, want one other than %s", second, first[0])
	}
	if !strings.Contains(log.String(), "pgserver: docker: removed the kept container bsadapter-pg-") || !strings.Contains(log.String(), "no run was using it") {
		t.Errorf("the log of the run that superseded a container:\n%s", log.String())
	}

	// One in use stays: a run on the second template holds a database in
	// it while the first template comes back.
	busy, _ := startProbe(t, img, otherProbe{}, nil)
	s, _ = startProbe(t, img, probeTemplate{}, nil)
	s.Close()
	ids := keptContainers(t)
	if len(ids) != 2 || !slices.Contains(ids, second[0]) {
		t.Errorf("kept containers while the superseded one is in use: %v, want %s and a new one", ids, second[0])
	}
	busy.Close()

	// Another tag of the same image is the same image (its container is
	// reused); a changed image (another id) is not, and the containers
	// of other image names stay.
	if _, err := e.Docker("tag", img, "bsadapter-test/postgres:alias"); err != nil {
		t.Fatal(err)
	}
	s, _ = startProbe(t, "bsadapter-test/postgres:alias", probeTemplate{}, nil)
	s.Close()
	if n := len(keptContainers(t)); n != 2 {
		t.Errorf("%d kept containers after a run of another tag of the image, want 2", n)
	}
	cid, err := e.Docker("create", img)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Docker("rm", cid)
	if _, err := e.Docker("commit", "--change", "LABEL org.example.changed=1", cid, "bsadapter-test/postgres:changed"); err != nil {
		t.Fatal(err)
	}
	s, _ = startProbe(t, "bsadapter-test/postgres:changed", probeTemplate{}, nil)
	s.Close()
	if n := len(keptContainers(t)); n != 3 {
		t.Errorf("%d kept containers after a run of a changed image, want 3", n)
	}
}

// Two runs at once, with no kept container yet: one container, one
// template, a database each.
func TestDockerKeptConcurrent(t *testing.T) {
	e, img := dockerEngine(t)
	removeKept(t, e)
	const runs = 3
	var wg sync.WaitGroup
	servers := make([]*Server, runs)
	dbs := make([]string, runs)
	errs := make([]error, runs)
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			s, err := Start(ctx, Options{Strategy: "docker", Image: img, Template: probeTemplate{}})
			if err != nil {
				errs[i] = err
				return
			}
			servers[i] = s
			tpl, err := s.Template(ctx, probeTemplate{})
			if err == nil {
				dbs[i], err = s.CreateDatabase(ctx, tpl)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	defer func() {
		for _, s := range servers {
			if s != nil {
				s.Close()
			}
		}
	}()
	seen := map[string]bool{}
	for i := range runs {
		if errs[i] != nil {
			t.Fatalf("run %d: %v", i, errs[i])
		}
		if seen[dbs[i]] {
			t.Errorf("two runs got database %s", dbs[i])
		}
		seen[dbs[i]] = true
		if n := countModules(t, servers[i], dbs[i]); n != 4 {
			t.Errorf("run %d: clone has %d rows, want 4", i, n)
		}
	}
	if ids := keptContainers(t); len(ids) != 1 {
		t.Errorf("%d kept containers after concurrent first runs, want 1: %v", len(ids), ids)
	}
}

// A kept container that was stopped is started again (same id); one whose
// server does not answer is replaced by a new one.
func TestDockerKeptBroken(t *testing.T) {
	e, img := dockerEngine(t)
	removeKept(t, e)
	s, _ := startProbe(t, img, probeTemplate{}, nil)
	s.Close()
	first := keptContainers(t)
	if len(first) != 1 {
		t.Fatalf("%d kept containers, want 1", len(first))
	}

	if _, err := e.Docker("stop", first[0]); err != nil {
		t.Fatal(err)
	}
	s, _ = startProbe(t, img, probeTemplate{}, nil)
	s.Close()
	if ids := keptContainers(t); len(ids) != 1 || ids[0] != first[0] {
		t.Errorf("after a stop: kept containers %v, want %v started again", ids, first)
	}

	// A server that takes connections and never answers them.
	pid, err := e.Docker("inspect", "-f", "{{.State.Pid}}", first[0])
	if err != nil {
		t.Fatal(err)
	}
	var n int
	for _, c := range pid {
		n = n*10 + int(c-'0')
	}
	if err := syscall.Kill(n, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	oldReady, oldYoung := keptReadyTimeout, keptYoung
	keptReadyTimeout, keptYoung = 3*time.Second, 0
	defer func() { keptReadyTimeout, keptYoung = oldReady, oldYoung }()
	var log bytes.Buffer
	s, _ = startProbe(t, img, probeTemplate{}, &log)
	s.Close()
	ids := keptContainers(t)
	if len(ids) != 1 || ids[0] == first[0] {
		t.Errorf("after the server hung: kept containers %v, want one new in place of %s", ids, first[0])
	}
	if !strings.Contains(log.String(), "is broken") || !strings.Contains(log.String(), "replacing it") {
		t.Errorf("the log does not say the container was replaced:\n%s", log.String())
	}
}
