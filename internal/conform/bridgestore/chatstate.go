package bridgestore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/chatstate"
)

// ChatState drives the bridge's chatState methods, with the bridge's
// clock when it offers one and the run may move it (no RealTTLs); without
// it the TTL cases wait for real TTLs. The clock is the whole bridge's:
// the cases that move it run as whole-store steps (the runner's gate),
// with no other case of the bridge in flight; the others use TTLs far
// longer than any move.
func (b *Store) ChatState(context.Context) (conform.Opener[chatstate.State], error) {
	o, err := group[chatstate.State](b, bridge.GroupChatState, bridgeChatState{b})
	if err != nil || !b.movesClock(bridge.GroupChatState) {
		return o, err
	}
	return func(t *conform.T) (chatstate.State, error) {
		t.SetClock(bridgeClock{b})
		return o(t)
	}, nil
}

// bridgeClock is the bridge's injected clock (capability clock).
type bridgeClock struct{ b *Store }

func (c bridgeClock) Advance(ctx context.Context, d time.Duration) (time.Time, error) {
	var res struct {
		Now time.Time `json:"now"`
	}
	err := c.b.call(ctx, bridge.MethodClockAdvance, map[string]any{"seconds": d.Seconds()}, &res)
	return res.Now, err
}

// bridgeChatState drives a StateAdapter over the chatState methods. TTLs
// go as milliseconds (ttlMs), as the Chat SDK counts them; values as JSON.
type bridgeChatState struct{ b *Store }

// ms renders a TTL for the wire: absent when zero.
func ms(p map[string]any, ttl time.Duration) map[string]any {
	if ttl > 0 {
		p["ttlMs"] = ttl.Milliseconds()
	}
	return p
}

// value keeps a JSON value as the bridge sent it; a missing "value" reads
// as null, as a miss does.
type value struct {
	Value json.RawMessage `json:"value"`
}

func (v value) json() json.RawMessage {
	if len(v.Value) == 0 {
		return json.RawMessage("null")
	}
	return v.Value
}

func (s bridgeChatState) Subscribe(ctx context.Context, thread string) error {
	return s.b.call(ctx, bridge.MethodChatSubscribe, map[string]any{"threadId": thread}, nil)
}

func (s bridgeChatState) Unsubscribe(ctx context.Context, thread string) error {
	return s.b.call(ctx, bridge.MethodChatUnsubscribe, map[string]any{"threadId": thread}, nil)
}

func (s bridgeChatState) IsSubscribed(ctx context.Context, thread string) (bool, error) {
	var res struct {
		Subscribed bool `json:"subscribed"`
	}
	err := s.b.call(ctx, bridge.MethodChatIsSubscribed, map[string]any{"threadId": thread}, &res)
	return res.Subscribed, err
}

// wireLock is a lock as the bridge sends it: expiresAt may be a number of
// milliseconds with a fraction, which the SDK's Date.now() arithmetic can
// produce.
type wireLock struct {
	ThreadID  string  `json:"threadId"`
	Token     string  `json:"token"`
	ExpiresAt float64 `json:"expiresAt"`
}

func (s bridgeChatState) AcquireLock(ctx context.Context, thread string, ttl time.Duration) (*chatstate.Lock, error) {
	var res struct {
		Lock *wireLock `json:"lock"`
	}
	if err := s.b.call(ctx, bridge.MethodChatAcquireLock, ms(map[string]any{"threadId": thread}, ttl), &res); err != nil || res.Lock == nil {
		return nil, err
	}
	return &chatstate.Lock{ThreadID: res.Lock.ThreadID, Token: res.Lock.Token, ExpiresAt: int64(res.Lock.ExpiresAt)}, nil
}

func (s bridgeChatState) ReleaseLock(ctx context.Context, l chatstate.Lock) error {
	return s.b.call(ctx, bridge.MethodChatReleaseLock, map[string]any{"lock": l}, nil)
}

func (s bridgeChatState) ExtendLock(ctx context.Context, l chatstate.Lock, ttl time.Duration) (bool, error) {
	var res struct {
		Extended bool `json:"extended"`
	}
	err := s.b.call(ctx, bridge.MethodChatExtendLock, ms(map[string]any{"lock": l}, ttl), &res)
	return res.Extended, err
}

