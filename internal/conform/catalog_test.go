package conform_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites"
	"github.com/bsadapter/bsadapter/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite docs/conformance.md from the suites")

// docs/conformance.md is generated from the suites; this test fails
// when they drift (run with -update to rewrite it).
func TestCatalog(t *testing.T) {
	var buf bytes.Buffer
	if err := conform.WriteCatalog(&buf, suites.All); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(testenv.RepoRoot(t), "docs", "conformance.md")
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	have, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run 'go test ./internal/conform -run Catalog -update' to generate it)", err)
	}
	if !bytes.Equal(have, buf.Bytes()) {
		t.Errorf("docs/conformance.md is out of date with the suites: run 'go test ./internal/conform -run Catalog -update'")
	}
	for _, c := range suites.Cases() {
		if !bytes.Contains(have, []byte("`"+c.ID+"`")) {
			t.Errorf("the catalog does not list %s", c.ID)
		}
	}
}

// The table is well formed: unique IDs of the form suite/slug, a one-line
// rule, a known suite.
func TestCaseTable(t *testing.T) {
	idRE := regexp.MustCompile(`^(streams|registry|chat|chat-state|credentials|engine|graph-compiler|builder|builder-records|world|embedder|ai-task-runner|ai-cache|knowledge|memory)/[a-z0-9]+(-[a-z0-9]+)*$`)
	seen := map[string]bool{}
	for _, c := range suites.Cases() {
		if !idRE.MatchString(c.ID) || !strings.HasPrefix(c.ID, c.Suite+"/") {
			t.Errorf("bad case ID %q (suite %q)", c.ID, c.Suite)
		}
		if seen[c.ID] {
			t.Errorf("duplicate case ID %s", c.ID)
		}
		seen[c.ID] = true
		if c.Rule == "" || strings.Contains(c.Rule, "\n") {
			t.Errorf("%s: the rule must be one non-empty line", c.ID)
		}
		if c.Of() == nil {
			t.Errorf("%s is of no suite", c.ID)
		}
	}
}
