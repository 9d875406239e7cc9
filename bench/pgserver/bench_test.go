// Package pgserver_bench measures how fast bsadapter gets a PostgreSQL with
// the blocks installed, next to the naive way, and the throughput of
// stream_append next to a raw insert. Run it with ./run, which prints the
// figures side by side.
package pgserver_bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/internal/pgserver"
	"github.com/jackc/pgx/v5"
)

func start(b *testing.B, cache string) *pgserver.Server {
	b.Helper()
	s, err := pgserver.Start(context.Background(), pgserver.Options{Strategy: "local", CacheDir: cache, Template: blocks.Template{}})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// connectBlocks connects to a database with every block installed and
// checks that it has them.
func connectBlocks(b *testing.B, s *pgserver.Server, db string) {
	b.Helper()
	conn, err := s.Connect(context.Background(), db)
	if err != nil {
		b.Fatal(err)
	}
	var n int
	if err := conn.QueryRow(context.Background(), "select count(*) from better_supabase.modules").Scan(&n); err != nil || n != len(blocks.List()) {
		b.Fatalf("%d modules, %v", n, err)
	}
	conn.Close(context.Background())
}

// BenchmarkStart: from nothing to a connection on a database with every
// block installed. warm: the cached template exists; cold: the first run
// ever (initdb, install, and the template saved for next time); clone: as
// warm, plus the per-suite clone the connection goes to.
func BenchmarkStart(b *testing.B) {
	b.Run("warm", func(b *testing.B) {
		cache := b.TempDir()
		start(b, cache).Close() // fill the cache
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			s := start(b, cache)
			tpl, err := s.Template(context.Background(), blocks.Template{})
			if err != nil {
				b.Fatal(err)
			}
			connectBlocks(b, s, tpl)
			b.StopTimer()
			s.Close()
			b.StartTimer()
		}
	})
	b.Run("warm+clone", func(b *testing.B) {
		cache := b.TempDir()
		start(b, cache).Close()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			s := start(b, cache)
			tpl, _ := s.Template(context.Background(), blocks.Template{})
			db, err := s.CreateDatabase(context.Background(), tpl)
			if err != nil {
				b.Fatal(err)
			}
			connectBlocks(b, s, db)
			b.StopTimer()
			s.Close()
			b.StartTimer()
		}
	})
	b.Run("cold", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			cache, err := os.MkdirTemp("", "bsadapter-bench-cache-")
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			s := start(b, cache)
			tpl, err := s.Template(context.Background(), blocks.Template{})
			if err != nil {
				b.Fatal(err)
			}
			connectBlocks(b, s, tpl)
			b.StopTimer()
			s.Close()
			os.RemoveAll(cache)
			b.StartTimer()
		}
	})
}

// BenchmarkClone: the per-suite clone of the blocks template.
func BenchmarkClone(b *testing.B) {
	s := start(b, "")
	defer s.Close()
	ctx := context.Background()
	tpl, err := s.Template(ctx, blocks.Template{})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		db, err := s.CreateDatabase(ctx, tpl)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		s.DropDatabase(ctx, db)
		b.StartTimer()
	}
}

// BenchmarkNaive: what a test suite would do without bsadapter: initdb
// into a temporary folder every time, pg_ctl -w start, install the blocks,
// connect.
func BenchmarkNaive(b *testing.B) {
	bin := binDir(b)
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			b.Skip("running as root without a postgres user")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}
	}
	run := func(name string, args ...string) {
		cmd := exec.Command(filepath.Join(bin, name), args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			b.Fatalf("%s: %v\n%s", name, err, out.String())
		}
	}
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dir, err := os.MkdirTemp("", "bsadapter-naive-")
		if err != nil {
			b.Fatal(err)
		}
		if cred != nil {
			os.Chown(dir, int(cred.Uid), int(cred.Gid))
		}
		data := filepath.Join(dir, "data")
		b.StartTimer()
		run("initdb", "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "-D", data)
		run("pg_ctl", "-w", "-D", data, "-l", filepath.Join(dir, "log"), "-o", "-c listen_addresses='' -k "+dir, "start")
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, fmt.Sprintf("host=%s user=postgres dbname=postgres sslmode=disable", dir))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := blocks.Install(ctx, conn); err != nil {
			b.Fatal(err)
		}
		var n int
		conn.QueryRow(ctx, "select count(*) from better_supabase.modules").Scan(&n)
		conn.Close(ctx)
		b.StopTimer()
		run("pg_ctl", "-D", data, "-m", "immediate", "stop")
		os.RemoveAll(dir)
		b.StartTimer()
	}
}

func binDir(b *testing.B) string {
	for _, d := range []string{"/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/17/bin"} {
		if _, err := os.Stat(filepath.Join(d, "pg_ctl")); err == nil {
			return d
		}
	}
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		return filepath.Dir(p)
	}
	b.Skip("no pg_ctl")
	return ""
}

// BenchmarkAppend: chunks per second through stream_append, and through a
// raw INSERT ... ON CONFLICT DO NOTHING into tables of the same shape (the
// same keys and foreign key) on the same server: the limit.
func BenchmarkAppend(b *testing.B) {
	s := start(b, "")
	defer s.Close()
	ctx := context.Background()
	tpl, err := s.Template(ctx, blocks.Template{})
	if err != nil {
		b.Fatal(err)
	}
	db, err := s.CreateDatabase(ctx, tpl)
	if err != nil {
		b.Fatal(err)
	}
	conn, err := s.Connect(ctx, db)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `
		create table raw_streams (like better_supabase.streams including all);
		create table raw_chunks (like better_supabase.stream_chunks including all);
		alter table raw_chunks add foreign key (stream_id) references raw_streams (id) on delete cascade`); err != nil {
		b.Fatal(err)
	}
	// Each iteration does one stream_append and one raw insert of the same
	// batch, timed apart: on a shared machine the load changes from second
	// to second, and interleaving exposes both to the same load.
	for _, size := range []int{1, 16, 256} {
		chunks := make([]string, size)
		for i := range chunks {
			chunks[i] = fmt.Sprintf("chunk %d of a streamed answer, about sixty bytes long....", i)
		}
		b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) {
			id := fmt.Sprintf("bench-%d-%d", size, b.N)
			if _, err := conn.Exec(ctx, "select better_supabase.stream_open($1)", id); err != nil {
				b.Fatal(err)
			}
			if _, err := conn.Exec(ctx, "insert into raw_streams (id) values ($1)", id); err != nil {
				b.Fatal(err)
			}
			var tAppend, tRaw time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				if _, err := conn.Exec(ctx, "select better_supabase.stream_append($1, $2, $3)", id, i*size, chunks); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if _, err := conn.Exec(ctx, `insert into raw_chunks (stream_id, idx, data)
					select $1, $2 + u.o - 1, u.t from unnest($3::text[]) with ordinality as u(t, o)
					on conflict do nothing`, id, i*size, chunks); err != nil {
					b.Fatal(err)
				}
				tAppend += t1.Sub(t0)
				tRaw += time.Since(t1)
			}
			b.ReportMetric(float64(b.N*size)/tAppend.Seconds(), "append-chunks/s")
			b.ReportMetric(float64(b.N*size)/tRaw.Seconds(), "raw-chunks/s")
			b.ReportMetric(tAppend.Seconds()/tRaw.Seconds(), "append/raw")
		})
	}
}
