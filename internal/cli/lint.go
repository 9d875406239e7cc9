package cli

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/bsadapter/bsadapter/internal/config"
	"github.com/bsadapter/bsadapter/internal/lint"
	"github.com/bsadapter/bsadapter/internal/report"
	"github.com/spf13/cobra"
)

type lintOptions struct {
	app     *App
	dir     string
	sdks    []string
	format  string
	reports []reportSpec
	verbose bool
}

func newLintCmd(app *App, runF func(context.Context, *lintOptions) error) *cobra.Command {
	opts := &lintOptions{app: app}
	cmd := &cobra.Command{
		Use:   "lint [DIR]",
		Short: "Check an adapter against the adapter rules: lazy optional SDK, no SQL, public exports, no tokens",
		Long: `Check a better-supabase adapter against the adapter rules (contracts section 1),
on any adapter, scaffolded or not.

DIR is an npm package (the folder of its package.json) or, inside a
better-supabase checkout, a subpath's folder (packages/better-supabase/src/NAME
or tests/NAME). Default: the folder of the nearest bsadapter.json, else the
current folder.

The SDK is bsadapter.json's sdk and, for a package, every peer dependency
but better-supabase (or --sdk). Rules:

  sdk-eager-import     no static import, re-export, top-level require or
                       top-level await import() of the SDK on any path from
                       the entry points (exports, main), shown with the chain
                       of files; type-only imports, and import() or require
                       inside functions, are fine
  sdk-optional-peer    the SDK in peerDependencies, optional, not in dependencies
  export-entry         a subpath's export entry: source, types, default, in order
  no-sql-file          no .sql file in the adapter's source
  no-sql-statement     no DDL, or DML against tables, in its strings
  block-table          no block table named directly
  engine-module-name   an engine's SQL module named after the engine
  public-exports       better-supabase imported through its exports only
  token-option         no token-like field in an options type
  credential-ref       a credential_ref names its provider

Silence one finding with a comment on its line or the line above:
  // bsadapter-lint-ignore RULE: the reason
--verbose lists what was silenced, and why.`,
		Example: `  bsadapter lint
  bsadapter lint ./adapters/langchain --format github
  bsadapter lint packages/better-supabase/src/langchain --sdk @langchain/core
  bsadapter lint --format sarif > lint.sarif`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.dir = args[0]
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runLint(c.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&opts.sdks, "sdk", nil, "the SDK package(s) to check for (default: bsadapter.json's sdk and the package's peer dependencies)")
	addFormatFlag(cmd, &opts.format, "output format: text, json, github or sarif", "", lintFormats...)
	addReportFlag(cmd, &opts.reports, lintFormats...)
	f.BoolVarP(&opts.verbose, "verbose", "v", false, "also list suppressed findings with their reasons, and unused ignore comments")
	return cmd
}

// lintFormats are lint's --format values: SARIF for code scanning instead
// of JUnit (a lint has findings, not test cases).
var lintFormats = []string{"text", "json", "github", "sarif"}

// sdkList is --sdk, blanks dropped.
func (o *lintOptions) sdkList() []string {
	var sdks []string
	for _, s := range o.sdks {
		if s = strings.TrimSpace(s); s != "" {
			sdks = append(sdks, s)
		}
	}
	return sdks
}

func runLint(ctx context.Context, opts *lintOptions) error {
	app := opts.app
	wd, err := app.WorkDir()
	if err != nil {
		return err
	}
	dir, err := opts.adapterDir()
	if err != nil {
		return err
	}
	rep, err := lint.Run(ctx, lint.Options{Dir: dir, SDKs: opts.sdkList()})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var ue *lint.UsageError
		if errors.As(err, &ue) {
			return usageErr(ue.Fix, "%s", ue.Msg)
		}
		return envErr(err, "")
	}
	if err := writeLint(app, opts, rep, wd); err != nil {
		return envErr(err, "")
	}
	if !rep.OK {
		return failed("")
	}
	return nil
}

// adapterDir is the folder to lint: DIR, else the folder of the nearest
// bsadapter.json, else the working directory.
func (o *lintOptions) adapterDir() (string, error) {
	if o.dir != "" {
		// A DIR given needs no look upwards (a broken file above it is
		// not its).
		return o.dir, nil
	}
	// The look-up opens the nearest bsadapter.json, and opening a named
	// pipe waits for a writer for ever: look at each first.
	wd, err := o.app.WorkDir()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		p := filepath.Join(d, config.FileName)
		if err := lint.CheckFile(p); err != nil {
			var ue *lint.UsageError
			if errors.As(err, &ue) {
				return "", usageErr(ue.Fix, "%s", ue.Msg)
			}
			return "", err
		}
		if st, err := os.Stat(p); err == nil && !st.IsDir() || filepath.Dir(d) == d {
			break // the one the look-up will find, or none
		}
	}
	ws, err := o.app.Workspace("fix bsadapter.json, or pass the adapter's folder")
	if err != nil {
		return "", err
	}
	if ws.cfg != nil {
		return ws.cfg.Dir, nil
	}
	return ws.dir, nil
}

// writeLint prints the report in the --format asked for. Text names files
// from the working directory wd; on GitHub, annotations and SARIF name
// them from the repository's top.
func writeLint(app *App, opts *lintOptions, rep *lint.Report, wd string) error {
	base := wd
	if w := app.getenv("GITHUB_WORKSPACE"); w != "" {
		base = w
	}
	return writeOutputs(app, opts.format, opts.reports, report.Results{
		JSON:        rep,
		Annotations: rep.Annotations,
		Workspace:   base,
		SARIF:       func() *report.SARIF { return rep.SARIF(lint.Paths{Base: base}, Build().Version) },
		Text: func(w io.Writer) error {
			return writeLintText(w, rep, lint.Paths{Base: wd}, opts.verbose, app.Style)
		},
		Kind: report.KindLint,
	})
}
