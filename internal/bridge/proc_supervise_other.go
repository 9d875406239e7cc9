//go:build !linux

package bridge

import (
	"os"
	"os/exec"
)

// supervisor exists on Linux only (see proc_supervise_linux.go). Here the
// bridge runs directly in a process group of its own, and a process it
// starts in a session or group of its own (setsid(2), Node's spawn with
// detached: true) is not stopped with it: these systems have no child
// subreaper that needs no privileges (FreeBSD's procctl PROC_REAP_ACQUIRE
// is not used).
type supervisor struct{}

func newBridgeCmd(argv []string) (*exec.Cmd, *supervisor, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	setProcessGroup(cmd)
	return cmd, nil, nil
}

func (s *supervisor) env(env []string) []string         { return env }
func (s *supervisor) started(*exec.Cmd) error           { return nil }
func (s *supervisor) abort(*exec.Cmd)                   {}
func (s *supervisor) stop(*os.Process, <-chan struct{}) {}
func (s *supervisor) finish()                           {}
func (s *supervisor) describeEnd() string               { return "" }
