package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/internal/pgserver"
	"github.com/bsadapter/bsadapter/internal/report"
	"github.com/spf13/cobra"
)

func newBlocksCmd(app *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "blocks",
		Short: "List, print or install the embedded better-supabase blocks",
		Long: `bsadapter embeds the better-supabase blocks its conformance suites run
against: supabase-base (the Supabase roles and auth pieces, for plain
PostgreSQL), access, vault, jobs and pg-net (stand-ins for better-supabase's
access and jobs modules, Supabase Vault and pg_net, where the database has
none), streams, ai-chat, chat-sdk-state, credentials, workflows,
workflow-sdk-world and workflow-builder, in schema better_supabase (the
Vault stand-in in schema vault, the pg_net stand-in in net, the Workflow
SDK World's tables in workflow).`,
	}
	cmd.AddCommand(newBlocksListCmd(app, nil), newBlocksSQLCmd(app, nil), newBlocksInstallCmd(app, nil))
	return cmd
}

type blocksListOptions struct {
	app    *App
	format string
	blocks string
}

func newBlocksListCmd(app *App, runF func(context.Context, *blocksListOptions) error) *cobra.Command {
	opts := &blocksListOptions{app: app}
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List the embedded modules: name, version, requires, functions",
		Example: "  bsadapter blocks list\n  bsadapter blocks list --format json",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runBlocksList(c.Context(), opts)
		},
	}
	addFormatFlag(cmd, &opts.format, "text or json", "", textJSON...)
	addBlocksFlag(cmd, &opts.blocks)
	return cmd
}

func runBlocksList(_ context.Context, opts *blocksListOptions) error {
	app := opts.app
	set, err := app.Blocks(opts.blocks)
	if err != nil {
		return err
	}
	mods, err := set.Resolve()
	if err != nil {
		return err
	}
	if opts.format == "json" {
		doc := report.NewModules(mods)
		if !set.IsEmbedded() {
			doc.Source = set.Source()
		}
		return report.WriteJSON(app.Out, doc)
	}
	if !set.IsEmbedded() {
		fmt.Fprintf(app.Err, "modules from %s\n", set.Source())
	}
	tw := tabwriter.NewWriter(app.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, app.Style.Bold("MODULE")+"\t"+app.Style.Bold("VERSION")+"\t"+app.Style.Bold("REQUIRES")+"\t"+app.Style.Bold("FUNCTIONS"))
	for _, m := range mods {
		req := strings.Join(m.Requires, ", ")
		if req == "" {
			req = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", m.Name, m.Version, req, strings.Join(m.Functions, ", "))
	}
	return tw.Flush()
}

type blocksSQLOptions struct {
	app    *App
	names  []string
	blocks string
}

func newBlocksSQLCmd(app *App, runF func(context.Context, *blocksSQLOptions) error) *cobra.Command {
	opts := &blocksSQLOptions{app: app}
	cmd := &cobra.Command{
		Use:   "sql [NAME...]",
		Short: "Print the SQL of modules (and what they require), for your own migration tool",
		Long: `Print the SQL that installs the named modules and the modules they require,
in dependency order, one transaction per module, including the rows of the
better_supabase.modules registry. No names means every module. Every
statement leaves what already exists alone, so running it twice is harmless.`,
		Example: "  bsadapter blocks sql streams > supabase/migrations/20250101000000_streams.sql",
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return blocks.Names(), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			opts.names = args
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runBlocksSQL(c.Context(), opts)
		},
	}
	addBlocksFlag(cmd, &opts.blocks)
	return cmd
}

func runBlocksSQL(_ context.Context, opts *blocksSQLOptions) error {
	set, err := opts.app.Blocks(opts.blocks)
	if err != nil {
		return err
	}
	sql, err := set.SQL(opts.names...)
	if err != nil {
		return moduleErr(err)
	}
	_, err = fmt.Fprint(opts.app.Out, sql)
	return err
}

func moduleErr(err error) error {
	var unknown *blocks.UnknownModuleError
	if errors.As(err, &unknown) {
		return usageErr("run 'bsadapter blocks list' to see the modules", "%s", strings.TrimPrefix(err.Error(), "blocks: "))
	}
	return err
}

type blocksInstallOptions struct {
	app    *App
	dsn    string
	format string
	names  []string
	blocks string
	// envDSN is BSADAPTER_DSN, the DSN when --dsn is left out.
	envDSN string
}

