package cli

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"

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
	bi := BuildInfo{Version: version, Commit: commit, Date: date, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if info, ok := debug.ReadBuildInfo(); ok {
		if bi.Version == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			bi.Version = info.Main.Version
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				if bi.Commit == "" {
					bi.Commit = s.Value
				}
			case "vcs.time":
				if bi.Date == "" {
					bi.Date = s.Value
				}
			}
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

func newVersionCmd(app *App) *cobra.Command {
	opts := &versionOptions{app: app}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and build date",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return runVersion(c.Context(), opts)
		},
	}
	addFormatFlag(cmd, &opts.format, "output format: text or json", "", textJSON...)
	return cmd
}

func runVersion(_ context.Context, opts *versionOptions) error {
	app := opts.app
	bi := Build()
	if opts.format == "json" {
		return report.WriteJSON(app.Out, report.NewVersion(bi.Version, bi.Commit, bi.Date, bi.GoVersion, bi.Platform))
	}
	_, err := fmt.Fprintf(app.Out, "bsadapter %s (commit %s, built %s, %s, %s)\n", bi.Version, bi.Commit, bi.Date, bi.GoVersion, bi.Platform)
	return err
}
