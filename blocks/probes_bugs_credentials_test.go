package blocks_test

// The contract's expectations for the credentials probes whose measured
// outcome is an upstream defect (docs/blocks.md lists each).
func init() {
	nameless := "a credential is named by a provider and a name: credential_set refuses a null one as CREDENTIAL_NAME_INVALID. Upstream's name check is a regular expression match, which is null rather than false for a null provider or name, so the call stores a Vault secret without a name, which no credential_get or credential_delete can reach, and returns its id"
	addProbeBugs(map[string]probeBug{
		"credentials/credential-set/null-provider-returns-id": {Expect: `{"error": {"sqlstate": "P0001", "hint": "CREDENTIAL_NAME_INVALID"}}`, Reason: nameless},
		// The set-up steps of these two are the refused calls, so the
		// state they check is never built: both stay in
		// credentials.disagree as set up failed.
		"credentials/credential-set/null-provider-stores-nameless": {Expect: `{"value": 0}`, Reason: nameless},
		"credentials/credential-delete/null-name-leaves-nameless":  {Expect: `{"value": 0}`, Reason: nameless},
	})
}
