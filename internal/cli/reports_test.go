package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runWithEnv(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, Stdio{In: strings.NewReader(""), Out: &out, Err: &errb,
		Env: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	return code, out.String(), errb.String()
}

// A --report value the command cannot honour is refused before the run,
// naming the flag and the fix, and leaves nothing behind.
func TestReportFlagRefusesBadValues(t *testing.T) {
	dir := t.TempDir()
	ro := filepath.Join(dir, "ro")
	os.Mkdir(ro, 0o555)
	cases := []struct {
		args       []string
		want, hint string
	}{
		{[]string{"lint", "--report", "pdf=r.pdf"}, `--report pdf=r.pdf: "pdf" is not a format lint writes to a file`, "json, github, sarif, html"},
		{[]string{"conform", "--report", "sarif=r.sarif"}, `"sarif" is not a format conform writes`, "json, junit, github, html"},
		{[]string{"check-fixtures", "--report", "text=r.txt"}, `"text" is not a format check-fixtures writes`, "--format text"},
		{[]string{"conform", "--list", "--report", "html=" + filepath.Join(dir, "r.html")}, "--list writes no report", "leave --report out"},
		{[]string{"lint", "--report", "html"}, `--report "html" is not FORMAT=FILE`, "--report html=bsadapter-report.html"},
		{[]string{"lint", "--report", "html="}, `--report html=: no file named`, "name the file"},
		{[]string{"lint", "--report", "html=" + dir}, "--report html=" + dir + ": is a folder", filepath.Join(dir, "report.html")},
		{[]string{"lint", "--report", "html=" + filepath.Join(dir, "no", "r.html")}, "the folder " + filepath.Join(dir, "no") + " does not exist", "mkdir -p"},
		{[]string{"lint", "--report", "json=" + filepath.Join(dir, "r"), "--report", "html=" + filepath.Join(dir, "r")}, "the file is named twice", "a file of its own"},
	}
	if os.Geteuid() != 0 { // root writes anywhere
		cases = append(cases, struct {
			args       []string
			want, hint string
		}{[]string{"lint", "--report", "html=" + filepath.Join(ro, "r.html")}, "cannot be created: permission denied", "check the permissions"})
	}
	for _, c := range cases {
		code, out, errOut := runWithEnv(t, nil, c.args...)
		if code != ExitUsage || !strings.Contains(errOut, c.want) || !strings.Contains(errOut, c.hint) || out != "" {
			t.Errorf("%q: exit %d, want %d with %q and hint %q:\n%s%s", c.args, code, ExitUsage, c.want, c.hint, out, errOut)
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != 1 {
		t.Errorf("the checks left files behind: %v", left)
	}
}

// One lint run prints text, writes its JSON and HTML reports and appends
// a job summary; the JSON file is what --format json prints.
func TestReportFilesBesideTheFormat(t *testing.T) {
	pkg, err := filepath.Abs(filepath.Join("..", "lint", "testdata", "corpus", "eager-three-deep"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	summary := filepath.Join(dir, "summary.md")
	os.WriteFile(summary, []byte("earlier step\n\n"), 0o644)
	jsonFile, htmlFile := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.html")
	env := map[string]string{"GITHUB_STEP_SUMMARY": summary}
	code, out, errOut := runWithEnv(t, env, "lint", pkg, "--report", "json="+jsonFile, "--report", "html="+htmlFile)
	if code != ExitFailed || !strings.Contains(out, "sdk-eager-import") {
		t.Fatalf("exit %d:\n%s%s", code, out, errOut)
	}
	_, want, _ := runWithEnv(t, nil, "lint", pkg, "--format", "json")
	got, _ := os.ReadFile(jsonFile)
	if string(got) != want {
		t.Errorf("the JSON report differs from --format json:\n%s\nwant\n%s", got, want)
	}
	var doc struct{ Findings []struct{ File string } }
	if err := json.Unmarshal(got, &doc); err != nil || len(doc.Findings) != 1 {
		t.Fatalf("%v %s", err, got)
	}
	page, _ := os.ReadFile(htmlFile)
	if !bytes.HasPrefix(page, []byte("<!DOCTYPE html>")) || !bytes.Contains(page, []byte(`"kind":"lint"`)) {
		t.Errorf("the HTML report is not the lint page:\n%.300s", page)
	}
	md, _ := os.ReadFile(summary)
	if !strings.HasPrefix(string(md), "earlier step\n\n## ") || !strings.Contains(string(md), "| sdk-eager-import | 1 | 0 |") {
		t.Errorf("the job summary was not appended:\n%s", md)
	}
	if left, _ := os.ReadDir(dir); len(left) != 3 {
		t.Errorf("files in the folder: %v, want the two reports and the summary", left)
	}

	// A summary file that cannot be written is a warning, not a failure.
	code, _, errOut = runWithEnv(t, map[string]string{"GITHUB_STEP_SUMMARY": dir}, "lint", pkg)
	if code != ExitFailed || !strings.Contains(errOut, "is a folder, so no job summary was written") {
		t.Errorf("exit %d:\n%s", code, errOut)
	}
}
