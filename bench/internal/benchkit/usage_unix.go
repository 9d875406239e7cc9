//go:build unix

package benchkit

import (
	"os"
	"syscall"
	"time"
)

// Usage returns what the finished process ps used: its CPU time (user and
// system, its own and that of the children it waited for) and its peak
// resident set size in bytes (0 where the system does not say).
func Usage(ps *os.ProcessState) (cpu time.Duration, peakRSS int64) {
	cpu = ps.UserTime() + ps.SystemTime()
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		peakRSS = int64(ru.Maxrss) * 1024 // Linux counts ru_maxrss in KiB
	}
	return cpu, peakRSS
}