func (s bridgeChatState) ForceReleaseLock(ctx context.Context, thread string) error {
	return s.b.call(ctx, bridge.MethodChatForceReleaseLock, map[string]any{"threadId": thread}, nil)
}

func (s bridgeChatState) Get(ctx context.Context, key string) (json.RawMessage, error) {
	var res value
	err := s.b.call(ctx, bridge.MethodChatGet, map[string]any{"key": key}, &res)
	return res.json(), err
}

func (s bridgeChatState) Set(ctx context.Context, key string, v json.RawMessage, ttl time.Duration) error {
	return s.b.call(ctx, bridge.MethodChatSet, ms(map[string]any{"key": key, "value": v}, ttl), nil)
}

func (s bridgeChatState) SetIfNotExists(ctx context.Context, key string, v json.RawMessage, ttl time.Duration) (bool, error) {
	var res struct {
		Set bool `json:"set"`
	}
	err := s.b.call(ctx, bridge.MethodChatSetIfNotExists, ms(map[string]any{"key": key, "value": v}, ttl), &res)
	return res.Set, err
}

func (s bridgeChatState) Delete(ctx context.Context, key string) error {
	return s.b.call(ctx, bridge.MethodChatDelete, map[string]any{"key": key}, nil)
}

func (s bridgeChatState) AppendToList(ctx context.Context, key string, v json.RawMessage, maxLength int, ttl time.Duration) error {
	p := map[string]any{"key": key, "value": v}
	if maxLength > 0 {
		p["maxLength"] = maxLength
	}
	return s.b.call(ctx, bridge.MethodChatAppendToList, ms(p, ttl), nil)
}

func (s bridgeChatState) GetList(ctx context.Context, key string) ([]json.RawMessage, error) {
	var res struct {
		Values []json.RawMessage `json:"values"`
	}
	err := s.b.call(ctx, bridge.MethodChatGetList, map[string]any{"key": key}, &res)
	if res.Values == nil {
		res.Values = []json.RawMessage{}
	}
	return res.Values, err
}

// wireEntry is a queue entry as the bridge sends it (times may carry a
// fraction of a millisecond).
type wireEntry struct {
	EnqueuedAt float64         `json:"enqueuedAt"`
	ExpiresAt  float64         `json:"expiresAt"`
	Message    json.RawMessage `json:"message"`
}

func (s bridgeChatState) Enqueue(ctx context.Context, thread string, e chatstate.QueueEntry, maxSize int) (int, error) {
	var res struct {
		Depth *int `json:"depth"`
	}
	if err := s.b.call(ctx, bridge.MethodChatEnqueue, map[string]any{"threadId": thread, "entry": e, "maxSize": maxSize}, &res); err != nil {
		return 0, err
	}
	if res.Depth == nil {
		return 0, fmt.Errorf("%s answered without a depth", bridge.MethodChatEnqueue)
	}
	return *res.Depth, nil
}

func (s bridgeChatState) Dequeue(ctx context.Context, thread string) (*chatstate.QueueEntry, error) {
	var res struct {
		Entry *wireEntry `json:"entry"`
	}
	if err := s.b.call(ctx, bridge.MethodChatDequeue, map[string]any{"threadId": thread}, &res); err != nil || res.Entry == nil {
		return nil, err
	}
	return &chatstate.QueueEntry{EnqueuedAt: int64(res.Entry.EnqueuedAt), ExpiresAt: int64(res.Entry.ExpiresAt), Message: res.Entry.Message}, nil
}

func (s bridgeChatState) QueueDepth(ctx context.Context, thread string) (int, error) {
	var res struct {
		Depth *int `json:"depth"`
	}
	if err := s.b.call(ctx, bridge.MethodChatQueueDepth, map[string]any{"threadId": thread}, &res); err != nil {
		return 0, err
	}
	if res.Depth == nil {
		return 0, fmt.Errorf("%s answered without a depth", bridge.MethodChatQueueDepth)
	}
	return *res.Depth, nil
}