func newBlocksInstallCmd(app *App, runF func(context.Context, *blocksInstallOptions) error) *cobra.Command {
	opts := &blocksInstallOptions{app: app}
	cmd := &cobra.Command{
		Use:   "install --dsn URL [NAME...]",
		Short: "Install modules (and what they require) into your database",
		Long: `Install the named modules and the modules they require into the database the
connection string names (--dsn, or BSADAPTER_DSN). No names means every
module. Each module installs in one transaction, in dependency order, and is
recorded in better_supabase.modules; installing again changes nothing.
supabase-base is skipped on a Supabase database, which has those pieces.`,
		Example: "  bsadapter blocks install --dsn postgres://postgres@localhost:54322/postgres\n  BSADAPTER_DSN=... bsadapter blocks install streams",
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return blocks.Names(), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			opts.names = args
			opts.envDSN = app.getenv("BSADAPTER_DSN")
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runBlocksInstall(c.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.dsn, "dsn", "", "connection string of the database to install into (default $BSADAPTER_DSN)")
	addFormatFlag(cmd, &opts.format, "text or json", "", textJSON...)
	addBlocksFlag(cmd, &opts.blocks)
	return cmd
}

// checkDSN is blocks install's flag rule, which waits until the modules
// are known (an unknown one is the first thing to say): a database to
// install into, from --dsn or BSADAPTER_DSN.
func (o *blocksInstallOptions) checkDSN() (string, error) {
	dsn := o.dsn
	if dsn == "" {
		dsn = o.envDSN
	}
	if dsn == "" {
		return "", usageErr("pass --dsn postgres://user@host:port/database or set BSADAPTER_DSN; to get the SQL instead, run 'bsadapter blocks sql'",
			"blocks install needs the database to install into")
	}
	return dsn, nil
}

func runBlocksInstall(ctx context.Context, opts *blocksInstallOptions) error {
	set, err := opts.app.Blocks(opts.blocks)
	if err != nil {
		return err
	}
	if _, err := set.Resolve(opts.names...); err != nil {
		return moduleErr(err)
	}
	dsn, err := opts.checkDSN()
	if err != nil {
		return err
	}
	target, err := pgserver.ParseDSN(dsn)
	if err != nil {
		return usageErr("use postgres://user:password@host:port/database or host=... dbname=... keywords", "cannot parse the connection string: %v", err)
	}
	cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	conn, err := target.Connect(cctx)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return envErr(fmt.Errorf("cannot connect to database %s on %s:%d: %w", target.Database, target.Host, target.Port, err), "check the connection string and that the server is running")
	}
	defer conn.Close(context.WithoutCancel(ctx))
	rep, err := set.Install(ctx, conn, opts.names...)
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return writeInstall(opts, set, target.Database, rep, err)
}

// writeInstall prints what install did to each module in the --format
// asked for, then, for a failure, the error; for text, a last word on
// stderr.
func writeInstall(opts *blocksInstallOptions, set *blocks.Set, database string, rep blocks.Report, installErr error) error {
	app := opts.app
	if opts.format == "json" {
		doc := report.NewInstall(database, rep.Modules, installErr)
		if !set.IsEmbedded() {
			doc.Source = set.Source()
		}
		if encErr := report.WriteJSON(app.Out, doc); encErr != nil {
			return encErr
		}
	} else {
		writeInstallText(app, rep)
	}
	if installErr != nil {
		return envErr(installErr, "nothing of the failed module was kept (its transaction was rolled back); fix the cause and run the command again")
	}
	if opts.format == "text" {
		from := ""
		if !set.IsEmbedded() {
			from = " from " + set.Source()
		}
		if n := len(rep.LeftOut()); n > 0 {
			fmt.Fprintf(app.Err, "%d module(s) left out: the server lacks what they need (the lines above say what, and how to get it)\n", n)
		}
		if rep.Changed() {
			fmt.Fprintf(app.Err, "installed into database %s%s\n", database, from)
		} else {
			fmt.Fprintf(app.Err, "nothing to do: database %s has every module already\n", database)
		}
	}
	return nil
}

// writeInstallText writes one line per module: installed, upgraded,
// already installed, skipped or left out (with the reason).
func writeInstallText(app *App, rep blocks.Report) {
	for _, m := range rep.Modules {
		what := map[string]string{
			blocks.Installed: app.Style.Green("installed"),
			blocks.Already:   app.Style.Dim("already installed"),
			blocks.Skipped:   app.Style.Yellow("skipped") + " (the database provides it)",
			blocks.LeftOut:   app.Style.Yellow("left out") + ": " + m.Reason,
		}[m.Action]
		if m.Action == blocks.Installed && m.Found != "" {
			what = app.Style.Green("upgraded") + " from version " + m.Found
		}
		fmt.Fprintf(app.Out, "%s %s: %s\n", m.Name, m.Version, what)
	}
}
