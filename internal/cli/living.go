package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/bsadapter/bsadapter/internal/report"
	"github.com/bsadapter/bsadapter/internal/scaffold"
	"github.com/bsadapter/bsadapter/templates"
	"github.com/spf13/cobra"
)

// livingOptions are the flags add and upgrade share.
type livingOptions struct {
	app    *App
	dir    string
	dryRun bool
	format string
}

func (opts *livingOptions) flags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&opts.dir, "dir", "", "the adapter's folder, the one with bsadapter.json (default: the working folder)")
	f.BoolVar(&opts.dryRun, "dry-run", false, "print what would change, with the diffs, and write nothing")
	addFormatFlag(cmd, &opts.format, "output format: text or json", "", textJSON...)
}

func newAddCmd(app *App) *cobra.Command {
	opts := &livingOptions{app: app}
	cmd := &cobra.Command{
		Use:   "add CONTRACT...",
		Short: "Add contracts to an adapter that bsadapter new generated",
		Long: `Add contracts to an existing adapter: what 'bsadapter new' would have
generated for them, with the answers the adapter was generated with
(recorded in bsadapter.generated.json beside bsadapter.json).

Files the contracts bring (memory implementations, bridge method groups,
tests) are created; a file that exists already is never overwritten.
Shared files (src/index.ts, the bridge, package.json, the tests that list
suites, the docs) are updated: a file still as generated is replaced by
its new version, a file you changed gets the new lines merged in
(three-way, like 'bsadapter upgrade'), and where your change and the new
lines touch the same place the file is written with conflict markers and
listed (exit 1). In a better-supabase checkout the package.json edit is
planned again as by new. --dry-run prints the plan with the diffs.

The adapter must be at this bsadapter's templates: run 'bsadapter upgrade'
first when it is not.`,
		Example: `  bsadapter add credentials chat-state
  bsadapter add workflows engine --dry-run
  bsadapter add embedder --dir packages/better-supabase/tests/my-sdk`,
		RunE: func(c *cobra.Command, args []string) error {
			return runAdd(c.Context(), opts, args)
		},
	}
	opts.flags(cmd)
	return cmd
}

