// Package streams is the streams suite: the StreamStore contract of
// resumable output (contracts.md section 3), an append-only list of text
// chunks per stream that a writer fills, readers follow live and a purge
// removes once it has expired or been closed long enough.
package streams

import (
	"context"
	"time"

	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/conform"
)

// name is the suite's name, the prefix of its case IDs. The cases use it
// for their whole-store steps, which must name the suite they purge.
const name = "streams"

// Suite is the streams suite.
var Suite = conform.NewSuite(conform.Info{
	Name:        name,
	Contract:    "streams",
	BridgeGroup: bridge.GroupStreamStore,
	Module:      "streams",
	Intro: "The StreamStore contract (resumable output; contracts.md section 3): " +
		"the nine checks of upstream's `testStreamStore` kit, split so that each rule has its own case, " +
		"and what upstream does not check: concurrent writers, retries with other content, negative indexes, " +
		"empty batches, unknown ids, TTL expiry and purge windows, paging past `max`, large and non-ASCII chunks, " +
		"resumed, incremental and aborted live reads, the cancelled flag in status, the order of the append checks, " +
		"overlapping retries, and owner visibility.",
}, Provider.Streams, cases)

// The streams block's rules beyond the StreamStore interface, which the
// suite's block cases check. The interface is upstream's
// packages/better-supabase/src/streams/store.ts (read at commit
// 3cf204da97495e37ae68929376a0a3cea94121c5); the block is contracts.md
// section 3.
var (
	// KeepsExpired is the block's expiry: an expired stream stays until a
	// purge. The interface says only that a purge deletes expired streams
	// and resolves with a count, which a store whose streams expire by
	// themselves keeps with a count of 0.
	KeepsExpired = conform.BlockRule{
		Name: "expired streams kept until a purge",
		Text: "the streams block keeps an expired stream, unchanged, until `purge_streams` removes it and counts it " +
			"(`open` of its id answers false meanwhile). The StreamStore interface promises only that a purge deletes " +
			"expired streams and closed ones past `olderThan` and resolves with the count, so a store that expires streams " +
			"by itself (Redis keys with a TTL), whose purge finds no expired stream left and counts 0, keeps the interface. " +
			"A bridge declares that with `" + bridge.CapStreamExpiry + ": \"" + bridge.ExpirySelf + "\"`; it is then held to " +
			"`streams/ttl-expired-gone`, the interface's rule of expiry, and not to these cases.",
	}
	// BoundedRead is stream_read, which the interface does not have.
	BoundedRead = conform.BlockRule{
		Name: "bounded read",
		Text: "`stream_read` reads at most `max` chunks at once, without waiting; the interface's read is a live stream " +
			"and has no such bound. A store offers it with the feature (bridge capability `" + bridge.CapStreamReadPage + "`).",
	}
	// StatusDetailsRule is what stream_status reports beyond the
	// interface's status.
	StatusDetailsRule = conform.BlockRule{
		Name: "status kind and expiry",
		Text: "`stream_status` also reports the stream's kind and when its TTL ends; the interface's status has `next`, " +
			"`closed` and `cancelled` only. A store offers it with the feature (bridge capability `" + bridge.CapStreamStatus + "`).",
	}
	// RowSecurity is the block's row-level security.
	RowSecurity = conform.BlockRule{
		Name: "row-level security",
		Text: "a user reads, sees and cancels only the streams it owns, anon nothing, and only the service role writes. " +
			"The interface leaves who may read to the store (its read ends at once for a stream the caller cannot read); " +
			"a store offers these rules with the feature (bridge capability `" + bridge.CapStreamCallers + "`).",
	}
	// AppendChecks is the order of stream_append's checks and its hint
	// for an index below 0.
	AppendChecks = conform.BlockRule{
		Name: "append checks",
		Text: "`stream_append` checks a closed stream before a gap, and refuses an index below 0 with `STREAM_GAP`; " +
			"the interface names the three hints, `STREAM_GAP` for an index past the end, but not their order nor an index " +
			"below 0. No store declares otherwise yet: every store is held to it.",
	}
)

// Provider is implemented by a store that offers a StreamStore.
type Provider interface {
	// Streams prepares the suite for a run: what gives each case a stream
	// store, or why the store cannot run the suite.
	Streams(ctx context.Context) (conform.Opener[Subject], error)
}

