package chat

import (
	"encoding/json"

	"github.com/bsadapter/bsadapter/internal/conform"
)

// The cases of the message tree: user messages and their edits, answers
// and their retries, regenerating, and the path from the root to a leaf.

func userMessageIdempotent(t *conform.T, s Store) {
	chat := newChat(t, s)
	m := userMsg(t.ID("u"), "hello")
	first, err := s.AppendUser(t.Context(), chat, m, UserOptions{})
	t.Must("append user", err)
	second, err := s.AppendUser(t.Context(), chat, m, UserOptions{})
	t.Must("append user again", err)
	got, _ := pathIDs(t, s, chat, "")
	t.Eq("first append", first, MessageResult{MessageID: m.ID, Created: true})
	t.Eq("second append", second, MessageResult{MessageID: m.ID, Created: false})
	t.Eq("path", got, []string{m.ID})
}

func userMessageChildOfLeaf(t *conform.T, s Store) {
	chat := newChat(t, s)
	u1, a1, u2 := userMsg(t.ID("u"), "q1"), assistantMsg(t.ID("a"), "a1"), userMsg(t.ID("u"), "q2")
	appendUser(t, s, chat, u1)
	saveAnswer(t, s, chat, a1, u1.ID)
	r := appendUser(t, s, chat, u2)
	got, _ := pathIDs(t, s, chat, "")
	t.Eq("second user message", r, MessageResult{MessageID: u2.ID, ParentID: &a1.ID, Created: true})
	t.Eq("path", got, []string{u1.ID, a1.ID, u2.ID})
}

func userEditIsSibling(t *conform.T, s Store) {
	chat := newChat(t, s)
	u1, a1, u2 := userMsg(t.ID("u"), "q1"), assistantMsg(t.ID("a"), "a1"), userMsg(t.ID("u"), "q2")
	appendUser(t, s, chat, u1)
	saveAnswer(t, s, chat, a1, u1.ID)
	appendUser(t, s, chat, u2)
	edit := userMsg(u2.ID, "q2, edited")
	r, err := s.AppendUser(t.Context(), chat, edit, UserOptions{})
	t.Must("append the edit", err)
	t.That(r.Created && r.MessageID != "" && r.MessageID != u2.ID, "the edit", "created under a fresh id", r)
	t.Eq("parent of the edit", deref(r.ParentID), a1.ID)
	got, path := pathIDs(t, s, chat, "")
	t.Eq("path to the new leaf", got, []string{u1.ID, a1.ID, r.MessageID})
	if len(path) == 3 {
		t.Eq("sibling count and index of the edit", []int{path[2].SiblingCount, path[2].SiblingIndex}, []int{2, 1})
		t.That(conform.SameJSON(path[2].Parts[0], edit.Parts[0]), "parts of the edit", string(edit.Parts[0]), string(path[2].Parts[0]))
	}
	_, old := pathIDs(t, s, chat, u2.ID)
	if t.Eq("length of the path to the original", len(old), 3) {
		t.Eq("sibling count and index of the original", []int{old[2].SiblingCount, old[2].SiblingIndex}, []int{2, 0})
		t.That(conform.SameJSON(old[2].Parts[0], u2.Parts[0]), "parts of the original", string(u2.Parts[0]), string(old[2].Parts[0]))
	}
}

func userMessageInvalid(t *conform.T, s Store) {
	chat := newChat(t, s)
	for _, tc := range []struct {
		what string
		m    Message
	}{
		{"role assistant", assistantMsg(t.ID("u"), "x")},
		{"an empty id", userMsg("", "x")},
		{"no parts array", Message{ID: t.ID("u"), Role: "user"}},
	} {
		_, err := s.AppendUser(t.Context(), chat, tc.m, UserOptions{})
		t.Error(conform.WantHint("append of a user message with "+tc.what, err, HintMessageInvalid))
	}
	got, _ := pathIDs(t, s, chat, "")
	t.Eq("path after the refused messages", got, []string{})
}

