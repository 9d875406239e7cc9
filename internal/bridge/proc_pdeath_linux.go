package bridge

import "syscall"

// dieWithParent asks Linux to kill the bridge when bsadapter dies, even by
// SIGKILL, when no cleanup of ours can run: a bridge that ignores the end
// of its stdin would otherwise be left running. The signal is tied to the
// thread that started the bridge; the Go runtime keeps its threads unless
// a goroutine that locked one exits, which bsadapter never does.
func dieWithParent(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
