//go:build linux

package pgserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/internal/testenv"
	"github.com/bsadapter/bsadapter/internal/testsupport/dockerd"
	"github.com/jackc/pgx/v5"
	"golang.org/x/sys/unix"
)

// probeTemplate is a small template of the tests' own: a table of four
// rows, a function and a role that may call it. pgserver knows nothing of
// what a template holds; these tests prove it prepares, caches and clones
// whatever it is given.
type probeTemplate struct{}

const probeRole = "pgserver_probe_caller"

func (probeTemplate) Key() string     { return "pgserver-probe-1" }
func (probeTemplate) Roles() []string { return []string{probeRole} }
func (probeTemplate) Prepare(ctx context.Context, conn *pgx.Conn) error {
	_, err := conn.Exec(ctx, `
		create schema probe;
		create table probe.items (n int);
		insert into probe.items select generate_series(1, 4);
		create function probe.ping() returns boolean language sql as 'select true';
		do $$ begin
			if not exists (select from pg_roles where rolname = '`+probeRole+`') then
				create role `+probeRole+` nologin;
			end if;
		end $$;
		grant `+probeRole+` to current_user;
		grant usage on schema probe to `+probeRole+`;
		grant execute on function probe.ping() to `+probeRole)
	return err
}

// The test binary doubles as a helper process for the tests that need
// another user or a bsadapter that dies: BSADAPTER_PGSERVER_HELPER selects
// what it does.
func TestMain(m *testing.M) {
	switch os.Getenv("BSADAPTER_PGSERVER_HELPER") {
	case "":
		code := m.Run()
		if err := dockerd.StopShared(); err != nil {
			fmt.Fprintln(os.Stderr, "dockerd:", err)
			code = 1
		}
		os.Exit(code)
	case "run":
		os.Exit(helperRun(false))
	case "hang":
		os.Exit(helperRun(true))
	case "npm":
		os.Exit(helperNPM())
	case "docker":
		os.Exit(helperDocker())
	}
}

// helperRun starts a local server, prints what it got as JSON, and then
// either closes it or waits to be killed.
func helperRun(hang bool) int {
	if n, err := strconv.ParseUint(os.Getenv("BSADAPTER_PGSERVER_NOFILE"), 10, 64); err == nil {
		// A run short of file descriptors, as under ulimit -n: the server
		// inherits the limit.
		var lim syscall.Rlimit
		syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
		lim.Cur = n
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			fmt.Println(`{"error":` + strconv.Quote("setrlimit: "+err.Error()) + `}`)
			return 1
		}
	}
	s, err := Start(context.Background(), Options{Strategy: "local", CacheDir: os.Getenv("BSADAPTER_PGSERVER_CACHE"), Template: probeTemplate{}})
	if err != nil {
		fmt.Println(`{"error":` + strconv.Quote(err.Error()) + `}`)
		return 1
	}
	out := map[string]any{"runDir": s.runDir, "pid": s.pid, "uid": os.Geteuid()}
	ctx := context.Background()
	if tpl, err := s.Template(ctx, probeTemplate{}); err == nil {
		if db, err := s.CreateDatabase(ctx, tpl); err == nil {
			if conn, err := s.Connect(ctx, db); err == nil {
				var n int
				conn.QueryRow(ctx, "select count(*) from probe.items").Scan(&n)
				var user string
				conn.QueryRow(ctx, "select usename from pg_stat_activity where backend_type = 'checkpointer' union all select current_user limit 1").Scan(&user)
				out["modules"] = n
				conn.Close(ctx)
			}
		}
	}
	b, _ := json.Marshal(out)
	fmt.Println(string(b))
	if hang {
		time.Sleep(time.Hour)
	}
	if err := s.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func needLocal(t *testing.T) {
	t.Helper()
	if bin, where := findBinaries(); bin == "" {
		testenv.Missing(t, "PostgreSQL is not installed (looked in %s); install it (apt-get install postgresql)", strings.Join(where, ", "))
	}
}

