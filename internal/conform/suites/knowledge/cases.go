package knowledge

import (
	"slices"

	"github.com/bsadapter/bsadapter/internal/conform"
)

var cases = []conform.CaseOf[Knowledge]{
	{ID: "knowledge/search-scopes-and-filter", Rule: "a search returns only its tenant's chunks, of the scopes it names (a scope without id: all of it) and of documents whose metadata contains its filter", Run: searchScopes},
	{ID: "knowledge/search-what-the-caller-reads", Rule: "a signed-in user's search finds their own documents, organization and agent knowledge only with ai.read, and everything with ai.admin", Run: searchPermitted},
	{ID: "knowledge/search-fuses-rankings", Rule: "a search ranks by vector distance, fuses it with the text ranking by reciprocal rank (a chunk in both first), best first, at most k hits", Run: searchFused},
	{ID: "knowledge/ownerless-changed-by-admins-only", Rule: "a document without an owner is neither rewritten nor deleted by a member without ai.admin (upstream lets any signed-in user), and is by one with it", Run: ownerless},
	{ID: "knowledge/adding-takes-permission", Rule: "adding knowledge takes ai.create, organization knowledge ai.admin too (" + HintForbidden + "), user knowledge is filed under its owner (" + HintScope + "), and an owner may delete their own", Run: adding},
}

var service conform.Caller

// add adds d as c, stopping the case on an error.
func add(t *conform.T, k Knowledge, c conform.Caller, d Doc) string {
	id, err := k.Add(t.Context(), c, d)
	t.Must("add "+d.Title, err)
	return id
}

// member makes a signed-in member of tenant, stopping the case on an
// error.
func member(t *conform.T, k Knowledge, tenant string, permissions ...string) string {
	id, err := k.Member(t.Context(), tenant, permissions...)
	t.Must("make a member", err)
	return id
}

// titles searches and returns the titles of the documents found, sorted
// and each once.
func titles(t *conform.T, k Knowledge, c conform.Caller, tenant string, q Query) []string {
	if q.K == 0 {
		q.K = 50
	}
	hits, err := k.Search(t.Context(), c, tenant, q)
	t.Must("search", err)
	out := []string{}
	for _, h := range hits {
		if !slices.Contains(out, h.Title) {
			out = append(out, h.Title)
		}
	}
	slices.Sort(out)
	return out
}

func searchScopes(t *conform.T, k Knowledge) {
	tenant, other := t.UUID(), t.UUID()
	agentA, agentB, project := t.UUID(), t.UUID(), t.UUID()
	add(t, k, service, Doc{Tenant: tenant, Scope: "organization", Title: "org", Metadata: map[string]any{"lang": "en"}, Chunks: []string{"zebra handbook"}})
	add(t, k, service, Doc{Tenant: tenant, Scope: "agent", ScopeID: agentA, Title: "agent-a", Metadata: map[string]any{"lang": "de", "v": 2}, Chunks: []string{"zebra notes of agent a"}})
	add(t, k, service, Doc{Tenant: tenant, Scope: "agent", ScopeID: agentB, Title: "agent-b", Chunks: []string{"zebra notes of agent b"}})
	add(t, k, service, Doc{Tenant: tenant, Scope: "project", ScopeID: project, Title: "project", Chunks: []string{"zebra plan"}})
	add(t, k, service, Doc{Tenant: other, Scope: "organization", Title: "other-tenant", Chunks: []string{"zebra elsewhere"}})
	all := titles(t, k, service, tenant, Query{Text: "zebra"})
	oneAgent := titles(t, k, service, tenant, Query{Text: "zebra", Scopes: []Scope{{Scope: "agent", ID: agentA}}})
	agents := titles(t, k, service, tenant, Query{Text: "zebra", Scopes: []Scope{{Scope: "agent"}}})
	mixed := titles(t, k, service, tenant, Query{Text: "zebra", Scopes: []Scope{{Scope: "organization"}, {Scope: "project", ID: project}}})
	filtered := titles(t, k, service, tenant, Query{Text: "zebra", Filter: map[string]any{"lang": "de"}})
	t.Eq("the tenant's documents found", all, []string{"agent-a", "agent-b", "org", "project"})
	t.Eq("found in scope agent with agent a's id", oneAgent, []string{"agent-a"})
	t.Eq("found in scope agent without id", agents, []string{"agent-a", "agent-b"})
	t.Eq("found in scopes organization and the project", mixed, []string{"org", "project"})
	t.Eq(`found with filter {"lang": "de"}`, filtered, []string{"agent-a"})
}

