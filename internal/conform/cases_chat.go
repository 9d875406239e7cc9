package conform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"time"
)

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

// newChat makes a chat owned by a fresh user.
func newChat(ctx context.Context, s *Subject) (string, error) {
	id, err := s.Chat.NewChat(ctx, s.UUID())
	return id, op("new chat", err)
}

// pathIDs returns the ids along the path to leaf ("" for the current leaf).
func pathIDs(ctx context.Context, s *Subject, chat, leaf string) ([]string, []PathEntry, error) {
	p, err := s.Chat.Path(ctx, chat, leaf, false)
	if err != nil {
		return nil, nil, op("path", err)
	}
	out := make([]string, len(p))
	for i, e := range p {
		out[i] = e.ID
	}
	return out, p, nil
}

// sameJSON compares two JSON documents by value.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// claimStream opens a stream for the chat's answer and claims it.
func claimStream(ctx context.Context, s *Subject, chat string) (string, ClaimResult, error) {
	stream := s.ID("answer")
	if _, err := s.Chat.Streams().Open(ctx, stream, OpenOptions{}); err != nil {
		return "", ClaimResult{}, op("open the answer's stream", err)
	}
	r, err := s.Chat.Claim(ctx, chat, stream, ClaimOptions{})
	if err != nil {
		return "", r, op("claim "+stream, err)
	}
	if !r.Claimed || r.RunID == nil {
		return "", r, &Mismatch{What: "claim of a free chat", Expected: "claimed with a run id", Actual: show(r)}
	}
	return stream, r, nil
}