// processesOf lists the processes that belong to a server: its postmaster's
// process group, or anything whose command line names its run folder.
func processesOf(pid int, runDir string) []string {
	var found []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		pgid, _ := syscall.Getpgid(p)
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if (pid > 0 && (p == pid || pgid == pid)) || (runDir != "" && bytes.Contains(cmdline, []byte(runDir))) {
			if bytes.Contains(cmdline, []byte("postgres")) {
				found = append(found, fmt.Sprintf("%d %s", p, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
			}
		}
	}
	return found
}

// checkNothingLeft fails the test when a server left a process or its run
// folder behind.
func checkNothingLeft(t *testing.T, pid int, runDir string) {
	t.Helper()
	if runDir == "" {
		t.Fatal("no run folder recorded")
	}
	defer func() {
		if id, ok := shmIDs[runDir]; ok && shmExists(id) {
			t.Errorf("shared memory segment %d of %s left behind", id, runDir)
		}
	}()
	// Children of an immediate shutdown may take a moment to be reaped by
	// init after the postmaster is gone; they are SIGKILLed already.
	var procs []string
	for i := 0; i < 100; i++ {
		if procs = processesOf(pid, runDir); len(procs) == 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(procs) > 0 {
		t.Errorf("postgres processes left behind:\n%s", strings.Join(procs, "\n"))
	}
	if _, err := os.Stat(runDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("run folder %s left behind (%v)", runDir, err)
	}
}

// shmIDs remembers the System V segment of each server the tests start,
// read from postmaster.pid while it runs (noteShm).
var shmIDs = map[string]int{}

func noteShm(t *testing.T, runDir string) {
	t.Helper()
	_, id := sharedMemoryID(filepath.Join(runDir, "data"))
	if id < 0 {
		t.Fatalf("no shared memory id in %s/data/postmaster.pid", runDir)
	}
	shmIDs[runDir] = id
}

// shmExists says whether segment id exists and is not marked for removal
// (a marked one goes when its last backend exits).
func shmExists(id int) bool {
	var desc unix.SysvShmDesc
	_, err := unix.SysvShmCtl(id, unix.IPC_STAT, &desc)
	return err == nil && desc.Perm.Mode&0o1000 == 0 // SHM_DEST
}

func databases(t *testing.T, s *Server) []string {
	t.Helper()
	conn, err := s.Connect(context.Background(), s.adminDB)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	rows, _ := conn.Query(context.Background(), "select datname from pg_database order by 1")
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func countModules(t *testing.T, s *Server, db string) int {
	t.Helper()
	conn, err := s.Connect(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(context.Background(), "select count(*) from probe.items").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// The first run builds the template into the cache; the second starts from
// it. Both give a server with the blocks template, clones of it, and leave
// nothing behind.
func TestLocalColdThenWarm(t *testing.T) {
	needLocal(t)
	defer checkNoNewOrphans(t, orphanIPC())
	cache := t.TempDir()
	ctx := context.Background()
	for _, run := range []string{"cold", "warm"} {
		var log bytes.Buffer
		s, err := Start(ctx, Options{Strategy: "local", CacheDir: cache, Log: &log, Template: probeTemplate{}})
		if err != nil {
			t.Fatalf("%s start: %v", run, err)
		}
		if s.Strategy() != "local" {
			t.Errorf("strategy %q", s.Strategy())
		}
		wantNote := map[string]string{"cold": "new template", "warm": "cached template"}[run]
		if !strings.Contains(log.String(), wantNote) {
			t.Errorf("%s run log does not say %q:\n%s", run, wantNote, log.String())
		}
		if !strings.HasPrefix(s.runDir, "/dev/shm/") && runFolderBase() == "/dev/shm" {
			t.Errorf("run folder %s is not on tmpfs", s.runDir)
		}
		tpl, err := s.Template(ctx, probeTemplate{})
		if err != nil || tpl != TemplateName {
			t.Fatalf("Template = %q, %v", tpl, err)
		}
		a, err := s.CreateDatabase(ctx, tpl)
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.CreateDatabase(ctx, tpl)
		if err != nil {
			t.Fatal(err)
		}
		if a == b || !strings.HasPrefix(a, "bsadapter_") {
			t.Errorf("clone names %q and %q", a, b)
		}
		if n := countModules(t, s, a); n != 4 {
			t.Errorf("%s: clone has %d modules, want 4", run, n)
		}
		// A clone is independent of its sibling.
		conn, err := s.Connect(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		conn.Exec(ctx, "delete from probe.items")
		conn.Close(ctx)
		if n := countModules(t, s, b); n != 4 {
			t.Errorf("%s: changing one clone changed the other (%d modules)", run, n)
		}
		if err := s.DropDatabase(ctx, a); err != nil {
			t.Fatal(err)
		}
		if slices.Contains(databases(t, s), a) {
			t.Errorf("%s still exists after DropDatabase", a)
		}
		pid, dir := s.pid, s.runDir
		noteShm(t, dir)
		if err := s.Close(); err != nil {
			t.Fatalf("%s close: %v", run, err)
		}
		if err := s.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
		if _, err := s.CreateDatabase(ctx, ""); err == nil {
			t.Error("CreateDatabase after Close succeeded")
		}
		checkNothingLeft(t, pid, dir)
		names := templatesIn(cache)
		if len(names) != 1 || !strings.HasPrefix(names[0], "tmpl-") {
			t.Errorf("%s: cache folder holds %v, want one template", run, names)
		}
	}
}

// A template the server was not started with is prepared on first use,
// once, in a database of its own that Close drops; the server's own
// template is not it.
func TestTemplateOnDemand(t *testing.T) {
	needLocal(t)
	ctx := context.Background()
	s, err := Start(ctx, Options{Strategy: "local"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if slices.Contains(databases(t, s), TemplateName) {
		t.Errorf("a server started without a template has %s", TemplateName)
	}
	tpl, err := s.Template(ctx, probeTemplate{})
	if err != nil {
		t.Fatal(err)
	}
	if tpl == TemplateName || !strings.HasPrefix(tpl, "bsadapter_") {
		t.Errorf("on-demand template named %q", tpl)
	}
	if again, err := s.Template(ctx, probeTemplate{}); again != tpl || err != nil {
		t.Errorf("second call: %q, %v, want %q", again, err, tpl)
	}
	clone, err := s.CreateDatabase(ctx, tpl)
	if err != nil {
		t.Fatal(err)
	}
	if n := countModules(t, s, clone); n != 4 {
		t.Errorf("clone has %d rows, want 4", n)
	}
	if _, err := s.Template(ctx, failingTemplate{}); err == nil || !strings.Contains(err.Error(), "no_such_thing") {
		t.Errorf("a template whose Prepare fails: %v", err)
	}
	// The failed template's database is gone: only the probe template and
	// its clone are left of what the server made.
	var ours []string
	for _, n := range databases(t, s) {
		if strings.HasPrefix(n, "bsadapter_") {
			ours = append(ours, n)
		}
	}
	if want := []string{clone, tpl}; !sameSet(ours, want) {
		t.Errorf("databases %v, want %v", ours, want)
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// failingTemplate's Prepare fails, as a broken install would.
type failingTemplate struct{}

func (failingTemplate) Key() string     { return "pgserver-failing" }
func (failingTemplate) Roles() []string { return nil }
func (failingTemplate) Prepare(ctx context.Context, conn *pgx.Conn) error {
	_, err := conn.Exec(ctx, "select * from no_such_thing")
	return err
}

// Two processes building the same template at once both succeed and the
// cache ends up with one whole template.
func TestLocalCacheRace(t *testing.T) {
	needLocal(t)
	cache := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for i := 0; i < 2; i++ {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), "BSADAPTER_PGSERVER_HELPER=run", "BSADAPTER_PGSERVER_CACHE="+cache)
		out := &bytes.Buffer{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("helper %d: %v\n%s", i, err, outs[i])
		}
		var res struct {
			RunDir  string `json:"runDir"`
			Pid     int    `json:"pid"`
			Modules int    `json:"modules"`
		}
		if err := json.Unmarshal(firstLine(outs[i].Bytes()), &res); err != nil {
			t.Fatalf("helper %d said %q", i, outs[i])
		}
		if res.Modules != 4 {
			t.Errorf("helper %d: %d modules", i, res.Modules)
		}
		checkNothingLeft(t, res.Pid, res.RunDir)
	}
	names := templatesIn(cache)
	if len(names) != 1 || !strings.HasPrefix(names[0], "tmpl-") {
		t.Fatalf("cache holds %v, want exactly one template", names)
	}
	if _, err := os.Stat(filepath.Join(cache, names[0], readyMarker)); err != nil {
		t.Errorf("the template is not marked complete: %v", err)
	}
}

// orphanIPC lists shared memory no process uses: System V segments with
// nothing attached and /dev/shm/PostgreSQL.* files no process maps. A
// server killed without care leaves these behind.
func orphanIPC() []string {
	var out []string
	if b, err := os.ReadFile("/proc/sysvipc/shm"); err == nil {
		for _, line := range strings.Split(string(b), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) > 6 && f[6] == "0" {
				out = append(out, "shm "+f[1])
			}
		}
	}
	files, _ := filepath.Glob("/dev/shm/PostgreSQL.*")
	if len(files) > 0 {
		maps, _ := filepath.Glob("/proc/[0-9]*/maps")
		var all []byte
		for _, m := range maps {
			b, _ := os.ReadFile(m)
			all = append(all, b...)
		}
		for _, f := range files {
			if !bytes.Contains(all, []byte(f)) {
				out = append(out, f)
			}
		}
	}
	slices.Sort(out)
	return out
}

// checkNoNewOrphans fails when shared memory was orphaned since before.
//
// Other test binaries run servers at the same time (go test runs packages
// in parallel), and a segment of theirs is briefly unattached while it
// starts or stops; only a segment that stays orphaned for a few seconds
// counts.
func checkNoNewOrphans(t *testing.T, before []string) {
	t.Helper()
	var left []string
	for i := 0; i < 30; i++ {
		left = left[:0]
		for _, o := range orphanIPC() {
			if !slices.Contains(before, o) {
				left = append(left, o)
			}
		}
		if len(left) == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, o := range left {
		t.Errorf("shared memory left behind: %s", o)
	}
}

// templatesIn lists a cache folder without the remembered versions.
func templatesIn(cache string) []string {
	entries, _ := os.ReadDir(cache)
	var names []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "version-") {
			names = append(names, e.Name())
		}
	}
	return names
}

func firstLine(b []byte) []byte {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if bytes.HasPrefix(sc.Bytes(), []byte("{")) {
			return append([]byte(nil), sc.Bytes()...)
		}
	}
	return nil
}

// As root, PostgreSQL runs as an unprivileged user; as an ordinary user, it
// runs as that user. This test covers the side the test does not run on by
// running the helper as nobody (when root).
func TestLocalAsOrdinaryUser(t *testing.T) {
	needLocal(t)
	if os.Geteuid() != 0 {
		t.Skip("runs as an ordinary user already: every other test covers that side")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A folder nobody can reach, holding a copy of the test binary and the
	// cache.
	dir, err := os.MkdirTemp("", "bsadapter-pgserver-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "helper")
	if err := copyFile(exe, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "cache")
	os.Mkdir(cache, 0o755)
	os.Chown(cache, 65534, 65534)
	cmd := exec.Command(bin, "-test.run=^$")
	cmd.Env = []string{"BSADAPTER_PGSERVER_HELPER=run", "BSADAPTER_PGSERVER_CACHE=" + cache, "PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534, NoSetGroups: true}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper as nobody: %v\n%s", err, out)
	}
	var res struct {
		RunDir  string `json:"runDir"`
		Pid     int    `json:"pid"`
		UID     int    `json:"uid"`
		Modules int    `json:"modules"`
	}
	if err := json.Unmarshal(firstLine(out), &res); err != nil {
		t.Fatalf("helper said %q", out)
	}
	if res.UID != 65534 || res.Modules != 4 {
		t.Errorf("helper ran as uid %d with %d modules, want 65534 and 4", res.UID, res.Modules)
	}
	checkNothingLeft(t, res.Pid, res.RunDir)
}

// As root, the server's processes belong to the unprivileged user.
func TestLocalRunsUnprivileged(t *testing.T) {
	needLocal(t)
	s, err := Start(context.Background(), Options{Strategy: "local"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := os.Stat(filepath.Join("/proc", strconv.Itoa(s.pid)))
	if err != nil {
		t.Fatal(err)
	}
	uid := st.Sys().(*syscall.Stat_t).Uid
	if os.Geteuid() == 0 && uid == 0 {
		t.Error("postgres runs as root")
	}
	if os.Geteuid() != 0 && int(uid) != os.Geteuid() {
		t.Errorf("postgres runs as uid %d, not as the user (%d)", uid, os.Geteuid())
	}
}

// A server that crashed is cleaned up all the same.
func TestLocalCrashedServer(t *testing.T) {
	needLocal(t)
	defer checkNoNewOrphans(t, orphanIPC())
	s, err := Start(context.Background(), Options{Strategy: "local"})
	if err != nil {
		t.Fatal(err)
	}
	db, err := s.CreateDatabase(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	_ = db
	pid, dir := s.pid, s.runDir
	noteShm(t, dir)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateDatabase(context.Background(), ""); err == nil {
		// The backends may outlive the postmaster for a moment; a new
		// connection must fail, though.
		t.Log("a connection still succeeded right after the crash")
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close after a crash: %v", err)
	}
	checkNothingLeft(t, pid, dir)
}

// A bsadapter that was killed leaves its server running; the next run
// stops it and removes its folder.
func TestStaleServerOfAKilledRunIsSwept(t *testing.T) {
	needLocal(t)
	defer checkNoNewOrphans(t, orphanIPC())
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "BSADAPTER_PGSERVER_HELPER=hang")
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	var res struct {
		RunDir string `json:"runDir"`
		Pid    int    `json:"pid"`
	}
	for sc.Scan() {
		if json.Unmarshal(sc.Bytes(), &res) == nil && res.RunDir != "" {
			break
		}
	}
	if res.RunDir == "" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("the helper did not start a server")
	}
	noteShm(t, res.RunDir)
	cmd.Process.Kill()
	cmd.Wait()
	if len(processesOf(res.Pid, res.RunDir)) == 0 {
		t.Fatal("the server died with its bsadapter; nothing to sweep")
	}
	s, err := Start(context.Background(), Options{Strategy: "local"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkNothingLeft(t, res.Pid, res.RunDir)
}

// A start interrupted (Ctrl-C) leaves nothing behind.
func TestLocalStartInterrupted(t *testing.T) {
	needLocal(t)
	base := runFolderBase()
	before := ourRunFolders(base)
	// Only the segments of the servers started here: other tests' servers
	// come and go meanwhile.
	defer trackIPC(t)()
	for _, after := range []time.Duration{0, 5 * time.Millisecond, 30 * time.Millisecond} {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(after, cancel)
		s, err := Start(ctx, Options{Strategy: "local"})
		cancel()
		if err == nil {
			s.Close()
			continue
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("interrupted start: %v, want context.Canceled", err)
		}
	}
	// Interrupted during a first run: no folder, process or half-made
	// template stays.
	for _, after := range []time.Duration{50 * time.Millisecond, 300 * time.Millisecond, 700 * time.Millisecond} {
		cache := t.TempDir()
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(after, cancel)
		s, err := Start(ctx, Options{Strategy: "local", CacheDir: cache, Template: probeTemplate{}})
		cancel()
		if err == nil {
			s.Close()
		} else if !errors.Is(err, context.Canceled) {
			t.Errorf("interrupted first run: %v, want context.Canceled", err)
		}
		for _, name := range templatesIn(cache) {
			if _, err := os.Stat(filepath.Join(cache, name, readyMarker)); err != nil {
				t.Errorf("interrupted after %v: half-made template %s left in the cache", after, name)
			}
		}
	}
	if got := ourRunFolders(base); !slices.Equal(got, before) {
		t.Errorf("run folders before %v, after %v", before, got)
	}
	if procs := processesOf(0, base+"/"+runPrefix+strconv.Itoa(os.Getpid())+"-"); len(procs) > 0 {
		t.Errorf("postgres processes left:\n%s", strings.Join(procs, "\n"))
	}
}

func ourRunFolders(base string) []string {
	entries, _ := os.ReadDir(base)
	var out []string
	prefix := runPrefix + strconv.Itoa(os.Getpid()) + "-"
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), prefix) {
			out = append(out, e.Name())
		}
	}
	return out
}

func TestLocalWithoutBinaries(t *testing.T) {
	old := searchPlaces
	empty := t.TempDir()
	searchPlaces = func(yield func(string) bool) { yield(empty) }
	defer func() { searchPlaces = old }()
	_, err := Start(context.Background(), Options{Strategy: "local"})
	if err == nil || !strings.Contains(err.Error(), "no PostgreSQL binaries") || !strings.Contains(err.Error(), "install PostgreSQL") {
		t.Errorf("error %v, want one that says no binaries and how to install them", err)
	}
}

func TestAutoWithNothingAvailable(t *testing.T) {
	old := searchPlaces
	empty := t.TempDir()
	searchPlaces = func(yield func(string) bool) { yield(empty) }
	defer func() { searchPlaces = old }()
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(t.TempDir(), "docker.sock"))
	// npm is there but offline: its registry refuses.
	t.Setenv("npm_config_registry", "http://127.0.0.1:9/")
	t.Setenv("npm_config_cache", t.TempDir())
	_, err := Start(context.Background(), Options{NPMDir: t.TempDir()})
	var none *NoServerError
	if !errors.As(err, &none) {
		t.Fatalf("error %v, want a NoServerError", err)
	}
	msg := err.Error()
	for _, want := range []string{"local:", "npm:", "docker:", "dsn:", "install PostgreSQL", "start Docker", "--dsn"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error does not mention %q: %s", want, msg)
		}
	}
}

func TestDockerNoEngine(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(t.TempDir(), "docker.sock"))
	_, err := Start(context.Background(), Options{Strategy: "docker"})
	if err == nil || !strings.Contains(err.Error(), "start Docker") {
		t.Errorf("error %v, want one that says to start Docker", err)
	}
}

// An endpoint that accepts connections and never answers must fail within
// the ping timeout, not hang the run (a client without a timeout of its
// own waits minutes).
func TestDockerUnresponsiveEndpoint(t *testing.T) {
	for _, network := range []string{"unix", "tcp"} {
		t.Run(network, func(t *testing.T) {
			addr := "127.0.0.1:0"
			if network == "unix" {
				dir, err := os.MkdirTemp("", "bsa-dock-")
				if err != nil {
					t.Fatal(err)
				}
				defer os.RemoveAll(dir)
				addr = filepath.Join(dir, "docker.sock")
			}
			ln, err := net.Listen(network, addr)
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			accepted := make(chan net.Conn, 4)
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					accepted <- c // held open, never answered
				}
			}()
			host := "unix://" + addr
			if network == "tcp" {
				host = "tcp://" + ln.Addr().String()
			}
			t.Setenv("DOCKER_HOST", host)
			begin := time.Now()
			_, err = Start(context.Background(), Options{Strategy: "docker"})
			took := time.Since(begin)
			if err == nil || !strings.Contains(err.Error(), "did not answer") {
				t.Errorf("error %v, want one that says Docker did not answer", err)
			}
			// A bound, not a speed measurement: the ping gives up after
			// dockerPingTimeout; a client without one would wait minutes.
			if took > dockerPingTimeout+3*time.Second {
				t.Errorf("gave up after %v; the ping timeout is %v", took, dockerPingTimeout)
			}
			select {
			case c := <-accepted:
				c.Close()
			default:
				t.Error("the fake endpoint was never contacted")
			}
		})
	}
}

func TestPingEndpointAnswers(t *testing.T) {
	dir, err := os.MkdirTemp("", "bsa-dock-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "docker.sock")
	ln, err := net.Listen("unix", sock)
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
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				line, _ := r.ReadString('\n')
				if strings.HasPrefix(line, "GET /_ping ") {
					fmt.Fprint(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK")
				} else {
					fmt.Fprint(c, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
				}
			}()
		}
	}()
	if err := pingEndpoint(context.Background(), "unix://"+sock, time.Second); err != nil {
		t.Errorf("ping of an answering endpoint: %v", err)
	}
	if err := pingEndpoint(context.Background(), "ssh://host", time.Second); err == nil || !strings.Contains(err.Error(), "not supported") {
		t.Errorf("ssh endpoint: %v", err)
	}
}

// hostWith starts a local server for the test, runs setup on it as the
// superuser, and returns it, that superuser's connection and the DSN of a
// role on one of its databases; at the end of the test the server is gone
// and has left nothing behind.
func hostWith(t *testing.T, setup ...string) (host *Server, admin *pgx.Conn, dsnFor func(role, db string) string) {
	t.Helper()
	needLocal(t)
	ctx := context.Background()
	host, err := Start(ctx, Options{Strategy: "local"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		pid, dir := host.pid, host.runDir
		host.Close()
		checkNothingLeft(t, pid, dir)
	})
	admin, err = host.Connect(ctx, "postgres")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close(context.Background()) })
	for _, q := range setup {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	return host, admin, func(role, db string) string {
		return fmt.Sprintf("postgres://%s@/%s?host=%s&sslmode=disable", role, db, host.runDir)
	}
}

