//go:build linux

package pgserver

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/internal/testenv"
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

// The docker strategy against a real engine (DOCKER_HOST or the usual
// sockets): a server that takes a template and clones it, as the roles the
// template creates, and no container left once it is closed. The image is
// BSADAPTER_TEST_PG_IMAGE, else the default one (pulled if missing).
func TestDockerStartsPostgres(t *testing.T) {
	if err := pingDocker(context.Background(), dockerPingTimeout); err != nil {
		testenv.Missing(t, "no Docker engine: %v", err)
	}
	image := os.Getenv("BSADAPTER_TEST_PG_IMAGE")
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

	host, _ := dockerEndpoint()
	d, err := newDockerClient(host)
	if err != nil {
		t.Fatal(err)
	}
	ours := func() []string {
		var list []struct {
			ID     string            `json:"Id"`
			Labels map[string]string `json:"Labels"`
		}
		if err := d.do(ctx, "GET", "/containers/json", map[string][]string{"all": {"1"}}, nil, &list); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, c := range list {
			if c.Labels[runLabel] == runOwner() {
				ids = append(ids, c.ID)
			}
		}
		return ids
	}
	if ids := ours(); len(ids) != 1 {
		t.Errorf("the engine runs %d containers of this run, want 1", len(ids))
	}
	closed = true
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if ids := ours(); len(ids) != 0 {
		t.Errorf("containers left after Close: %s", strings.Join(ids, ", "))
	}
}
