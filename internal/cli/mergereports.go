package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/fixtures"
	"github.com/bsadapter/bsadapter/internal/report"
	"github.com/spf13/cobra"
)

type mergeReportsOptions struct {
	app     *App
	files   []string
	format  string
	reports []reportSpec
	verbose bool
}

func newMergeReportsCmd(app *App, runF func(context.Context, *mergeReportsOptions) error) *cobra.Command {
	opts := &mergeReportsOptions{app: app}
	cmd := &cobra.Command{
		Use:   "merge-reports FILE...",
		Short: "Join the JSON reports of the parts of a run (--shard K/N) into the report of the whole run",
		Long: `Join the JSON reports of the N parts of one run of conform --shard K/N, or of
check-fixtures --shard K/N, into the report of the whole run, and print it in
any --format, as the command would have printed the run unsharded.

The reports must be those of every part of one run, each once: the same
command, store or bridge, selection of cases and corpus (each report's
"shard" says which run it is of and what the run is made of). A report of
another run, a part given twice or a part missing is refused, naming the file.
The merged run took as long as its longest part.

Exit status: as the command's: 0 when the merged run passed, 1 when something
in it failed, 2 for a usage error (a file that is not such a report) or when
a part's run broke (a case or message not run).`,
		Example: `  bsadapter conform --shard 1/2 --format json > conform-1.json
  bsadapter conform --shard 2/2 --format json > conform-2.json
  bsadapter merge-reports conform-*.json
  bsadapter merge-reports --format junit fixtures-*.json > fixtures.xml`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr("e.g. bsadapter merge-reports conform-1.json conform-2.json", "merge-reports needs the JSON report of every part of the run")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			opts.files = args
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runMergeReports(c.Context(), opts)
		},
	}
	addFormatFlag(cmd, &opts.format, "output format: text, json, junit or github", "", allFormats...)
	addReportFlag(cmd, &opts.reports, allFormats...)
	cmd.Flags().BoolVarP(&opts.verbose, "verbose", "v", false, "list passed cases and messages too (--format text)")
	return cmd
}

// shardProbe is what merge-reports reads first of every report: which
// command's run it is a part of.
type shardProbe struct {
	Shard *report.Shard `json:"shard"`
}

func runMergeReports(_ context.Context, opts *mergeReportsOptions) error {
	var command, firstFile string
	datas := make([][]byte, len(opts.files))
	for i, f := range opts.files {
		data, err := os.ReadFile(f)
		if err != nil {
			return usageErr("give the files conform or check-fixtures --shard K/N --format json wrote", "%v", err)
		}
		var p shardProbe
		if err := json.Unmarshal(data, &p); err != nil {
			return usageErr("give the files conform or check-fixtures --shard K/N --format json wrote", "%s is not a JSON report: %v", f, err)
		}
		if p.Shard == nil {
			return usageErr("merge the JSON reports of conform or check-fixtures run with --shard K/N --format json",
				"%s is not the report of a part of a run (it has no \"shard\")", f)
		}
		if command == "" {
			command, firstFile = p.Shard.Command, f
		} else if p.Shard.Command != command {
			return usageErr("merge the reports of one command's run", "%s is a report of %s, but %s is one of %s", f, p.Shard.Command, firstFile, command)
		}
		datas[i] = data
	}
	switch command {
	case "conform":
		return mergeConform(opts, datas)
	case "check-fixtures":
		return mergeFixtures(opts, datas)
	}
	return usageErr("merge the JSON reports of conform or check-fixtures", "%s is a part of a run of %q, which merge-reports does not know", firstFile, command)
}

// decodeStrict reads a report, refusing fields it does not know: a
// report of another kind or bsadapter version is not merged by guess.
func decodeStrict(file string, data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return usageErr("merge reports written by this version of bsadapter", "%s: %v", file, err)
	}
	return nil
}

func mergeConform(opts *mergeReportsOptions, datas [][]byte) error {
	parts := make([]conform.Part, len(datas))
	for i, data := range datas {
		parts[i].File = opts.files[i]
		if err := decodeStrict(opts.files[i], data, &parts[i].Doc); err != nil {
			return err
		}
		if v := parts[i].Doc.SchemaVersion; v != conform.ReportSchemaVersion {
			return usageErr("merge reports written by this version of bsadapter", "%s has schemaVersion %d; this bsadapter reads %d", opts.files[i], v, conform.ReportSchemaVersion)
		}
	}
	rep, err := conform.Merge(parts)
	if err != nil {
		return usageErr("give the JSON report of every part of one run, each once", "%v", err)
	}
	app := opts.app
	if err := writeResults(app, opts.format, opts.reports, report.KindConform, rep.Document(), rep, func(w io.Writer) error {
		return writeText(w, app.Style, rep, opts.verbose)
	}); err != nil {
		return envErr(err, "")
	}
	if n := rep.Count(conform.NotRun); n > 0 {
		return envErr(fmt.Errorf("%d of %d conformance cases did not run: the store stopped working in a part's run", n, len(rep.Results)), "the part's report says why; run that part again")
	}
	if n := rep.Count(conform.Fail); n > 0 {
		if opts.format == "text" {
			return failed("")
		}
		return failed(fmt.Sprintf("%d of %d conformance cases failed", n, len(rep.Results)))
	}
	return nil
}

func mergeFixtures(opts *mergeReportsOptions, datas [][]byte) error {
	parts := make([]fixtures.Part, len(datas))
	for i, data := range datas {
		parts[i].File = opts.files[i]
		parts[i].Report = new(fixtures.Report)
		if err := decodeStrict(opts.files[i], data, parts[i].Report); err != nil {
			return err
		}
		if v := parts[i].Report.SchemaVersion; v != fixtures.SchemaVersion {
			return usageErr("merge reports written by this version of bsadapter", "%s has schemaVersion %d; this bsadapter reads %d", opts.files[i], v, fixtures.SchemaVersion)
		}
	}
	rep, err := fixtures.Merge(parts)
	if err != nil {
		return usageErr("give the JSON report of every part of one run, each once", "%v", err)
	}
	app := opts.app
	if err := writeResults(app, opts.format, opts.reports, report.KindCheckFixtures, rep, rep, func(w io.Writer) error {
		return writeFixturesText(w, rep, opts.verbose, app.Style)
	}); err != nil {
		return envErr(err, "")
	}
	if rep.BridgeError != "" {
		return &ExitError{Code: ExitUsage, Err: errors.New("the bridge stopped working during a part's run, so the messages after it could not be checked"),
			Hint: "the report above has its last stderr lines; run that part again"}
	}
	if !rep.OK() {
		return failed("")
	}
	return nil
}