// Subject is what a streams case runs against: the stream store and, for
// a store whose rows the cases can age, how to age them.
type Subject struct {
	Store
	// Age shifts every timestamp of a stream back by d, as if d had
	// passed for it; nil when the store cannot, and the TTL cases then
	// move the store's clock or wait.
	Age conform.Ager
}

// The contract's error hints of the stream functions.
const (
	HintNotFound    = "STREAM_NOT_FOUND"
	HintClosed      = "STREAM_CLOSED"
	HintGap         = "STREAM_GAP"
	HintReadTimeout = "READ_TIMEOUT"
)

// OpenOptions are the optional arguments of Store.Open. TTL zero means
// the contract's default of one day.
type OpenOptions struct {
	Owner  string
	Tenant string
	Kind   string
	TTL    time.Duration
}

// AppendResult is what Store.Append returns.
type AppendResult struct {
	Next      int  `json:"next"`
	Cancelled bool `json:"cancelled"`
}

// Status is a stream's state as Store.Status reports it.
type Status struct {
	Next      int  `json:"next"`
	Closed    bool `json:"closed"`
	Cancelled bool `json:"cancelled"`
}

// Store is the TypeScript StreamStore interface (contracts.md, section
// 3) as the conformance cases drive it. ReadAll is the live read: it
// returns once the stream is closed and every chunk from `from` was
// delivered, and at once, empty, for a missing stream.
type Store interface {
	Open(ctx context.Context, id string, opts OpenOptions) (bool, error)
	Append(ctx context.Context, id string, from int, chunks []string) (AppendResult, error)
	ReadAll(ctx context.Context, id string, from int) ([]string, error)
	Status(ctx context.Context, id string) (*Status, error)
	IsCancelled(ctx context.Context, id string) (bool, error)
	Close(ctx context.Context, id string) (bool, error)
	Cancel(ctx context.Context, id string) (bool, error)
	// Purge with olderThan zero uses the contract's default of one day.
	Purge(ctx context.Context, olderThan time.Duration) (int, error)
}

// Identity is implemented by stream stores that report the TS
// interface's apiVersion and name.
type Identity interface {
	APIVersion() int
	StoreName() string
}

// Page is one bounded, non-blocking read of a stream (stream_read).
type Page struct {
	Found     bool     `json:"found"`
	Chunks    []string `json:"chunks"`
	Next      int      `json:"next"`
	Done      bool     `json:"done"`
	Cancelled bool     `json:"cancelled"`
}

// Pager is implemented by stores with the SQL block's bounded read: at
// most max chunks from `from`, max clamped to 0..10000.
type Pager interface {
	ReadPage(ctx context.Context, id string, from, max int) (Page, error)
}

// View is what a caller other than the service role may do with streams:
// read what row-level security lets it see (a stream it may not see reads
// as a missing one), and cancel what it owns. Append exists to prove that
// such callers cannot write.
type View interface {
	ReadAll(ctx context.Context, id string, from int) ([]string, error)
	Status(ctx context.Context, id string) (*Status, error)
	Cancel(ctx context.Context, id string) (bool, error)
	Append(ctx context.Context, id string, from int, chunks []string) (AppendResult, error)
}

// Callers is implemented by stores that know who is calling: the
// owner-visibility cases need it.
type Callers interface {
	As(c conform.Caller) View
}

// Details is everything stream_status reports: the status with the
// stream's kind and when it expires.
type Details struct {
	Status
	Kind      string    `json:"kind"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// Detailer is implemented by stores whose status reports the kind and the
// expiry too.
type Detailer interface {
	StatusDetails(ctx context.Context, id string) (*Details, error)
}

// Delivery is one step of a live read: chunks from index From, or the end
// of the read (End), which Aborted says was an abort.
type Delivery struct {
	From    int
	Chunks  []string
	End     bool
	Aborted bool
}

// LiveRead is a live read in progress.
type LiveRead interface {
	// Next waits for the next delivery. After the end it keeps returning
	// the end.
	Next(ctx context.Context) (Delivery, error)
	// Abort stops the read: true when it stopped it, false when it had
	// ended already. Nothing is delivered after Abort returns, but the end.
	Abort(ctx context.Context) (bool, error)
}

// LiveReader is implemented by stores whose live read delivers chunks as
// they come rather than all at close.
type LiveReader interface {
	// ReadLive returns once the read is live: an append made after it
	// returns is delivered.
	ReadLive(ctx context.Context, id string, from int) (LiveRead, error)
}
