// Package release describes how bsadapter's release artifacts are named
// and laid out, the single place that .goreleaser.yaml, install.sh and
// their tests agree on. Its tests run install.sh against a release served
// over HTTP: by default a release built on the spot for this machine, or
// the real GoReleaser snapshot when BSADAPTER_RELEASE_DIST names its dist
// folder (scripts/release-check does that).
package release

import "runtime"

// ChecksumsFile is the name of the release file listing the SHA-256 of
// every archive, in sha256sum's "<hex>  <name>" format.
const ChecksumsFile = "checksums.txt"

// VersionPackage is the package whose version, commit and date variables
// the release build sets with -ldflags -X.
const VersionPackage = "github.com/bsadapter/bsadapter/internal/cli"

// ArchiveName is the release archive for a platform. The name carries no
// version so that ".../releases/latest/download/<name>" always works and
// install.sh needs no API call to find the latest release.
func ArchiveName(goos, goarch string) string {
	ext := ".tar.gz"
	if goos == "windows" {
		ext = ".zip"
	}
	return "bsadapter_" + goos + "_" + goarch + ext
}

// HostArchive is the archive for the machine running this code.
func HostArchive() string { return ArchiveName(runtime.GOOS, runtime.GOARCH) }

// Platforms are the GOOS/GOARCH pairs every release ships.
var Platforms = [][2]string{
	{"linux", "amd64"}, {"linux", "arm64"},
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

// ArchiveFiles are the files every archive holds besides the binary
// (bsadapter, or bsadapter.exe on Windows).
var ArchiveFiles = []string{
	"README.md",
	"LICENSE",
	"completions/bsadapter.bash",
	"completions/_bsadapter",
	"completions/bsadapter.fish",
	"completions/bsadapter.ps1",
	"manpages/bsadapter.1",
}
