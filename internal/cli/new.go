package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bsadapter/bsadapter/internal/report"
	"github.com/bsadapter/bsadapter/internal/scaffold"
	"github.com/bsadapter/bsadapter/internal/scaffold/wizard"
	"github.com/bsadapter/bsadapter/templates"
	"github.com/spf13/cobra"
)

type newOptions struct {
	app       *App
	args      []string
	name      string // NAME, "" when not given
	sdks      []string
	msgFormat string
	pkgName   string
	preset    string
	contracts string
	builder   bool
	storage   string
	placement string
	dir       string
	dryRun    bool
	force     bool
	yes       bool
	format    string
	// changed says whether a flag was given on the command line.
	changed func(name string) bool
}

// storageDefault is what a bare --storage stands for: NAME-state.
const storageDefault = "NAME-state"

func newNewCmd(app *App, runF func(context.Context, *newOptions) error) *cobra.Command {
	opts := &newOptions{app: app}
	cmd := &cobra.Command{
		Use:   "new NAME",
		Short: "Scaffold a better-supabase adapter that passes check-fixtures and conform",
		Long: `Scaffold a better-supabase adapter from the templates embedded in bsadapter.

The adapter is rendered in memory first, then written: never over an existing
file unless --force, never outside the target folder; --dry-run prints the
plan and writes nothing. Right after 'npm install --legacy-peer-deps' it
passes 'bsadapter check-fixtures' and 'bsadapter conform --store=bridge'.

On a terminal, a wizard asks for the values the flags left open. Elsewhere
(or with --yes, or CI set) a missing value is an error naming its flag.

Placement: an npm package of its own (default), or a subpath of the
better-supabase package when the folder is inside a better-supabase checkout
(detected, or --placement subpath): src/NAME/, tests/NAME/, the docs page
and the export entry plus optional peer in packages/better-supabase/package.json,
edited in place.`,
		Example: `  bsadapter new langchain
  bsadapter new my-sdk --sdk my-sdk --contracts chat,streams --dir ./adapters/my-sdk
  bsadapter new temporal --sdk @temporalio/client --contracts workflows,engine,builder --storage
  bsadapter new chat-bot --sdk chat --contracts chat,streams,chat-state,credentials
  bsadapter new langchain --dry-run`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.args = args
			if len(args) == 1 {
				opts.name = args[0]
			}
			opts.changed = c.Flags().Changed
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runNew(c.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&opts.sdks, "sdk", nil, "the SDK's npm package(s), an optional peer (comma-separated or repeated)")
	f.StringVar(&opts.msgFormat, "message-format", "", "the message format name stored beside native messages (default NAME-v1)")
	f.StringVar(&opts.pkgName, "package-name", "", "the npm package name of a standalone adapter (default "+scaffold.PackagePrefix+"NAME)")
	f.StringVar(&opts.preset, "preset", "", "converters: "+strings.Join(templates.Presets, ", ")+" (default: the preset named NAME if there is one, else generic)")
	f.StringVar(&opts.contracts, "contracts", strings.Join(scaffold.DefaultContracts, ","), "what the adapter implements, comma-separated: "+scaffold.ContractList()+" (engine and builder need workflows)")
	// --builder came before builder was a contract. It still works, as a
	// hidden alias that says what to write instead: one flag names
	// everything the adapter implements.
	f.BoolVar(&opts.builder, "builder", false, "deprecated: use --contracts ...,builder")
	f.Lookup("builder").Hidden = true
	f.StringVar(&opts.storage, "storage", "", "generate the engine's SQL module skeleton: bare --storage for NAME-state, or --storage=MODULE")
	f.Lookup("storage").NoOptDefVal = storageDefault
	f.StringVar(&opts.placement, "placement", "", "package or subpath (default: subpath inside a better-supabase checkout, else package)")
	f.StringVar(&opts.dir, "dir", "", "folder to write into (default ./NAME; for subpath the checkout)")
	f.BoolVar(&opts.dryRun, "dry-run", false, "print the files and edits, write nothing")
	f.BoolVar(&opts.force, "force", false, "overwrite files that already exist")
	f.BoolVarP(&opts.yes, "yes", "y", false, "never ask: use defaults, fail on missing values")
	// --format once named the message format; say where that went.
	addFormatFlag(cmd, &opts.format, "output format: text or json", "the message format name stored beside native messages is --message-format", textJSON...)
	return cmd
}

func optionErr(err error) error {
	var oe *scaffold.OptionError
	if errors.As(err, &oe) {
		return usageErr(oe.Fix, "%s", oe.Error())
	}
	return err
}

// validate holds the flag rules of new that hold before the wizard asks
// anything: one NAME at most (a bare --storage followed by a word is the
// likely cause of two).
func (opts *newOptions) validate() error {
	if len(opts.args) > 1 {
		hint := "quote nothing: NAME is one word, e.g. 'bsadapter new my-sdk'"
		if opts.storage == storageDefault {
			hint = fmt.Sprintf("--storage takes its value with '=': --storage=%s", opts.args[1])
		}
		return usageErr(hint, "new takes one NAME, got %d arguments (%s)", len(opts.args), strings.Join(opts.args, " "))
	}
	return nil
}

// checkValues holds the rules on the values once the wizard has filled
// in what it asked: a NAME, a valid one, and at least one contract.
func (opts *newOptions) checkValues(o *scaffold.Options) error {
	if o.Name == "" {
		return usageErr("pass it as 'bsadapter new NAME', e.g. 'bsadapter new langchain'", "NAME is required when not running interactively")
	}
	if err := scaffold.ValidateName(o.Name); err != nil {
		return optionErr(err)
	}
	if len(splitList(opts.contracts)) == 0 {
		return usageErr("use a comma-separated list of "+scaffold.ContractList(), "--contracts is empty")
	}
	return nil
}

// checkPlacement holds the rules on where the adapter goes, once the
// placement is known and whether base is inside a better-supabase
// checkout.
func (opts *newOptions) checkPlacement(placement string, inCheckout bool, base string) error {
	if opts.pkgName != "" && placement == scaffold.PlacementSubpath {
		return usageErr("drop --package-name: a subpath is exported as better-supabase/NAME", "--package-name applies only to --placement package")
	}
	if placement == scaffold.PlacementSubpath && !inCheckout {
		return usageErr("run it inside a better-supabase checkout, pass --dir CHECKOUT, or use --placement package",
			"--placement subpath: %s is not inside a better-supabase checkout (no packages/better-supabase/package.json named better-supabase)", base)
	}
	return nil
}

func runNew(_ context.Context, opts *newOptions) error {
	o, err := opts.scaffoldOptions()
	if err != nil {
		return err
	}
	if err := opts.place(o); err != nil {
		return err
	}
	plan, err := scaffold.Render(o)
	if err != nil {
		var oe *scaffold.OptionError
		if errors.As(err, &oe) {
			return optionErr(err)
		}
		return envErr(err, "")
	}
	if opts.dryRun {
		return printPlan(opts.app, opts, o, plan)
	}
	res, err := scaffold.Write(plan, opts.force)
	if err != nil {
		return opts.writeErr(plan, err)
	}
	return printResult(opts.app, opts, o, plan, res)
}

// scaffoldOptions gathers the adapter's values: the flags, and on a
// terminal the wizard's answers for what they left open.
func (opts *newOptions) scaffoldOptions() (*scaffold.Options, error) {
	app := opts.app
	o := &scaffold.Options{Name: opts.name, Preset: opts.preset, Format: opts.msgFormat, SDKs: opts.sdks, Builder: opts.builder}
	// The wizard runs only when it can, and only for what the flags left open.
	if app.Interactive() && !opts.yes && (o.Name == "" || (len(o.SDKs) == 0 && !presetHasSDK(o))) {
		if err := opts.ask(o); err != nil {
			return nil, err
		}
	}
	if err := opts.checkValues(o); err != nil {
		return nil, err
	}
	o.Contracts = splitList(opts.contracts)
	if opts.builder {
		// What to write instead must be valid as it stands: builder
		// needs workflows.
		instead := slices.Clip(o.Contracts)
		for _, c := range []string{scaffold.ContractWorkflows, scaffold.ContractBuilder} {
			if !slices.Contains(instead, c) {
				instead = append(instead, c)
			}
		}
		fmt.Fprintf(app.Err, "%s --builder is deprecated: use --contracts %s\n", app.ErrStyle.Yellow("note:"), strings.Join(instead, ","))
	}
	switch opts.storage {
	case "":
	case storageDefault:
		o.Storage = o.Name + "-state"
	default:
		o.Storage = opts.storage
	}
	return o, nil
}

// ask runs the wizard and takes its answers into o and opts.
func (opts *newOptions) ask(o *scaffold.Options) error {
	answers, err := askMissing(opts.app, opts.changed, o, opts)
	if err != nil {
		if errors.Is(err, wizard.ErrCancelled) {
			return &ExitError{Code: ExitInterrupted, Err: errors.New("cancelled; nothing was written")}
		}
		return envErr(err, "")
	}
	o.Name = answers["name"]
	o.SDKs = splitList(answers["sdk"])
	o.Format = answers["format"]
	if v, ok := answers["contracts"]; ok {
		opts.contracts = v
	}
	if v, ok := answers["storage"]; ok && v != "" && v != "none" {
		opts.storage = v
	}
	return nil
}

// place decides where the adapter goes: its placement (a package, or a
// subpath inside a better-supabase checkout) and its folder.
func (opts *newOptions) place(o *scaffold.Options) error {
	wd, err := opts.app.WorkDir()
	if err != nil {
		return err
	}
	base := wd
	if opts.dir != "" {
		base = opts.dir
		if !filepath.IsAbs(base) {
			base = filepath.Join(wd, base)
		}
	}
	checkout, inCheckout := scaffold.FindCheckout(base)
	o.Placement = opts.placement
	if o.Placement == "" {
		o.Placement = scaffold.PlacementPackage
		if inCheckout {
			o.Placement = scaffold.PlacementSubpath
		}
	}
	if err := opts.checkPlacement(o.Placement, inCheckout, base); err != nil {
		return err
	}
	switch o.Placement {
	case scaffold.PlacementSubpath:
		o.Dir = checkout
	case scaffold.PlacementPackage:
		o.PackageName = opts.pkgName
		o.Dir = base
		if opts.dir == "" {
			o.Dir = filepath.Join(wd, o.Name)
		}
	}
	return nil
}

// writeErr explains files that could not be written.
func (opts *newOptions) writeErr(plan *scaffold.Plan, err error) error {
	var ce *scaffold.ConflictError
	if errors.As(err, &ce) {
		return usageErr("pass --force to overwrite them, or choose another --dir", "%s", ce.Error())
	}
	var nf *scaffold.NotAFolderError
	if errors.As(err, &nf) {
		return usageErr("choose another --dir", "%s", nf.Error())
	}
	var we *scaffold.WriteError
	if errors.As(err, &we) && !strings.Contains(err.Error(), "path escapes from parent") {
		return envErr(err, "choose another --dir: an ordinary folder you can create files in")
	}
	if strings.Contains(err.Error(), "path escapes from parent") {
		// os.Root refuses a link that leads out of the target: say so
		// in words.
		return usageErr("remove the link, or choose another --dir",
			"a symbolic link in %s leads out of it, and bsadapter writes only inside the target folder (%v)", opts.app.displayRoot(plan.Root), err)
	}
	return envErr(err, "")
}

func presetHasSDK(o *scaffold.Options) bool {
	return len(presetSDKs(o.Preset, o.Name)) > 0
}

// presetSDKs are the SDK packages of the preset --preset names, or of the
// preset named NAME when --preset is not given.
func presetSDKs(preset, name string) []string {
	if preset == "" && slices.Contains(templates.Presets, name) {
		preset = name
	}
	return scaffold.PresetSDKs[preset]
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

func askMissing(app *App, changed func(string) bool, o *scaffold.Options, opts *newOptions) (map[string]string, error) {
	preset := map[string]string{"name": o.Name, "sdk": strings.Join(o.SDKs, ","), "format": o.Format}
	var fields []wizard.Field
	if o.Name == "" {
		fields = append(fields, wizard.Field{
			Key: "name", Label: "Adapter name", Flag: "NAME",
			Help: "lowercase kebab-case, e.g. langchain",
			Validate: func(v string, _ map[string]string) error {
				if err := scaffold.ValidateName(v); err != nil {
					var oe *scaffold.OptionError
					if errors.As(err, &oe) && oe.Fix != "" {
						return fmt.Errorf("%s (%s)", err, oe.Fix)
					}
					return err
				}
				return nil
			},
		})
	}
	if !changed("sdk") {
		fields = append(fields, wizard.Field{
			Key: "sdk", Label: "SDK npm package(s)", Flag: "--sdk",
			Help: "comma-separated; an optional peer dependency",
			Default: func(a map[string]string) string {
				return strings.Join(presetSDKs(opts.preset, a["name"]), ",")
			},
			Validate: func(v string, _ map[string]string) error {
				list := splitList(v)
				if len(list) == 0 {
					return errors.New("at least one package is required")
				}
				for _, s := range list {
					if err := scaffold.ValidateSDK(s); err != nil {
						return err
					}
				}
				return nil
			},
		})
	}
	if !changed("message-format") {
		fields = append(fields, wizard.Field{
			Key: "format", Label: "Message format name", Flag: "--message-format",
			Help:    "stored beside native messages",
			Default: func(a map[string]string) string { return a["name"] + "-v1" },
			Validate: func(v string, a map[string]string) error {
				probe := scaffold.Options{Name: a["name"], SDKs: []string{"probe"}, Format: v, Placement: scaffold.PlacementPackage, Dir: "."}
				return probe.Complete()
			},
		})
	}
	if !changed("contracts") {
		fields = append(fields, wizard.Field{
			Key: "contracts", Label: "Contracts", Flag: "--contracts",
			Help:    "comma-separated: " + scaffold.ContractList() + " (engine and builder need workflows)",
			Default: func(map[string]string) string { return opts.contracts },
			Validate: func(v string, _ map[string]string) error {
				list := splitList(v)
				if len(list) == 0 {
					return errors.New("choose at least one of " + scaffold.ContractList())
				}
				if err := scaffold.ValidateContracts(list); err != nil {
					var oe *scaffold.OptionError
					if errors.As(err, &oe) && oe.Value != "" {
						return fmt.Errorf("%q %s", oe.Value, oe.Msg)
					}
					return err
				}
				return nil
			},
		})
	}
	if !changed("storage") {
		fields = append(fields, wizard.Field{
			Key: "storage", Label: "Engine SQL module", Flag: "--storage",
			Help:    "a module name such as NAME-state, or none",
			Default: func(map[string]string) string { return "none" },
			Validate: func(v string, a map[string]string) error {
				if v == "none" {
					return nil
				}
				probe := scaffold.Options{Name: a["name"], SDKs: []string{"probe"}, Storage: v, Placement: scaffold.PlacementPackage, Dir: "."}
				return probe.Complete()
			},
		})
	}
	out := app.Out
	if o, ok := out.(*outWriter); ok {
		out = o.terminal()
	}
	return wizard.Run(app.In, out, fields, preset)
}

func scaffoldDoc(o *scaffold.Options, plan *scaffold.Plan, dry bool) report.Scaffold {
	r := report.Scaffold{SchemaVersion: report.ScaffoldVersion, DryRun: dry, Name: o.Name, Format: o.Format, Preset: o.Preset, Placement: o.Placement,
		Contracts: o.Contracts, Root: plan.Root, NextDir: plan.NextDir, Next: plan.Next, Files: []string{}}
	for _, f := range plan.Files {
		r.Files = append(r.Files, f.Path)
	}
	for _, e := range plan.Edits {
		r.Edits = append(r.Edits, e.Path)
	}
	return r
}

// displayRoot names a folder from the working directory when it is
// inside it ("." or "./x"), else in full.
func (app *App) displayRoot(root string) string {
	wd, err := app.WorkDir()
	if err == nil {
		if rel, err := filepath.Rel(wd, root); err == nil && rel == "." {
			return "."
		} else if err == nil && filepath.IsLocal(rel) {
			return "." + string(filepath.Separator) + rel
		}
	}
	return root
}

func printPlan(app *App, opts *newOptions, o *scaffold.Options, plan *scaffold.Plan) error {
	if _, err := plan.Conflicts(); err != nil {
		var nf *scaffold.NotAFolderError
		if errors.As(err, &nf) {
			return usageErr("choose another --dir", "%s", nf.Error())
		}
		return envErr(err, "")
	}
	if opts.format == "json" {
		return report.WriteJSON(app.Out, scaffoldDoc(o, plan, true))
	}
	conflicts, err := plan.Conflicts()
	if err != nil {
		var nf *scaffold.NotAFolderError
		if errors.As(err, &nf) {
			return usageErr("choose another --dir", "%s", nf.Error())
		}
		return envErr(err, "")
	}
	st := app.Style
	fmt.Fprintf(app.Out, "%s adapter %q (%s preset, %s placement) in %s\n", st.Bold("would create"), o.Name, o.Preset, o.Placement, app.displayRoot(plan.Root))
	for _, f := range plan.Files {
		mark := "+"
		if slices.Contains(conflicts, f.Path) {
			mark = st.Yellow("!")
		}
		fmt.Fprintf(app.Out, "  %s %s %s\n", mark, f.Path, st.Dim(fmt.Sprintf("(%d bytes)", len(f.Data))))
	}
	for _, e := range plan.Edits {
		fmt.Fprintf(app.Out, "%s %s\n", st.Bold("would edit"), e.Path)
		for _, s := range e.Summary {
			fmt.Fprintf(app.Out, "  %s\n", s)
		}
		for _, l := range e.Diff() {
			fmt.Fprintf(app.Out, "    %s\n", l)
		}
	}
	if len(conflicts) > 0 {
		fmt.Fprintf(app.Out, "%d file(s) marked ! already exist: writing needs --force\n", len(conflicts))
	}
	fmt.Fprintln(app.Out, "dry run: nothing was written")
	return nil
}

func printResult(app *App, opts *newOptions, o *scaffold.Options, plan *scaffold.Plan, res *scaffold.Result) error {
	if opts.format == "json" {
		r := scaffoldDoc(o, plan, false)
		r.Overwritten = res.Overwritten
		r.Edits = res.Edited
		return report.WriteJSON(app.Out, r)
	}
	root := app.displayRoot(plan.Root)
	edited := ""
	if len(res.Edited) > 0 {
		edited = ", edited " + strings.Join(res.Edited, ", ")
	}
	over := ""
	if len(res.Overwritten) > 0 {
		over = fmt.Sprintf(" (%d overwritten)", len(res.Overwritten))
	}
	next := plan.Next
	if nd := app.displayRoot(filepath.Join(plan.Root, filepath.FromSlash(plan.NextDir))); nd != "." {
		next = "cd " + nd + " && " + next
	}
	fmt.Fprintf(app.Out, "%s adapter %q (%s preset) in %s: %d files%s%s; next: %s\n", app.Style.Green("created"), o.Name, o.Preset, root,
		len(res.Created)+len(res.Overwritten), over, edited, next)
	return nil
}
