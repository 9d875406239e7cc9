package pgstore

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/chatstate"
	"github.com/jackc/pgx/v5"
)

// ChatState gives each chat-state case a bot of its own on the run's
// shared clone, never a clone of its own (caseDB): its key prefix keeps
// its rows apart from every other case's on the shared tables, and its
// clock moves only those rows. The cases that move the clock are Isolated
// because on a bridge the clock is the whole store's; here it is not, so
// they need no database to themselves.
func (p *pgStore) ChatState(context.Context) (conform.Opener[chatstate.State], error) {
	if err := p.missing[chatstate.Suite.Name]; err != nil {
		return nil, err
	}
	return func(t *conform.T) (chatstate.State, error) {
		prefix := p.prefix()
		t.SetPrefix(prefix)
		clock := &pgChatClock{db: p.shared, prefix: prefix}
		t.SetClock(clock)
		return pgChatState{db: p.shared, prefix: prefix, clock: clock}, nil
	}, nil
}

// pgChatState is the Chat SDK StateAdapter on the chat-sdk-state module,
// called as better-supabase's createSupabaseState calls it: as the service
// role, every call under one key prefix (the subject's, so that each case
// is a bot of its own on the shared tables), values stored wrapped as
// {"v": value}, TTLs in whole milliseconds.
type pgChatState struct {
	db     *pgDB
	prefix string
	clock  *pgChatClock
}

// pgChatClock is a chat-state subject's time. The module reads the
// server's clock_timestamp(), which nothing may move, so the subject's
// time runs ahead of the server's by offset instead: Advance moves every
// stored time of the subject's rows back by d (as the connecting role,
// the only thing done with its rights), which to the module is the same
// as d passing. Times crossing between the adapter and the module are
// translated by offset, so that a lock's expiresAt and a queued entry's
// expiresAt are in the subject's time, as the cases read it.
type pgChatClock struct {
	db     *pgDB
	prefix string

	mu     sync.Mutex
	offset time.Duration
}

// chatStateShift moves the stored times of one key prefix back; $1 is the
// prefix, $2 the seconds. Each statement is one table's, in one
// transaction, so that no call sees a half-moved clock.
var chatStateShift = []string{
	"update better_supabase.chat_state_locks set expires_at = expires_at - $2::float8 * interval '1 second', updated_at = updated_at - $2::float8 * interval '1 second' where key_prefix = $1",
	"update better_supabase.chat_state_cache set expires_at = expires_at - $2::float8 * interval '1 second', updated_at = updated_at - $2::float8 * interval '1 second' where key_prefix = $1",
	"update better_supabase.chat_state_lists set expires_at = expires_at - $2::float8 * interval '1 second' where key_prefix = $1 and expires_at is not null",
	"update better_supabase.chat_state_queues set expires_at = expires_at - $2::float8 * interval '1 second' where key_prefix = $1",
	"update better_supabase.chat_state_subscriptions set created_at = created_at - $2::float8 * interval '1 second' where key_prefix = $1",
}

func (c *pgChatClock) Advance(ctx context.Context, d time.Duration) (time.Time, error) {
	if d < 0 {
		return time.Time{}, errors.New("the clock only moves forward")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var now time.Time
	err := c.db.admin(ctx, func(conn *pgx.Conn) error {
		return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if d > 0 {
				for _, stmt := range chatStateShift {
					if _, err := tx.Exec(ctx, stmt, c.prefix, d.Seconds()); err != nil {
						return pgErr(err)
					}
				}
			}
			return tx.QueryRow(ctx, "select pg_catalog.clock_timestamp()").Scan(&now)
		})
	})
	if err != nil {
		return time.Time{}, err
	}
	c.offset += d
	return now.Add(c.offset), nil
}

// shift returns the subject's time minus the server's.
func (c *pgChatClock) shift() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.offset
}

// ttlMS is a TTL as the adapter passes it: whole milliseconds, rounded
// up, or null for none.
func ttlMS(d time.Duration) any {
	if d <= 0 {
		return nil
	}
	return int64(math.Ceil(float64(d) / float64(time.Millisecond)))
}

// lockTTL is a lock's TTL as the adapter passes it: at least a millisecond.
func lockTTL(d time.Duration) int64 {
	return max(1, int64(math.Ceil(float64(d)/float64(time.Millisecond))))
}