func chatCases() []Case {
	cs := []Case{
		{ID: "chat/user-message-idempotent", Rule: "appending the same user message (same id, same parts) again is a no-op", Run: func(ctx context.Context, s *Subject) error {
			chat, err := newChat(ctx, s)
			if err != nil {
				return err
			}
			m := userMsg(s.ID("u"), "hello")
			first, err := s.Chat.AppendUser(ctx, chat, m, UserOptions{})
			if err != nil {
				return op("append user", err)
			}
			second, err := s.Chat.AppendUser(ctx, chat, m, UserOptions{})
			if err != nil {
				return op("append user again", err)
			}
			got, _, err := pathIDs(ctx, s, chat, "")
			if err != nil {
				return err
			}
			var c checks
			c.eq("first append", first, MessageResult{MessageID: m.ID, Created: true})
			c.eq("second append", second, MessageResult{MessageID: m.ID, Created: false})
			c.eq("path", got, []string{m.ID})
			return c.err()
		}},
		{ID: "chat/user-message-child-of-leaf", Rule: "a new user message becomes a child of the current leaf and the new leaf", Run: func(ctx context.Context, s *Subject) error {
			chat, err := newChat(ctx, s)
			if err != nil {
				return err
			}
			u1, a1, u2 := userMsg(s.ID("u"), "q1"), assistantMsg(s.ID("a"), "a1"), userMsg(s.ID("u"), "q2")
			if _, err := s.Chat.AppendUser(ctx, chat, u1, UserOptions{}); err != nil {
				return op("append user", err)
			}
			if _, err := s.Chat.SaveAssistant(ctx, chat, a1, AssistantOptions{ParentID: u1.ID}); err != nil {
				return op("save assistant", err)
			}
			r, err := s.Chat.AppendUser(ctx, chat, u2, UserOptions{})
			if err != nil {
				return op("append user", err)
			}
			got, _, err := pathIDs(ctx, s, chat, "")
			if err != nil {
				return err
			}
			var c checks
			c.eq("second user message", r, MessageResult{MessageID: u2.ID, ParentID: &a1.ID, Created: true})
			c.eq("path", got, []string{u1.ID, a1.ID, u2.ID})
			return c.err()
		}},
		{ID: "chat/user-edit-is-sibling", Rule: "the same user message id with different parts is stored under a fresh id as a sibling and becomes the leaf", Run: func(ctx context.Context, s *Subject) error {
			chat, err := newChat(ctx, s)
			if err != nil {
				return err
			}
			u1, a1, u2 := userMsg(s.ID("u"), "q1"), assistantMsg(s.ID("a"), "a1"), userMsg(s.ID("u"), "q2")
			if _, err := s.Chat.AppendUser(ctx, chat, u1, UserOptions{}); err != nil {
				return op("append user", err)
			}
			if _, err := s.Chat.SaveAssistant(ctx, chat, a1, AssistantOptions{ParentID: u1.ID}); err != nil {
				return op("save assistant", err)
			}
			if _, err := s.Chat.AppendUser(ctx, chat, u2, UserOptions{}); err != nil {
				return op("append user", err)
			}
			edit := userMsg(u2.ID, "q2, edited")
			r, err := s.Chat.AppendUser(ctx, chat, edit, UserOptions{})
			if err != nil {
				return op("append the edit", err)
			}
			var c checks
			c.that(r.Created && r.MessageID != "" && r.MessageID != u2.ID, "the edit", "created under a fresh id", r)
			c.eq("parent of the edit", deref(r.ParentID), a1.ID)
			got, path, err := pathIDs(ctx, s, chat, "")
			if err != nil {
				return err
			}
			c.eq("path to the new leaf", got, []string{u1.ID, a1.ID, r.MessageID})
			if len(path) == 3 {
				c.eq("sibling count and index of the edit", []int{path[2].SiblingCount, path[2].SiblingIndex}, []int{2, 1})
				c.that(sameJSON(path[2].Parts[0], edit.Parts[0]), "parts of the edit", string(edit.Parts[0]), string(path[2].Parts[0]))
			}
			_, old, err := pathIDs(ctx, s, chat, u2.ID)
			if err != nil {
				return err
			}
			if c.eq("length of the path to the original", len(old), 3) {
				c.eq("sibling count and index of the original", []int{old[2].SiblingCount, old[2].SiblingIndex}, []int{2, 0})
				c.that(sameJSON(old[2].Parts[0], u2.Parts[0]), "parts of the original", string(u2.Parts[0]), string(old[2].Parts[0]))
			}
			return c.err()
		}},
		{ID: "chat/user-message-invalid", Rule: "a user message without role user, a non-empty id or a parts array is refused with AI_MESSAGE_INVALID", Run: func(ctx context.Context, s *Subject) error {
			chat, err := newChat(ctx, s)
			if err != nil {
				return err
			}
			var c checks
			for _, tc := range []struct {
				what string
				m    Message
			}{
				{"role assistant", assistantMsg(s.ID("u"), "x")},
				{"an empty id", userMsg("", "x")},
				{"no parts array", Message{ID: s.ID("u"), Role: "user"}},
			} {
				_, err := s.Chat.AppendUser(ctx, chat, tc.m, UserOptions{})
				if e := wantHint("append of a user message with "+tc.what, err, HintMessageInvalid); e != nil {
					c.list = append(c.list, e)
				}
			}
			got, _, err := pathIDs(ctx, s, chat, "")
			if err != nil {
				return err
			}
			c.eq("path after the refused messages", got, []string{})
			return c.err()
		}},
		{ID: "chat/message-ids-keep-their-role", Rule: "an answer saved under a user message's id is refused with AI_MESSAGE_INVALID and changes nothing", Run: func(ctx context.Context, s *Subject) error {
			chat, err := newChat(ctx, s)
			if err != nil {
				return err
			}
			u1, a1 := userMsg(s.ID("u"), "question"), assistantMsg(s.ID("a"), "answer")
			if _, err := s.Chat.AppendUser(ctx, chat, u1, UserOptions{}); err != nil {
				return op("append user", err)
			}
			if _, err := s.Chat.SaveAssistant(ctx, chat, a1, AssistantOptions{ParentID: u1.ID}); err != nil {
				return op("save assistant", err)
			}
			var c checks
			_, err = s.Chat.SaveAssistant(ctx, chat, assistantMsg(u1.ID, "overwritten"), AssistantOptions{ParentID: u1.ID})
			if e := wantHint("save of an answer under the user message's id", err, HintMessageInvalid); e != nil {
				c.list = append(c.list, e)
			}
			got, path, err := pathIDs(ctx, s, chat, "")
			if err != nil {
				return err
			}
			c.eq("path after the refused save", got, []string{u1.ID, a1.ID})
			if len(path) == 2 {
				c.that(len(path[0].Parts) == 1 && sameJSON(path[0].Parts[0], u1.Parts[0]), "the question's parts", string(u1.Parts[0]), path[0].Parts)
			}
			return c.err()
		}},
		{ID: "chat/regenerate-stores-nothing", Rule: "trigger regenerate-message stores nothing and moves the leaf back to the message", Run: func(ctx context.Context, s *Subject) error {
			chat, err := newChat(ctx, s)
			if err != nil {
				return err
			}
			u1, a1 := userMsg(s.ID("u"), "q1"), assistantMsg(s.ID("a"), "a1")
			if _, err := s.Chat.AppendUser(ctx, chat, u1, UserOptions{}); err != nil {
				return op("append user", err)
			}
			if _, err := s.Chat.SaveAssistant(ctx, chat, a1, AssistantOptions{ParentID: u1.ID}); err != nil {
				return op("save assistant", err)
			}
			r, err := s.Chat.AppendUser(ctx, chat, u1, UserOptions{Trigger: "regenerate-message"})
			if err != nil {
				return op("append with regenerate-message", err)
			}
			got, _, err := pathIDs(ctx, s, chat, "")
			if err != nil {
				return err
			}
			var c checks
			c.eq("created", r.Created, false)
			c.eq("path after regenerate", got, []string{u1.ID})
			still, _, err := pathIDs(ctx, s, chat, a1.ID)
			if err != nil {
				return err
			}
			c.eq("path to the earlier answer", still, []string{u1.ID, a1.ID})
			return c.err()
		}},
		{ID: "chat/regenerate-moves-leaf-to-question", Rule: "regenerating the leaf answer moves the leaf to its question, so the next answer is its sibling", Run: func(ctx context.Context, s *Subject) error {
			chat, err := newChat(ctx, s)
			if err != nil {
				return err
			}
			u1, a1, a2 := userMsg(s.ID("u"), "q1"), assistantMsg(s.ID("a"), "first answer"), assistantMsg(s.ID("a"), "second answer")
			if _, err := s.Chat.AppendUser(ctx, chat, u1, UserOptions{}); err != nil {
				return op("append user", err)
			}
			if _, err := s.Chat.SaveAssistant(ctx, chat, a1, AssistantOptions{ParentID: u1.ID}); err != nil {
				return op("save assistant", err)
			}
			// What the SDK sends on regenerate: the last user message, no id
			// to regenerate; the blocks take the chat's leaf.
			r, err := s.Chat.AppendUser(ctx, chat, u1, UserOptions{Trigger: "regenerate-message"})
			if err != nil {
				return op("append with regenerate-message", err)
			}
			var c checks
			c.eq("regenerate", []any{r.MessageID, r.Created}, []any{u1.ID, false})
			got, _, err := pathIDs(ctx, s, chat, "")
			if err != nil {
				return err
			}
			c.eq("path after regenerate (the leaf is the question)", got, []string{u1.ID})
			if _, err := s.Chat.SaveAssistant(ctx, chat, a2, AssistantOptions{ParentID: r.MessageID}); err != nil {
				return op("save the new answer", err)
			}
			got, path, err := pathIDs(ctx, s, chat, "")
			if err != nil {
				return err
			}
			c.eq("path with the new answer", got, []string{u1.ID, a2.ID})
			if len(path) == 2 {
				c.eq("sibling count and index of the new answer", []int{path[1].SiblingCount, path[1].SiblingIndex}, []int{2, 1})
			}
			return c.err()
		}},
		{ID: "chat/edit-is-sibling-under-client-id", Rule: "a user message sent as a new version of another (messageId) is stored under the client's id as that message's sibling and becomes the leaf", Run: func(ctx context.Context, s *Subject) error {
			chat, err := newChat(ctx, s)
			if err != nil {
				return err
			}
			u1, a1, u2 := userMsg(s.ID("u"), "q1"), assistantMsg(s.ID("a"), "a1"), userMsg(s.ID("u"), "q2")
			if _, err := s.Chat.AppendUser(ctx, chat, u1, UserOptions{}); err != nil {
				return op("append user", err)
			}
			if _, err := s.Chat.SaveAssistant(ctx, chat, a1, AssistantOptions{ParentID: u1.ID}); err != nil {
				return op("save assistant", err)
			}
			if _, err := s.Chat.AppendUser(ctx, chat, u2, UserOptions{}); err != nil {
				return op("append user", err)
			}
			edit := userMsg(s.ID("u"), "q2, edited")
			r, err := s.Chat.AppendUser(ctx, chat, edit, UserOptions{MessageID: u2.ID})
			if err != nil {
				return op("append the edit as a version of "+u2.ID, err)
			}
			var c checks
			c.eq("the edit", r, MessageResult{MessageID: edit.ID, ParentID: &a1.ID, Created: true})
			got, path, err := pathIDs(ctx, s, chat, "")
			if err != nil {
				return err
			}
			c.eq("path (the edit is the leaf)", got, []string{u1.ID, a1.ID, edit.ID})
			if len(path) == 3 {
				c.eq("sibling count and index of the edit", []int{path[2].SiblingCount, path[2].SiblingIndex}, []int{2, 1})
			}
			old, _, err := pathIDs(ctx, s, chat, u2.ID)
			if err != nil {
				return err
			}
			c.eq("path to the original", old, []string{u1.ID, a1.ID, u2.ID})
			return c.err()
		}},
		{ID: "chat/assistant-upsert", Rule: "saving an assistant message again replaces parts and status, keeps its parent and moves the leaf to it", Run: func(ctx context.Context, s *Subject) error {
			chat, err := newChat(ctx, s)
			if err != nil {
				return err
			}
			u1, u2 := userMsg(s.ID("u"), "q1"), userMsg(s.ID("u"), "q2")
			a1 := assistantMsg(s.ID("a"), "partial")
			if _, err := s.Chat.AppendUser(ctx, chat, u1, UserOptions{}); err != nil {
				return op("append user", err)
			}
			first, err := s.Chat.SaveAssistant(ctx, chat, a1, AssistantOptions{ParentID: u1.ID, Status: "aborted"})
			if err != nil {
				return op("save assistant", err)
			}
			if _, err := s.Chat.AppendUser(ctx, chat, u2, UserOptions{}); err != nil {
				return op("append user", err)
			}
			final := assistantMsg(a1.ID, "the whole answer")
			second, err := s.Chat.SaveAssistant(ctx, chat, final, AssistantOptions{ParentID: u2.ID, Status: "complete"})
			if err != nil {
				return op("save assistant again", err)
			}
			got, path, err := pathIDs(ctx, s, chat, "")
			if err != nil {
				return err
			}
			var c checks
			c.eq("first save", first, MessageResult{MessageID: a1.ID, ParentID: &u1.ID, Created: true})
			// Where the answer is stored is what the path shows: upstream's
			// result echoes the parent passed in rather than the one kept.
			c.eq("second save", []any{second.MessageID, second.Created}, []any{a1.ID, false})
			c.eq("path (the leaf moved to the answer, its parent kept)", got, []string{u1.ID, a1.ID})
			if len(path) == 2 {
				c.eq("status", path[1].Status, "complete")
				c.that(len(path[1].Parts) == 1 && sameJSON(path[1].Parts[0], final.Parts[0]), "parts", string(final.Parts[0]), path[1].Parts)
			}
			return c.err()
		}},
		{ID: "chat/assistant-native-on-request", Rule: "an assistant message's format and native are stored; native is returned only on request", Run: func(ctx context.Context, s *Subject) error {
			chat, err := newChat(ctx, s)
			if err != nil {
				return err
			}
			u1, a1 := userMsg(s.ID("u"), "q1"), assistantMsg(s.ID("a"), "a1")
			native := json.RawMessage(`{"value":{"id":"x","role":"assistant","parts":[{"type":"text","text":"a1"}],"metadata":{"ü":[1,null]}}}`)
			if _, err := s.Chat.AppendUser(ctx, chat, u1, UserOptions{}); err != nil {
				return op("append user", err)
			}
			if _, err := s.Chat.SaveAssistant(ctx, chat, a1, AssistantOptions{ParentID: u1.ID, Format: "ai-sdk-ui", Native: native, Model: "m-1"}); err != nil {
				return op("save assistant", err)
			}
			var c checks
			plain, err := s.Chat.Path(ctx, chat, "", false)
			if err != nil {
				return op("path", err)
			}
			withNative, err := s.Chat.Path(ctx, chat, "", true)
			if err != nil {
				return op("path with native", err)
			}
			if c.eq("path length", len(plain), 2) && c.eq("path length with native", len(withNative), 2) {
				c.eq("format", plain[1].Format, "ai-sdk-ui")
				c.eq("model", deref(plain[1].Model), "m-1")
				c.that(len(plain[1].Native) == 0 || string(plain[1].Native) == "null", "native without asking", "null", string(plain[1].Native))
				c.that(sameJSON(withNative[1].Native, native), "native on request", string(native), string(withNative[1].Native))
				c.eq("format of the user message", plain[0].Format, "canonical")
			}
			return c.err()
		}},
		{ID: "chat/path-root-first-with-siblings", Rule: "the path runs root first to the leaf, with each message's sibling count and index", Run: func(ctx context.Context, s *Subject) error {
			chat, err := newChat(ctx, s)
			if err != nil {
				return err
			}
			u1 := userMsg(s.ID("u"), "q1")
			a1, a2, a3 := assistantMsg(s.ID("a"), "one"), assistantMsg(s.ID("a"), "two"), assistantMsg(s.ID("a"), "three")
			if _, err := s.Chat.AppendUser(ctx, chat, u1, UserOptions{}); err != nil {
				return op("append user", err)
			}
			for _, a := range []Message{a1, a2, a3} {
				if _, err := s.Chat.SaveAssistant(ctx, chat, a, AssistantOptions{ParentID: u1.ID}); err != nil {
					return op("save assistant", err)
				}
			}
			var c checks
			for i, a := range []Message{a1, a2, a3} {
				_, path, err := pathIDs(ctx, s, chat, a.ID)
				if err != nil {
					return err
				}
				if !c.eq("path length to "+a.ID, len(path), 2) {
					continue
				}
				c.eq("path to "+a.ID, []any{path[0].ID, path[0].SiblingCount, path[0].SiblingIndex, path[1].ID, path[1].SiblingCount, path[1].SiblingIndex},
					[]any{u1.ID, 1, 0, a.ID, 3, i})
				c.eq("parent of "+a.ID, deref(path[1].ParentID), u1.ID)
				c.eq("parent of the root", path[0].ParentID, (*string)(nil))
			}
			got, _, err := pathIDs(ctx, s, chat, "")
			if err != nil {
				return err
			}
			c.eq("path to the current leaf (the last saved)", got, []string{u1.ID, a3.ID})
			return c.err()
		}},
		{ID: "chat/claim-idempotent", Rule: "claiming the chat's active stream again returns the same run", Run: func(ctx context.Context, s *Subject) error {
			chat, err := newChat(ctx, s)
			if err != nil {
				return err
			}
			stream, first, err := claimStream(ctx, s, chat)
			if err != nil {
				return err
			}
			again, err := s.Chat.Claim(ctx, chat, stream, ClaimOptions{})
			if err != nil {
				return op("claim again", err)
			}
			return eq("second claim", again, ClaimResult{Claimed: true, StreamID: &stream, RunID: first.RunID})
		}},
		{ID: "chat/claim-busy", Rule: "while another stream is active, a claim fails and names the active stream and run", Run: func(ctx context.Context, s *Subject) error {
			chat, err := newChat(ctx, s)
			if err != nil {
				return err
			}
			stream, first, err := claimStream(ctx, s, chat)
			if err != nil {
				return err
			}
			other := s.ID("answer")
			if _, err := s.Chat.Streams().Open(ctx, other, OpenOptions{}); err != nil {
				return op("open", err)
			}
			got, err := s.Chat.Claim(ctx, chat, other, ClaimOptions{})
			if err != nil {
				return op("claim of a second stream", err)
			}
			return eq("claim of a second stream", got, ClaimResult{Claimed: false, StreamID: &stream, RunID: first.RunID})
		}},
		{ID: "chat/claim-takeover-stale", Needs: FeatureClock, Rule: "a claim takes over from a run older than 10 minutes, or whose stream is closed; the old run becomes cancelled", Run: func(ctx context.Context, s *Subject) error {
			chat, err := newChat(ctx, s)
			if err != nil {
				return err
			}
			var c checks
			_, old, err := claimStream(ctx, s, chat)
			if err != nil {
				return err
			}
			if err := s.Chat.AgeChatRun(ctx, *old.RunID, 11*time.Minute); err != nil {
				return op("move time", err)
			}
			s2, second, err := claimStream(ctx, s, chat)
			if err != nil {
				return fmt.Errorf("after 11 minutes: %w", err)
			}
			c.that(*second.RunID != *old.RunID, "run of the takeover", "a new run", second.RunID)
			st, err := s.Chat.RunStatus(ctx, *old.RunID)
			if err != nil {
				return op("run status", err)
			}
			c.eq("status of the stale run", st, "cancelled")
			if _, err := s.Chat.Streams().Close(ctx, s2); err != nil {
				return op("close", err)
			}
			_, third, err := claimStream(ctx, s, chat)
			if err != nil {
				return fmt.Errorf("after the active stream was closed: %w", err)
			}
			c.that(*third.RunID != *second.RunID, "run of the claim after close", "a new run", third.RunID)
			st, err = s.Chat.RunStatus(ctx, *second.RunID)
			if err != nil {
				return op("run status", err)
			}
			c.eq("status of the run whose stream closed", st, "cancelled")
			return c.err()
		}},
		{ID: "chat/release-valid-statuses", Rule: "release with completed, failed or cancelled records it, frees the chat and returns true", Run: func(ctx context.Context, s *Subject) error {
			chat, err := newChat(ctx, s)
			if err != nil {
				return err
			}
			var c checks
			for _, status := range []string{"completed", "failed", "cancelled"} {
				stream, claim, err := claimStream(ctx, s, chat)
				if err != nil {
					return fmt.Errorf("claim before releasing with %s: %w", status, err)
				}
				ok, err := s.Chat.Release(ctx, chat, stream, ReleaseOptions{Status: status, Usage: map[string]any{"outputTokens": 3.0}})
				if err != nil {
					return op("release with "+status, err)
				}
				c.eq("release with "+status, ok, true)
				st, err := s.Chat.RunStatus(ctx, *claim.RunID)
				if err != nil {
					return op("run status", err)
				}
				c.eq("run status after release with "+status, st, status)
			}
			return c.err()
		}},
		{ID: "chat/release-invalid-status", Rule: "release with a status other than completed, failed or cancelled fails with AI_RUN_INVALID and keeps the claim", Run: func(ctx context.Context, s *Subject) error {
			chat, err := newChat(ctx, s)
			if err != nil {
				return err
			}
			stream, claim, err := claimStream(ctx, s, chat)
			if err != nil {
				return err
			}
			_, relErr := s.Chat.Release(ctx, chat, stream, ReleaseOptions{Status: "done"})
			var c checks
			if e := wantHint("release with status done", relErr, HintRunInvalid); e != nil {
				c.list = append(c.list, e)
			}
			again, err := s.Chat.Claim(ctx, chat, stream, ClaimOptions{})
			if err != nil {
				return op("claim again", err)
			}
			c.eq("claim after the refused release", again, ClaimResult{Claimed: true, StreamID: &stream, RunID: claim.RunID})
			return c.err()
		}},
		{ID: "chat/release-other-stream", Rule: "releasing a stream that is not the active one returns false and keeps the active one", Run: func(ctx context.Context, s *Subject) error {
			chat, err := newChat(ctx, s)
			if err != nil {
				return err
			}
			stream, claim, err := claimStream(ctx, s, chat)
			if err != nil {
				return err
			}
			ok, err := s.Chat.Release(ctx, chat, s.ID("other"), ReleaseOptions{Status: "completed"})
			if err != nil {
				return op("release of another stream", err)
			}
			again, err := s.Chat.Claim(ctx, chat, stream, ClaimOptions{})
			if err != nil {
				return op("claim again", err)
			}
			var c checks
			c.eq("release of another stream", ok, false)
			c.eq("claim of the active stream", again, ClaimResult{Claimed: true, StreamID: &stream, RunID: claim.RunID})
			return c.err()
		}},
		{ID: "chat/stop-reaches-writer", Rule: "stop marks the active run cancel_requested and cancels its stream, so the writer's next append reports cancelled", Run: func(ctx context.Context, s *Subject) error {
			chat, err := newChat(ctx, s)
			if err != nil {
				return err
			}
			stream, claim, err := claimStream(ctx, s, chat)
			if err != nil {
				return err
			}
			if _, err := appendOK(ctx, s.Chat.Streams(), stream, 0, "partial"); err != nil {
				return err
			}
			stop, err := s.Chat.Stop(ctx, chat)
			if err != nil {
				return op("stop", err)
			}
			var c checks
			c.eq("stop", stop, &StopResult{StreamID: stream, RunID: *claim.RunID})
			st, err := s.Chat.RunStatus(ctx, *claim.RunID)
			if err != nil {
				return op("run status", err)
			}
			c.eq("run status after stop", st, "cancel_requested")
			r, err := appendOK(ctx, s.Chat.Streams(), stream, 1, "more")
			if err != nil {
				return err
			}
			c.eq("the writer's next append", r, AppendResult{Next: 2, Cancelled: true})
			return c.err()
		}},
		{ID: "chat/stop-idle-null", Rule: "stop on a chat with no active stream returns null", Run: func(ctx context.Context, s *Subject) error {
			chat, err := newChat(ctx, s)
			if err != nil {
				return err
			}
			got, err := s.Chat.Stop(ctx, chat)
			if err != nil {
				return op("stop", err)
			}
			return eq("stop", got, (*StopResult)(nil))
		}},
	}
	cs = append(cs, chatTenantCases()...)
	cs = append(cs, chatAgentCases()...)
	for i := range cs {
		cs[i].Suite = SuiteChat
	}
	return cs
}

