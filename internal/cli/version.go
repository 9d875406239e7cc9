package cli

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/bsadapter/bsadapter/internal/pgserver"
	"github.com/bsadapter/bsadapter/internal/report"
	"github.com/spf13/cobra"
)

// Set through -ldflags "-X github.com/bsadapter/bsadapter/internal/cli.version=..." by
// the release build; otherwise filled from the module's build info.
var (
	version = ""
	commit  = ""
	date    = ""
)

// BuildInfo is what "bsadapter version" reports.
type BuildInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	Date      string `json:"date"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

// Build returns the version, commit and date of this binary: the ldflags
// values when the release build set them, else the module's build info
// (go install records the module version; a checkout build records the VCS
// revision when it can).
func Build() BuildInfo {
	info, _ := debug.ReadBuildInfo()
	return buildFrom(info)
}

// buildFrom is Build on the given build info (nil when there is none).
func buildFrom(info *debug.BuildInfo) BuildInfo {
	bi := BuildInfo{Version: version, Commit: commit, Date: date, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if info != nil {
		if bi.Version == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			bi.Version = info.Main.Version
		}
		modified := false
		fromVCS := false
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				if bi.Commit == "" {
					bi.Commit, fromVCS = s.Value, true
				}
			case "vcs.time":
				if bi.Date == "" {
					bi.Date = s.Value
				}
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if fromVCS && modified {
			// Built from a checkout with uncommitted changes: the commit
			// alone would claim more than is true.
			bi.Commit += "-dirty"
		}
	}
	if bi.Version == "" {
		bi.Version = "dev"
	}
	if bi.Commit == "" {
		bi.Commit = "unknown"
	}
	if bi.Date == "" {
		bi.Date = "unknown"
	}
	return bi
}

type versionOptions struct {
	app    *App
	format string
}

func newVersionCmd(app *App, runF func(context.Context, *versionOptions) error) *cobra.Command {
	opts := &versionOptions{app: app}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and build date, and which PostgreSQL a run would use",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runVersion(c.Context(), opts)
		},
	}
	addFormatFlag(cmd, &opts.format, "output format: text or json", "", textJSON...)
	return cmd
}

func runVersion(ctx context.Context, opts *versionOptions) error {
	app := opts.app
	if ctx == nil {
		ctx = context.Background()
	}
	bi := Build()
	// What conform --pg auto would use now (the DSN from BSADAPTER_DSN).
	pg := pgserver.Which(ctx, pgserver.Options{Strategy: "auto", DSN: app.getenv("BSADAPTER_DSN")})
	if opts.format == "json" {
		v := report.NewVersion(bi.Version, bi.Commit, bi.Date, bi.GoVersion, bi.Platform)
		v.Postgres = pg
		return report.WriteJSON(app.Out, v)
	}
	if _, err := fmt.Fprintln(app.Out, versionLine(bi)); err != nil {
		return err
	}
	_, err := fmt.Fprintln(app.Out, describeChoice(pg))
	if err == nil && bi.Commit == "unknown" {
		// Said on stderr: stdout stays what scripts parse.
		fmt.Fprintln(app.Err, noCommitNote)
	}
	return err
}

// describeChoice is the PostgreSQL line of bsadapter version.
func describeChoice(c pgserver.Choice) string {
	if c.Strategy == "" {
		return "PostgreSQL: none available (--pg auto tried " + strings.Join(c.Tried, "; ") + "); install PostgreSQL, install Node.js with npm, start Docker, or pass --dsn URL"
	}
	s := "PostgreSQL: --pg auto uses " + c.Strategy
	if c.Version != "" {
		s += " " + c.Version
	}
	s += " from " + c.Source
	if !c.Ready {
		s += "; the first run fetches it"
	}
	return s
}

// versionLine is the line "bsadapter version" and "bsadapter --version"
// print.
func versionLine(bi BuildInfo) string {
	return fmt.Sprintf("bsadapter %s (commit %s, built %s, %s, %s)", bi.Version, bi.Commit, bi.Date, bi.GoVersion, bi.Platform)
}

// noCommitNote explains a build without a commit: Go records the commit
// only for "go build" or "go install" in a git clone (not a "git worktree"
// checkout, and not "go run"), and not at all with -buildvcs=false, which
// GOFLAGS may set.
const noCommitNote = "note: this build did not record its commit; build it in a git clone with 'go build -buildvcs=true ./cmd/bsadapter' (go run, git worktrees and GOFLAGS=-buildvcs=false record none)"
