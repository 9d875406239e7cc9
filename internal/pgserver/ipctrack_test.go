//go:build linux

package pgserver

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// ipcTracker tells the shared memory of the servers this test process
// started from everyone else's. Other test binaries (and other programs)
// run PostgreSQL on the same machine; a check of all orphaned segments
// fails whenever one of theirs is orphaned, whatever this process did.
//
// While the test runs, the tracker watches this process's descendants
// (initdb, its bootstrap backend, postgres and its children) every few
// milliseconds: their pids, and the /dev/shm/PostgreSQL.* segments they
// map. A System V segment is ours when one of them created it (its cpid);
// a POSIX segment is ours when one of them mapped it. PostgreSQL maps the
// segments it creates at once and keeps them until it exits, so a segment
// that one of ours leaves behind has been seen mapped.
type ipcTracker struct {
	mu    sync.Mutex
	pids  map[int]string    // pid: its command line
	files map[string]string // segment: the command line of a process that mapped it
	stop  chan struct{}
	done  chan struct{}
}

var shmFileRE = regexp.MustCompile(`/dev/shm/PostgreSQL\.[0-9]+`)

// trackIPC starts watching; the returned function stops it and fails t for
// every segment of ours that is still orphaned.
func trackIPC(t *testing.T) func() {
	t.Helper()
	tr := &ipcTracker{pids: map[int]string{}, files: map[string]string{}, stop: make(chan struct{}), done: make(chan struct{})}
	go tr.watch()
	return func() {
		t.Helper()
		close(tr.stop)
		<-tr.done
		tr.check(t)
	}
}

func (tr *ipcTracker) watch() {
	defer close(tr.done)
	self := os.Getpid()
	for {
		tr.scan(self)
		select {
		case <-tr.stop:
			tr.scan(self)
			return
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// scan records the descendants of self and the segments they map.
func (tr *ipcTracker) scan(self int) {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	parent := map[int]int{}
	for _, st := range stats {
		b, err := os.ReadFile(st)
		if err != nil {
			continue
		}
		// "pid (comm) state ppid ...": comm may hold spaces.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 2 {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(st)))
		ppid, _ := strconv.Atoi(f[1])
		parent[pid] = ppid
	}
	for pid := range parent {
		ours := false
		for p, n := pid, 0; p > 1 && n < 64; p, n = parent[p], n+1 {
			if p == self {
				ours = pid != self
				break
			}
		}
		if !ours {
			continue
		}
		maps, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/maps")
		tr.mu.Lock()
		if tr.pids[pid] == "" {
			cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
			tr.pids[pid] = strings.TrimSpace(string(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
			if tr.pids[pid] == "" {
				tr.pids[pid] = "?"
			}
		}
		for _, m := range shmFileRE.FindAll(maps, -1) {
			tr.files[string(m)] = tr.pids[pid]
		}
		tr.mu.Unlock()
	}
}

// check fails t for every orphaned segment of ours. A segment is briefly
// unattached while its server starts or stops; only one that stays
// orphaned for a few seconds counts.
func (tr *ipcTracker) check(t *testing.T) {
	t.Helper()
	var left []string
	for i := 0; i < 30; i++ {
		left = left[:0]
		for _, o := range tr.orphans() {
			left = append(left, o)
		}
		if len(left) == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, o := range left {
		t.Errorf("shared memory left behind by a server this test started: %s", o)
	}
}

// orphans lists our segments that nothing uses any more.
func (tr *ipcTracker) orphans() []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var out []string
	if b, err := os.ReadFile("/proc/sysvipc/shm"); err == nil {
		for _, line := range strings.Split(string(b), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) <= 6 || f[6] != "0" {
				continue
			}
			if cpid, err := strconv.Atoi(f[4]); err == nil && tr.pids[cpid] != "" {
				out = append(out, "shm "+f[1]+" (created by "+tr.pids[cpid]+")")
			}
		}
	}
	for _, f := range orphanIPC() {
		if by := tr.files[f]; by != "" {
			out = append(out, f+" (mapped by "+by+")")
		}
	}
	slices.Sort(out)
	return out
}
