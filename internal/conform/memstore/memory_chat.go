package memstore

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/chat"
	"github.com/bsadapter/bsadapter/internal/conform/suites/streams"
)

// memoryChat is the reference chat storage: a message tree per chat, the
// chat's leaf, and one active answer stream with its run.
type memoryChat struct {
	mu      sync.Mutex
	streams *refStreams
	chats   map[string]*memChat
	runs    map[string]*memRun
	seq     int
	// grants holds "tenant user permission" for each permission held.
	grants map[string]bool
	// sandboxes by provider and sandbox id; locks of harness sessions by
	// chat and harness; share links by token.
	sandboxes map[[2]string]*memSandbox
	locks     map[[2]string]*memLock
	shares    map[string]*memShare
}

type memSandbox struct {
	tenant, chat string
	seq          int
}

type memLock struct {
	holder string
	until  time.Time
}

type memShare struct {
	id, chat, leaf, by string
	revoked            bool
}

type memChat struct {
	owner        string
	tenant       string
	shared       bool // visibility organization
	messages     map[string]*memMessage
	leaf         string
	activeStream string
	activeRun    string
}

type memMessage struct {
	id, parent, role string
	parts            []json.RawMessage
	metadata         map[string]any
	format           string
	native           json.RawMessage
	model            *string
	status           string
	seq              int
}

type memRun struct {
	chat, stream, status string
	startedAt            time.Time
}

func newMemoryChat(streams *refStreams) *memoryChat {
	return &memoryChat{streams: streams, chats: map[string]*memChat{}, runs: map[string]*memRun{}, grants: map[string]bool{},
		sandboxes: map[[2]string]*memSandbox{}, locks: map[[2]string]*memLock{}, shares: map[string]*memShare{}}
}

func (m *memoryChat) Streams() streams.Store { return m.streams }

func (m *memoryChat) NewChat(_ context.Context, owner string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	id := conform.NewUUID()
	m.chats[id] = &memChat{owner: owner, messages: map[string]*memMessage{}}
	return id, nil
}

// NewTenantChat makes a chat of owner in tenant, shared with the tenant's
// members when shared is true.
func (m *memoryChat) NewTenantChat(_ context.Context, owner, tenant string, shared bool) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	id := conform.NewUUID()
	m.chats[id] = &memChat{owner: owner, tenant: tenant, shared: shared, messages: map[string]*memMessage{}}
	return id, nil
}

// Grant records that user holds permission in tenant.
func (m *memoryChat) Grant(_ context.Context, user, tenant, permission string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.grants[tenant+" "+user+" "+permission] = true
	return nil
}

// PathAs is Path for a caller who may read the chat: the service role, its
// owner, or for a shared chat a member holding ai_chat.read in its tenant.
// Anyone else finds no such chat, as the blocks answer.
func (m *memoryChat) PathAs(ctx context.Context, who conform.Caller, chatID string) ([]chat.PathEntry, error) {
	m.mu.Lock()
	c, ok := m.chats[chatID]
	may := ok && (who.Role == conform.RoleService ||
		(who.Role == conform.RoleAuthenticated && who.Sub != "" &&
			(c.owner == who.Sub || c.shared && m.grants[c.tenant+" "+who.Sub+" ai_chat.read"])))
	m.mu.Unlock()
	if who.Role == conform.RoleAnon {
		return nil, &conform.StoreError{SQLState: "42501", Message: "anon may not read chats"}
	}
	if !may {
		return nil, &conform.StoreError{Hint: "AI_CHAT_NOT_FOUND", SQLState: "P0002", Message: "chat " + chatID + " not found"}
	}
	return m.Path(ctx, chatID, "", false)
}

func (m *memoryChat) chat(id string) (*memChat, error) {
	c, ok := m.chats[id]
	if !ok {
		return nil, &conform.StoreError{SQLState: "P0002", Message: "chat " + id + " not found"}
	}
	return c, nil
}

