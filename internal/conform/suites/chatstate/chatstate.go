// Package chatstate is the chat-state suite: the Chat SDK's StateAdapter
// (the interface a chat-sdk-state module backs), its subscriptions, thread
// locks, values, lists and queues, with their TTLs checked against the
// store's own clock where it has one.
package chatstate

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/conform"
)

// Suite is the chat-state suite.
var Suite = conform.NewSuite(conform.Info{
	Name:        "chat-state",
	Contract:    "chat-state",
	BridgeGroup: bridge.GroupChatState,
	Module:      "chat-sdk-state",
	Intro: "The Chat SDK's `StateAdapter` (the interface a `chat-sdk-state` engine module backs): " +
		"the eight checks of upstream's `testChatState` kit, split so that each rule has its own case " +
		"(its check 8, an entry that expires in the queue neither counting nor dequeuing, is `chat-state/queue-entry-expires`, " +
		"a rule of the block the Chat SDK's interface does not make: see below), " +
		"and what upstream does not check: wrong-token extension, extension past the first TTL, threads apart, " +
		"a stored null that is not a miss, values without a TTL kept, list TTLs and their refresh, oldest-first dequeue, " +
		"and " + fmt.Sprint(writers) + " callers racing on one lock, one list and one queue. " +
		"TTLs are checked by moving the store's clock (the memory reference's injected clock, " +
		"or a bridge's `clock` capability); on a store without one, or with `--real-ttls`, those cases wait for real TTLs of a second. " +
		"Over the bridge this suite needs the `chatState` capability; `pg` runs it against the embedded `chat-sdk-state` module, " +
		"as the service role under a key prefix of its own per case, its clock moved by shifting that prefix's stored times.",
}, Provider.ChatState, cases)

// QueueExpiry is the chat-sdk-state block's handling of expired queue
// entries, beyond what every StateAdapter is held to. The Chat SDK's own
// interface (the QueueEntry type of the "chat" package: stale entries are
// discarded on dequeue) leaves them to whoever dequeues, and its published
// memory and Redis adapters count and return them. better-supabase's
// testChatState kit does hold every adapter to an entry that expires in
// the queue neither counting nor dequeuing (its check 8); bsadapter judges
// a StateAdapter by the SDK's interface, so the three cases of queue
// expiry hold a store to the block's rule only when it declares it (over
// the bridge, capability chatState.queueExpiry "skip"; the blocks and the
// memory reference keep it).
var QueueExpiry = conform.BlockRule{
	Name: "expired queue entries skipped",
	Text: "the `chat-sdk-state` block passes over a queue entry once its `expiresAt` has passed: " +
		"it no longer counts in `queueDepth` nor dequeues, and one that arrives expired takes no place under `maxSize`. " +
		"The Chat SDK's `StateAdapter` leaves stale entries to the caller that dequeues them (its memory and Redis state adapters count and return them), " +
		"so only a store that declares the block's rule is held to it: over the bridge, capability `chatState.queueExpiry` `\"skip\"`. " +
		"better-supabase's `testChatState` holds every adapter to it (its check 8); a store that does not declare it is told which cases it was not held to. " +
		"Every store is held to `chat-state/queue-expired-entry-intact`: a stale entry that does come back comes back as it was queued, and the live entries behind it still dequeue.",
}

// Provider is implemented by a store that offers a Chat SDK state
// adapter.
type Provider interface {
	// ChatState prepares the suite for a run: what gives each case a state
	// adapter (and, with t.SetClock, the store's movable clock when it has
	// one), or why the store cannot run the suite.
	ChatState(ctx context.Context) (conform.Opener[State], error)
}

// Lock is a lock on a thread as the Chat SDK's StateAdapter hands it
// out: the thread it names, the token that proves who holds it, and when
// it expires (milliseconds since the Unix epoch, as the SDK counts).
type Lock struct {
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

// State is the Chat SDK's StateAdapter (the interface a chat-sdk-state
// module backs) as the cases drive it. Values are JSON; a miss reads as
// JSON null, and a TTL of zero means none.
type State interface {
	// Subscribe marks thread as subscribed; subscribing twice is fine.
	Subscribe(ctx context.Context, thread string) error
	// Unsubscribe undoes Subscribe; unsubscribing twice is fine.
	Unsubscribe(ctx context.Context, thread string) error
	// IsSubscribed says whether thread is subscribed.
	IsSubscribed(ctx context.Context, thread string) (bool, error)

	// AcquireLock returns the new lock, or nil when the thread is locked.
	AcquireLock(ctx context.Context, thread string, ttl time.Duration) (*Lock, error)
	// ReleaseLock releases l only when its token is the holder's.
	ReleaseLock(ctx context.Context, l Lock) error
	// ExtendLock gives the held lock l a new TTL from now; false when l is
	// not held (expired, released or another token).
	ExtendLock(ctx context.Context, l Lock, ttl time.Duration) (bool, error)
	// ForceReleaseLock releases thread's lock whatever its token.
	ForceReleaseLock(ctx context.Context, thread string) error

	// Get returns key's value, or JSON null for a miss.
	Get(ctx context.Context, key string) (json.RawMessage, error)
	// Set stores value under key, replacing what was there.
	Set(ctx context.Context, key string, value json.RawMessage, ttl time.Duration) error
	// SetIfNotExists stores value only when key holds nothing (a stored
	// JSON null is something) and reports whether it did.
	SetIfNotExists(ctx context.Context, key string, value json.RawMessage, ttl time.Duration) (bool, error)
	// Delete removes key; a missing key is no error.
	Delete(ctx context.Context, key string) error

	// AppendToList appends value, keeping only the newest maxLength
	// values when maxLength > 0; a ttl > 0 becomes the whole list's TTL,
	// from now (the SDK's "refreshes TTL").
	AppendToList(ctx context.Context, key string, value json.RawMessage, maxLength int, ttl time.Duration) error
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
