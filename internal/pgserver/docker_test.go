//go:build linux

package pgserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/internal/testenv"
	"github.com/bsadapter/bsadapter/internal/testsupport/dockerd"
	"github.com/jackc/pgx/v5"
)

func TestSplitImage(t *testing.T) {
	for _, tc := range []struct{ ref, repo, tag string }{
		{"postgres:15.8-alpine", "postgres", "15.8-alpine"},
		{"postgres", "postgres", ""},
		{"localhost:5000/pg/server:15", "localhost:5000/pg/server", "15"},
		{"localhost:5000/pg", "localhost:5000/pg", ""},
		{"postgres@sha256:abc", "postgres", "sha256:abc"},
	} {
		if repo, tag := splitImage(tc.ref); repo != tc.repo || tag != tc.tag {
			t.Errorf("splitImage(%q) = %q, %q, want %q, %q", tc.ref, repo, tag, tc.repo, tc.tag)
		}
	}
}

// A container's log without a terminal comes in frames; what is not a
// frame is kept as it is.
func TestDemuxLogs(t *testing.T) {
	frame := func(stream byte, s string) []byte {
		n := len(s)
		return append([]byte{stream, 0, 0, 0, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}, s...)
	}
	raw := append(frame(1, "ready\n"), frame(2, "FATAL: no\n")...)
	if got := string(demuxLogs(raw)); got != "ready\nFATAL: no\n" {
		t.Errorf("demuxLogs = %q", got)
	}
	if got := string(demuxLogs([]byte("plain text\n"))); got != "plain text\n" {
		t.Errorf("plain log = %q", got)
	}
	if got := string(demuxLogs(frame(1, "cut short")[:12])); got != "cut " {
		t.Errorf("a frame cut short = %q", got)
	}
}

// The docker strategy against a real engine: a server that takes a
// template and clones it, as the roles the template creates, and no
// container left once it is closed. With BSADAPTER_TEST_PG_IMAGE, that
// image on the engine of DOCKER_HOST (or the usual sockets); otherwise the
// tests' own engine and image.
func TestDockerStartsPostgres(t *testing.T) {
	image := os.Getenv("BSADAPTER_TEST_PG_IMAGE")
	if image == "" {
		// The tests' own engine and image: no registry needed.
		_, image = dockerEngine(t)
	} else if err := pingDocker(context.Background(), dockerPingTimeout); err != nil {
		testenv.Missing(t, "no Docker engine: %v", err)
	}
	ctx := context.Background()
	s, err := Start(ctx, Options{Strategy: "docker", Image: image, Template: probeTemplate{}})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			s.Close()
		}
	}()
	if s.Strategy() != "docker" {
		t.Errorf("strategy %q", s.Strategy())
	}
	tpl, err := s.Template(ctx, probeTemplate{})
	if err != nil {
		t.Fatal(err)
	}
	db, err := s.CreateDatabase(ctx, tpl)
	if err != nil {
		t.Fatal(err)
	}
	if n := countModules(t, s, db); n != 4 {
		t.Errorf("clone has %d rows, want 4", n)
	}
	conn, err := s.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	var ok bool
	if _, err := conn.Exec(ctx, "set role "+probeRole); err != nil {
		t.Error(err)
	} else if err := conn.QueryRow(ctx, "select probe.ping()").Scan(&ok); err != nil || !ok {
		t.Errorf("as %s: %v, %v", probeRole, ok, err)
	}
	conn.Close(ctx)

	kept := keptContainers(t)
	if len(kept) != 1 {
		t.Fatalf("the engine has %d kept containers, want 1", len(kept))
	}
	closed = true
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if after := keptContainers(t); len(after) != 1 || after[0] != kept[0] {
		t.Errorf("kept containers after Close: %v, want %v", after, kept)
	}
	if hasDatabase(t, kept[0], db) {
		t.Errorf("the run's database %s outlived Close", db)
	}
}

