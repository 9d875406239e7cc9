//go:build linux

package bridge

// A bridge may start processes that leave its process group: a daemon, a
// worker started with setsid(2), Node's spawn with detached: true. A group
// kill misses them, and once the bridge exits they are reparented to init
// and nothing finds them any more.
//
// On Linux the bridge therefore runs under a supervisor: this same
// program, started again from /proc/self/exe under the name
// supervisorArg0, which the package's initialisation recognises before
// anything else runs. The supervisor makes itself a child subreaper
// (prctl PR_SET_CHILD_SUBREAPER, which needs no privileges), starts the
// bridge in a process group of its own and hands it bsadapter's pipes as
// they are, so that nothing is copied. From then on every process the
// bridge starts, directly or not, stays below the supervisor: one whose
// parent exits is reparented to it, not to init, and is reaped by it when
// it exits.
//
// When the bridge exits, or bsadapter closes the control pipe (to stop
// the bridge, or because it died: the system closes its files), the
// supervisor kills the bridge's group, then every process left below it,
// level by level, and reaps them all. Only then does it report how the
// bridge ended, on a status pipe, and exit: when bsadapter has reaped the
// supervisor, nothing the bridge started is left.
//
// The supervisor stands between bsadapter and the bridge, so a signal a
// bridge sends its parent (SIGINT, SIGTERM, SIGHUP, ...) reaches the
// supervisor, which passes it on to bsadapter. SIGKILL and SIGSTOP cannot
// be passed on: they stop the supervisor itself.
//
// The supervisor kills only its own children (whose ids cannot be reused
// before it reaps them) and the bridge's group, so it never signals a
// process it does not own. A process the bridge starts can still escape
// by being started by something outside the tree on its behalf (a system
// service, a container engine); nothing a process does itself gets it out.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

const (
	// supervisorArg0 is the supervisor's argv[0]; "--" and the bridge's
	// argv follow. Its status pipe is file descriptor 3, its control
	// pipe 4.
	supervisorArg0 = "bsadapter-bridge-supervisor"
	// supervisorGrace is how long bsadapter waits for the supervisor to
	// finish after asking it to stop before killing what it can still
	// name. Killing and reaping takes milliseconds; this only guards
	// against a supervisor that cannot run at all.
	supervisorGrace = 30 * time.Second
)

func init() {
	if len(os.Args) >= 3 && os.Args[0] == supervisorArg0 && os.Args[1] == "--" && isPipe(3) && isPipe(4) {
		os.Exit(supervise(os.NewFile(3, "status"), os.NewFile(4, "control"), os.Args[2:]))
	}
}

// isPipe says whether file descriptor fd is open on a pipe: the name
// alone never turns a run of bsadapter into a supervisor.
func isPipe(fd int) bool {
	var st unix.Stat_t
	return unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFIFO
}

// supervisor is bsadapter's side of a supervised bridge: the status pipe
// and what the supervisor said on it.
type supervisor struct {
	status *bufio.Reader
	file   *os.File
	// control is the control pipe's write end: closing it tells the
	// supervisor to stop the bridge.
	control     *os.File
	controlOnce sync.Once
	pid         int    // the bridge's own process id
	end         string // how the bridge ended, as the supervisor reported it
}

// newBridgeCmd returns the command that runs argv as the bridge: under a
// supervisor (with the status pipe's write end to hand over), or directly
// when this system has no /proc/self/exe to start the supervisor from.
func newBridgeCmd(argv []string) (*exec.Cmd, *supervisor, error) {
	self := "/proc/self/exe"
	if _, err := os.Stat(self); err != nil {
		cmd := exec.Command(argv[0], argv[1:]...)
		setProcessGroup(cmd)
		return cmd, nil, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	cr, cw, err := os.Pipe()
	if err != nil {
		r.Close()
		w.Close()
		return nil, nil, err
	}
	cmd := &exec.Cmd{Path: self, Args: append([]string{supervisorArg0, "--"}, argv...)}
	cmd.ExtraFiles = []*os.File{w, cr}
	// A group of its own, so that a Ctrl-C on the terminal reaches
	// bsadapter alone. No parent-death signal: when bsadapter dies, the
	// system closes the control pipe, which is enough.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd, &supervisor{status: bufio.NewReader(r), file: r, control: cw}, nil
}

func (s *supervisor) closeControl() {
	s.controlOnce.Do(func() { _ = s.control.Close() })
}

// started closes this process's copy of the status pipe's write end (the
// supervisor has its own) and waits for the supervisor to say whether the
// bridge started. A bridge that could not start gives the error the
// supervisor got, as starting it directly would have.
func (s *supervisor) started(cmd *exec.Cmd) error {
	if s == nil {
		return nil
	}
	for _, f := range cmd.ExtraFiles {
		_ = f.Close()
	}
	line, _ := s.status.ReadString('\n')
	word, rest, _ := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
	switch word {
	case "started":
		if pid, err := strconv.Atoi(rest); err == nil {
			s.pid = pid
			return nil
		}
	case "error":
		return errors.New(rest)
	}
	return fmt.Errorf("the bridge's supervisor (%s started again) ended before starting the bridge", os.Args[0])
}

// abort reaps a supervisor whose bridge did not start (cmd.Process is nil
// when the supervisor itself did not).
func (s *supervisor) abort(cmd *exec.Cmd) {
	if s == nil {
		return
	}
	for _, f := range cmd.ExtraFiles {
		_ = f.Close()
	}
	s.closeControl()
	if cmd.Process != nil {
		_ = cmd.Wait()
	}
	_ = s.file.Close()
}

// stop asks the supervisor to kill the bridge and everything below it;
// exited is closed once the supervisor has been reaped. Should it not
// finish, the bridge's group and the supervisor are killed outright.
func (s *supervisor) stop(p *os.Process, exited <-chan struct{}) {
	s.closeControl()
	go func() {
		select {
		case <-exited:
		case <-time.After(supervisorGrace):
			if s.pid > 0 {
				_ = syscall.Kill(-s.pid, syscall.SIGKILL)
			}
			_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
		}
	}()
}

// finish reads how the bridge ended, once the supervisor has exited.
func (s *supervisor) finish() {
	line, _ := s.status.ReadString('\n')
	s.end = strings.TrimSuffix(line, "\n")
	_ = s.file.Close()
	s.closeControl()
}

// describeEnd says how the bridge ended ("exited with status 3", "was
// killed by signal killed"), "" when the supervisor did not say.
func (s *supervisor) describeEnd() string {
	if s == nil {
		return ""
	}
	word, rest, _ := strings.Cut(s.end, " ")
	n, err := strconv.Atoi(rest)
	if err != nil {
		return ""
	}
	switch word {
	case "exit":
		return fmt.Sprintf("exited with status %d", n)
	case "signal":
		return "was killed by signal " + syscall.Signal(n).String()
	}
	return ""
}

// forwarded are the signals the supervisor passes on to bsadapter (all
// that end a process unless caught, but SIGKILL and SIGSTOP, which cannot
// be caught).
var forwarded = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT,
	syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGALRM}

