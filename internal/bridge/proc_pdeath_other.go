//go:build unix && !linux

package bridge

import "syscall"

// dieWithParent does nothing here: macOS and the BSDs have no parent-death
// signal. When bsadapter is killed by SIGKILL, the bridge sees its stdin
// end and must exit on its own (the protocol asks it to).
func dieWithParent(*syscall.SysProcAttr) {}
