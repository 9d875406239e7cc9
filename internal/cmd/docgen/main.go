// Command docgen regenerates bsadapter's reference documentation from its
// cobra command tree. Run it from the repository root:
//
//	go run ./internal/cmd/docgen                 # rewrite docs/commands/*.md and the man page list in .goreleaser.yaml
//	go run ./internal/cmd/docgen -check          # report drift, exit 1 if any
//	go run ./internal/cmd/docgen -md= -man build/man -completions build/completions \
//	    -version 1.2.0 -date 2026-11-30T00:00:00Z # what the release build runs
//
// The Markdown pages and the list of man pages in .goreleaser.yaml are
// committed (a test fails when they drift); the man pages and completion
// scripts themselves are built for the release archives only.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/bsadapter/bsadapter/internal/docgen"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "docgen:", err)
		var de driftError
		if errors.As(err, &de) {
			os.Exit(1)
		}
		os.Exit(2)
	}
}

// driftError means -check found pages that differ from the code.
type driftError struct{ problems []string }

func (e driftError) Error() string {
	return "the command pages drifted from the code:\n  " + strings.Join(e.problems, "\n  ") +
		"\nregenerate them with: go run ./internal/cmd/docgen"
}

func run(args []string, stdout io.Writer, getenv func(string) string) error {
	fs := flag.NewFlagSet("docgen", flag.ContinueOnError)
	md := fs.String("md", "docs/commands", "folder for the Markdown pages (empty: skip)")
	goreleaser := fs.String("goreleaser", ".goreleaser.yaml", "GoReleaser config whose man page list to update (empty: skip)")
	man := fs.String("man", "", "folder for the man pages (empty: skip)")
	comp := fs.String("completions", "", "folder for the shell completion scripts (empty: skip)")
	check := fs.Bool("check", false, "compare the Markdown pages with the code instead of writing them")
	version := fs.String("version", "", "version shown in the man pages")
	date := fs.String("date", "", "date shown in the man pages: RFC 3339 or YYYY-MM-DD (default $SOURCE_DATE_EPOCH, else today)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (all options are flags; see -h)", fs.Arg(0))
	}
	if mod, err := os.ReadFile("go.mod"); err != nil || !strings.HasPrefix(string(mod), "module github.com/bsadapter/bsadapter\n") {
		return errors.New("run docgen from the root of the bsadapter repository (the folder with its go.mod): the output folders are relative to it")
	}
	when, err := parseDate(*date, getenv("SOURCE_DATE_EPOCH"))
	if err != nil {
		return err
	}

	root := docgen.Root()
	if *md != "" {
		pages := docgen.Markdown(root)
		if *check {
			problems, err := docgen.Diff(*md, ".md", pages)
			if err != nil {
				return err
			}
			if len(problems) > 0 {
				return driftError{problems}
			}
			fmt.Fprintf(stdout, "%s: %d pages up to date\n", *md, len(pages))
		} else {
			if err := docgen.Write(*md, ".md", pages, true); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%s: wrote %d pages\n", *md, len(pages))
		}
	}
	if *goreleaser != "" && *md != "" {
		old, err := os.ReadFile(*goreleaser)
		if err != nil {
			return err
		}
		updated, err := docgen.ReplaceBetween(old, docgen.BeginManList, docgen.EndManList, docgen.ManList(root))
		if err != nil {
			return fmt.Errorf("%s: %w", *goreleaser, err)
		}
		switch {
		case string(updated) == string(old):
		case *check:
			return driftError{[]string{*goreleaser + ": the man page list of the Homebrew cask is out of date"}}
		default:
			if err := os.WriteFile(*goreleaser, updated, 0o644); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%s: updated the man page list\n", *goreleaser)
		}
	}
	if *man != "" {
		pages := docgen.Man(root, docgen.ManHeader{Version: strings.TrimPrefix(*version, "v"), Date: when})
		if err := docgen.Write(*man, ".1", pages, true); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: wrote %d man pages\n", filepath.Clean(*man), len(pages))
	}
	if *comp != "" {
		scripts, err := docgen.Completions(root)
		if err != nil {
			return err
		}
		if err := docgen.Write(*comp, "", scripts, false); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: wrote %d completion scripts\n", filepath.Clean(*comp), len(scripts))
	}
	return nil
}

// parseDate reads -date, falling back to SOURCE_DATE_EPOCH (the
// reproducible-builds convention) and then to today.
func parseDate(flagValue, epoch string) (time.Time, error) {
	if flagValue != "" {
		for _, layout := range []string{time.RFC3339, "2006-01-02"} {
			if t, err := time.Parse(layout, flagValue); err == nil {
				return t, nil
			}
		}
		return time.Time{}, fmt.Errorf("-date %q is neither RFC 3339 (2026-11-30T12:00:00Z) nor YYYY-MM-DD", flagValue)
	}
	if epoch != "" {
		sec, err := strconv.ParseInt(epoch, 10, 64)
		if err != nil {
			return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH %q is not a number of seconds", epoch)
		}
		return time.Unix(sec, 0).UTC(), nil
	}
	return time.Now().UTC(), nil
}