// supervise is the supervisor: it starts argv as the bridge, writes
// "started PID" (or "error MESSAGE") on status, waits until the bridge
// and every process below it are gone (it kills them once the bridge has
// exited or control reaches its end), writes "exit N" or "signal N" for
// the bridge and returns the supervisor's exit code.
func supervise(status, control *os.File, argv []string) int {
	// The bridge's parent-death signal is tied to the thread that
	// starts it: keep this one.
	runtime.LockOSThread()
	syscall.CloseOnExec(3)
	syscall.CloseOnExec(4)
	// Without it (a kernel older than 3.4), the bridge's group and its
	// children are still killed; orphans go to init as before.
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	parent := os.Getppid()
	sigs := make(chan os.Signal, len(forwarded))
	signal.Notify(sigs, forwarded...)

	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(status, "error %s\n", strings.ReplaceAll(err.Error(), "\n", " "))
		return 127
	}
	pid := cmd.Process.Pid
	fmt.Fprintf(status, "started %d\n", pid)
	// Let go of the bridge's pipes: bsadapter must see its stdout end
	// when the bridge (and what it handed stdout to) is gone, not when
	// the supervisor is.
	if null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0); err == nil {
		for fd := 0; fd <= 2; fd++ {
			_ = syscall.Dup3(int(null.Fd()), fd, 0)
		}
		_ = null.Close()
	}

	var (
		mu     sync.Mutex
		ending bool // the bridge is gone or was told to go: kill the rest
		reaped bool // the bridge is reaped: its id may name nothing now
	)
	end := func() {
		if !reaped {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
		}
		ending = true
		killChildren()
	}
	go func() {
		// bsadapter closed the control pipe, or is gone.
		_, _ = io.Copy(io.Discard, control)
		mu.Lock()
		end()
		mu.Unlock()
	}()
	go func() {
		for sig := range sigs {
			if os.Getppid() == parent {
				// Meant for bsadapter (a bridge signals its parent).
				_ = syscall.Kill(parent, sig.(syscall.Signal))
				continue
			}
			mu.Lock()
			end()
			mu.Unlock()
		}
	}()

	var bridge syscall.WaitStatus
	handle := func(wpid int, ws syscall.WaitStatus) {
		if wpid != pid {
			return // an orphan reparented here, reaped
		}
		bridge = ws
		// Members of its group still running keep the group's id
		// taken, so this kill cannot reach another process.
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		reaped, ending = true, true
	}
	for {
		var ws syscall.WaitStatus
		wpid, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			break // ECHILD: nothing is left below the supervisor
		}
		mu.Lock()
		handle(wpid, ws)
		// Reap whatever else has ended before looking for the rest.
		for {
			wpid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if err != nil || wpid <= 0 {
				break
			}
			handle(wpid, ws)
		}
		if ending {
			// Processes whose parent was just killed are reparented
			// here by the time their parent can be reaped: each round
			// reaches one level further down.
			killChildren()
		}
		mu.Unlock()
	}
	if bridge.Signaled() {
		fmt.Fprintf(status, "signal %d\n", int(bridge.Signal()))
		return 128 + int(bridge.Signal())
	}
	fmt.Fprintf(status, "exit %d\n", bridge.ExitStatus())
	return bridge.ExitStatus()
}

// killChildren kills every child of this process. Each is this process's
// own until reaped, so its id names it and nothing else.
func killChildren() {
	self := os.Getpid()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: the name may hold spaces and
		// parentheses, so read after the last ')'.
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 2 {
			continue
		}
		if ppid, err := strconv.Atoi(f[1]); err == nil && ppid == self {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