func newUpgradeCmd(app *App) *cobra.Command {
	opts := &livingOptions{app: app}
	cmd := &cobra.Command{
		Use:   "upgrade",
		Short: "Take this bsadapter's templates into an adapter, keeping your edits",
		Long: `Upgrade an adapter to the templates of this bsadapter.

The adapter records (bsadapter.generated.json) the template version it was
generated from, its answers and a hash of each file as generated. upgrade
renders that version again (bsadapter keeps every released template
version) and the current templates, with the same answers, and per file:

  unchanged by you        replaced by the new version
  changed by you          three-way merged: your edits and the template's
                          changes both kept; where both touch the same
                          lines, written with conflict markers and listed
  deleted by you          left deleted
  new in the templates    created (refused if a file of yours is there)
  no longer generated     left as it is, and listed

Conflicts exit 1: resolve the conflict markers in the files listed (each
shows your lines, the lines as generated and the template's new lines),
then run npm test. Nothing is written when the recorded version cannot be
reproduced exactly. --dry-run prints the diffs. See docs/living.md.`,
		Example: `  bsadapter upgrade --dry-run
  bsadapter upgrade
  bsadapter upgrade --dir packages/better-supabase/tests/my-sdk --format json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runUpgrade(c.Context(), opts)
		},
	}
	opts.flags(cmd)
	return cmd
}

func (opts *livingOptions) open() (*scaffold.Adapter, error) {
	wd, err := opts.app.WorkDir()
	if err != nil {
		return nil, err
	}
	dir := wd
	if opts.dir != "" {
		dir = opts.dir
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(wd, dir)
		}
	}
	a, err := scaffold.OpenAdapter(dir)
	if err != nil {
		return nil, livingErr(err)
	}
	return a, nil
}

// livingErr turns add's and upgrade's errors into usage errors with the
// fix as the hint.
func livingErr(err error) error {
	var (
		na *scaffold.NotAdapterError
		re *scaffold.RecordError
		nu *scaffold.NeedsUpgradeError
		uv *templates.UnknownVersionError
		bm *scaffold.BaseMismatchError
		ex *scaffold.ExistsError
		oe *scaffold.OptionError
	)
	switch {
	case errors.As(err, &na):
		return usageErr(na.Fix, "%s", na.Error())
	case errors.As(err, &re):
		return usageErr(re.Fix, "%s", re.Error())
	case errors.As(err, &nu):
		return usageErr("run 'bsadapter upgrade' first, then add", "%s", nu.Error())
	case errors.As(err, &uv):
		return usageErr("the version was recorded by a development build of bsadapter or edited by hand: upgrade with the bsadapter that generated the adapter, or generate a fresh adapter and move your code into it", "%s", uv.Error())
	case errors.As(err, &bm):
		return usageErr("restore "+scaffold.RecordFile+" from version control; if it is as written, please report this with the file", "%s", bm.Error())
	case errors.As(err, &ex):
		return usageErr("move those files away (they are yours, not generated), then run it again", "%s", ex.Error())
	case errors.As(err, &oe):
		return optionErr(err)
	}
	return envErr(err, "")
}

func runAdd(_ context.Context, opts *livingOptions, args []string) error {
	a, err := opts.open()
	if err != nil {
		return err
	}
	var list []string
	for _, arg := range args {
		list = append(list, splitList(arg)...)
	}
	u, err := scaffold.PlanAdd(a, list)
	if err != nil {
		return livingErr(err)
	}
	return finishUpdate(opts, "add", u)
}

func runUpgrade(_ context.Context, opts *livingOptions) error {
	a, err := opts.open()
	if err != nil {
		return err
	}
	u, err := scaffold.PlanUpgrade(a)
	if err != nil {
		return livingErr(err)
	}
	return finishUpdate(opts, "upgrade", u)
}

// updateDoc is add's and upgrade's --format json output.
type updateDoc struct {
	SchemaVersion int         `json:"schemaVersion"`
	Command       string      `json:"command"`
	DryRun        bool        `json:"dryRun"`
	Adapter       string      `json:"adapter"`
	Dir           string      `json:"dir"`
	From          string      `json:"fromTemplates"`
	To            string      `json:"toTemplates"`
	Added         []string    `json:"added,omitempty"`
	Present       []string    `json:"present,omitempty"`
	Changes       []changeDoc `json:"changes"`
	Edits         []string    `json:"edits"`
	Conflicts     []string    `json:"conflicts"`
}

type changeDoc struct {
	Path      string `json:"path"`
	Kind      string `json:"kind"`
	Conflicts int    `json:"conflicts,omitempty"`
}

var changeMarks = map[scaffold.ChangeKind]string{
	scaffold.Create: "+", scaffold.Replace: "~", scaffold.Merge: "M", scaffold.Conflict: "C",
	scaffold.KeptDeleted: "-", scaffold.Obsolete: "?",
}

var changeWords = map[scaffold.ChangeKind]string{
	scaffold.Create: "new", scaffold.Replace: "replaced (unchanged by you)", scaffold.Merge: "merged with your edits",
	scaffold.Conflict: "conflicts with your edits", scaffold.KeptDeleted: "deleted by you: left deleted",
	scaffold.Obsolete: "no longer generated: left as it is, remove it if nothing uses it",
}

func finishUpdate(opts *livingOptions, command string, u *scaffold.Update) error {
	app := opts.app
	st := app.Style
	root := app.displayRoot(u.Adapter.Root)
	if !opts.dryRun && !u.Empty() {
		if _, err := scaffold.Apply(u); err != nil {
			return envErr(err, "nothing was changed; run it again")
		}
	}
	if opts.format == "json" {
		doc := updateDoc{SchemaVersion: 1, Command: command, DryRun: opts.dryRun, Adapter: u.Adapter.Name(), Dir: u.Adapter.Dir, From: u.From, To: u.To,
			Added: u.Added, Present: u.Present, Changes: []changeDoc{}, Edits: []string{}, Conflicts: u.Conflicts()}
		if doc.Conflicts == nil {
			doc.Conflicts = []string{}
		}
		for _, c := range u.Changes {
			doc.Changes = append(doc.Changes, changeDoc{Path: c.Path, Kind: string(c.Kind), Conflicts: c.Conflicts})
		}
		for _, e := range u.Edits {
			doc.Edits = append(doc.Edits, e.Path)
		}
		if err := report.WriteJSON(app.Out, doc); err != nil {
			return err
		}
	} else {
		if len(u.Present) > 0 {
			fmt.Fprintf(app.Out, "%s %q already has %s\n", st.Dim("note:"), u.Adapter.Name(), strings.Join(u.Present, ", "))
		}
		verb := map[bool]string{true: "would change", false: "changed"}[opts.dryRun]
		what := "templates " + u.From + " -> " + u.To
		if command == "add" {
			what = "add " + strings.Join(u.Added, ", ")
		}
		if u.Empty() && len(u.Added) == 0 {
			fmt.Fprintf(app.Out, "adapter %q in %s is up to date (templates %s): nothing to do\n", u.Adapter.Name(), root, u.To)
		} else {
			fmt.Fprintf(app.Out, "%s adapter %q in %s (%s)\n", st.Bold(verb), u.Adapter.Name(), root, what)
		}
		for _, c := range u.Changes {
			mark := changeMarks[c.Kind]
			if c.Kind == scaffold.Conflict {
				mark = st.Red(mark)
			}
			fmt.Fprintf(app.Out, "  %s %s %s\n", mark, c.Path, st.Dim("("+changeWords[c.Kind]+")"))
			if opts.dryRun && c.Kind != scaffold.Create && c.Kind != scaffold.KeptDeleted && c.Kind != scaffold.Obsolete {
				for _, l := range c.Diff() {
					fmt.Fprintf(app.Out, "      %s\n", l)
				}
			}
		}
		for _, e := range u.Edits {
			if string(e.Before) == string(e.After) {
				continue
			}
			fmt.Fprintf(app.Out, "  ~ %s %s\n", e.Path, st.Dim("("+strings.Join(e.Summary, "; ")+")"))
			if opts.dryRun && !strings.HasSuffix(e.Path, scaffold.RecordFile) {
				for _, l := range e.Diff() {
					fmt.Fprintf(app.Out, "      %s\n", l)
				}
			}
		}
		if opts.dryRun {
			fmt.Fprintln(app.Out, "dry run: nothing was written")
		}
	}
	if c := u.Conflicts(); len(c) > 0 {
		if opts.dryRun {
			return failed(fmt.Sprintf("%d file(s) would have conflicts: %s", len(c), strings.Join(c, ", ")))
		}
		return failed(fmt.Sprintf("%d file(s) have conflicts, written with markers: %s; resolve them, then run npm test", len(c), strings.Join(c, ", ")))
	}
	return nil
}
