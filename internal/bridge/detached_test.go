//go:build linux

package bridge

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/internal/bridge/bridgetest"
)

// sessionOf returns the session id of process pid (field 6 of its stat).
func sessionOf(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatalf("process %d: %v", pid, err)
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	sid, err := strconv.Atoi(f[3])
	if err != nil {
		t.Fatalf("process %d: stat %q", pid, s)
	}
	return sid
}

// A process the bridge starts in a session of its own (setsid(2): a
// daemon, Node's spawn with detached: true) has left the bridge's process
// group, so a group kill misses it; it must still be gone when Close
// returns, whether the bridge exits on its own at shutdown (Close) or is
// killed (a cancelled context). The Go bridge's grandchild is orphaned
// while the bridge runs (its parent exits at once); the Node bridge's is
// orphaned only when the bridge exits.
func TestDetachedGrandchildDoesNotOutliveTheBridge(t *testing.T) {
	for _, k := range kinds {
		for _, how := range []string{"close", "cancel"} {
			t.Run(k.name+"/"+how, func(t *testing.T) {
				pidFile := filepath.Join(t.TempDir(), "pids")
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				c := start(t, ctx, k.cmd(t, "--fault=detached", "--pidfile="+pidFile))
				bridgePid, childPid := readPids(t, pidFile)
				t.Cleanup(func() { syscall.Kill(childPid, syscall.SIGKILL) })
				if !bridgetest.Alive(childPid) {
					t.Fatal("the grandchild is not running")
				}
				if sessionOf(t, childPid) == sessionOf(t, bridgePid) {
					t.Fatal("the grandchild did not leave the bridge's session: the test tests nothing")
				}
				if how == "cancel" {
					cancel()
					<-c.exited
				}
				c.Close()
				// Close returns once everything below the bridge is gone
				// and reaped: no waiting, no zombie.
				for _, p := range []int{bridgePid, childPid} {
					if _, err := os.Stat("/proc/" + strconv.Itoa(p)); err == nil {
						t.Errorf("process %d is still there after Close (%s)", p, procState(p))
					}
				}
			})
		}
	}
}

func procState(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "gone"
	}
	s := string(b)
	return "state " + s[strings.LastIndexByte(s, ')')+2:][:1]
}

// holdEnv names the bridge command (JSON) a re-run of this test binary
// starts and holds until it is killed: a bsadapter killed outright.
const holdEnv = "BSADAPTER_TEST_HOLD_BRIDGE"

func init() {
	v := os.Getenv(holdEnv)
	if v == "" {
		return
	}
	var argv []string
	if err := json.Unmarshal([]byte(v), &argv); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if _, err := Start(context.Background(), Options{Command: argv, Timeout: time.Minute}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Println("ready")
	select {}
}

// When bsadapter is killed outright (SIGKILL), the supervisor's
// parent-death signal makes it kill the bridge and the processes that
// left the bridge's group.
func TestDetachedGrandchildDiesWithBsadapter(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pids")
			argv, _ := json.Marshal(k.cmd(t, "--fault=detached", "--pidfile="+pidFile))
			holder := exec.Command(os.Args[0], "-test.run=^$")
			holder.Env = append(os.Environ(), holdEnv+"="+string(argv))
			holder.Stderr = os.Stderr
			out, err := holder.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := holder.Start(); err != nil {
				t.Fatal(err)
			}
			line, _ := bufio.NewReader(out).ReadString('\n')
			if line != "ready\n" {
				holder.Process.Kill()
				holder.Wait()
				t.Fatalf("the holder did not start the bridge: %q", line)
			}
			bridgePid, childPid := readPids(t, pidFile)
			t.Cleanup(func() { syscall.Kill(childPid, syscall.SIGKILL); syscall.Kill(bridgePid, syscall.SIGKILL) })
			holder.Process.Kill()
			holder.Wait()
			// Nothing here waits for the cleanup: poll, with a bound no
			// machine reaches (it takes milliseconds).
			deadline := time.Now().Add(time.Minute)
			for _, p := range []int{bridgePid, childPid} {
				for bridgetest.Alive(p) && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
				}
				if bridgetest.Alive(p) {
					t.Errorf("process %d outlived bsadapter's SIGKILL", p)
				}
			}
		})
	}
}

// A signal the bridge sends its parent reaches this process, as when the
// bridge was its child: the supervisor between them passes it on.
func TestSignalToParentIsPassedOn(t *testing.T) {
	got := make(chan os.Signal, 1)
	signal.Notify(got, syscall.SIGUSR1)
	defer signal.Stop(got)
	script := filepath.Join(t.TempDir(), "bridge.sh")
	if err := os.WriteFile(script, []byte(`kill -USR1 "$PPID"
read -r line
printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":2,"adapter":{"name":"sig","format":"sig-v1"},"capabilities":{}}}'
while read -r line; do :; done
`), 0o644); err != nil {
		t.Fatal(err)
	}
	c := start(t, context.Background(), []string{"sh", script})
	select {
	case <-got:
	case <-time.After(time.Minute): // milliseconds on any machine
		t.Fatal("the bridge's signal to its parent did not arrive")
	}
	c.Close()
}