func messageIDsKeepTheirRole(t *conform.T, s Store) {
	chat := newChat(t, s)
	u1, a1 := userMsg(t.ID("u"), "question"), assistantMsg(t.ID("a"), "answer")
	appendUser(t, s, chat, u1)
	saveAnswer(t, s, chat, a1, u1.ID)
	_, err := s.SaveAssistant(t.Context(), chat, assistantMsg(u1.ID, "overwritten"), AssistantOptions{ParentID: u1.ID})
	t.Error(conform.WantHint("save of an answer under the user message's id", err, HintMessageInvalid))
	got, path := pathIDs(t, s, chat, "")
	t.Eq("path after the refused save", got, []string{u1.ID, a1.ID})
	if len(path) == 2 {
		t.That(len(path[0].Parts) == 1 && conform.SameJSON(path[0].Parts[0], u1.Parts[0]), "the question's parts", string(u1.Parts[0]), path[0].Parts)
	}
}

func regenerateStoresNothing(t *conform.T, s Store) {
	chat := newChat(t, s)
	u1, a1 := userMsg(t.ID("u"), "q1"), assistantMsg(t.ID("a"), "a1")
	appendUser(t, s, chat, u1)
	saveAnswer(t, s, chat, a1, u1.ID)
	r, err := s.AppendUser(t.Context(), chat, u1, UserOptions{Trigger: "regenerate-message"})
	t.Must("append with regenerate-message", err)
	got, _ := pathIDs(t, s, chat, "")
	t.Eq("created", r.Created, false)
	t.Eq("path after regenerate", got, []string{u1.ID})
	still, _ := pathIDs(t, s, chat, a1.ID)
	t.Eq("path to the earlier answer", still, []string{u1.ID, a1.ID})
}

func regenerateMovesLeafToQuestion(t *conform.T, s Store) {
	chat := newChat(t, s)
	u1, a1, a2 := userMsg(t.ID("u"), "q1"), assistantMsg(t.ID("a"), "first answer"), assistantMsg(t.ID("a"), "second answer")
	appendUser(t, s, chat, u1)
	saveAnswer(t, s, chat, a1, u1.ID)
	// What the SDK sends on regenerate: the last user message, no id to
	// regenerate; the blocks take the chat's leaf.
	r, err := s.AppendUser(t.Context(), chat, u1, UserOptions{Trigger: "regenerate-message"})
	t.Must("append with regenerate-message", err)
	t.Eq("regenerate", []any{r.MessageID, r.Created}, []any{u1.ID, false})
	got, _ := pathIDs(t, s, chat, "")
	t.Eq("path after regenerate (the leaf is the question)", got, []string{u1.ID})
	_, err = s.SaveAssistant(t.Context(), chat, a2, AssistantOptions{ParentID: r.MessageID})
	t.Must("save the new answer", err)
	got, path := pathIDs(t, s, chat, "")
	t.Eq("path with the new answer", got, []string{u1.ID, a2.ID})
	if len(path) == 2 {
		t.Eq("sibling count and index of the new answer", []int{path[1].SiblingCount, path[1].SiblingIndex}, []int{2, 1})
	}
}

func editIsSiblingUnderClientID(t *conform.T, s Store) {
	chat := newChat(t, s)
	u1, a1, u2 := userMsg(t.ID("u"), "q1"), assistantMsg(t.ID("a"), "a1"), userMsg(t.ID("u"), "q2")
	appendUser(t, s, chat, u1)
	saveAnswer(t, s, chat, a1, u1.ID)
	appendUser(t, s, chat, u2)
	edit := userMsg(t.ID("u"), "q2, edited")
	r, err := s.AppendUser(t.Context(), chat, edit, UserOptions{MessageID: u2.ID})
	t.Must("append the edit as a version of "+u2.ID, err)
	t.Eq("the edit", r, MessageResult{MessageID: edit.ID, ParentID: &a1.ID, Created: true})
	got, path := pathIDs(t, s, chat, "")
	t.Eq("path (the edit is the leaf)", got, []string{u1.ID, a1.ID, edit.ID})
	if len(path) == 3 {
		t.Eq("sibling count and index of the edit", []int{path[2].SiblingCount, path[2].SiblingIndex}, []int{2, 1})
	}
	old, _ := pathIDs(t, s, chat, u2.ID)
	t.Eq("path to the original", old, []string{u1.ID, a1.ID, u2.ID})
}

