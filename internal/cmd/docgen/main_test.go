package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// inFakeRepo runs the test in a folder that looks like the repository
// root to docgen: bsadapter's go.mod and a .goreleaser.yaml with markers.
func inFakeRepo(t *testing.T, goreleaser string) {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("go.mod", []byte("module github.com/bsadapter/bsadapter\n\ngo 1.26.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(".goreleaser.yaml", []byte(goreleaser), 0o644); err != nil {
		t.Fatal(err)
	}
}

const markers = "homebrew_casks:\n  - manpages:\n      # BEGIN manpages (docgen)\n      # END manpages (docgen)\n"

func noEnv(string) string { return "" }

func TestWriteThenCheck(t *testing.T) {
	inFakeRepo(t, markers)
	var out bytes.Buffer
	if err := run(nil, &out, noEnv); err != nil {
		t.Fatalf("generating: %v", err)
	}
	if !strings.Contains(out.String(), "docs/commands: wrote") || !strings.Contains(out.String(), "updated the man page list") {
		t.Fatalf("unexpected report:\n%s", out.String())
	}
	yaml, _ := os.ReadFile(".goreleaser.yaml")
	if !strings.Contains(string(yaml), "      - manpages/bsadapter.1\n") {
		t.Fatalf("the man page list was not written:\n%s", yaml)
	}
	out.Reset()
	if err := run([]string{"-check"}, &out, noEnv); err != nil {
		t.Fatalf("-check right after generating: %v", err)
	}

	// A hand edit and a stale man page list are both drift.
	if err := os.WriteFile(filepath.Join("docs", "commands", "version.md"), []byte("edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := run([]string{"-check"}, &out, noEnv)
	var de driftError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "version.md is out of date") || !strings.Contains(err.Error(), "go run ./internal/cmd/docgen") {
		t.Fatalf("-check after a hand edit: %v", err)
	}
	if err := run(nil, &out, noEnv); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(".goreleaser.yaml", []byte(markers), 0o644); err != nil {
		t.Fatal(err)
	}
	err = run([]string{"-check"}, &out, noEnv)
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "man page list") {
		t.Fatalf("-check with a stale man page list: %v", err)
	}
}

func TestBadInput(t *testing.T) {
	inFakeRepo(t, "version: 2\n")
	err := run(nil, new(bytes.Buffer), noEnv)
	if err == nil || !strings.Contains(err.Error(), ".goreleaser.yaml") || !strings.Contains(err.Error(), "BEGIN manpages") {
		t.Errorf("missing markers: %v", err)
	}
	for _, c := range []struct {
		args []string
		env  string
		want string
	}{
		{[]string{"-md=", "-man", "m", "-date", "yesterday"}, "", `-date "yesterday" is neither`},
		{[]string{"-md=", "-man", "m"}, "abc", `SOURCE_DATE_EPOCH "abc"`},
		{[]string{"stray"}, "", `unexpected argument "stray"`},
	} {
		getenv := func(k string) string {
			if k == "SOURCE_DATE_EPOCH" {
				return c.env
			}
			return ""
		}
		if err := run(c.args, new(bytes.Buffer), getenv); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want an error containing %q", c.args, err, c.want)
		}
	}
	// Outside the repository root nothing is written anywhere.
	t.Chdir(t.TempDir())
	if err := run(nil, new(bytes.Buffer), noEnv); err == nil || !strings.Contains(err.Error(), "root of the bsadapter repository") {
		t.Errorf("outside the repository: %v", err)
	}
	if entries, _ := os.ReadDir("."); len(entries) != 0 {
		t.Errorf("docgen wrote %s outside the repository", entries[0].Name())
	}
}

func TestManPagesAndCompletions(t *testing.T) {
	inFakeRepo(t, markers)
	var out bytes.Buffer
	err := run([]string{"-md=", "-man", "build/man", "-completions", "build/completions", "-version", "v1.2.3", "-date", "2026-01-02"}, &out, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join("build", "man", "bsadapter.1"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(page, []byte(`"2026\-01\-02" "bsadapter 1.2.3"`)) {
		t.Errorf("the man page lacks the date and the version without its v:\n%s", bytes.SplitN(page, []byte("\n"), 2)[0])
	}
	for _, f := range []string{"bsadapter.bash", "_bsadapter", "bsadapter.fish", "bsadapter.ps1"} {
		if _, err := os.Stat(filepath.Join("build", "completions", f)); err != nil {
			t.Errorf("completion %s: %v", f, err)
		}
	}
	// -md= leaves the committed pages and the cask list alone.
	if _, err := os.Stat("docs"); !os.IsNotExist(err) {
		t.Errorf("-md= still wrote docs/")
	}
	if yaml, _ := os.ReadFile(".goreleaser.yaml"); string(yaml) != markers {
		t.Errorf("-md= still changed .goreleaser.yaml")
	}
}
