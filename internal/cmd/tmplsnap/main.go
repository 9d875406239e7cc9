// Command tmplsnap keeps the template tree a release ships: it writes
// templates/versions/ID.tar.gz for the current templates (ID being their
// version, templates.CurrentID), so that later releases of bsadapter can
// render them again as the base of 'bsadapter upgrade'. The release
// process runs it before tagging and commits the file; it never rewrites
// a snapshot that exists. Run from the repository's top folder:
//
//	go run ./internal/cmd/tmplsnap          write the snapshot if missing
//	go run ./internal/cmd/tmplsnap -check   fail if it is missing
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/bsadapter/bsadapter/templates"
)

func main() {
	check := flag.Bool("check", false, "only check that the current templates have a snapshot")
	flag.Parse()
	id := templates.CurrentID()
	file := filepath.Join("templates", "versions", id+".tar.gz")
	if _, err := os.Stat(file); err == nil {
		fmt.Printf("%s: already kept\n", file)
		return
	}
	if *check {
		fmt.Fprintf(os.Stderr, "tmplsnap: the current templates (%s) have no snapshot; run 'go run ./internal/cmd/tmplsnap' and commit %s\n", id, file)
		os.Exit(1)
	}
	b, err := templates.Snapshot(templates.FS)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tmplsnap:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(file, b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "tmplsnap:", err, "(run it from the repository's top folder)")
		os.Exit(1)
	}
	fmt.Printf("%s: written (%d bytes)\n", file, len(b))
}
