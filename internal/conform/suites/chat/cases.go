package chat

import (
	"encoding/json"
	"fmt"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/streams"
)

// cases are the suite's cases in run order: the message tree, then the
// answer runs, then who reads which chat, then what coding agents keep.
// Each theme's functions are in the file of that name.
var cases = []conform.CaseOf[Store]{
	// The message tree (cases_messages.go).
	{ID: "chat/user-message-idempotent", Rule: "appending the same user message (same id, same parts) again is a no-op", Run: userMessageIdempotent},
	{ID: "chat/user-message-child-of-leaf", Rule: "a new user message becomes a child of the current leaf and the new leaf", Run: userMessageChildOfLeaf},
	{ID: "chat/user-edit-is-sibling", Rule: "the same user message id with different parts is stored under a fresh id as a sibling and becomes the leaf", Run: userEditIsSibling},
	{ID: "chat/user-message-invalid", Rule: "a user message without role user, a non-empty id or a parts array is refused with AI_MESSAGE_INVALID", Run: userMessageInvalid},
	{ID: "chat/message-ids-keep-their-role", Rule: "an answer saved under a user message's id is refused with AI_MESSAGE_INVALID and changes nothing", Run: messageIDsKeepTheirRole},
	{ID: "chat/regenerate-stores-nothing", Rule: "trigger regenerate-message stores nothing and moves the leaf back to the message", Run: regenerateStoresNothing},
	{ID: "chat/regenerate-moves-leaf-to-question", Rule: "regenerating the leaf answer moves the leaf to its question, so the next answer is its sibling", Run: regenerateMovesLeafToQuestion},
	{ID: "chat/edit-is-sibling-under-client-id", Rule: "a user message sent as a new version of another (messageId) is stored under the client's id as that message's sibling and becomes the leaf", Run: editIsSiblingUnderClientID},
	{ID: "chat/assistant-upsert", Rule: "saving an assistant message again replaces parts and status, keeps its parent and moves the leaf to it", Run: assistantUpsert},
	{ID: "chat/assistant-native-on-request", Rule: "an assistant message's format and native are stored; native is returned only on request", Run: assistantNativeOnRequest},
	{ID: "chat/path-root-first-with-siblings", Rule: "the path runs root first to the leaf, with each message's sibling count and index", Run: pathRootFirstWithSiblings},

	// The answer runs (cases_runs.go).
	{ID: "chat/claim-idempotent", Rule: "claiming the chat's active stream again returns the same run", Run: claimIdempotent},
	{ID: "chat/claim-busy", Rule: "while another stream is active, a claim fails and names the active stream and run", Run: claimBusy},
	{ID: "chat/claim-takeover-stale", Needs: conform.FeatureClock, Rule: "a claim takes over from a run older than 10 minutes, or whose stream is closed; the old run becomes cancelled", Run: claimTakeoverStale},
	{ID: "chat/release-valid-statuses", Rule: "release with completed, failed or cancelled records it, frees the chat and returns true", Run: releaseValidStatuses},
	{ID: "chat/release-invalid-status", Rule: "release with a status other than completed, failed or cancelled fails with AI_RUN_INVALID and keeps the claim", Run: releaseInvalidStatus},
	{ID: "chat/release-other-stream", Rule: "releasing a stream that is not the active one returns false and keeps the active one", Run: releaseOtherStream},
	{ID: "chat/stop-reaches-writer", Rule: "stop marks the active run cancel_requested and cancels its stream, so the writer's next append reports cancelled", Run: stopReachesWriter},
	{ID: "chat/stop-idle-null", Rule: "stop on a chat with no active stream returns null", Run: stopIdleNull},

	// Who reads which chat: its owner, and for a chat shared with its
	// organization the tenant's members holding ai_chat.read, nobody else
	// (cases_agents.go).
	{ID: "chat/tenant-members-read-shared-chats", Needs: conform.FeatureTenants, Rule: "a chat shared with its organization is read by its owner and by members holding ai_chat.read in its tenant; a private chat only by its owner; members of another tenant and anon read neither (a refused call is as good as not found)", Run: tenantMembersReadSharedChats},

	// The rules adapters for coding agents rely on (cases_agents.go).
	{ID: "chat/sandbox-found-again-for-its-chat", Rule: "a sandbox registered for a chat is found again for that chat and provider, not for another provider or chat", Run: sandboxFoundAgainForItsChat},
	{ID: "chat/harness-lock-excludes-and-expires", Needs: conform.FeatureClock, Rule: "a harness session's lock excludes a second holder until it expires; its holder renews it; only the holder unlocks it", Run: harnessLockExcludesAndExpires},
	{ID: "chat/revoked-share-exposes-nothing", Needs: conform.FeatureTenants, Rule: "a share link shows the shared branch to anyone with its token until it is revoked; then it shows nothing", Run: revokedShareExposesNothing},
}

func textPart(t string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"type": "text", "text": t})
	return b
}

func userMsg(id, text string) Message {
	return Message{ID: id, Role: "user", Parts: []json.RawMessage{textPart(text)}}
}

func assistantMsg(id, text string) Message {
	return Message{ID: id, Role: "assistant", Parts: []json.RawMessage{textPart(text)}}
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// newChat makes a chat owned by a fresh user.
func newChat(t *conform.T, s Store) string {
	id, err := s.NewChat(t.Context(), t.UUID())
	t.Must("new chat", err)
	return id
}

// appendUser appends a user message with no options.
func appendUser(t *conform.T, s Store, chat string, m Message) MessageResult {
	r, err := s.AppendUser(t.Context(), chat, m, UserOptions{})
	t.Must("append user", err)
	return r
}

// saveAnswer saves an answer to the message parent.
func saveAnswer(t *conform.T, s Store, chat string, m Message, parent string) MessageResult {
	r, err := s.SaveAssistant(t.Context(), chat, m, AssistantOptions{ParentID: parent})
	t.Must("save assistant", err)
	return r
}

// pathIDs returns the ids along the path to leaf ("" for the current
// leaf), and the path.
func pathIDs(t *conform.T, s Store, chat, leaf string) ([]string, []PathEntry) {
	p, err := s.Path(t.Context(), chat, leaf, false)
	t.Must("path", err)
	out := make([]string, len(p))
	for i, e := range p {
		out[i] = e.ID
	}
	return out, p
}

// claimStream opens a stream for the chat's answer and claims it. A
// failure stops the case; when says when it happened ("" for no
// mention).
func claimStream(t *conform.T, s Store, chat, when string) (string, ClaimResult) {
	stream, r, err := claim(t, s, chat)
	if err != nil && when != "" {
		err = fmt.Errorf("%s: %w", when, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return stream, r
}

func claim(t *conform.T, s Store, chat string) (string, ClaimResult, error) {
	stream := t.ID("answer")
	if _, err := s.Streams().Open(t.Context(), stream, streams.OpenOptions{}); err != nil {
		return "", ClaimResult{}, conform.Op("open the answer's stream", err)
	}
	r, err := s.Claim(t.Context(), chat, stream, ClaimOptions{})
	if err != nil {
		return "", r, conform.Op("claim "+stream, err)
	}
	if !r.Claimed || r.RunID == nil {
		return "", r, &conform.Mismatch{What: "claim of a free chat", Expected: "claimed with a run id", Actual: conform.Show(r)}
	}
	return stream, r, nil
}
