//go:build unix

package benchkit

import (
	"os/exec"
	"testing"
)

func TestUsage(t *testing.T) {
	cmd := exec.Command("sh", "-c", "exit 0")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	cpu, rss := Usage(cmd.ProcessState)
	if cpu < 0 {
		t.Errorf("cpu %v", cpu)
	}
	// A shell's peak resident set is at least a few hundred KiB and far
	// below a GiB: a figure out of that range has the wrong unit.
	if rss < 100<<10 || rss > 1<<30 {
		t.Errorf("peak RSS %d bytes", rss)
	}
}
