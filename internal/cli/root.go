package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	// Settles the terminal's background before bubbletea would ask the
	// terminal for it (and wait 5 s on one that does not answer).
	_ "github.com/bsadapter/bsadapter/internal/termsetup"
	"github.com/spf13/cobra"
)

// App is what every command shares: the streams, the environment, the
// output style, and the providers of factory.go that give each command
// the workspace, the blocks, the bridge and PostgreSQL.
type App struct {
	Stdio
	// Style colors stdout; ErrStyle colors stderr.
	Style, ErrStyle Style
	// Getwd reads the working directory for the workspace provider;
	// nil means os.Getwd.
	Getwd func() (string, error)

	parts parts
}

// Main runs bsadapter with args (without the program name) and returns the
// exit code. Nothing else in bsadapter exits the process.
func Main(args []string, stdio Stdio) int {
	if stdio.Env == nil {
		stdio.Env = func(string) (string, bool) { return "", false }
	}
	// Every write to stdout goes through out, which keeps the first error:
	// results that could not be written are an environment error, however
	// the command took it.
	out := &outWriter{w: stdio.Out}
	stdio.Out = out
	app := &App{Stdio: stdio, Style: Style{On: stdio.Color(stdio.OutTTY)}, ErrStyle: Style{On: stdio.Color(stdio.ErrTTY)}}

	// A closed terminal or a dropped ssh session (SIGHUP) is an
	// interruption like Ctrl-C and SIGTERM: what bsadapter started is
	// stopped and removed before it exits with 130.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()

	root := NewRootCmd(app)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if out.err != nil && ctx.Err() == nil {
		// Whatever the command made of it: the output is lost.
		printError(stdio.Err, app.ErrStyle, fmt.Errorf("cannot write the output to stdout: %w", out.err),
			"stdout goes to a file, device or pipe that refused the write (a full disk, /dev/full); free some space or send the output elsewhere")
		return ExitUsage
	}
	if err == nil {
		return ExitOK
	}
	if ctx.Err() != nil {
		printError(stdio.Err, app.ErrStyle, errors.New("interrupted"), "")
		return ExitInterrupted
	}
	var ee *ExitError
	if !errors.As(err, &ee) {
		// Errors cobra raises itself (unknown flag, wrong argument count,
		// unknown command) are usage errors.
		ee = &ExitError{Code: ExitUsage, Err: err, Hint: usageHint(err, args)}
	}
	if !ee.Quiet && ee.Err != nil {
		printError(stdio.Err, app.ErrStyle, ee.Err, ee.Hint)
	}
	return ee.Code
}

// outWriter is stdout as commands see it: it keeps the first write error.
type outWriter struct {
	w   io.Writer
	mu  sync.Mutex
	err error
}

func (o *outWriter) Write(p []byte) (int, error) {
	n, err := o.w.Write(p)
	if err != nil {
		o.mu.Lock()
		if o.err == nil {
			o.err = err
		}
		o.mu.Unlock()
	}
	return n, err
}

// terminal returns stdout itself, for the wizard: bubbletea reads the
// terminal's size from it, which it can only do on the file.
func (o *outWriter) terminal() io.Writer { return o.w }

func usageHint(err error, args []string) string {
	msg := err.Error()
	if strings.Contains(msg, "unknown command") {
		return "run 'bsadapter --help' for the list of commands"
	}
	cmd := "bsadapter"
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			break
		}
		cmd += " " + a
	}
	return "run '" + cmd + " --help' for usage"
}

// NewRootCmd builds the whole command tree. Every command gets app for its
// streams; none uses package-level state.
func NewRootCmd(app *App) *cobra.Command {
	root := &cobra.Command{
		Use:   "bsadapter",
		Short: "Scaffold, check and conformance-test better-supabase adapters",
		Long: `bsadapter helps you write adapters that connect an SDK to better-supabase's blocks.
It scaffolds adapters, checks their message converters and runs conformance suites on their stores.`,
		SilenceUsage:      true,
		SilenceErrors:     true,
		DisableAutoGenTag: true,
		CompletionOptions: cobra.CompletionOptions{HiddenDefaultCmd: false},
		// --version prints what "bsadapter version" prints.
		Version: versionLine(Build()),
		// Checks every command's --format and --report before it runs.
		PersistentPreRunE: func(c *cobra.Command, _ []string) error {
			if err := checkFormat(c); err != nil {
				return err
			}
			return checkReports(c)
		},
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetIn(app.In)
	root.SetOut(app.Out)
	root.SetErr(app.Err)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &ExitError{Code: ExitUsage, Err: err, Hint: "run '" + c.CommandPath() + " --help' for usage"}
	})
	// Every command, in one place. Each is a file of its own: an options
	// struct with its validate, a constructor (below) and a run function;
	// nil stands for the real run (tests pass their own).
	root.AddCommand(
		newNewCmd(app, nil),
		newAddCmd(app),
		newUpgradeCmd(app),
		newCheckFixturesCmd(app, nil),
		newConformCmd(app, nil),
		newMergeReportsCmd(app, nil),
		newLintCmd(app, nil),
		newBlocksCmd(app),
		newSchemaCmd(app, nil),
		newVersionCmd(app, nil),
		newDoctorCmd(app, nil),
	)
	root.InitDefaultCompletionCmd()
	strictGroups(root)
	// A help topic (no Run): "bsadapter help exit-codes" prints it.
	root.AddCommand(&cobra.Command{
		Use:   "exit-codes",
		Short: "The exit codes every bsadapter command uses",
		Long:  exitCodesHelp,
	})
	return root
}

// strictGroups makes every command that only groups subcommands (blocks,
// completion, ...) reject an unknown subcommand as a usage error; cobra
// would print the help and exit 0, which hides typos in scripts.
func strictGroups(c *cobra.Command) {
	for _, sub := range c.Commands() {
		strictGroups(sub)
	}
	if c.Runnable() || !c.HasSubCommands() || c == c.Root() {
		return
	}
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		var names []string
		for _, s := range cmd.Commands() {
			if s.IsAvailableCommand() {
				names = append(names, s.Name())
			}
		}
		return usageErr("run '"+cmd.CommandPath()+" --help' for usage", "unknown command %q for %q (known: %s)", args[0], cmd.CommandPath(), strings.Join(names, ", "))
	}
}
