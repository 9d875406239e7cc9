package blocks_test

// The contract's expectations for the knowledge probes whose measured
// outcome is an upstream defect (docs/blocks.md lists each).
func init() {
	ownerless := "a document without an owner (organization knowledge the server added) is changed by the service role and members holding ai.admin only; upstream's refusal is not (service or owner_id = auth.uid() or can(...)), which is null for a null owner, so it never fires and any signed-in user may rewrite or delete such a document"
	addProbeBugs(map[string]probeBug{
		"knowledge/write-knowledge-chunks/ownerless-any-user-writes": {
			Expect: `{"error": {"sqlstate": "P0002", "hint": "KNOWLEDGE_NOT_FOUND"}}`,
			Reason: ownerless,
		},
		// Its set-up step is the refused write, so it fails: the probe
		// stays in knowledge.disagree as set up failed.
		"knowledge/write-knowledge-chunks/ownerless-other-tenant-writes": {Expect: `{"value": null}`, Reason: ownerless},
		"knowledge/delete-knowledge-document/ownerless-deleted":          {Expect: `{"value": 1}`, Reason: ownerless},
		"knowledge/knowledge-search/equal-text-ties-split": {
			Expect: `{"value": 1}`,
			Reason: "chunks that match equally share a rank (rank(), not row_number()), so they get the same score; upstream numbers tied chunks in scan order, so identical text scores differently and the order of equal matches depends on the plan",
		},
	})
}
