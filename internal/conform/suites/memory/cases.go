package memory

import (
	"encoding/json"
	"fmt"

	"github.com/bsadapter/bsadapter/internal/conform"
)

var cases = []conform.CaseOf[Memory]{
	{ID: "memory/create-and-view", Rule: "create writes a file at version 1; view shows a file's content and version, a directory's files by path, and null where nothing is", Run: createAndView},
	{ID: "memory/create-checks-version", Rule: "create over a file at the version expected moves it on; a stale version, or 0 where a file is, is " + HintConflict + " and changes nothing; a version for no file is " + HintNotFound, Run: createChecksVersion},
	{ID: "memory/str-replace-exactly-once", Rule: "str_replace replaces text occurring exactly once, moving the version on; text absent is " + HintNoMatch + ", text occurring twice " + HintAmbiguous + ", a missing file " + HintNotFound, Run: strReplace},
	{ID: "memory/insert-at-line", Rule: "insert puts its lines after the line named (0: before the first, the last line: at the end); a line outside the file is " + HintLine, Run: insertAtLine},
	{ID: "memory/rename-and-delete", Rule: "rename moves a directory's files and counts them, refusing a taken path (" + HintExists + "), a move into itself (" + HintPath + ") and a missing one (" + HintNotFound + "); delete removes a directory's files and counts them; a path outside /memories is " + HintPath, Run: renameAndDelete},
	{ID: "memory/namespaces-apart", Rule: "a user's files are theirs alone and apart from their agent namespaces; a member without ai.read is refused (" + HintForbidden + "), organization memory is changed only with ai.admin, a namespace without its id is " + HintNamespace, Run: namespacesApart},
	{ID: "memory/superseded-facts-stay-forgotten", Rule: "a fact marked superseded is no longer found, and forgetting the fact that replaced it does not bring it back (upstream does)", Run: supersededFacts},
	{ID: "memory/organization-facts-forgotten-by-admins-only", Rule: "an organization fact is not forgotten by a member without ai.admin (upstream lets any signed-in user), and is by one with it", Run: organizationFacts},
}

// member makes a signed-in member of tenant, stopping the case on an
// error.
func member(t *conform.T, m Memory, tenant string, permissions ...string) conform.Caller {
	id, err := m.Member(t.Context(), tenant, permissions...)
	t.Must("make a member", err)
	return conform.User(id)
}

// run runs cmd, stopping the case on an error.
func run(t *conform.T, m Memory, c conform.Caller, tenant string, cmd Command) json.RawMessage {
	out, err := m.Run(t.Context(), c, tenant, cmd)
	t.Must(cmd.Command+" "+cmd.Path, err)
	return out
}

// file decodes a command's file; nil for JSON null.
func file(t *conform.T, raw json.RawMessage) *File {
	if string(raw) == "null" || len(raw) == 0 {
		return nil
	}
	var f File
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(fmt.Errorf("the block answered %s, not a file or directory: %w", raw, err))
	}
	return &f
}

// count decodes a command's number of files.
func count(t *conform.T, raw json.RawMessage) int {
	var n int
	if err := json.Unmarshal(raw, &n); err != nil {
		t.Fatal(fmt.Errorf("the block answered %s, not a number of files: %w", raw, err))
	}
	return n
}

// wantHint records a mismatch unless err carries hint.
func wantHint(t *conform.T, what string, err error, hint string) {
	if e := conform.WantHint(what, err, hint); e != nil {
		t.Error(e)
	}
}

func create(path, content string) Command {
	return Command{Command: "create", Path: path, Content: content}
}

func view(path string) Command { return Command{Command: "view", Path: path} }

func version(v int) *int { return &v }

// contentOf is a file's content and version, or what came instead.
func contentOf(f *File) string {
	if f == nil {
		return "nothing"
	}
	return fmt.Sprintf("%q at version %d", f.Content, f.Version)
}

func paths(f *File) any {
	if f == nil {
		return "nothing"
	}
	out := []string{}
	for _, e := range f.Entries {
		out = append(out, e.Path)
	}
	return out
}