func assistantUpsert(t *conform.T, s Store) {
	chat := newChat(t, s)
	u1, u2 := userMsg(t.ID("u"), "q1"), userMsg(t.ID("u"), "q2")
	a1 := assistantMsg(t.ID("a"), "partial")
	appendUser(t, s, chat, u1)
	first, err := s.SaveAssistant(t.Context(), chat, a1, AssistantOptions{ParentID: u1.ID, Status: "aborted"})
	t.Must("save assistant", err)
	appendUser(t, s, chat, u2)
	final := assistantMsg(a1.ID, "the whole answer")
	second, err := s.SaveAssistant(t.Context(), chat, final, AssistantOptions{ParentID: u2.ID, Status: "complete"})
	t.Must("save assistant again", err)
	got, path := pathIDs(t, s, chat, "")
	t.Eq("first save", first, MessageResult{MessageID: a1.ID, ParentID: &u1.ID, Created: true})
	// Where the answer is stored is what the path shows: upstream's result
	// echoes the parent passed in rather than the one kept.
	t.Eq("second save", []any{second.MessageID, second.Created}, []any{a1.ID, false})
	t.Eq("path (the leaf moved to the answer, its parent kept)", got, []string{u1.ID, a1.ID})
	if len(path) == 2 {
		t.Eq("status", path[1].Status, "complete")
		t.That(len(path[1].Parts) == 1 && conform.SameJSON(path[1].Parts[0], final.Parts[0]), "parts", string(final.Parts[0]), path[1].Parts)
	}
}

func assistantNativeOnRequest(t *conform.T, s Store) {
	chat := newChat(t, s)
	u1, a1 := userMsg(t.ID("u"), "q1"), assistantMsg(t.ID("a"), "a1")
	native := json.RawMessage(`{"value":{"id":"x","role":"assistant","parts":[{"type":"text","text":"a1"}],"metadata":{"ü":[1,null]}}}`)
	appendUser(t, s, chat, u1)
	_, err := s.SaveAssistant(t.Context(), chat, a1, AssistantOptions{ParentID: u1.ID, Format: "ai-sdk-ui", Native: native, Model: "m-1"})
	t.Must("save assistant", err)
	plain, err := s.Path(t.Context(), chat, "", false)
	t.Must("path", err)
	withNative, err := s.Path(t.Context(), chat, "", true)
	t.Must("path with native", err)
	if !t.Eq("path length", len(plain), 2) || !t.Eq("path length with native", len(withNative), 2) {
		return
	}
	t.Eq("format", plain[1].Format, "ai-sdk-ui")
	t.Eq("model", deref(plain[1].Model), "m-1")
	t.That(len(plain[1].Native) == 0 || string(plain[1].Native) == "null", "native without asking", "null", string(plain[1].Native))
	t.That(conform.SameJSON(withNative[1].Native, native), "native on request", string(native), string(withNative[1].Native))
	t.Eq("format of the user message", plain[0].Format, "canonical")
}

func pathRootFirstWithSiblings(t *conform.T, s Store) {
	chat := newChat(t, s)
	u1 := userMsg(t.ID("u"), "q1")
	a1, a2, a3 := assistantMsg(t.ID("a"), "one"), assistantMsg(t.ID("a"), "two"), assistantMsg(t.ID("a"), "three")
	appendUser(t, s, chat, u1)
	for _, a := range []Message{a1, a2, a3} {
		saveAnswer(t, s, chat, a, u1.ID)
	}
	for i, a := range []Message{a1, a2, a3} {
		_, path := pathIDs(t, s, chat, a.ID)
		if !t.Eq("path length to "+a.ID, len(path), 2) {
			continue
		}
		t.Eq("path to "+a.ID, []any{path[0].ID, path[0].SiblingCount, path[0].SiblingIndex, path[1].ID, path[1].SiblingCount, path[1].SiblingIndex},
			[]any{u1.ID, 1, 0, a.ID, 3, i})
		t.Eq("parent of "+a.ID, deref(path[1].ParentID), u1.ID)
		t.Eq("parent of the root", path[0].ParentID, (*string)(nil))
	}
	got, _ := pathIDs(t, s, chat, "")
	t.Eq("path to the current leaf (the last saved)", got, []string{u1.ID, a3.ID})
}