// ChatCallers is implemented by chat stores that know tenants and who is
// calling: the tenant visibility cases need it. NewTenantChat makes a chat
// of owner in tenant, shared with the tenant's members (visibility
// organization) when shared is true; PathAs is Path as caller c sees it;
// Grant gives user permission in tenant, failing with ErrNoGrants where
// the store cannot say who holds what.
type ChatCallers interface {
	NewTenantChat(ctx context.Context, owner, tenant string, shared bool) (string, error)
	PathAs(ctx context.Context, c Caller, chat string) ([]PathEntry, error)
	Grant(ctx context.Context, user, tenant, permission string) error
}

// chatTenantCases are the rules of who reads which chat: its owner, and
// for a chat shared with its organization the tenant's members holding
// ai_chat.read, nobody else.
func chatTenantCases() []Case {
	return []Case{
		{ID: "chat/tenant-members-read-shared-chats", Needs: FeatureTenants, Rule: "a chat shared with its organization is read by its owner and by members holding ai_chat.read in its tenant; a private chat only by its owner; members of another tenant and anon read neither (a refused call is as good as not found)", Run: func(ctx context.Context, s *Subject) error {
			cc, ok := s.Chat.(ChatCallers)
			if !ok {
				return Skip("the chat store does not take the caller's identity, so chat visibility cannot be checked")
			}
			owner, tenant, member, outsider := s.UUID(), s.UUID(), s.UUID(), s.UUID()
			chats := map[string]string{}
			for _, kind := range []string{"shared", "private"} {
				chat, err := cc.NewTenantChat(ctx, owner, tenant, kind == "shared")
				if err != nil {
					return op("new "+kind+" chat", err)
				}
				if _, err := s.Chat.AppendUser(ctx, chat, userMsg(s.ID("u"), "a question"), UserOptions{}); err != nil {
					return op("append user to the "+kind+" chat", err)
				}
				chats[kind] = chat
			}
			for _, g := range []struct{ user, tenant string }{{member, tenant}, {outsider, s.UUID()}} {
				err := cc.Grant(ctx, g.user, g.tenant, "ai_chat.read")
				if errors.Is(err, ErrNoGrants) {
					return Skip("%v", err)
				}
				if err != nil {
					return op("grant ai_chat.read", err)
				}
			}
			var c checks
			for _, who := range []struct {
				name          string
				c             Caller
				shared, other bool
			}{
				{"the owner", User(owner), true, true},
				{"a member holding ai_chat.read", User(member), true, false},
				{"a member of another tenant", User(outsider), false, false},
				{"anon", Anon, false, false},
			} {
				for kind, want := range map[string]bool{"shared": who.shared, "private": who.other} {
					p, err := cc.PathAs(ctx, who.c, chats[kind])
					var se *StoreError
					switch {
					case err == nil:
					case Refused(err), errors.As(err, &se) && se.SQLState == "P0002":
						p = nil
					default:
						return op("path of the "+kind+" chat as "+who.name, err)
					}
					c.eq("the "+kind+" chat's messages as "+who.name, len(p), map[bool]int{true: 1, false: 0}[want])
				}
			}
			return c.err()
		}},
	}
}

