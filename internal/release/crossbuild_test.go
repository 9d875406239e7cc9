package release

import (
	"os"
	"os/exec"
	"runtime"
	"testing"

	"github.com/bsadapter/bsadapter/internal/testenv"
)

// TestCrossBuild compiles bsadapter for one architecture of every
// operating system the release ships, the way the release does (no cgo),
// so that code that builds only on Linux fails here rather than in the
// release. scripts/release-check builds all six. A cold build cache makes
// it take a minute or more per target; -short skips it.
func TestCrossBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: cross builds skipped")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		testenv.Missing(t, "go is not on PATH")
	}
	root := testenv.RepoRoot(t)
	for _, p := range [][2]string{{"darwin", "arm64"}, {"windows", "amd64"}, {"linux", "arm64"}} {
		if p[0] == runtime.GOOS && p[1] == runtime.GOARCH {
			continue
		}
		t.Run(p[0]+"-"+p[1], func(t *testing.T) {
			cmd := exec.Command(goBin, "build", "-trimpath", "-o", os.DevNull, "./cmd/bsadapter")
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+p[0], "GOARCH="+p[1])
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("bsadapter does not build for %s/%s, so no release can be made: %v\n%s", p[0], p[1], err, out)
			}
		})
	}
}
