package memstore

import (
	"context"
	"encoding/json"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/chatstate"
)

// chatStateStore is the reference store whose chat state adapters pass
// through mutant.
type chatStateStore struct {
	*memoryStore
	mutant func(chatstate.State) chatstate.State
}

// ChatState gives each case a reference adapter made the mutant.
func (m chatStateStore) ChatState(ctx context.Context) (conform.Opener[chatstate.State], error) {
	open, err := m.memoryStore.ChatState(ctx)
	return mutate(open, err, m.mutant)
}

// chatStateMutant returns the reference store with its chat state made
// the mutant name.
func chatStateMutant(name string) conform.Store {
	return chatStateStore{&memoryStore{}, func(s chatstate.State) chatstate.State {
		switch name {
		case "release-ignores-token":
			return releaseIgnoresToken{s}
		case "lock-never-expires":
			return lockNeverExpires{s}
		case "set-ignores-ttl":
			return setIgnoresTTL{s}
		case "null-is-a-miss":
			return nullIsAMiss{s}
		case "list-cap-keeps-oldest":
			return listCapKeepsOldest{s}
		case "lock-check-then-set", "list-read-modify-write", "queue-counts-expired", "expired-takes-a-place":
			s.(*refChatState).mut = chatMutation(name)
			return s
		}
		panic("no chat-state mutant is named " + name)
	}}
}

// releaseIgnoresToken releases a thread's lock whatever token the release
// names.
type releaseIgnoresToken struct{ chatstate.State }

// ReleaseLock releases the thread's lock without looking at l's token.
func (s releaseIgnoresToken) ReleaseLock(ctx context.Context, l chatstate.Lock) error {
	return s.ForceReleaseLock(ctx, l.ThreadID)
}

// lockNeverExpires takes and extends every lock for a century while it
// reports the expiry the caller asked for: a lock it hands out is held
// long after it says it expires.
type lockNeverExpires struct{ chatstate.State }

// century is a TTL that no case outlives.
const century = 100 * 365 * 24 * time.Hour

// AcquireLock takes the lock for a century and says it expires after ttl.
func (s lockNeverExpires) AcquireLock(ctx context.Context, thread string, ttl time.Duration) (*chatstate.Lock, error) {
	l, err := s.State.AcquireLock(ctx, thread, century)
	if l != nil {
		// The adapter's copy keeps the century; the caller's says ttl.
		l.ExpiresAt -= (century - ttl).Milliseconds()
	}
	return l, err
}

// ExtendLock extends the lock for a century, whatever ttl says.
func (s lockNeverExpires) ExtendLock(ctx context.Context, l chatstate.Lock, _ time.Duration) (bool, error) {
	return s.State.ExtendLock(ctx, l, century)
}

// setIgnoresTTL stores every value without its TTL.
type setIgnoresTTL struct{ chatstate.State }

// Set stores value with no TTL.
func (s setIgnoresTTL) Set(ctx context.Context, key string, value json.RawMessage, _ time.Duration) error {
	return s.State.Set(ctx, key, value, 0)
}

// nullIsAMiss takes a stored JSON null for a miss: set-if-not-exists
// stores over it.
type nullIsAMiss struct{ chatstate.State }

// SetIfNotExists stores value over a stored null as over a miss.
func (s nullIsAMiss) SetIfNotExists(ctx context.Context, key string, value json.RawMessage, ttl time.Duration) (bool, error) {
	v, err := s.Get(ctx, key)
	if err != nil {
		return false, err
	}
	if string(v) == "null" {
		return true, s.Set(ctx, key, value, ttl)
	}
	return s.State.SetIfNotExists(ctx, key, value, ttl)
}

// listCapKeepsOldest drops what is appended to a full list: the oldest
// values stay where the newest should.
type listCapKeepsOldest struct{ chatstate.State }

// AppendToList appends value unless the list already holds maxLength
// values.
func (s listCapKeepsOldest) AppendToList(ctx context.Context, key string, value json.RawMessage, maxLength int, ttl time.Duration) error {
	if maxLength > 0 {
		l, err := s.GetList(ctx, key)
		if err != nil {
			return err
		}
		if len(l) >= maxLength {
			return nil
		}
	}
	return s.State.AppendToList(ctx, key, value, maxLength, ttl)
}
