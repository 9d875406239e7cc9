//go:build windows

package bridge

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// setProcessGroup starts the bridge in a new process group, so that a
// Ctrl-C in the console is not delivered to it twice.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// killProcessGroup ends the bridge and the processes it started: Windows
// has no process groups to signal, so taskkill walks the process tree.
func killProcessGroup(p *os.Process) {
	if err := exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(p.Pid)).Run(); err != nil {
		_ = p.Kill()
	}
}

// reapGroup does nothing on Windows: once the bridge has exited its pid
// may be reused, and taskkill by pid could hit an unrelated process.
func reapGroup(*os.Process) {}

// signalOf names the signal that ended the process; Windows has none.
func signalOf(*os.ProcessState) string { return "" }
