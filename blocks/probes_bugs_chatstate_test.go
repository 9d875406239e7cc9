package blocks_test

// The contract's expectations for the chat-sdk-state probes whose measured
// outcome is an upstream defect (docs/blocks.md lists each).
func init() {
	revived := "a list whose TTL ran out is gone, as the Chat SDK's memory and Redis state adapters have it: an append starts a new list; upstream gives every row of the key the new expiry, the expired ones too, so the old entries come back"
	addProbeBugs(map[string]probeBug{
		"chat-sdk-state/chat-state-append-to-list/expired-list-revived":          {Expect: `{"value": ["new"]}`, Reason: revived},
		"chat-sdk-state/chat-state-append-to-list/expired-list-revived-with-ttl": {Expect: `{"value": ["new"]}`, Reason: revived},
		"chat-sdk-state/chat-state-enqueue/expired-on-arrival-pushes-out-live": {
			Expect: `{"value": 2}`,
			Reason: "the cap counts live entries only, so an entry that arrives expired takes no place under max_size; upstream caps after the insert counting every row, so such an entry pushes out the oldest live one and is then never delivered",
		},
	})
}