// ChatAgents is implemented by chat stores that keep what coding agents
// need per chat, as the service role uses it: sandboxes found again for
// their chat, harness sessions locked by one turn at a time, and share
// links. SandboxFor returns the sandbox id of the chat's running sandbox
// of provider ("" when none); AgeHarnessSession moves the session's clock
// back by d; Share (as the chat's owner) returns the link's id and token,
// Shared the messages a token shows (nil for none).
type ChatAgents interface {
	RegisterSandbox(ctx context.Context, tenant, provider, sandboxID, chat string) error
	SandboxFor(ctx context.Context, chat, provider string) (string, error)
	LockHarness(ctx context.Context, chat, harness, holder string, ttl time.Duration) (bool, error)
	UnlockHarness(ctx context.Context, chat, harness, holder string) (bool, error)
	AgeHarnessSession(ctx context.Context, chat, harness string, d time.Duration) error
	Share(ctx context.Context, owner, chat string) (id, token string, err error)
	RevokeShare(ctx context.Context, owner, id string) (bool, error)
	Shared(ctx context.Context, token string) ([]PathEntry, error)
}

func needChatAgents(s *Subject) (ChatAgents, error) {
	a, ok := s.Chat.(ChatAgents)
	if !ok {
		return nil, Skip("the chat store keeps no sandboxes, harness sessions or share links")
	}
	return a, nil
}