func createAndView(t *conform.T, m Memory) {
	tenant := t.UUID()
	u := member(t, m, tenant, "ai.read")
	created := file(t, run(t, m, u, tenant, create("/memories/notes/a.md", "one")))
	run(t, m, u, tenant, create("/memories/notes/b.md", "two"))
	a := file(t, run(t, m, u, tenant, view("/memories/notes/a.md")))
	root := file(t, run(t, m, u, tenant, view("/memories")))
	dir := file(t, run(t, m, u, tenant, view("/memories/notes")))
	none := file(t, run(t, m, u, tenant, view("/memories/nothing")))
	t.Eq("what create answered", contentOf(created), contentOf(&File{Content: "one", Version: 1}))
	if t.That(a != nil, "view of a file", "the file", a) {
		t.Eq("view of a file: type", a.Type, "file")
		t.Eq("view of a file", contentOf(a), contentOf(&File{Content: "one", Version: 1}))
	}
	want := []string{"/memories/notes/a.md", "/memories/notes/b.md"}
	if t.That(root != nil && root.Type == "directory", "view of /memories", "a directory", root) {
		t.Eq("view of /memories: its files", paths(root), want)
	}
	if t.That(dir != nil && dir.Type == "directory", "view of /memories/notes", "a directory", dir) {
		t.Eq("view of /memories/notes: its files", paths(dir), want)
	}
	t.That(none == nil, "view of a path with nothing there", "null", none)
}

func createChecksVersion(t *conform.T, m Memory) {
	ctx := t.Context()
	tenant := t.UUID()
	u := member(t, m, tenant, "ai.read")
	run(t, m, u, tenant, create("/memories/v.md", "first"))
	second := Command{Command: "create", Path: "/memories/v.md", Content: "second", ExpectedVersion: version(1)}
	moved := file(t, run(t, m, u, tenant, second))
	stale := second
	stale.Content = "stale"
	_, staleErr := m.Run(ctx, u, tenant, stale)
	fresh := Command{Command: "create", Path: "/memories/v.md", Content: "fresh", ExpectedVersion: version(0)}
	_, freshErr := m.Run(ctx, u, tenant, fresh)
	after := file(t, run(t, m, u, tenant, view("/memories/v.md")))
	_, missingErr := m.Run(ctx, u, tenant, Command{Command: "create", Path: "/memories/missing.md", Content: "x", ExpectedVersion: version(3)})
	missing := file(t, run(t, m, u, tenant, view("/memories/missing.md")))
	t.Eq("create expecting version 1 of a file at 1", contentOf(moved), contentOf(&File{Content: "second", Version: 2}))
	wantHint(t, "create expecting version 1 of a file at 2", staleErr, HintConflict)
	wantHint(t, "create expecting no file (0) where one is", freshErr, HintConflict)
	t.Eq("the file after the refused writes", contentOf(after), contentOf(&File{Content: "second", Version: 2}))
	wantHint(t, "create expecting version 3 of no file", missingErr, HintNotFound)
	t.That(missing == nil, "the path of the refused create", "nothing there", missing)
}

func strReplace(t *conform.T, m Memory) {
	ctx := t.Context()
	tenant := t.UUID()
	u := member(t, m, tenant, "ai.read")
	run(t, m, u, tenant, create("/memories/colours.md", "red green red"))
	replace := func(path, old, new string) (json.RawMessage, error) {
		return m.Run(ctx, u, tenant, Command{Command: "str_replace", Path: path, OldText: old, NewText: new})
	}
	_, absentErr := replace("/memories/colours.md", "blue", "x")
	_, twiceErr := replace("/memories/colours.md", "red", "x")
	unchanged := file(t, run(t, m, u, tenant, view("/memories/colours.md")))
	raw, err := replace("/memories/colours.md", "green", "yellow")
	t.Must("str_replace of text occurring once", err)
	done := file(t, raw)
	_, missingErr := replace("/memories/none.md", "a", "b")
	wantHint(t, "str_replace of absent text", absentErr, HintNoMatch)
	wantHint(t, "str_replace of text occurring twice", twiceErr, HintAmbiguous)
	t.Eq("the file after the refused replaces", contentOf(unchanged), contentOf(&File{Content: "red green red", Version: 1}))
	t.Eq("str_replace of text occurring once", contentOf(done), contentOf(&File{Content: "red yellow red", Version: 2}))
	wantHint(t, "str_replace in a missing file", missingErr, HintNotFound)
}