// limit is a cap as the adapter passes it: null for none.
func limit(n int) any {
	if n <= 0 {
		return nil
	}
	return n
}

// wrapValue stores value as upstream's adapter does, inside {"v": ...}.
func wrapValue(v json.RawMessage) (string, error) {
	if len(v) == 0 {
		v = json.RawMessage("null")
	}
	b, err := json.Marshal(struct {
		V json.RawMessage `json:"v"`
	}{v})
	return string(b), err
}

// unwrapValue undoes wrapValue; a stored value without the wrapper (one
// another writer stored) comes back as it is.
func unwrapValue(stored json.RawMessage) json.RawMessage {
	var w map[string]json.RawMessage
	if json.Unmarshal(stored, &w) == nil {
		if v, ok := w["v"]; ok {
			return v
		}
	}
	return stored
}

func (s pgChatState) exec(ctx context.Context, sql string, args ...any) error {
	return s.db.with(ctx, func(c *pgx.Conn) error {
		_, err := c.Exec(ctx, sql, args...)
		return pgErr(err)
	})
}

func (s pgChatState) scalar(ctx context.Context, dst any, sql string, args ...any) error {
	return s.db.with(ctx, func(c *pgx.Conn) error { return scalar(ctx, c, dst, sql, args...) })
}

func (s pgChatState) Subscribe(ctx context.Context, thread string) error {
	return s.exec(ctx, "select better_supabase.chat_state_subscribe(prefix => $1, thread_id => $2)", s.prefix, thread)
}

func (s pgChatState) Unsubscribe(ctx context.Context, thread string) error {
	return s.exec(ctx, "select better_supabase.chat_state_unsubscribe(prefix => $1, thread_id => $2)", s.prefix, thread)
}

func (s pgChatState) IsSubscribed(ctx context.Context, thread string) (bool, error) {
	var on *bool
	err := s.scalar(ctx, &on, "select better_supabase.chat_state_is_subscribed(prefix => $1, thread_id => $2)", s.prefix, thread)
	return on != nil && *on, err
}

func (s pgChatState) AcquireLock(ctx context.Context, thread string, ttl time.Duration) (*chatstate.Lock, error) {
	var raw []byte
	if err := s.scalar(ctx, &raw, "select better_supabase.chat_state_acquire_lock(prefix => $1, thread_id => $2, token => $3, ttl_ms => $4)",
		s.prefix, thread, rand.Text(), lockTTL(ttl)); err != nil {
		return nil, err
	}
	if raw == nil || string(raw) == "null" {
		return nil, nil
	}
	var l struct {
		ThreadID  string    `json:"thread_id"`
		Token     string    `json:"token"`
		ExpiresAt time.Time `json:"expires_at"`
	}
	if err := json.Unmarshal(raw, &l); err != nil {
		return nil, fmt.Errorf("chat_state_acquire_lock returned %s: %w", raw, err)
	}
	return &chatstate.Lock{ThreadID: l.ThreadID, Token: l.Token, ExpiresAt: l.ExpiresAt.Add(s.clock.shift()).UnixMilli()}, nil
}

func (s pgChatState) ReleaseLock(ctx context.Context, l chatstate.Lock) error {
	return s.exec(ctx, "select better_supabase.chat_state_release_lock(prefix => $1, thread_id => $2, token => $3)", s.prefix, l.ThreadID, l.Token)
}

func (s pgChatState) ExtendLock(ctx context.Context, l chatstate.Lock, ttl time.Duration) (bool, error) {
	var ok *bool
	err := s.scalar(ctx, &ok, "select better_supabase.chat_state_extend_lock(prefix => $1, thread_id => $2, token => $3, ttl_ms => $4)",
		s.prefix, l.ThreadID, l.Token, lockTTL(ttl))
	return ok != nil && *ok, err
}

func (s pgChatState) ForceReleaseLock(ctx context.Context, thread string) error {
	return s.exec(ctx, "select better_supabase.chat_state_force_release_lock(prefix => $1, thread_id => $2)", s.prefix, thread)
}