func searchPermitted(t *conform.T, k Knowledge) {
	tenant := t.UUID()
	reader := member(t, k, tenant, "ai.read")
	stranger := member(t, k, tenant)
	admin := member(t, k, tenant, "ai.admin")
	owner := member(t, k, tenant, "ai.read")
	add(t, k, service, Doc{Tenant: tenant, Scope: "organization", Title: "org", Chunks: []string{"quokka policy"}})
	add(t, k, service, Doc{Tenant: tenant, Scope: "agent", ScopeID: t.UUID(), Title: "agent", Chunks: []string{"quokka agent notes"}})
	add(t, k, service, Doc{Tenant: tenant, Scope: "user", Owner: stranger, Title: "strangers-own", Chunks: []string{"quokka diary"}})
	add(t, k, service, Doc{Tenant: tenant, Scope: "project", ScopeID: t.UUID(), Owner: owner, Title: "owners-project", Chunks: []string{"quokka project plan"}})
	q := Query{Text: "quokka"}
	byReader := titles(t, k, conform.User(reader), tenant, q)
	byStranger := titles(t, k, conform.User(stranger), tenant, q)
	byAdmin := titles(t, k, conform.User(admin), tenant, q)
	byOwner := titles(t, k, conform.User(owner), tenant, q)
	t.Eq("found by a member with ai.read", byReader, []string{"agent", "org"})
	t.Eq("found by a member without permissions", byStranger, []string{"strangers-own"})
	t.Eq("found by a member with ai.admin", byAdmin, []string{"agent", "org", "owners-project", "strangers-own"})
	t.Eq("found by the project document's owner, with ai.read", byOwner, []string{"agent", "org", "owners-project"})
}

func searchFused(t *conform.T, k Knowledge) {
	tenant := t.UUID()
	add(t, k, service, Doc{Tenant: tenant, Scope: "organization", Title: "fruit",
		Chunks:  []string{"apple", "banana kiwi", "cherry"},
		Vectors: [][]float32{{1, 0, 0}, {0.9, 0.1, 0}, {0, 1, 0}}})
	contents := func(q Query) []string {
		hits, err := k.Search(t.Context(), service, tenant, q)
		t.Must("search", err)
		out := []string{}
		for _, h := range hits {
			out = append(out, h.Content)
		}
		return out
	}
	near := contents(Query{Vector: []float32{1, 0, 0}, K: 2})
	fused := contents(Query{Vector: []float32{0, 1, 0}, Text: "kiwi", K: 3})
	t.Eq("the two nearest to (1, 0, 0), nearest first", near, []string{"apple", "banana kiwi"})
	t.Eq("near (0, 1, 0) fused with the text kiwi", fused, []string{"banana kiwi", "cherry", "apple"})
}

func ownerless(t *conform.T, k Knowledge) {
	ctx := t.Context()
	tenant := t.UUID()
	creator := member(t, k, tenant, "ai.read", "ai.create")
	admin := member(t, k, tenant, "ai.read", "ai.admin")
	doc := add(t, k, service, Doc{Tenant: tenant, Scope: "organization", Title: "handbook", Chunks: []string{"original text"}})
	rewriteErr := k.Rewrite(ctx, conform.User(creator), doc, []string{"defaced"})
	deleted, err := k.Delete(ctx, conform.User(creator), doc)
	t.Must("delete as a member", err)
	kept, err := k.Chunks(ctx, doc)
	t.Must("read the chunks", err)
	adminErr := k.Rewrite(ctx, conform.User(admin), doc, []string{"edited text"})
	edited, err := k.Chunks(ctx, doc)
	t.Must("read the chunks", err)
	adminDeleted, err := k.Delete(ctx, conform.User(admin), doc)
	t.Must("delete as an admin", err)
	if err := conform.WantHint("a rewrite by a member without ai.admin", rewriteErr, HintNotFound); err != nil {
		t.Error(err)
	}
	t.Eq("a delete by a member without ai.admin", deleted, false)
	t.Eq("the chunks after the member's tries", kept, []string{"original text"})
	t.Must("rewrite as an admin", adminErr)
	t.Eq("the chunks after the admin's rewrite", edited, []string{"edited text"})
	t.Eq("a delete by an admin", adminDeleted, true)
}

func adding(t *conform.T, k Knowledge) {
	ctx := t.Context()
	tenant := t.UUID()
	reader := member(t, k, tenant, "ai.read")
	creator := member(t, k, tenant, "ai.read", "ai.create")
	_, readerErr := k.Add(ctx, conform.User(reader), Doc{Tenant: tenant, Scope: "user", Title: "reader's", Chunks: []string{"x"}})
	_, orgErr := k.Add(ctx, conform.User(creator), Doc{Tenant: tenant, Scope: "organization", Title: "org", Chunks: []string{"x"}})
	_, agentErr := k.Add(ctx, conform.User(creator), Doc{Tenant: tenant, Scope: "agent", ScopeID: t.UUID(), Title: "agent", Chunks: []string{"x"}})
	_, misfiledErr := k.Add(ctx, conform.User(creator), Doc{Tenant: tenant, Scope: "user", ScopeID: reader, Title: "misfiled", Chunks: []string{"x"}})
	own, ownErr := k.Add(ctx, conform.User(creator), Doc{Tenant: tenant, Scope: "user", Title: "own", Chunks: []string{"my notes"}})
	for _, c := range []struct {
		what string
		err  error
		hint string
	}{
		{"adding as a member without ai.create", readerErr, HintForbidden},
		{"adding organization knowledge without ai.admin", orgErr, HintForbidden},
		{"adding agent knowledge without ai.admin", agentErr, HintForbidden},
		{"adding user knowledge filed under another user", misfiledErr, HintScope},
	} {
		if err := conform.WantHint(c.what, c.err, c.hint); err != nil {
			t.Error(err)
		}
	}
	t.Must("add user knowledge of one's own", ownErr)
	deleted, err := k.Delete(ctx, conform.User(creator), own)
	t.Must("delete one's own document", err)
	t.Eq("a delete by the document's owner", deleted, true)
}
