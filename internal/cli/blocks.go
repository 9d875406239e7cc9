package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/internal/report"
	"github.com/jackc/pgx/v5"
	"github.com/spf13/cobra"
)

func newBlocksCmd(app *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "blocks",
		Short: "List, print or install the embedded better-supabase blocks",
		Long: `bsadapter embeds the better-supabase blocks its conformance suites run
against: supabase-base (the Supabase roles and auth pieces, for plain
PostgreSQL), streams, ai-chat, chat-sdk-state and workflows, all in schema
better_supabase.`,
	}
	cmd.AddCommand(newBlocksListCmd(app), newBlocksSQLCmd(app), newBlocksInstallCmd(app))
	return cmd
}

type blocksListOptions struct {
	app    *App
	format string
	blocks string
}

func newBlocksListCmd(app *App) *cobra.Command {
	opts := &blocksListOptions{app: app}
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List the embedded modules: name, version, requires, functions",
		Example: "  bsadapter blocks list\n  bsadapter blocks list --format json",
		Args:    cobra.NoArgs,
		RunE:    func(c *cobra.Command, _ []string) error { return runBlocksList(c.Context(), opts) },
	}
	addFormatFlag(cmd, &opts.format, "text or json", "", textJSON...)
	addBlocksFlag(cmd, &opts.blocks)
	return cmd
}

func runBlocksList(_ context.Context, opts *blocksListOptions) error {
	app := opts.app
	set, err := blockSet(opts.blocks)
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

func newBlocksSQLCmd(app *App) *cobra.Command {
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
			return runBlocksSQL(c.Context(), opts)
		},
	}
	addBlocksFlag(cmd, &opts.blocks)
	return cmd
}

func runBlocksSQL(_ context.Context, opts *blocksSQLOptions) error {
	set, err := blockSet(opts.blocks)
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
}

func newBlocksInstallCmd(app *App) *cobra.Command {
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
			return runBlocksInstall(c.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.dsn, "dsn", "", "connection string of the database to install into (default $BSADAPTER_DSN)")
	addFormatFlag(cmd, &opts.format, "text or json", "", textJSON...)
	addBlocksFlag(cmd, &opts.blocks)
	return cmd
}

func runBlocksInstall(ctx context.Context, opts *blocksInstallOptions) error {
	app, args := opts.app, opts.names
	set, err := blockSet(opts.blocks)
	if err != nil {
		return err
	}
	if _, err := set.Resolve(args...); err != nil {
		return moduleErr(err)
	}
	dsn := app.dsnOr(opts.dsn)
	if dsn == "" {
		return usageErr("pass --dsn postgres://user@host:port/database or set BSADAPTER_DSN; to get the SQL instead, run 'bsadapter blocks sql'",
			"blocks install needs the database to install into")
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return usageErr("use postgres://user:password@host:port/database or host=... dbname=... keywords", "cannot parse the connection string: %v", err)
	}
	cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	conn, err := pgx.ConnectConfig(cctx, cfg)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return envErr(fmt.Errorf("cannot connect to database %s on %s:%d: %w", cfg.Database, cfg.Host, cfg.Port, err), "check the connection string and that the server is running")
	}
	defer conn.Close(context.WithoutCancel(ctx))
	rep, err := set.Install(ctx, conn, args...)
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	if opts.format == "json" {
		doc := report.NewInstall(cfg.Database, rep.Modules, err)
		if !set.IsEmbedded() {
			doc.Source = set.Source()
		}
		if encErr := report.WriteJSON(app.Out, doc); encErr != nil {
			return encErr
		}
	} else {
		for _, m := range rep.Modules {
			what := map[string]string{
				blocks.Installed: app.Style.Green("installed"),
				blocks.Already:   app.Style.Dim("already installed"),
				blocks.Skipped:   app.Style.Yellow("skipped") + " (the database provides it)",
			}[m.Action]
			if m.Action == blocks.Installed && m.Found != "" {
				what = app.Style.Green("upgraded") + " from version " + m.Found
			}
			fmt.Fprintf(app.Out, "%s %s: %s\n", m.Name, m.Version, what)
		}
	}
	if err != nil {
		return envErr(err, "nothing of the failed module was kept (its transaction was rolled back); fix the cause and run the command again")
	}
	if opts.format == "text" {
		from := ""
		if !set.IsEmbedded() {
			from = " from " + set.Source()
		}
		if rep.Changed() {
			fmt.Fprintf(app.Err, "installed into database %s%s\n", cfg.Database, from)
		} else {
			fmt.Fprintf(app.Err, "nothing to do: database %s has every module already\n", cfg.Database)
		}
	}
	return nil
}
