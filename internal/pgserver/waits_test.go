//go:build linux

package pgserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// endsWithin runs f and fails the test when it has not returned after
// limit: f is bounded by a timeout of its own, far shorter than limit,
// and this only turns a missing bound into a failure instead of a hang.
func endsWithin(t *testing.T, limit time.Duration, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(limit):
		t.Fatalf("still waiting after %s: the wait is not bounded", limit)
		return nil
	}
}

// fakeBinaries writes a postgres and an initdb that never get anywhere:
// initdb hangs (hangInitdb) or makes its folder and ends, and postgres
// prints a version but never takes a connection.
func fakeBinaries(t *testing.T, hangInitdb bool) string {
	t.Helper()
	dir := sharedDir(t)
	initdb := "#!/bin/sh\nfor a; do d=$a; done\nmkdir -p \"$d\"\n"
	if hangInitdb {
		initdb = "#!/bin/sh\nexec sleep 3600\n"
	}
	postgres := "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'postgres (PostgreSQL) 15.99'; exit 0; fi\nexec sleep 3600\n"
	for name, body := range map[string]string{"initdb": initdb, "postgres": postgres} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// initdb and the server's start have a bound of their own, and the error
// says which wait ran out and how long it was; nothing of the run stays.
func TestLocalStartTimeout(t *testing.T) {
	base := runFolderBase()
	before := ourRunFolders(base)
	for _, c := range []struct {
		hangInitdb bool
		wait, says string
	}{
		{true, "initdb", "initdb did not finish within 1s, the start timeout"},
		{false, "start", "postgres did not take connections within 1s, the start timeout"},
	} {
		t.Run(c.wait, func(t *testing.T) {
			bin := fakeBinaries(t, c.hangInitdb)
			old := searchPlaces
			searchPlaces = func(yield func(string) bool) { yield(bin) }
			defer func() { searchPlaces = old }()
			err := endsWithin(t, 3*time.Minute, func() error {
				_, err := Start(context.Background(), Options{Strategy: "local", CacheDir: t.TempDir(), StartTimeout: time.Second})
				return err
			})
			var te *TimeoutError
			if !errors.As(err, &te) || te.Wait != c.wait || te.Limit != time.Second || !te.StartTimeout() {
				t.Fatalf("error %v, want a start timeout of 1s on %s", err, c.wait)
			}
			if !strings.Contains(err.Error(), c.says) {
				t.Errorf("error %q, want it to say %q", err, c.says)
			}
		})
	}
	if got := ourRunFolders(base); !slices.Equal(got, before) {
		t.Errorf("run folders before %v, after %v", before, got)
	}
	if procs := processesOf(0, base+"/"+runPrefix+strconv.Itoa(os.Getpid())+"-"); len(procs) > 0 {
		t.Errorf("processes left:\n%s", strings.Join(procs, "\n"))
	}
}

func inode(fi os.FileInfo) uint64 { return fi.Sys().(*syscall.Stat_t).Ino }

// sleepyTemplate's Prepare waits an hour, and notes whether its context
// carries what Options.PrepareContext put there.
type sleepyTemplate struct{ sawHook *bool }

type hookKey struct{}

func (sleepyTemplate) Key() string     { return "pgserver-sleepy" }
func (sleepyTemplate) Roles() []string { return nil }
func (s sleepyTemplate) Prepare(ctx context.Context, conn *pgx.Conn) error {
	*s.sawHook = ctx.Value(hookKey{}) != nil
	_, err := conn.Exec(ctx, "select pg_sleep(3600)")
	return err
}

// Preparing a template has a time limit of its own, and runs in the
// context Options.PrepareContext makes; the error says the limit. On a
// first run it fails the start and leaves nothing in the cache.
func TestPrepareTimeout(t *testing.T) {
	needLocal(t)
	var saw bool
	hook := func(ctx context.Context) context.Context { return context.WithValue(ctx, hookKey{}, true) }
	opts := Options{Strategy: "local", PrepareTimeout: 2 * time.Second, PrepareContext: hook}
	s, err := Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	pid, dir := s.pid, s.runDir
	err = endsWithin(t, 3*time.Minute, func() error {
		_, err := s.Template(context.Background(), sleepyTemplate{&saw})
		return err
	})
	var te *TimeoutError
	if !errors.As(err, &te) || te.Wait != "prepare" || te.Limit != 2*time.Second || te.StartTimeout() {
		t.Errorf("error %v, want the time limit for preparing, 2s", err)
	} else if !strings.Contains(err.Error(), "did not finish within 2s, the time limit for preparing a template") {
		t.Errorf("error %q does not say which limit ran out", err)
	}
	if !saw {
		t.Error("Prepare's context lacks what PrepareContext added")
	}
	if err := s.Close(); err != nil {
		t.Error(err)
	}
	checkNothingLeft(t, pid, dir)

	cache := t.TempDir()
	opts.CacheDir, opts.Template = cache, sleepyTemplate{&saw}
	err = endsWithin(t, 3*time.Minute, func() error {
		_, err := Start(context.Background(), opts)
		return err
	})
	if !errors.As(err, &te) || te.Wait != "prepare" {
		t.Errorf("first run with a template that hangs: %v, want the time limit for preparing", err)
	}
	if names := templatesIn(cache); len(names) > 0 {
		t.Errorf("the cache holds %v after a failed first run", names)
	}
}

// A run that cannot start a server for a reason of its own (here, too few
// file descriptors) keeps the cached template: only a new cluster that
// starts where the cached one did not proves the cached one damaged.
func TestCachedTemplateKeptWhenTheRunCannotStart(t *testing.T) {
	needLocal(t)
	cache := t.TempDir()
	ctx := context.Background()
	s, err := Start(ctx, Options{Strategy: "local", CacheDir: cache, Template: probeTemplate{}})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	names := templatesIn(cache)
	if len(names) != 1 {
		t.Fatalf("cache holds %v", names)
	}
	tmpl := filepath.Join(cache, names[0])
	ino := func() uint64 {
		st, err := os.Stat(filepath.Join(tmpl, "PG_VERSION"))
		if err != nil {
			t.Fatalf("the cached template is gone: %v", err)
		}
		return inode(st)
	}
	was := ino()

	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "BSADAPTER_PGSERVER_HELPER=run", "BSADAPTER_PGSERVER_CACHE="+cache, "BSADAPTER_PGSERVER_NOFILE=40")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("a run with 40 file descriptors started a server: %s", out)
	}
	var res struct{ Error string }
	if json.Unmarshal(firstLine(out), &res) != nil || !strings.Contains(res.Error, "file descriptors") || !strings.Contains(res.Error, "it is kept") {
		t.Errorf("the run said %s, want PostgreSQL's complaint and that the template is kept", out)
	}
	if got := templatesIn(cache); !slices.Equal(got, names) {
		t.Fatalf("cache holds %v, want %v", got, names)
	}
	if _, err := os.Stat(filepath.Join(tmpl, readyMarker)); err != nil || ino() != was {
		t.Errorf("the cached template was replaced or unmarked (%v)", err)
	}
	left, _ := filepath.Glob(filepath.Join(runFolderBase(), runPrefix+strconv.Itoa(cmd.Process.Pid)+"-*"))
	if len(left) > 0 {
		t.Errorf("run folders left: %v", left)
	}

	// An ordinary run uses it as it is.
	var log bytes.Buffer
	s, err = Start(ctx, Options{Strategy: "local", CacheDir: cache, Log: &log, Template: probeTemplate{}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !strings.Contains(log.String(), "cached template") || ino() != was {
		t.Errorf("the next run did not use the cached template: %s", log.String())
	}
}

// Without a cache folder, the local strategy builds its template for the
// run and keeps it nowhere; the npm strategy, which must keep its
// binaries, says to set XDG_CACHE_HOME or HOME.
func TestWithoutACacheFolder(t *testing.T) {
	needLocal(t)
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	var log bytes.Buffer
	s, err := Start(context.Background(), Options{Strategy: "local", Log: &log, Template: probeTemplate{}})
	if err != nil {
		t.Fatalf("local without a cache folder: %v", err)
	}
	if n := countModules(t, s, TemplateName); n != 4 {
		t.Errorf("%d modules", n)
	}
	pid, dir := s.pid, s.runDir
	if err := s.Close(); err != nil {
		t.Error(err)
	}
	checkNothingLeft(t, pid, dir)
	if !strings.Contains(log.String(), "for this run only") {
		t.Errorf("log %q does not say the template is not kept", log.String())
	}

	_, err = Start(context.Background(), Options{Strategy: "npm"})
	var nc *NoCacheError
	if !errors.As(err, &nc) || !strings.Contains(err.Error(), "set XDG_CACHE_HOME, or HOME") || strings.Contains(err.Error(), "pass a cache folder") {
		t.Errorf("npm without a cache folder: %v", err)
	}
}