// keptContainers lists the ids of the kept containers on the engine of
// DOCKER_HOST.
func keptContainers(t *testing.T) []string {
	t.Helper()
	host, _ := dockerEndpoint()
	d, err := newDockerClient(host)
	if err != nil {
		t.Fatal(err)
	}
	var list []struct {
		ID     string            `json:"Id"`
		Labels map[string]string `json:"Labels"`
	}
	if err := d.do(context.Background(), "GET", "/containers/json", map[string][]string{"all": {"1"}}, nil, &list); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range list {
		if _, ok := c.Labels[keptLabel]; ok {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// hasDatabase says whether the server in kept container id has database db.
func hasDatabase(t *testing.T, id, db string) bool {
	t.Helper()
	host, _ := dockerEndpoint()
	d, err := newDockerClient(host)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := d.inspect(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	password, _ := envValue(st.Config.Env, "POSTGRES_PASSWORD")
	port, err := d.publishedPort(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, "postgres://postgres:"+password+"@127.0.0.1:"+port+"/postgres?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "select count(*) from pg_database where datname = $1", db).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1
}

// dockerEngine points the test at the test binary's own Docker engine and
// returns it with the name of a local PostgreSQL image.
func dockerEngine(t *testing.T) (*dockerd.Engine, string) {
	t.Helper()
	e := dockerd.Shared(t)
	t.Setenv("DOCKER_HOST", e.Host)
	return e, e.PostgresImage(t)
}

// containersOf lists the containers whose run label names owner.
func containersOf(t *testing.T, e *dockerd.Engine, owner string) []string {
	t.Helper()
	out, err := e.Docker("ps", "-aq", "--filter", "label="+runLabel+"="+owner)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(out)
}

// helperDocker starts the docker strategy, creates a database from the
// probe template, says its name, and waits to be killed.
func helperDocker() int {
	ctx := context.Background()
	fail := func(err error) int {
		b, _ := json.Marshal(map[string]string{"error": err.Error()})
		os.Stdout.Write(append(b, '\n'))
		return 1
	}
	s, err := Start(ctx, Options{Strategy: "docker", Image: os.Getenv("BSADAPTER_PGSERVER_IMAGE"), Template: probeTemplate{}})
	if err != nil {
		return fail(err)
	}
	tpl, err := s.Template(ctx, probeTemplate{})
	if err != nil {
		return fail(err)
	}
	db, err := s.CreateDatabase(ctx, tpl)
	if err != nil {
		return fail(err)
	}
	b, _ := json.Marshal(map[string]string{"owner": runOwner(), "db": db})
	os.Stdout.Write(append(b, '\n'))
	time.Sleep(time.Hour)
	return 0
}

// A run killed with SIGKILL cannot drop its database in the kept
// container; the next docker start on this host does. A container left
// by a killed run that had one of its own (its run label names a process
// that is gone) is removed, and the kept container is not.
func TestDockerKilledRunSwept(t *testing.T) {
	e, img := dockerEngine(t)
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "BSADAPTER_PGSERVER_HELPER=docker", "BSADAPTER_PGSERVER_IMAGE="+img)
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	var got map[string]string
	if err != nil || json.Unmarshal([]byte(line), &got) != nil || got["db"] == "" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("helper printed %q (%v)\n%s", line, err, stderr.String())
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	kept := keptContainers(t)
	if len(kept) != 1 {
		t.Fatalf("%d kept containers, want 1", len(kept))
	}
	if !hasDatabase(t, kept[0], got["db"]) {
		t.Fatalf("the killed run's database %s is not there to sweep", got["db"])
	}
	// A container of a run that is gone, as bsadapter made one per run.
	if _, err := e.Docker("create", "--label", runLabel+"="+got["owner"], img); err != nil {
		t.Fatal(err)
	}

	var log bytes.Buffer
	s, err := Start(context.Background(), Options{Strategy: "docker", Image: img, Template: probeTemplate{}, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if hasDatabase(t, kept[0], got["db"]) {
		t.Errorf("the killed run's database %s was not dropped\n%s", got["db"], log.String())
	}
	if !strings.Contains(log.String(), "dropped "+got["db"]+", left by a bsadapter run that was killed") {
		t.Errorf("the log does not say what was dropped:\n%s", log.String())
	}
	if ids := containersOf(t, e, got["owner"]); len(ids) != 0 {
		t.Errorf("the killed run's container %v was not swept\n%s", ids, log.String())
	}
	if after := keptContainers(t); len(after) != 1 || after[0] != kept[0] {
		t.Errorf("kept containers after the sweep: %v, want %v", after, kept)
	}
}

// An image the engine does not have and cannot pull: the error names it
// and the ways out, and no registry is contacted (the image's registry is
// a loopback port that refuses).
func TestDockerMissingImage(t *testing.T) {
	dockerEngine(t)
	const img = "127.0.0.1:1/bsadapter/no-such-postgres:15"
	begin := time.Now()
	_, err := Start(context.Background(), Options{Strategy: "docker", Image: img})
	if err == nil {
		t.Fatal("started without the image")
	}
	for _, want := range []string{"the image " + img + " is not on this engine and could not be pulled", "--pg-image", "--pg local"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q: %v", want, err)
		}
	}
	if strings.Contains(err.Error(), "start Docker") {
		t.Errorf("error tells to start a Docker that runs: %v", err)
	}
	if d := time.Since(begin); d > 20*time.Second {
		t.Errorf("took %v", d)
	}
}

// A container whose server never takes connections, or that stops: the
// error says so with the container's last log lines, and the container
// goes.
func TestDockerNotReady(t *testing.T) {
	e, img := dockerEngine(t)
	derive := func(name, script string) string {
		id, err := e.Docker("create", "--entrypoint", "/bin/sh", img)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Docker("rm", id)
		if _, err := e.Docker("commit", "--change", `ENTRYPOINT ["/bin/sh", "-c", "`+script+`", "--"]`, id, name); err != nil {
			t.Fatal(err)
		}
		return name
	}
	old := dockerStartTimeout
	dockerStartTimeout = 3 * time.Second
	defer func() { dockerStartTimeout = old }()
	for _, c := range []struct{ image, want, line string }{
		{derive("bsadapter-test/silent:1", "echo waiting for nothing; sleep 3600"), "did not accept connections within 3s", "waiting for nothing"},
		{derive("bsadapter-test/crash:1", "echo FATAL: cannot start; exit 3"), "exit code 3", "FATAL: cannot start"},
	} {
		_, err := Start(context.Background(), Options{Strategy: "docker", Image: c.image})
		if err == nil {
			t.Fatalf("%s: started", c.image)
		}
		for _, want := range []string{c.want, c.line} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error does not say %q: %v", c.image, want, err)
			}
		}
		if ids, _ := e.Docker("ps", "-aq", "--filter", "label="+keptImageLabel+"="+c.image); ids != "" {
			t.Errorf("%s: the container that never got ready stayed: %v", c.image, ids)
		}
	}
	// Options.StartTimeout, when given, is the bound, and the error is a
	// start timeout naming it.
	_, err := Start(context.Background(), Options{Strategy: "docker", Image: "bsadapter-test/silent:1", StartTimeout: 2 * time.Second})
	var te *TimeoutError
	if !errors.As(err, &te) || te.Limit != 2*time.Second || !strings.Contains(err.Error(), "did not accept connections within 2s, the start timeout") {
		t.Errorf("with StartTimeout 2s: %v", err)
	}
}

// The tests' image behaves like the official one: the environment picks the
// user, password and database; the log says "ready" once for the init
// server and once for the real one; the published port is on loopback.
func TestDockerTestImage(t *testing.T) {
	e, img := dockerEngine(t)
	id, err := e.Docker("run", "-d", "-e", "POSTGRES_USER=alice", "-e", "POSTGRES_PASSWORD=s3cret", "-e", "POSTGRES_DB=shop", "-p", "5432", img)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Docker("rm", "-f", id)
	var logs string
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		logs, _ = e.Docker("logs", id)
		if strings.Count(logs, "database system is ready to accept connections") >= 2 {
			break
		}
	}
	if n := strings.Count(logs, "database system is ready to accept connections"); n != 2 {
		t.Fatalf("%d ready lines, want 2:\n%s", n, logs)
	}
	port, err := e.Docker("port", id, "5432/tcp")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(port, "127.0.0.1:") {
		t.Errorf("published on %s, want 127.0.0.1 only", port)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, "postgres://alice:s3cret@"+strings.Fields(port)[0]+"/shop?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var user, db, version string
	if err := conn.QueryRow(ctx, "select current_user, current_database(), current_setting('server_version')").Scan(&user, &db, &version); err != nil {
		t.Fatal(err)
	}
	if user != "alice" || db != "shop" || !strings.HasPrefix(version, "15.") {
		t.Errorf("connected as %s to %s on %s", user, db, version)
	}
	if _, err := pgx.Connect(ctx, "postgres://alice:wrong@"+strings.Fields(port)[0]+"/shop?sslmode=disable"); err == nil {
		t.Error("a wrong password was accepted")
	}
}

// The tests' image carries pgvector when this machine's PostgreSQL 15 has
// it (scripts/test builds it): the extension is created at 0.8 or newer,
// and an HNSW index is scanned iteratively, as the knowledge and memory
// blocks need.
func TestDockerTestImageHasPgvector(t *testing.T) {
	if !dockerd.HasPgvector() {
		testenv.Missing(t, "this machine's PostgreSQL 15 has no pgvector 0.8 or newer to put into the tests' image (as root, scripts/test builds it with scripts/pgvector.sh)")
	}
	_, image := dockerEngine(t)
	ctx := context.Background()
	s, err := Start(ctx, Options{Strategy: "docker", Image: image})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	db, err := s.CreateDatabase(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := s.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "create extension vector"); err != nil {
		t.Fatal(err)
	}
	var version string
	if err := conn.QueryRow(ctx, "select extversion from pg_extension where extname = 'vector'").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(version, "0.8") && !strings.HasPrefix(version, "0.9") {
		t.Errorf("pgvector %s in the image, want 0.8 or newer", version)
	}
	if _, err := conn.Exec(ctx, `create table items (id int, e vector(3));
		insert into items values (1, '[1,0,0]'), (2, '[0,1,0]'), (3, '[0.9,0.1,0]');
		create index on items using hnsw (e vector_cosine_ops);
		set hnsw.iterative_scan = relaxed_order`); err != nil {
		t.Fatal(err)
	}
	var ids string
	if err := conn.QueryRow(ctx, "select string_agg(id::text, ',' order by d) from (select id, e <=> '[1,0,0]' d from items order by 2 limit 2) x").Scan(&ids); err != nil {
		t.Fatal(err)
	}
	if ids != "1,3" {
		t.Errorf("nearest to [1,0,0]: %s, want 1,3", ids)
	}
}
