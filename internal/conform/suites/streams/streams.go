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