// chatAgentCases are the rules adapters for coding agents rely on.
func chatAgentCases() []Case {
	return []Case{
		{ID: "chat/sandbox-found-again-for-its-chat", Rule: "a sandbox registered for a chat is found again for that chat and provider, not for another provider or chat", Run: func(ctx context.Context, s *Subject) error {
			a, err := needChatAgents(s)
			if err != nil {
				return err
			}
			chat, err := newChat(ctx, s)
			if err != nil {
				return err
			}
			other, err := newChat(ctx, s)
			if err != nil {
				return err
			}
			box := s.ID("sbx")
			if err := a.RegisterSandbox(ctx, s.UUID(), "e2b", box, chat); err != nil {
				return op("register the sandbox", err)
			}
			var c checks
			for _, q := range []struct{ name, chat, provider, want string }{
				{"its chat and provider", chat, "e2b", box},
				{"another provider", chat, "daytona", ""},
				{"another chat", other, "e2b", ""},
			} {
				got, err := a.SandboxFor(ctx, q.chat, q.provider)
				if err != nil {
					return op("find the sandbox for "+q.name, err)
				}
				c.eq("sandbox for "+q.name, got, q.want)
			}
			return c.err()
		}},
		{ID: "chat/harness-lock-excludes-and-expires", Needs: FeatureClock, Rule: "a harness session's lock excludes a second holder until it expires; its holder renews it; only the holder unlocks it", Run: func(ctx context.Context, s *Subject) error {
			a, err := needChatAgents(s)
			if err != nil {
				return err
			}
			chat, err := newChat(ctx, s)
			if err != nil {
				return err
			}
			const harness = "claude-code"
			first, second := s.ID("turn"), s.ID("turn")
			step := func(what string, f func() (bool, error), want bool, c *checks) error {
				got, err := f()
				if err != nil {
					return op(what, err)
				}
				c.eq(what, got, want)
				return nil
			}
			lock := func(holder string) func() (bool, error) {
				return func() (bool, error) { return a.LockHarness(ctx, chat, harness, holder, time.Minute) }
			}
			var c checks
			for _, st := range []struct {
				what string
				f    func() (bool, error)
				want bool
			}{
				{"the first turn locks", lock(first), true},
				{"a second turn while it holds the lock", lock(second), false},
				{"the first turn renews", lock(first), true},
				{"the second turn unlocks a lock it does not hold", func() (bool, error) { return a.UnlockHarness(ctx, chat, harness, second) }, false},
			} {
				if err := step(st.what, st.f, st.want, &c); err != nil {
					return err
				}
			}
			if err := a.AgeHarnessSession(ctx, chat, harness, 2*time.Minute); err != nil {
				return op("let the lock expire", err)
			}
			if err := step("the second turn after the lock expired", lock(second), true, &c); err != nil {
				return err
			}
			if err := step("the first turn, now that the second holds it", lock(first), false, &c); err != nil {
				return err
			}
			if err := step("the holder unlocks", func() (bool, error) { return a.UnlockHarness(ctx, chat, harness, second) }, true, &c); err != nil {
				return err
			}
			if err := step("the first turn after the unlock", lock(first), true, &c); err != nil {
				return err
			}
			return c.err()
		}},
		{ID: "chat/revoked-share-exposes-nothing", Needs: FeatureTenants, Rule: "a share link shows the shared branch to anyone with its token until it is revoked; then it shows nothing", Run: func(ctx context.Context, s *Subject) error {
			a, err := needChatAgents(s)
			if err != nil {
				return err
			}
			cc, ok := s.Chat.(ChatCallers)
			if !ok {
				return Skip("the chat store does not take the caller's identity, so sharing cannot be checked")
			}
			owner, tenant := s.UUID(), s.UUID()
			chat, err := cc.NewTenantChat(ctx, owner, tenant, false)
			if err != nil {
				return op("new chat", err)
			}
			if err := cc.Grant(ctx, owner, tenant, "ai_chat.share"); errors.Is(err, ErrNoGrants) {
				return Skip("%v", err)
			} else if err != nil {
				return op("grant ai_chat.share", err)
			}
			u1, a1 := userMsg(s.ID("u"), "q1"), assistantMsg(s.ID("a"), "a1")
			if _, err := s.Chat.AppendUser(ctx, chat, u1, UserOptions{}); err != nil {
				return op("append user", err)
			}
			if _, err := s.Chat.SaveAssistant(ctx, chat, a1, AssistantOptions{ParentID: u1.ID}); err != nil {
				return op("save assistant", err)
			}
			id, token, err := a.Share(ctx, owner, chat)
			if err != nil {
				return op("share", err)
			}
			var c checks
			ids := func(p []PathEntry) []string {
				out := []string{}
				for _, e := range p {
					out = append(out, e.ID)
				}
				return out
			}
			shown, err := a.Shared(ctx, token)
			if err != nil {
				return op("read the link", err)
			}
			c.eq("the link's messages", ids(shown), []string{u1.ID, a1.ID})
			revoked, err := a.RevokeShare(ctx, owner, id)
			if err != nil {
				return op("revoke", err)
			}
			c.eq("revoke", revoked, true)
			shown, err = a.Shared(ctx, token)
			if err != nil {
				return op("read the revoked link", err)
			}
			c.eq("the revoked link's messages", ids(shown), []string{})
			return c.err()
		}},
	}
}