func sameParts(a, b []json.RawMessage) bool {
	var x, y any
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if json.Unmarshal(ja, &x) != nil || json.Unmarshal(jb, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// hintMessageNotFound is the blocks' hint for a message id the chat does
// not have.
const hintMessageNotFound = "AI_MESSAGE_NOT_FOUND"

func (m *memoryChat) AppendUser(_ context.Context, chatID string, msg chat.Message, o chat.UserOptions) (chat.MessageResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, err := m.chat(chatID)
	if err != nil {
		return chat.MessageResult{}, err
	}
	switch o.Trigger {
	case "regenerate-message":
		// Nothing is stored: the leaf moves to the question whose answer
		// is regenerated (the message named, else the leaf: a question
		// itself, or an answer's parent).
		target := o.MessageID
		if target == "" {
			target = c.leaf
		}
		old, ok := c.messages[target]
		if !ok {
			return chat.MessageResult{}, &conform.StoreError{Hint: hintMessageNotFound, SQLState: "P0002", Message: "no message " + target + " to regenerate"}
		}
		question := old.id
		if old.role != "user" {
			question = old.parent
		}
		c.leaf = question
		return chat.MessageResult{MessageID: question, ParentID: optional(question), Created: false}, nil
	case "", "submit-message":
	default:
		return chat.MessageResult{}, &conform.StoreError{Hint: chat.HintMessageInvalid, SQLState: "22023", Message: "unknown trigger " + o.Trigger}
	}
	id := msg.ID
	if msg.Role != "user" || id == "" || msg.Parts == nil {
		return chat.MessageResult{}, &conform.StoreError{Hint: chat.HintMessageInvalid, SQLState: "22023", Message: "a user message needs role user, an id and a parts array"}
	}
	var parent string
	if old, ok := c.messages[id]; ok {
		// The id is known: a retry when the parts are the same, else an
		// edit, stored beside the original under a fresh id (whatever the
		// original's role, as the blocks have it).
		if sameParts(old.parts, msg.Parts) {
			return chat.MessageResult{MessageID: id, ParentID: optional(old.parent), Created: false}, nil
		}
		id, parent = conform.NewUUID(), old.parent
	} else if o.MessageID != "" {
		// A new version of o.MessageID, under the client's id.
		of, ok := c.messages[o.MessageID]
		if !ok {
			return chat.MessageResult{}, &conform.StoreError{Hint: hintMessageNotFound, SQLState: "P0002", Message: "no message " + o.MessageID}
		}
		parent = of.parent
	} else {
		parent = c.leaf
	}
	m.seq++
	c.messages[id] = &memMessage{id: id, parent: parent, role: "user", parts: msg.Parts, metadata: msg.Metadata, format: "canonical", status: "complete", seq: m.seq}
	c.leaf = id
	return chat.MessageResult{MessageID: id, ParentID: optional(parent), Created: true}, nil
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (m *memoryChat) SaveAssistant(_ context.Context, chatID string, msg chat.Message, o chat.AssistantOptions) (chat.MessageResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, err := m.chat(chatID)
	if err != nil {
		return chat.MessageResult{}, err
	}
	status := o.Status
	if status == "" {
		status = "complete"
	}
	role := msg.Role
	if role == "" {
		role = "assistant"
	}
	if msg.ID == "" || role == "user" || msg.Parts == nil {
		return chat.MessageResult{}, &conform.StoreError{Hint: chat.HintMessageInvalid, SQLState: "22023", Message: "an answer needs an id, a role other than user and a parts array"}
	}
	// The blocks' table checks these, without a hint.
	if !slices.Contains([]string{"complete", "aborted", "error"}, status) || !slices.Contains([]string{"system", "assistant", "tool"}, role) {
		return chat.MessageResult{}, &conform.StoreError{SQLState: "23514", Message: "invalid status or role of an answer"}
	}
	format := o.Format
	if format == "" {
		format = "canonical"
	}
	var model *string
	if o.Model != "" {
		model = &o.Model
	}
	if o.ParentID != "" {
		if _, ok := c.messages[o.ParentID]; !ok {
			return chat.MessageResult{}, &conform.StoreError{Hint: hintMessageNotFound, SQLState: "P0002", Message: "parent " + o.ParentID + " is not a message of this chat"}
		}
	}
	if old, ok := c.messages[msg.ID]; ok {
		if old.role == "user" {
			return chat.MessageResult{}, &conform.StoreError{Hint: chat.HintMessageInvalid, SQLState: "22023", Message: "message " + msg.ID + " is a user message; an answer needs an id of its own"}
		}
		// A re-save keeps the parent (and the model, unless a new one is
		// given) and says where the answer is stored.
		old.parts, old.metadata, old.format, old.native, old.status = msg.Parts, msg.Metadata, format, o.Native, status
		if model != nil {
			old.model = model
		}
		c.leaf = old.id
		return chat.MessageResult{MessageID: old.id, ParentID: optional(old.parent), Created: false}, nil
	}
	m.seq++
	c.messages[msg.ID] = &memMessage{id: msg.ID, parent: o.ParentID, role: role, parts: msg.Parts, metadata: msg.Metadata, format: format, native: o.Native, model: model, status: status, seq: m.seq}
	c.leaf = msg.ID
	return chat.MessageResult{MessageID: msg.ID, ParentID: optional(o.ParentID), Created: true}, nil
}

func (m *memoryChat) Path(_ context.Context, chatID, leaf string, native bool) ([]chat.PathEntry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, err := m.chat(chatID)
	if err != nil {
		return nil, err
	}
	if leaf == "" {
		leaf = c.leaf
	}
	out := []chat.PathEntry{}
	for id := leaf; id != ""; {
		msg, ok := c.messages[id]
		if !ok {
			break
		}
		var sibs []*memMessage
		for _, o := range c.messages {
			if o.parent == msg.parent {
				sibs = append(sibs, o)
			}
		}
		slices.SortFunc(sibs, func(a, b *memMessage) int { return a.seq - b.seq })
		e := chat.PathEntry{ID: msg.id, ParentID: optional(msg.parent), Role: msg.role, Parts: msg.parts, Metadata: msg.metadata, Format: msg.format,
			Model: msg.model, Status: msg.status, SiblingCount: len(sibs), SiblingIndex: slices.Index(sibs, msg)}
		if native {
			e.Native = msg.native
		}
		out = append(out, e)
		id = msg.parent
	}
	slices.Reverse(out)
	return out, nil
}

// active reports whether run r still holds its chat.
func (m *memoryChat) active(r *memRun) bool {
	if r == nil || !slices.Contains([]string{"queued", "running", "cancel_requested"}, r.status) || time.Since(r.startedAt) >= 10*time.Minute {
		return false
	}
	st, _ := m.streams.Status(context.Background(), r.stream)
	return st == nil || !st.Closed
}

func (m *memoryChat) Claim(_ context.Context, chatID, stream string, o chat.ClaimOptions) (chat.ClaimResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, err := m.chat(chatID)
	if err != nil {
		return chat.ClaimResult{}, err
	}
	if c.activeStream == stream && c.activeRun != "" && m.active(m.runs[c.activeRun]) {
		return chat.ClaimResult{Claimed: true, StreamID: optional(stream), RunID: optional(c.activeRun)}, nil
	}
	if c.activeRun != "" {
		old := m.runs[c.activeRun]
		if m.active(old) {
			return chat.ClaimResult{Claimed: false, StreamID: optional(c.activeStream), RunID: optional(c.activeRun)}, nil
		}
		if !terminal(old.status) {
			old.status = "cancelled"
		}
	}
	id := conform.NewUUID()
	m.runs[id] = &memRun{chat: chatID, stream: stream, status: "running", startedAt: time.Now()}
	c.activeStream, c.activeRun = stream, id
	return chat.ClaimResult{Claimed: true, StreamID: optional(stream), RunID: optional(id)}, nil
}

func (m *memoryChat) Release(_ context.Context, chatID, stream string, o chat.ReleaseOptions) (bool, error) {
	status := o.Status
	if status == "" {
		status = "completed"
	}
	if !terminal(status) {
		return false, &conform.StoreError{Hint: chat.HintRunInvalid, SQLState: "22023", Message: "release status must be completed, failed or cancelled"}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	c, err := m.chat(chatID)
	if err != nil {
		return false, err
	}
	for _, r := range m.runs {
		if r.chat == chatID && r.stream == stream && !terminal(r.status) {
			r.status = status
		}
	}
	if c.activeStream != stream {
		return false, nil
	}
	c.activeStream, c.activeRun = "", ""
	return true, nil
}

func (m *memoryChat) Stop(ctx context.Context, chatID string) (*chat.StopResult, error) {
	m.mu.Lock()
	c, err := m.chat(chatID)
	if err != nil {
		m.mu.Unlock()
		return nil, err
	}
	if c.activeRun == "" || !m.active(m.runs[c.activeRun]) {
		m.mu.Unlock()
		return nil, nil
	}
	r := m.runs[c.activeRun]
	r.status = "cancel_requested"
	res := &chat.StopResult{StreamID: c.activeStream, RunID: c.activeRun}
	m.mu.Unlock()
	if _, err := m.streams.Cancel(ctx, res.StreamID); err != nil {
		return nil, err
	}
	return res, nil
}

func (m *memoryChat) RunStatus(_ context.Context, runID string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.runs[runID]
	if !ok {
		return "", fmt.Errorf("no run %s", runID)
	}
	return r.status, nil
}

func (m *memoryChat) AgeChatRun(_ context.Context, runID string, d time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.runs[runID]
	if !ok {
		return fmt.Errorf("no run %s", runID)
	}
	r.startedAt = r.startedAt.Add(-d)
	return nil
}

// RegisterSandbox records a sandbox of a tenant for a chat; a sandbox of
// another tenant is refused, as the blocks refuse it.
func (m *memoryChat) RegisterSandbox(_ context.Context, tenant, provider, sandboxID, chat string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	key := [2]string{provider, sandboxID}
	if sb, ok := m.sandboxes[key]; ok && sb.tenant != tenant {
		return &conform.StoreError{Hint: "AI_SANDBOX_FORBIDDEN", SQLState: "42501", Message: "sandbox " + sandboxID + " belongs to another tenant"}
	}
	m.seq++
	m.sandboxes[key] = &memSandbox{tenant: tenant, chat: chat, seq: m.seq}
	return nil
}

// SandboxFor returns the most recently registered sandbox of the chat and
// provider.
func (m *memoryChat) SandboxFor(_ context.Context, chat, provider string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	best, seq := "", -1
	for key, sb := range m.sandboxes {
		if key[0] == provider && sb.chat == chat && sb.seq > seq {
			best, seq = key[1], sb.seq
		}
	}
	return best, nil
}

func (m *memoryChat) LockHarness(_ context.Context, chat, harness, holder string, ttl time.Duration) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if harness == "" || holder == "" || ttl < time.Second || ttl > 24*time.Hour {
		return false, &conform.StoreError{Hint: "AI_HARNESS_INVALID", SQLState: "22023", Message: "a lock needs a harness, a holder and a ttl of 1 to 86400 seconds"}
	}
	if _, err := m.chat(chat); err != nil {
		return false, err
	}
	key := [2]string{chat, harness}
	now := time.Now()
	if l, ok := m.locks[key]; ok && l.until.After(now) && l.holder != holder {
		return false, nil
	}
	m.locks[key] = &memLock{holder: holder, until: now.Add(ttl)}
	return true, nil
}

func (m *memoryChat) UnlockHarness(_ context.Context, chat, harness, holder string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	key := [2]string{chat, harness}
	if l, ok := m.locks[key]; ok && l.holder == holder {
		delete(m.locks, key)
		return true, nil
	}
	return false, nil
}

func (m *memoryChat) AgeHarnessSession(_ context.Context, chat, harness string, d time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	l, ok := m.locks[[2]string{chat, harness}]
	if !ok {
		return fmt.Errorf("no harness session %s of chat %s", harness, chat)
	}
	l.until = l.until.Add(-d)
	return nil
}

// Share makes a link to the chat's current branch, for its owner holding
// ai_chat.share in the chat's tenant.
func (m *memoryChat) Share(_ context.Context, owner, chatID string) (string, string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.chats[chatID]
	if !ok || c.owner != owner {
		return "", "", &conform.StoreError{Hint: "AI_CHAT_NOT_FOUND", SQLState: "P0002", Message: "chat " + chatID + " not found"}
	}
	if !m.grants[c.tenant+" "+owner+" ai_chat.share"] {
		return "", "", &conform.StoreError{Hint: "AI_CHAT_FORBIDDEN", SQLState: "42501", Message: "you may not share chats in this tenant"}
	}
	if _, ok := c.messages[c.leaf]; !ok {
		return "", "", &conform.StoreError{Hint: hintMessageNotFound, SQLState: "P0002", Message: "nothing to share yet"}
	}
	sh := &memShare{id: conform.NewUUID(), chat: chatID, leaf: c.leaf, by: owner}
	token := strings.ReplaceAll(conform.NewUUID()+conform.NewUUID(), "-", "")
	m.shares[token] = sh
	return sh.id, token, nil
}

func (m *memoryChat) RevokeShare(_ context.Context, owner, id string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, sh := range m.shares {
		if sh.id == id && !sh.revoked && (sh.by == owner || m.chats[sh.chat] != nil && m.chats[sh.chat].owner == owner) {
			sh.revoked = true
			return true, nil
		}
	}
	return false, nil
}

// Shared returns the branch a live link shows, or nil.
func (m *memoryChat) Shared(ctx context.Context, token string) ([]chat.PathEntry, error) {
	m.mu.Lock()
	sh, ok := m.shares[token]
	m.mu.Unlock()
	if !ok || sh.revoked {
		return nil, nil
	}
	return m.Path(ctx, sh.chat, sh.leaf, false)
}

// Chat gives each chat case reference chat storage of its own, over a
// reference stream store of its own.
func (m *memoryStore) Chat(context.Context) (conform.Opener[chat.Store], error) {
	return func(t *conform.T) (chat.Store, error) {
		t.SetPrefix(m.prefix())
		return newMemoryChat(newStreams()), nil
	}, nil
}