func insertAtLine(t *conform.T, m Memory) {
	tenant := t.UUID()
	u := member(t, m, tenant, "ai.read")
	run(t, m, u, tenant, create("/memories/list.md", "a\nb"))
	insert := func(line int, text string) Command {
		return Command{Command: "insert", Path: "/memories/list.md", InsertLine: line, InsertText: text}
	}
	first := file(t, run(t, m, u, tenant, insert(0, "x")))
	last := file(t, run(t, m, u, tenant, insert(3, "y\nz")))
	_, outsideErr := m.Run(t.Context(), u, tenant, insert(6, "w"))
	t.Eq("insert at line 0", contentOf(first), contentOf(&File{Content: "x\na\nb", Version: 2}))
	t.Eq("insert after the last line", contentOf(last), contentOf(&File{Content: "x\na\nb\ny\nz", Version: 3}))
	wantHint(t, "insert after line 6 of a file of 5", outsideErr, HintLine)
}

func renameAndDelete(t *conform.T, m Memory) {
	ctx := t.Context()
	tenant := t.UUID()
	u := member(t, m, tenant, "ai.read")
	for _, p := range []string{"/memories/d/a", "/memories/d/b", "/memories/e"} {
		run(t, m, u, tenant, create(p, "content of "+p))
	}
	rename := func(from, to string) (json.RawMessage, error) {
		return m.Run(ctx, u, tenant, Command{Command: "rename", Path: from, NewPath: to})
	}
	raw, err := rename("/memories/d", "/memories/f")
	t.Must("rename /memories/d", err)
	moved := count(t, raw)
	a := file(t, run(t, m, u, tenant, view("/memories/f/a")))
	_, takenErr := rename("/memories/f", "/memories/e")
	_, intoErr := rename("/memories/f", "/memories/f/g")
	_, missingErr := rename("/memories/nope", "/memories/z")
	deleted := count(t, run(t, m, u, tenant, Command{Command: "delete", Path: "/memories/f"}))
	gone := file(t, run(t, m, u, tenant, view("/memories/f")))
	e := file(t, run(t, m, u, tenant, view("/memories/e")))
	_, outsideErr := m.Run(ctx, u, tenant, create("/memories/../x", "x"))
	_, rootErr := m.Run(ctx, u, tenant, create("/memories", "x"))
	t.Eq("files a rename of /memories/d moved", moved, 2)
	t.Eq("/memories/f/a after the rename", contentOf(a), contentOf(&File{Content: "content of /memories/d/a", Version: 2}))
	wantHint(t, "rename onto a file that exists", takenErr, HintExists)
	wantHint(t, "rename into itself", intoErr, HintPath)
	wantHint(t, "rename of nothing", missingErr, HintNotFound)
	t.Eq("files a delete of /memories/f removed", deleted, 2)
	t.That(gone == nil, "view of the deleted directory", "null", gone)
	t.Eq("/memories/e, untouched", contentOf(e), contentOf(&File{Content: "content of /memories/e", Version: 1}))
	wantHint(t, "create at /memories/../x", outsideErr, HintPath)
	wantHint(t, "create at /memories itself", rootErr, HintPath)
}

