//go:build linux

package pgserver

import "golang.org/x/sys/unix"

// removeSharedMemory removes the System V segment a postmaster that was
// killed left behind (one that exits normally removes it itself). The key
// must match, so a recycled id of someone else's segment is left alone;
// backends still attached keep it until they exit, then it goes.
func removeSharedMemory(key, id int) {
	var desc unix.SysvShmDesc
	if _, err := unix.SysvShmCtl(id, unix.IPC_STAT, &desc); err != nil || int(desc.Perm.Key) != key {
		return
	}
	_, _ = unix.SysvShmCtl(id, unix.IPC_RMID, nil)
}
