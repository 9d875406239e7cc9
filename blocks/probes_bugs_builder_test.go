package blocks_test

// The contract's expectations for the workflow-builder probes whose
// measured outcome is an upstream defect (docs/blocks.md lists each).
func init() {
	oneRun := "a run reference names one run, the one workflow_run_get reads (the registry id first, then the newest run with that external id), and record_workflow_node_run records on that run. Upstream's list matches every run whose id or external id equals the reference, so it mixes in the nodes of other runs"
	addProbeBugs(map[string]probeBug{
		"workflow-builder/save-workflow-alert/slow-without-threshold": {
			Expect: `{"error": {"sqlstate": "23514", "hint": null}}`,
			Reason: "a slow alert fires when a run stays unfinished past its threshold, so it needs one: the table's check refuses a slow alert without a positive threshold. Upstream's check (on_event <> 'slow' or threshold > 0) is null, which passes, for a null threshold, so the alert is stored and can never fire",
		},
		"workflow-builder/save-workflow-credential/ref-without-provider": {
			Expect: `{"error": {"sqlstate": "23514", "hint": null}}`,
			Reason: "a credential_ref is an object naming the credential provider that resolves it: the table's check refuses one without a provider string. Upstream's check (jsonb_typeof(credential_ref -> 'provider') = 'string') is null, which passes, when the provider is missing, so a reference no provider can resolve is stored",
		},
		"workflow-builder/workflow-node-runs-list/external-id-shared-by-engines": {Expect: `{"value": ["b"]}`, Reason: oneRun},
		"workflow-builder/workflow-node-runs-list/uuid-also-external-id":         {Expect: `{"value": ["a"]}`, Reason: oneRun},
	})
}