// The dsn strategy against a server the test starts: a role that may create
// databases works only in databases of its own and drops them; a role that
// may not gets an error that says so.
func TestDSN(t *testing.T) {
	ctx := context.Background()
	host, admin, dsnFor := hostWith(t, "create role maker login createdb createrole", "create role plain login", "create database userdb owner maker")
	before := databases(t, host)
	probeRoles := func() (n int) {
		admin.QueryRow(ctx, "select count(*) from pg_roles where rolname = $1", probeRole).Scan(&n)
		return n
	}
	if n := probeRoles(); n != 0 {
		t.Fatalf("the server already has the template's role")
	}

	_, err := Start(ctx, Options{Strategy: "dsn", DSN: dsnFor("plain", "postgres")})
	if err == nil || !strings.Contains(err.Error(), `role "plain" may not create databases`) || !strings.Contains(err.Error(), "CREATEDB") {
		t.Errorf("a role without CREATEDB: %v", err)
	}

	s, err := Start(ctx, Options{Strategy: "dsn", DSN: dsnFor("maker", "userdb"), Template: probeTemplate{}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Strategy() != "dsn" {
		t.Errorf("strategy %q", s.Strategy())
	}
	tpl, err := s.Template(ctx, probeTemplate{})
	if err != nil {
		t.Fatal(err)
	}
	if again, err := s.Template(ctx, probeTemplate{}); again != tpl || err != nil {
		t.Errorf("a second Template call gave %q, %v, want %q again", again, err, tpl)
	}
	clone, err := s.CreateDatabase(ctx, tpl)
	if err != nil {
		t.Fatal(err)
	}
	if n := countModules(t, s, clone); n != 4 {
		t.Errorf("clone has %d rows", n)
	}
	var owner string
	admin.QueryRow(ctx, "select pg_get_userbyid(datdba) from pg_database where datname = $1", clone).Scan(&owner)
	if owner != "maker" {
		t.Errorf("the clone belongs to %q, want the DSN's role", owner)
	}
	// The clone works as the role the template made.
	conn, err := s.Connect(ctx, clone)
	if err != nil {
		t.Fatal(err)
	}
	var ok bool
	if _, err := conn.Exec(ctx, "set role "+probeRole); err != nil {
		t.Errorf("the DSN's role cannot act as %s: %v", probeRole, err)
	}
	if err := conn.QueryRow(ctx, "select probe.ping()").Scan(&ok); err != nil || !ok {
		t.Errorf("as %s in the clone: %v, %v", probeRole, ok, err)
	}
	conn.Close(ctx)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if after := databases(t, host); !slices.Equal(after, before) {
		t.Errorf("databases before %v, after %v", before, after)
	}
	// The role the run's template created is gone again: roles belong to
	// the whole server, not to the databases the run dropped.
	if n := probeRoles(); n != 0 {
		t.Errorf("the role the run created is left on the server")
	}
	// The DSN's own database was not touched.
	userConn, err := host.Connect(ctx, "userdb")
	if err != nil {
		t.Fatal(err)
	}
	defer userConn.Close(ctx)
	var touched bool
	userConn.QueryRow(ctx, "select exists (select from pg_namespace where nspname = 'probe')").Scan(&touched)
	if touched {
		t.Error("the DSN's own database got the template")
	}
}

func TestDSNErrors(t *testing.T) {
	_, err := Start(context.Background(), Options{Strategy: "dsn"})
	if err == nil || !strings.Contains(err.Error(), "--dsn") {
		t.Errorf("dsn without a DSN: %v", err)
	}
	_, err = Start(context.Background(), Options{Strategy: "dsn", DSN: "postgres://nobody@/x?host=" + t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "cannot connect") {
		t.Errorf("a DSN with no server: %v", err)
	}
	_, err = Start(context.Background(), Options{Strategy: "dsn", DSN: "postgres://%zz"})
	if err == nil || !strings.Contains(err.Error(), "cannot parse") {
		t.Errorf("a DSN that is not one: %v", err)
	}
	_, err = Start(context.Background(), Options{Strategy: "kubernetes"})
	if err == nil || !strings.Contains(err.Error(), "auto, dsn, local, npm, docker") {
		t.Errorf("unknown strategy: %v", err)
	}
}

func TestWithDatabase(t *testing.T) {
	for _, c := range []struct{ in, db, want string }{
		{"postgres://u:p@h:5/old?sslmode=disable", "new", "postgres://u:p@h:5/new?sslmode=disable"},
		{"postgresql://u@/x?host=/run/pg", "bsadapter_1", "postgresql://u@/bsadapter_1?host=/run/pg"},
		{"host=/tmp user=postgres", "a'b", `host=/tmp user=postgres dbname='a\'b'`},
	} {
		got := withDatabase(c.in, c.db)
		if got != c.want {
			t.Errorf("withDatabase(%q, %q) = %q, want %q", c.in, c.db, got, c.want)
		}
		cfg, err := pgx.ParseConfig(got)
		if err != nil || cfg.Database != c.db {
			t.Errorf("%q parses to database %q (%v), want %q", got, cfg.Database, err, c.db)
		}
	}
}

// The databases of a dsn run that was killed are dropped by the next run
// on the same host; those of live runs and of other hosts are not.
func TestDSNSweepsKilledRuns(t *testing.T) {
	needLocal(t)
	ctx := context.Background()
	host, err := Start(ctx, Options{Strategy: "local"})
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	admin, err := host.Connect(ctx, "postgres")
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	// A pid that is certainly dead: a child that has exited.
	child := exec.Command("true")
	if err := child.Run(); err != nil {
		t.Fatal(err)
	}
	hostname, _ := os.Hostname()
	for name, owner := range map[string]string{
		"bsadapter_dead":  ownerPrefix + hostname + " " + strconv.Itoa(child.Process.Pid),
		"bsadapter_alive": ownerPrefix + hostname + " " + strconv.Itoa(os.Getppid()),
		"bsadapter_other": ownerPrefix + "another-host " + strconv.Itoa(child.Process.Pid),
		"bsadapter_users": "",
	} {
		if _, err := admin.Exec(ctx, "create database "+name); err != nil {
			t.Fatal(err)
		}
		if owner != "" {
			admin.Exec(ctx, "comment on database "+name+" is "+quoteLiteral(owner))
		}
	}
	var log bytes.Buffer
	s, err := Start(ctx, Options{Strategy: "dsn", DSN: host.ConnString("postgres"), Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	dbs := databases(t, host)
	if slices.Contains(dbs, "bsadapter_dead") {
		t.Error("the database of the killed run is still there")
	}
	for _, keep := range []string{"bsadapter_alive", "bsadapter_other", "bsadapter_users"} {
		if !slices.Contains(dbs, keep) {
			t.Errorf("%s was dropped", keep)
		}
	}
	if !strings.Contains(log.String(), "dropped bsadapter_dead") {
		t.Errorf("the run did not say what it dropped: %q", log.String())
	}
}

// A cache folder that cannot be written costs speed, not the run.
func TestLocalUnwritableCache(t *testing.T) {
	needLocal(t)
	parent := t.TempDir()
	cache := filepath.Join(parent, "cache")
	// A file where the cache folder should be: nothing can be made in it.
	if err := os.WriteFile(cache, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	s, err := Start(context.Background(), Options{Strategy: "local", CacheDir: cache, Log: &log, Template: probeTemplate{}})
	if err != nil {
		t.Fatal(err)
	}
	if n := countModules(t, s, TemplateName); n != 4 {
		t.Errorf("%d modules", n)
	}
	pid, dir := s.pid, s.runDir
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if !strings.Contains(log.String(), "could not keep the template in the cache") {
		t.Errorf("no note about the cache: %q", log.String())
	}
	checkNothingLeft(t, pid, dir)
}

// A damaged cached template is thrown away and built again.
func TestLocalDamagedTemplate(t *testing.T) {
	needLocal(t)
	defer checkNoNewOrphans(t, orphanIPC())
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
	control := filepath.Join(cache, names[0], "global", "pg_control")
	if err := os.Remove(control); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	s, err = Start(ctx, Options{Strategy: "local", CacheDir: cache, Log: &log, Template: probeTemplate{}})
	if err != nil {
		t.Fatalf("start on a damaged template: %v", err)
	}
	if n := countModules(t, s, TemplateName); n != 4 {
		t.Errorf("%d modules", n)
	}
	pid, dir := s.pid, s.runDir
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	checkNothingLeft(t, pid, dir)
	if !strings.Contains(log.String(), "does not start") || !strings.Contains(log.String(), "new template") {
		t.Errorf("log: %s", log.String())
	}
	if _, err := os.Stat(control); err != nil {
		t.Errorf("the template was not built again: %v", err)
	}
}

// Without DOCKER_HOST and with no socket in the usual places, the docker
// strategy says where it looked.
func TestDockerNoEndpointAtAll(t *testing.T) {
	if _, err := os.Stat("/var/run/docker.sock"); err == nil {
		t.Skip("this machine has a Docker socket; TestDockerNoEngine covers the missing one")
	}
	t.Setenv("DOCKER_HOST", "")
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	_, err := Start(context.Background(), Options{Strategy: "docker"})
	if err == nil || !strings.Contains(err.Error(), "no Docker engine") || !strings.Contains(err.Error(), "/var/run/docker.sock") {
		t.Errorf("error %v, want one that lists where it looked", err)
	}
}
