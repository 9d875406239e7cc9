//go:build unix

package lint

import "syscall"

// openNoWait keeps an open from waiting on a named pipe that was put in
// place of a file after it was looked at.
const openNoWait = syscall.O_NONBLOCK
