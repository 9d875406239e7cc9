package blocks_test

// The contract's expectations for the streams and workflows probes whose
// measured outcome is an upstream defect (docs/blocks.md lists each).
func init() {
	forbidden := `{"error": {"sqlstate": "42501", "hint": "WORKFLOW_FORBIDDEN"}}`
	why := "a run without an actor is cancelled only by the service role or a member holding workflow.admin in its tenant; upstream compares the actor with null, so its refusal never fires and any signed-in user may cancel such a run"
	addProbeBugs(map[string]probeBug{
		"workflows/request-workflow-cancel/actorless-finished-stranger":      {Expect: forbidden, Reason: why},
		"workflows/request-workflow-cancel/actorless-tenant-run-read-member": {Expect: forbidden, Reason: why},
	})
}
