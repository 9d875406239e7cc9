package cli

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/bsadapter/bsadapter/internal/report"
	"github.com/bsadapter/bsadapter/schemas"
	"github.com/spf13/cobra"
)

type schemaOptions struct {
	app    *App
	list   bool
	format string
	name   string // the schema to print; "" for ai-message-v1
	args   int    // how many NAMEs were given
}

func newSchemaCmd(app *App, runF func(context.Context, *schemaOptions) error) *cobra.Command {
	opts := &schemaOptions{app: app}
	cmd := &cobra.Command{
		Use:   "schema [NAME]",
		Short: "Print an embedded JSON Schema (default ai-message-v1)",
		Long: `Print an embedded JSON Schema, so that an adapter's own test runner can
validate against exactly the schema bsadapter uses. The schema's $id is an
identifier only; nothing is ever fetched.`,
		Example: "  bsadapter schema > ai-message-v1.json\n  bsadapter schema --list",
		Args:    cobra.MaximumNArgs(1),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return schemas.Names(), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			opts.args = len(args)
			if len(args) == 1 {
				opts.name = args[0]
			}
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runSchema(c.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.list, "list", false, "list the embedded schemas")
	addFormatFlag(cmd, &opts.format, "with --list: text or json", "", textJSON...)
	return cmd
}

// validate holds schema's flag rule: --list or a NAME, not both.
func (o *schemaOptions) validate() error {
	if o.list && o.args > 0 {
		return usageErr("run 'bsadapter schema NAME' or 'bsadapter schema --list'", "--list takes no schema name")
	}
	return nil
}

func runSchema(_ context.Context, opts *schemaOptions) error {
	app := opts.app
	if opts.list {
		infos, err := schemas.List()
		if err != nil {
			return err
		}
		if opts.format == "json" {
			return report.WriteJSON(app.Out, report.NewSchemas(infos))
		}
		tw := tabwriter.NewWriter(app.Out, 0, 4, 2, ' ', 0)
		for _, in := range infos {
			fmt.Fprintf(tw, "%s\t%s\n", in.Name, in.ID)
		}
		return tw.Flush()
	}
	name := schemas.AiMessageV1
	if opts.name != "" {
		name = opts.name
	}
	data, err := schemas.Read(name)
	if err != nil {
		return usageErr("run 'bsadapter schema --list' to see the embedded schemas", "%s", strings.TrimSpace(err.Error()))
	}
	_, err = app.Out.Write(data)
	return err
}
