package blocks_test

// The contract's expectations for the memory probes whose measured outcome
// is an upstream defect (docs/blocks.md lists each).
func init() {
	ownerless := "an organization fact has no owner, so only the service role and members holding ai.admin in its tenant may forget or supersede it; upstream's refusal is not (service or owner_id = auth.uid() or ...), which is null for a null owner, so it never fires and any signed-in user, of any tenant, may forget or supersede such a fact"
	addProbeBugs(map[string]probeBug{
		"memory/memory-forget/organization-any-user-forgets":    {Expect: `{"value": 1}`, Reason: ownerless},
		"memory/memory-forget/organization-any-user-supersedes": {Expect: `{"value": false}`, Reason: ownerless},
		"memory/memory-forget/successor-deleted-resurrects": {
			Expect: `{"value": []}`,
			Reason: "forgetting a fact forgets the facts it superseded with it (superseded_by is on delete cascade); upstream's on delete set null silently brings a replaced fact back when its successor is forgotten",
		},
		// Its set-up step is the refused root file: the probe stays in
		// memory.disagree as set up failed.
		"memory/memory-view/root-file-shadows-listing": {
			Expect: `{"value": {"path": "/memories", "type": "directory", "entries": [{"path": "/memories/x.md", "size": 1}]}}`,
			Reason: "/memories is the root directory, so no file may sit there (MEMORY_PATH); upstream stores one, and view /memories then shows that file instead of the listing, hiding every other file",
		},
	})
}
