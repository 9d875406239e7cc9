package scaffold

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var bridgePassed = regexp.MustCompile(`(?m)^\s*ok \d+ - the bridge passes every case of streams, chat-state, credentials$`)

// TestLivingEndToEnd runs add and upgrade on real adapters and then the
// adapters' own npm test (type-check included) with real Node and npm:
//
//   - new --contracts chat,streams, then add credentials chat-state: npm
//     test and conform --store=bridge pass, and the tree is what new
//     --contracts chat,streams,credentials,chat-state generates;
//   - an adapter of the previous template version with the author's edits
//     in three files (one conflicting) upgrades with the clean edits kept
//     and the conflict listed, and npm test passes once a script resolves
//     the conflict;
//   - an untouched adapter of the previous version upgrades to what new
//     generates now, and npm test passes.
//
// The three adapters have the same dependencies and share one install.
func TestLivingEndToEnd(t *testing.T) {
	h := NewE2E(t, "the end-to-end run")
	work, bin, npm := h.Work, h.Bin, h.Npm
	npmTest := func(t *testing.T, dir string) {
		t.Helper()
		h.TypeCheck(t, dir)
		out := h.Run(t, dir, npm, "test")
		// Passed, not skipped: a skip adds " # SKIP reason" to the line.
		if !bytes.Contains(out, []byte("# fail 0")) || !bridgePassed.Match(out) {
			t.Errorf("npm test in %s:\n%s", dir, out)
		}
	}
	four := "chat,streams,credentials,chat-state"

	// (a) new, then add.
	added := filepath.Join(work, "added")
	h.Run(t, work, bin, "new", "acme", "--sdk", "@acme/sdk", "--contracts", "chat,streams", "--dir", added)
	out := h.Run(t, added, bin, "add", "credentials", "chat-state", "--dry-run")
	if !bytes.Contains(out, []byte("+ src/memory-credentials.ts")) || !bytes.Contains(out, []byte("dry run: nothing was written")) {
		t.Errorf("add --dry-run:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(added, "src", "memory-credentials.ts")); err == nil {
		t.Fatal("add --dry-run wrote a file")
	}
	h.Run(t, added, bin, "add", "credentials", "chat-state")
	want := filepath.Join(work, "want")
	h.Run(t, work, bin, "new", "acme", "--sdk", "@acme/sdk", "--contracts", four, "--dir", want)
	sameTree(t, tree(t, added), tree(t, want))
	h.Install(t, added)
	modules := filepath.Join(added, "node_modules")
	t.Run("add", func(t *testing.T) {
		npmTest(t, added)
		var r struct {
			Summary struct{ Passed, Failed int }
			Results []struct{ Suite, Outcome string }
		}
		out := h.Run(t, added, bin, "conform", "--store=bridge", "--suite", "streams,chat-state,credentials", "--format", "json")
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("conform: %v\n%s", err, out)
		}
		passed := map[string]int{}
		for _, c := range r.Results {
			if c.Outcome == "passed" {
				passed[c.Suite]++
			}
		}
		if r.Summary.Failed != 0 || passed["streams"] == 0 || passed["chat-state"] == 0 || passed["credentials"] == 0 {
			t.Errorf("conform --store=bridge: %+v, passed per suite %v", r.Summary, passed)
		}
		out = h.Run(t, added, bin, "upgrade")
		if !bytes.Contains(out, []byte("is up to date")) {
			t.Errorf("upgrade right after add:\n%s", out)
		}
	})

	prev, id := previousTemplates(t)
	fromPrevious := func(t *testing.T, name string) string {
		dir := filepath.Join(work, name)
		o := acme(dir, strings.Split(four, ",")...)
		writeVersion(t, o, prev, id)
		if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	upgrade := func(t *testing.T, dir string) *Update {
		t.Helper()
		// This bsadapter binary does not hold the stand-in previous
		// version: it refuses rather than guess a base.
		stdout, stderr := h.RunExit(t, dir, []int{2}, bin, "upgrade")
		if out := append(stdout, stderr...); !bytes.Contains(out, []byte("template version "+id+" is not one this bsadapter can reproduce")) {
			t.Errorf("upgrade by a bsadapter without the version:\n%s", out)
		}
		return applyUpgrade(t, dir)
	}

	t.Run("upgrade-edited", func(t *testing.T) {
		dir := fromPrevious(t, "edited")
		authorEdits(t, dir)
		u := upgrade(t, dir)
		if c := u.Conflicts(); len(c) != 1 || c[0] != "src/chat.ts" {
			t.Fatalf("conflicts: %v", c)
		}
		got := tree(t, dir, "node_modules")
		if !strings.Contains(got["src/converters.ts"], "AUTHOR_NOTE") || !strings.Contains(got["src/index.ts"], "AUTHOR_EXPORT") {
			t.Error("a clean edit of the author's was lost")
		}
		if strings.Contains(got["src/converters.ts"], "first wording") || strings.Contains(got["src/index.ts"], "first wording") {
			t.Error("a template change was not taken")
		}
		resolveTakingTemplate(t, filepath.Join(dir, "src", "chat.ts"))
		npmTest(t, dir)
	})
	t.Run("upgrade-untouched", func(t *testing.T) {
		dir := fromPrevious(t, "untouched")
		u := upgrade(t, dir)
		if len(u.Conflicts()) != 0 {
			t.Fatalf("conflicts in an untouched adapter: %v", u.Conflicts())
		}
		sameTree(t, tree(t, dir, "node_modules"), tree(t, want))
		npmTest(t, dir)
	})
}
