//go:build unix && !linux

package pgserver

// removeSharedMemory is a no-op here: the System V segment of a server
// that was killed outright stays until the next reboot (or ipcrm).
func removeSharedMemory(key, id int) {}
