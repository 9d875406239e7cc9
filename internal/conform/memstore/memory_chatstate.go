package memstore

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"runtime"
	"sync"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/chatstate"
)

// clock is the injectable time of a subject: the reference reads it for
// every TTL, and the cases move it (conform.Clock) instead of sleeping.
type clock struct {
	mu     sync.Mutex
	offset time.Duration
}

// Now is the wall time plus every advance so far.
func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

// Advance moves the clock forward by d.
func (c *clock) Advance(_ context.Context, d time.Duration) (time.Time, error) {
	if d < 0 {
		return time.Time{}, errors.New("the clock only moves forward")
	}
	c.mu.Lock()
	c.offset += d
	c.mu.Unlock()
	return c.Now(), nil
}

// chatMutation names a deliberate fault of the reference state adapter,
// which only the mutant tests set; the zero value is the reference. Most
// mutants wrap the State interface in the tests instead; the faults here
// are the ones no wrapper can make: a race between the adapter's own
// steps ("lock-check-then-set", "list-read-modify-write") and expired
// entries the queue keeps ("queue-counts-expired", "expired-takes-a-place"),
// which the interface never hands out, so a wrapper cannot count them.
type chatMutation string

// refChatState is the reference Chat SDK StateAdapter: one mutex over
// maps, every TTL read from the subject's clock.
type refChatState struct {
	clock *clock
	// mut is a mutant's fault, set only by the mutant tests.
	mut chatMutation

	mu     sync.Mutex
	subs   map[string]bool
	locks  map[string]chatstate.Lock
	values map[string]stateValue
	lists  map[string]stateList
	queues map[string][]chatstate.QueueEntry
}

// stateList is a stored list and when it expires (zero: never).
type stateList struct {
	vals    []json.RawMessage
	expires time.Time
}

// stateValue is a stored value and when it expires (zero: never).
type stateValue struct {
	v       json.RawMessage
	expires time.Time
}

func newChatState(c *clock) *refChatState {
	return &refChatState{
		clock: c, subs: map[string]bool{}, locks: map[string]chatstate.Lock{}, values: map[string]stateValue{},
		lists: map[string]stateList{}, queues: map[string][]chatstate.QueueEntry{},
	}
}

func (m *refChatState) Subscribe(_ context.Context, thread string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.subs[thread] = true
	return nil
}

func (m *refChatState) Unsubscribe(_ context.Context, thread string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.subs, thread)
	return nil
}

func (m *refChatState) IsSubscribed(_ context.Context, thread string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.subs[thread], nil
}

// heldLocked returns the live lock on thread; m.mu is held.
func (m *refChatState) heldLocked(thread string) (chatstate.Lock, bool) {
	l, ok := m.locks[thread]
	if !ok {
		return l, false
	}
	if m.clock.Now().UnixMilli() >= l.ExpiresAt {
		delete(m.locks, thread)
		return l, false
	}
	return l, true
}

func (m *refChatState) AcquireLock(_ context.Context, thread string, ttl time.Duration) (*chatstate.Lock, error) {
	if m.mut == "lock-check-then-set" {
		// Mutant: looks, lets others run, then takes; two callers can
		// both win.
		m.mu.Lock()
		_, held := m.heldLocked(thread)
		m.mu.Unlock()
		if held {
			return nil, nil
		}
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	// The lock-check-then-set mutant looked already, before it let others
	// run, and takes the lock whatever it finds now.
	if _, held := m.heldLocked(thread); held && m.mut != "lock-check-then-set" {
		return nil, nil
	}
	l := chatstate.Lock{ThreadID: thread, Token: rand.Text(), ExpiresAt: m.clock.Now().Add(ttl).UnixMilli()}
	m.locks[thread] = l
	return &l, nil
}

func (m *refChatState) ReleaseLock(_ context.Context, l chatstate.Lock) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if cur, ok := m.locks[l.ThreadID]; ok && cur.Token == l.Token {
		delete(m.locks, l.ThreadID)
	}
	return nil
}

func (m *refChatState) ExtendLock(_ context.Context, l chatstate.Lock, ttl time.Duration) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	cur, held := m.heldLocked(l.ThreadID)
	if !held || cur.Token != l.Token {
		return false, nil
	}
	cur.ExpiresAt = m.clock.Now().Add(ttl).UnixMilli()
	m.locks[l.ThreadID] = cur
	return true, nil
}

func (m *refChatState) ForceReleaseLock(_ context.Context, thread string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.locks, thread)
	return nil
}

// valueLocked returns the live value of key; m.mu is held.
func (m *refChatState) valueLocked(key string) (json.RawMessage, bool) {
	v, ok := m.values[key]
	if !ok {
		return nil, false
	}
	if !v.expires.IsZero() && !m.clock.Now().Before(v.expires) {
		delete(m.values, key)
		return nil, false
	}
	return v.v, true
}

