//go:build unix

package bridge

import (
	"os"
	"os/exec"
	"syscall"
)

// setProcessGroup makes the bridge the leader of a new process group and,
// where the system allows, has it die with bsadapter.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithParent(cmd.SysProcAttr)
}

// killProcessGroup kills the bridge's whole group: the bridge and every
// process it started that did not leave the group.
func killProcessGroup(p *os.Process) {
	_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
}

// reapGroup kills what is left of the group once the bridge has exited:
// the group outlives its leader while any member runs.
func reapGroup(p *os.Process) { killProcessGroup(p) }

// signalOf names the signal that ended the process, "" when none did.
func signalOf(ps *os.ProcessState) string {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal().String()
	}
	return ""
}
