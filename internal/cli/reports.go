package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bsadapter/bsadapter/internal/report"
)

// reportSpec is one --report FORMAT=FILE: a report written to a file
// besides what --format prints.
type reportSpec struct {
	Format string
	File   string
}

// reportsValue is the repeatable --report flag. Its values are checked
// (by checkReports, before any command runs) against the formats the
// command can write.
type reportsValue struct {
	specs   *[]reportSpec
	allowed []string
	// bad is the first value that is not FORMAT=FILE, reported by
	// checkReports with the command's hint.
	bad string
}

func (r *reportsValue) String() string {
	parts := make([]string, len(*r.specs))
	for i, s := range *r.specs {
		parts[i] = s.Format + "=" + s.File
	}
	return strings.Join(parts, ",")
}

func (r *reportsValue) Set(v string) error {
	format, file, ok := strings.Cut(v, "=")
	if !ok && r.bad == "" {
		r.bad = v
	}
	*r.specs = append(*r.specs, reportSpec{Format: strings.TrimSpace(format), File: file})
	return nil
}

func (r *reportsValue) Type() string { return "format=file" }

// addReportFlag adds the repeatable --report FORMAT=FILE to cmd: each
// writes the results in FORMAT (one of formats, or html) to FILE, in the
// same run as what --format prints.
func addReportFlag(cmd *cobra.Command, p *[]reportSpec, formats ...string) {
	allowed := append(slices.DeleteFunc(slices.Clone(formats), func(f string) bool { return f == "text" }), "html")
	cmd.Flags().Var(&reportsValue{specs: p, allowed: allowed}, "report",
		"also write the results as FORMAT to FILE (repeatable): FORMAT is "+strings.Join(allowed, ", ")+"; e.g. --report html=report.html")
}

// checkReports refuses a --report value before the command runs: not
// FORMAT=FILE, a format the command cannot write, no file, a folder, a
// file in a folder that does not exist or cannot be written, or the same
// file twice.
func checkReports(cmd *cobra.Command) error {
	fl := cmd.Flags().Lookup("report")
	if fl == nil {
		return nil
	}
	r, ok := fl.Value.(*reportsValue)
	if !ok {
		return nil
	}
	example := "--report html=bsadapter-report.html"
	if r.bad != "" {
		return usageErr("write it as FORMAT=FILE, e.g. "+example, "--report %q is not FORMAT=FILE", r.bad)
	}
	seen := map[string]bool{}
	for _, s := range *r.specs {
		if !slices.Contains(r.allowed, s.Format) {
			return usageErr("--report writes "+strings.Join(r.allowed, ", ")+" (text goes to stdout with --format text), e.g. "+example,
				"--report %s=%s: %q is not a format %s writes to a file", s.Format, s.File, s.Format, cmd.Name())
		}
		if s.File == "" {
			return usageErr("name the file after '=', e.g. "+example, "--report %s=: no file named", s.Format)
		}
		abs, err := filepath.Abs(s.File)
		if err != nil {
			return usageErr("", "--report %s=%s: %v", s.Format, s.File, err)
		}
		if seen[abs] {
			return usageErr("give each report a file of its own", "--report %s=%s: the file is named twice", s.Format, s.File)
		}
		seen[abs] = true
		if err := checkWritable(s.File); err != nil {
			return usageErr(err.hint, "--report %s=%s: %s", s.Format, s.File, err.msg)
		}
	}
	return nil
}

type writableErr struct{ msg, hint string }

// checkWritable says why file cannot be written, or nil. It creates
// nothing that stays: a file it had to create to find out is removed.
func checkWritable(file string) *writableErr {
	st, err := os.Stat(file)
	switch {
	case err == nil && st.IsDir():
		return &writableErr{"is a folder", "name a file inside it, e.g. " + filepath.Join(file, "report.html")}
	case err == nil:
		f, err := os.OpenFile(file, os.O_WRONLY, 0)
		if err != nil {
			return &writableErr{"cannot be written: " + unwrapPathErr(err), "check its permissions, or name another file"}
		}
		f.Close()
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return &writableErr{unwrapPathErr(err), "name a file in a folder you can write"}
	}
	dir := filepath.Dir(file)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return &writableErr{fmt.Sprintf("the folder %s does not exist", dir), "create the folder first (mkdir -p " + dir + "), or name a file in an existing one"}
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return &writableErr{"cannot be created: " + unwrapPathErr(err), "check the permissions of " + dir + ", or name a file in a folder you can write"}
	}
	f.Close()
	os.Remove(file)
	return nil
}

func unwrapPathErr(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// writeReportFiles writes r to each --report file, whole or not at all:
// each is written beside its target and renamed over it.
func writeReportFiles(specs []reportSpec, r report.Results) error {
	for _, s := range specs {
		if err := writeReportFile(s, r); err != nil {
			return envErr(fmt.Errorf("--report %s=%s: %w", s.Format, s.File, err), "")
		}
	}
	return nil
}

func writeReportFile(s reportSpec, r report.Results) error {
	// A file that is not a regular one (a pipe, /dev/stdout) is written
	// in place.
	if st, err := os.Stat(s.File); err == nil && !st.Mode().IsRegular() {
		f, err := os.OpenFile(s.File, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		if err := report.Write(f, s.Format, r); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.File), "."+filepath.Base(s.File)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := report.Write(tmp, s.Format, r); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), s.File)
}

// appendJobSummary appends the results as Markdown to the file
// GITHUB_STEP_SUMMARY names, when it names one. A summary that cannot be
// written is said on stderr and does not change how the run ends: it is
// an extra beside the results.
func appendJobSummary(app *App, r report.Results) {
	file := app.getenv("GITHUB_STEP_SUMMARY")
	if file == "" || r.Kind == "" {
		return
	}
	if st, err := os.Stat(file); err == nil && st.IsDir() {
		fmt.Fprintf(app.Err, "bsadapter: warning: GITHUB_STEP_SUMMARY=%s is a folder, so no job summary was written\n", file)
		return
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		fmt.Fprintf(app.Err, "bsadapter: warning: GITHUB_STEP_SUMMARY: no job summary written: %v\n", err)
		return
	}
	err = report.WriteJobSummary(f, r.Kind, r.JSON)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintf(app.Err, "bsadapter: warning: GITHUB_STEP_SUMMARY: writing the job summary: %v\n", err)
	}
}