func (m *refChatState) expiry(ttl time.Duration) time.Time {
	if ttl <= 0 {
		return time.Time{}
	}
	return m.clock.Now().Add(ttl)
}

func (m *refChatState) Get(_ context.Context, key string) (json.RawMessage, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, _ := m.valueLocked(key)
	return v, nil
}

func (m *refChatState) Set(_ context.Context, key string, value json.RawMessage, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.values[key] = stateValue{v: append(json.RawMessage(nil), value...), expires: m.expiry(ttl)}
	return nil
}

func (m *refChatState) SetIfNotExists(_ context.Context, key string, value json.RawMessage, ttl time.Duration) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.valueLocked(key); ok {
		return false, nil
	}
	m.values[key] = stateValue{v: append(json.RawMessage(nil), value...), expires: m.expiry(ttl)}
	return true, nil
}

func (m *refChatState) Delete(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.values, key)
	return nil
}

func (m *refChatState) AppendToList(_ context.Context, key string, value json.RawMessage, maxLength int, ttl time.Duration) error {
	if m.mut == "list-read-modify-write" {
		// Mutant: reads, lets others run, writes back; racing appends
		// are lost.
		m.mu.Lock()
		l := append([]json.RawMessage(nil), m.listLocked(key).vals...)
		m.mu.Unlock()
		time.Sleep(time.Millisecond)
		l = append(l, value)
		if maxLength > 0 && len(l) > maxLength {
			l = l[len(l)-maxLength:]
		}
		m.mu.Lock()
		m.lists[key] = stateList{vals: l, expires: m.expiry(ttl)}
		m.mu.Unlock()
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	l := append(m.listLocked(key).vals, append(json.RawMessage(nil), value...))
	if maxLength > 0 && len(l) > maxLength {
		l = append([]json.RawMessage(nil), l[len(l)-maxLength:]...)
	}
	// The append's TTL is the whole list's from now on (none without one).
	m.lists[key] = stateList{vals: l, expires: m.expiry(ttl)}
	return nil
}

// listLocked returns key's list, dropping it once it has expired; m.mu is
// held.
func (m *refChatState) listLocked(key string) stateList {
	l := m.lists[key]
	if !l.expires.IsZero() && !l.expires.After(m.clock.Now()) {
		delete(m.lists, key)
		return stateList{}
	}
	return l
}

func (m *refChatState) GetList(_ context.Context, key string) ([]json.RawMessage, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]json.RawMessage{}, m.listLocked(key).vals...), nil
}

// liveLocked drops the thread's expired entries; m.mu is held.
func (m *refChatState) liveLocked(thread string) []chatstate.QueueEntry {
	if m.mut == "queue-counts-expired" {
		// Mutant: expired entries stay, count and dequeue.
		return m.queues[thread]
	}
	now := m.clock.Now().UnixMilli()
	q := m.queues[thread][:0:0]
	for _, e := range m.queues[thread] {
		if e.ExpiresAt > now {
			q = append(q, e)
		}
	}
	m.queues[thread] = q
	return q
}

func (m *refChatState) Enqueue(_ context.Context, thread string, e chatstate.QueueEntry, maxSize int) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e.Message = append(json.RawMessage(nil), e.Message...)
	q := m.liveLocked(thread)
	// An entry that came expired is dropped at once: kept (as the mutants
	// do), it would push a live entry out of a full queue and never
	// dequeue.
	if e.ExpiresAt > m.clock.Now().UnixMilli() || m.mut == "queue-counts-expired" || m.mut == "expired-takes-a-place" {
		q = append(q, e)
	}
	if maxSize > 0 && len(q) > maxSize {
		q = q[len(q)-maxSize:]
	}
	m.queues[thread] = q
	return len(q), nil
}

func (m *refChatState) Dequeue(_ context.Context, thread string) (*chatstate.QueueEntry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	q := m.liveLocked(thread)
	if len(q) == 0 {
		return nil, nil
	}
	e := q[0]
	m.queues[thread] = q[1:]
	return &e, nil
}

func (m *refChatState) QueueDepth(_ context.Context, thread string) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.liveLocked(thread)), nil
}

// ChatState gives each chat-state case a reference state adapter of its
// own, with its own clock: the TTL cases move it, and no other case sees
// the move.
func (m *memoryStore) ChatState(context.Context) (conform.Opener[chatstate.State], error) {
	return func(t *conform.T) (chatstate.State, error) {
		t.SetPrefix(m.prefix())
		c := &clock{}
		t.SetClock(c)
		return newChatState(c), nil
	}, nil
}
