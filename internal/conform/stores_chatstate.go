package conform

import (
	"context"
	"encoding/json"
	"time"
)

// Clock is a store's own time, which the cases move forward instead of
// waiting: a TTL of a second is checked by advancing the clock two. The
// memory reference injects one per subject; over the bridge it is the
// "clock" capability (clock.advance). Advance with zero reads the time.
type Clock interface {
	// Advance moves the store's time forward by d (d >= 0) and returns
	// the store's new now.
	Advance(ctx context.Context, d time.Duration) (time.Time, error)
}

// ChatLock is a lock on a thread as the Chat SDK's StateAdapter hands it
// out: the thread it names, the token that proves who holds it, and when
// it expires (milliseconds since the Unix epoch, as the SDK counts).
type ChatLock struct {
	ThreadID  string `json:"threadId"`
	Token     string `json:"token"`
	ExpiresAt int64  `json:"expiresAt"`
}

// QueueEntry is one queued message of a thread: when it was queued and
// when it expires (epoch milliseconds), and the SDK message itself, which
// the store keeps as it was given.
type QueueEntry struct {
	EnqueuedAt int64           `json:"enqueuedAt"`
	ExpiresAt  int64           `json:"expiresAt"`
	Message    json.RawMessage `json:"message"`
}

// ChatState is the Chat SDK's StateAdapter (the interface a chat-sdk-state
// module backs) as the chat-state cases drive it. Values are JSON; a miss
// reads as JSON null, and a TTL of zero means none.
type ChatState interface {
	Subscribe(ctx context.Context, thread string) error
	Unsubscribe(ctx context.Context, thread string) error
	IsSubscribed(ctx context.Context, thread string) (bool, error)

	// AcquireLock returns the new lock, or nil when the thread is locked.
	AcquireLock(ctx context.Context, thread string, ttl time.Duration) (*ChatLock, error)
	// ReleaseLock releases l only when its token is the holder's.
	ReleaseLock(ctx context.Context, l ChatLock) error
	// ExtendLock gives the held lock l a new TTL from now; false when l is
	// not held (expired, released or another token).
	ExtendLock(ctx context.Context, l ChatLock, ttl time.Duration) (bool, error)
	ForceReleaseLock(ctx context.Context, thread string) error

	Get(ctx context.Context, key string) (json.RawMessage, error)
	Set(ctx context.Context, key string, value json.RawMessage, ttl time.Duration) error
	// SetIfNotExists stores value only when key holds nothing (a stored
	// JSON null is something) and reports whether it did.
	SetIfNotExists(ctx context.Context, key string, value json.RawMessage, ttl time.Duration) (bool, error)
	Delete(ctx context.Context, key string) error

	// AppendToList appends value, keeping only the newest maxLength
	// values when maxLength > 0.
	AppendToList(ctx context.Context, key string, value json.RawMessage, maxLength int) error
	// GetList returns the list oldest first; a missing list is empty.
	GetList(ctx context.Context, key string) ([]json.RawMessage, error)

	// Enqueue adds e to the thread's queue, keeping only the newest
	// maxSize entries, and returns the queue's depth.
	Enqueue(ctx context.Context, thread string, e QueueEntry, maxSize int) (int, error)
	// Dequeue removes and returns the oldest entry that has not expired,
	// or nil.
	Dequeue(ctx context.Context, thread string) (*QueueEntry, error)
	// QueueDepth counts the entries that have not expired.
	QueueDepth(ctx context.Context, thread string) (int, error)
}
