package blocks_test

// The contract's expectations for the ai-chat probes whose measured
// outcome is an upstream defect (docs/blocks.md lists each).
func init() {
	runInvalid := `{"error": {"sqlstate": "22023", "hint": "AI_RUN_INVALID"}}`
	nullStream := "a claim without a stream is refused: upstream reports it claimed, yet leaves the chat unclaimed, and its running run can never be released (release finds runs by their stream)"
	addProbeBugs(map[string]probeBug{
		"ai-chat/claim-ai-chat-stream/null-stream-claimed": {Expect: runInvalid, Reason: nullStream},
		// Its set-up step is the refused claim, so the state it checks is
		// never built: the probe stays in ai-chat.disagree as set up failed.
		"ai-chat/claim-ai-chat-stream/null-stream": {Expect: `{"value": {"runs": 0, "active": null}}`, Reason: nullStream},
		"ai-chat/release-ai-chat-stream/second-release-rewrites-run": {
			Expect: `{"value": {"error": "boom", "status": "failed", "same_end": true}}`,
			Reason: "a run that has ended keeps its outcome: a late second release would erase the first one's error",
		},
		"ai-chat/request-ai-chat-stop/owner-ownerless-stream-not-flagged": {
			Expect: `{"value": true}`,
			Reason: "a stop sets the stream's cancel flag, as documented, whoever opened the stream; upstream goes through the stream's own owner check, so the owner never stops a stream the server opened without owner",
		},
		"ai-chat/save-ai-assistant-message/resave-echoes-parent-argument": {
			Expect: `{"value": "u1"}`,
			Reason: "the result names the parent the answer is stored under (a re-save keeps it); upstream echoes the argument, so a caller trusting it gets the tree wrong",
		},
		"ai-chat/save-ai-assistant-message/under-user-id-accepted": {
			Expect: `{"error": {"sqlstate": "22023", "hint": "AI_MESSAGE_INVALID"}}`,
			Reason: "an answer never overwrites a user's message: upstream rewrites the prompt's parts and status under the user role",
		},
		"ai-chat/upsert-ai-models/plans-and-enabled-kept-on-update": {
			Expect: `{"value": {"plans": [], "enabled": true}}`,
			Reason: "plans and enabled are inputs of each element: a known model takes them when given (and keeps them when absent); upstream ignores them on update, so a model can never be re-enabled or re-planned",
		},
	})
}