func namespacesApart(t *conform.T, m Memory) {
	ctx := t.Context()
	tenant := t.UUID()
	owner := member(t, m, tenant, "ai.read")
	other := member(t, m, tenant, "ai.read")
	outsider := member(t, m, tenant)
	admin := member(t, m, tenant, "ai.read", "ai.admin")
	org := Namespace{"scope": "organization"}
	agent := Namespace{"scope": "agent", "agent_id": t.UUID()}
	run(t, m, owner, tenant, create("/memories/secret.md", "mine"))
	inAgent := Command{Command: "create", Path: "/memories/secret.md", Content: "the agent's", NS: agent}
	agentFile := file(t, run(t, m, owner, tenant, inAgent))
	byOther := file(t, run(t, m, other, tenant, view("/memories/secret.md")))
	own := file(t, run(t, m, owner, tenant, view("/memories/secret.md")))
	_, outsiderErr := m.Run(ctx, outsider, tenant, view("/memories"))
	_, orgErr := m.Run(ctx, owner, tenant, Command{Command: "create", Path: "/memories/org.md", Content: "x", NS: org})
	run(t, m, admin, tenant, Command{Command: "create", Path: "/memories/org.md", Content: "for everyone", NS: org})
	orgFile := file(t, run(t, m, owner, tenant, Command{Command: "view", Path: "/memories/org.md", NS: org}))
	_, nsErr := m.Run(ctx, owner, tenant, Command{Command: "view", Path: "/memories", NS: Namespace{"scope": "agent"}})
	t.That(byOther == nil, "another user's view of the owner's file", "null", contentOf(byOther))
	t.Eq("the owner's file after a file of the same path in an agent namespace", contentOf(own), contentOf(&File{Content: "mine", Version: 1}))
	t.Eq("the agent namespace's file", contentOf(agentFile), contentOf(&File{Content: "the agent's", Version: 1}))
	wantHint(t, "a view by a member without ai.read", outsiderErr, HintForbidden)
	wantHint(t, "organization memory written without ai.admin", orgErr, HintForbidden)
	t.Eq("organization memory an admin wrote, viewed by a member", contentOf(orgFile), contentOf(&File{Content: "for everyone", Version: 1}))
	wantHint(t, "scope agent without agent_id", nsErr, HintNamespace)
}

// facts returns the content of the facts a search found.
func facts(t *conform.T, m Memory, c conform.Caller, tenant, text string, ns Namespace) []string {
	found, err := m.Search(t.Context(), c, tenant, text, ns)
	t.Must("search", err)
	out := []string{}
	for _, f := range found {
		out = append(out, f.Content)
	}
	return out
}

func supersededFacts(t *conform.T, m Memory) {
	ctx := t.Context()
	tenant := t.UUID()
	u := member(t, m, tenant, "ai.read")
	old, err := m.Save(ctx, u, tenant, "the user drinks tea", nil)
	t.Must("save", err)
	newer, err := m.Save(ctx, u, tenant, "the user drinks coffee now", nil)
	t.Must("save", err)
	marked, err := m.Forget(ctx, u, old, newer)
	t.Must("mark superseded", err)
	afterMark := facts(t, m, u, tenant, "drinks", nil)
	forgotten, err := m.Forget(ctx, u, newer, "")
	t.Must("forget", err)
	afterForget := facts(t, m, u, tenant, "drinks", nil)
	t.Eq("marking a fact superseded", marked, true)
	t.Eq("found after the old fact was superseded", afterMark, []string{"the user drinks coffee now"})
	t.Eq("forgetting the newer fact", forgotten, true)
	t.Eq("found after the newer fact was forgotten", afterForget, []string{})
}

func organizationFacts(t *conform.T, m Memory) {
	ctx := t.Context()
	tenant := t.UUID()
	u := member(t, m, tenant, "ai.read")
	admin := member(t, m, tenant, "ai.read", "ai.admin")
	org := Namespace{"scope": "organization"}
	id, err := m.Save(ctx, admin, tenant, "the office opens at nine", org)
	t.Must("save an organization fact", err)
	byMember, err := m.Forget(ctx, u, id, "")
	t.Must("forget as a member", err)
	still := facts(t, m, u, tenant, "office", org)
	byAdmin, err := m.Forget(ctx, admin, id, "")
	t.Must("forget as an admin", err)
	gone := facts(t, m, u, tenant, "office", org)
	t.Eq("forgetting by a member without ai.admin", byMember, false)
	t.Eq("found after the member's try", still, []string{"the office opens at nine"})
	t.Eq("forgetting by an admin", byAdmin, true)
	t.Eq("found after the admin forgot it", gone, []string{})
}