func (s pgChatState) Get(ctx context.Context, key string) (json.RawMessage, error) {
	var raw []byte
	if err := s.scalar(ctx, &raw, "select better_supabase.chat_state_get(prefix => $1, key => $2)", s.prefix, key); err != nil {
		return nil, err
	}
	if raw == nil {
		return nil, nil
	}
	var found struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(raw, &found); err != nil {
		return nil, fmt.Errorf("chat_state_get returned %s: %w", raw, err)
	}
	return unwrapValue(found.Value), nil
}

func (s pgChatState) Set(ctx context.Context, key string, value json.RawMessage, ttl time.Duration) error {
	w, err := wrapValue(value)
	if err != nil {
		return err
	}
	return s.exec(ctx, "select better_supabase.chat_state_set(prefix => $1, key => $2, value => $3::jsonb, ttl_ms => $4)", s.prefix, key, w, ttlMS(ttl))
}

func (s pgChatState) SetIfNotExists(ctx context.Context, key string, value json.RawMessage, ttl time.Duration) (bool, error) {
	w, err := wrapValue(value)
	if err != nil {
		return false, err
	}
	var ok *bool
	err = s.scalar(ctx, &ok, "select better_supabase.chat_state_set_if_not_exists(prefix => $1, key => $2, value => $3::jsonb, ttl_ms => $4)", s.prefix, key, w, ttlMS(ttl))
	return ok != nil && *ok, err
}

func (s pgChatState) Delete(ctx context.Context, key string) error {
	return s.exec(ctx, "select better_supabase.chat_state_delete(prefix => $1, key => $2)", s.prefix, key)
}

func (s pgChatState) AppendToList(ctx context.Context, key string, value json.RawMessage, maxLength int, ttl time.Duration) error {
	w, err := wrapValue(value)
	if err != nil {
		return err
	}
	return s.exec(ctx, "select better_supabase.chat_state_append_to_list(prefix => $1, key => $2, value => $3::jsonb, max_length => $4, ttl_ms => $5)",
		s.prefix, key, w, limit(maxLength), ttlMS(ttl))
}

func (s pgChatState) GetList(ctx context.Context, key string) ([]json.RawMessage, error) {
	var raw []byte
	if err := s.scalar(ctx, &raw, "select better_supabase.chat_state_get_list(prefix => $1, key => $2)", s.prefix, key); err != nil {
		return nil, err
	}
	var vs []json.RawMessage
	if err := json.Unmarshal(raw, &vs); err != nil {
		return nil, fmt.Errorf("chat_state_get_list returned %s: %w", raw, err)
	}
	for i, v := range vs {
		vs[i] = unwrapValue(v)
	}
	return vs, nil
}

func (s pgChatState) Enqueue(ctx context.Context, thread string, e chatstate.QueueEntry, maxSize int) (int, error) {
	entry, err := json.Marshal(e)
	if err != nil {
		return 0, err
	}
	// The entry's expiry in the server's time, which the module compares
	// with its clock.
	expires := time.UnixMilli(e.ExpiresAt).Add(-s.clock.shift())
	var depth *int
	err = s.scalar(ctx, &depth, "select better_supabase.chat_state_enqueue(prefix => $1, thread_id => $2, entry => $3::jsonb, expires_at => $4, max_size => $5)",
		s.prefix, thread, string(entry), expires, limit(maxSize))
	if err != nil {
		return 0, err
	}
	if depth == nil {
		return 0, errors.New("chat_state_enqueue returned null")
	}
	return *depth, nil
}

func (s pgChatState) Dequeue(ctx context.Context, thread string) (*chatstate.QueueEntry, error) {
	var raw []byte
	if err := s.scalar(ctx, &raw, "select better_supabase.chat_state_dequeue(prefix => $1, thread_id => $2)", s.prefix, thread); err != nil {
		return nil, err
	}
	if raw == nil || string(raw) == "null" {
		return nil, nil
	}
	var e chatstate.QueueEntry
	if err := json.Unmarshal(raw, &e); err != nil {
		return nil, fmt.Errorf("chat_state_dequeue returned %s: %w", raw, err)
	}
	return &e, nil
}

func (s pgChatState) QueueDepth(ctx context.Context, thread string) (int, error) {
	var depth *int
	if err := s.scalar(ctx, &depth, "select better_supabase.chat_state_queue_depth(prefix => $1, thread_id => $2)", s.prefix, thread); err != nil {
		return 0, err
	}
	if depth == nil {
		return 0, errors.New("chat_state_queue_depth returned null")
	}
	return *depth, nil
}
