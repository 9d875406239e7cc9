// Package bridgestore drives an adapter's own StreamStore and run registry
// over the bridge protocol as a conformance subject (conform --store
// bridge): one bridge process per run, fresh ids per case.
package bridgestore

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/chatstate"
	"github.com/bsadapter/bsadapter/internal/conform/suites/credentials"
	"github.com/bsadapter/bsadapter/internal/conform/suites/streams"
)

// Store runs the suites against an adapter's own store over the
// bridge protocol. One bridge process serves the whole run; subjects are
// fresh ids on it.
type Store struct {
	c       *bridge.Client
	name    string
	callers bool
	n       atomic.Int64
	// identity is what streamStore.identity answered (capability
	// streamStore.identity).
	identity *identity
	// clocks holds the groups whose cases may move the bridge's clock:
	// those whose store reads it (capability clock), none with RealTTLs.
	clocks map[string]bool
	reads  *reads
	// selfExpiring says the bridge declared streamStore.expiry "self": its
	// store expires streams by itself, and is not held to the streams
	// block's rule of keeping them until a purge.
	selfExpiring bool
	// queueSkips says the bridge declared chatState.queueExpiry "skip":
	// its state adapter passes over expired queue entries, as the
	// chat-sdk-state block does, and is held to that rule.
	queueSkips bool
	// fatal is the first transport fault that left the bridge unusable.
	fatal atomic.Pointer[bridge.TransportError]
}

// Fatal returns the transport fault that made the bridge unusable during
// the run (it exited, or wrote something that is not the protocol), or
// nil. Every case after it fails; the caller should say so once.
func (b *Store) Fatal() error {
	if e := b.fatal.Load(); e != nil {
		return e
	}
	return nil
}

// New starts the bridge opts describes and returns a store
// that drives its StreamStore and run-registry methods. Suites the bridge
// does not declare in its capabilities are reported as skipped.
func New(ctx context.Context, opts bridge.Options, options ...Option) (*Store, error) {
	var cfg config
	for _, o := range options {
		o(&cfg)
	}
	if opts.Jobs == 0 {
		// Live reads hold a request open until their stream closes; leave
		// room for the appends and closes they wait for.
		opts.Jobs = 256
	}
	c, err := bridge.Start(ctx, opts)
	if err != nil {
		return nil, err
	}
	b := &Store{c: c, name: "bridge: " + strings.Join(opts.Command, " ")}
	if a := c.Adapter(); a.Name != "" {
		b.name = "bridge: " + a.Name
	}
	caps := c.Capabilities()
	switch {
	case !caps.StreamStore:
	case c.Version() >= 2:
		b.callers = caps.Has(bridge.CapStreamCallers)
	default:
		// Version 1 had no optional capabilities: a bridge offered
		// callers by answering this method.
		var res struct {
			Supported bool `json:"supported"`
		}
		err := c.Call(ctx, bridge.MethodStreamCallers, map[string]any{}, &res)
		var rpc *bridge.RPCError
		switch {
		case err == nil:
			b.callers = res.Supported
		case errors.As(err, &rpc):
			b.callers = false
		default:
			c.Close()
			return nil, err
		}
	}
	if caps.StreamStore && caps.Has(bridge.CapStreamIdentity) {
		var id identity
		if err := c.Call(ctx, bridge.MethodStreamIdentity, map[string]any{}, &id); err != nil {
			c.Close()
			return nil, fmt.Errorf("%s: %w", bridge.MethodStreamIdentity, err)
		}
		b.identity = &id
	}
	if caps.StreamStore {
		if b.selfExpiring, err = expiryOf(caps); err != nil {
			c.Close()
			return nil, err
		}
	}
	if b.clocks, err = clocksOf(caps); err != nil {
		c.Close()
		return nil, err
	}
	if cfg.realTTLs {
		b.clocks = nil
	}
	if caps.Has(bridge.GroupChatState) {
		if b.queueSkips, err = queueExpiryOf(caps); err != nil {
			c.Close()
			return nil, err
		}
	}
	if caps.StreamStore && caps.Has(bridge.CapStreamLiveRead) {
		b.reads = newReads(c)
	}
	return b, nil
}

// expiryOf reads the expiry model the bridge declared (capability
// streamStore.expiry): whether its store expires streams by itself. An
// absent declaration is the streams block's model, a purge.
func expiryOf(caps bridge.Capabilities) (self bool, err error) {
	raw, ok := caps.Value(bridge.CapStreamExpiry)
	if !ok {
		if !caps.Has(bridge.CapStreamExpiry) {
			return false, nil
		}
		// Declared true, as the other capabilities are: not a model.
		raw = json.RawMessage("true")
	}
	var v string
	if json.Unmarshal(raw, &v) == nil {
		switch v {
		case bridge.ExpiryPurge:
			return false, nil
		case bridge.ExpirySelf:
			return true, nil
		}
	}
	return false, fmt.Errorf("the bridge's initialize answer declares capabilities.%s %s: it must be %q (the default: an expired stream stays until a purge removes it) or %q (the store expires streams by itself); fix the bridge's capabilities",
		bridge.CapStreamExpiry, raw, bridge.ExpiryPurge, bridge.ExpirySelf)
}

// clockGroups are the groups whose cases make time pass, and so the
// groups capability clock may list.
var clockGroups = []string{bridge.GroupStreamStore, bridge.GroupRunRegistry, bridge.GroupChatState}

// clocksOf reads which groups' stores read the bridge's clock (capability
// clock): every group when it is true, the groups it lists when it is a
// list, none when it is absent or false.
func clocksOf(caps bridge.Capabilities) (map[string]bool, error) {
	if caps.Has(bridge.CapClock) {
		all := map[string]bool{}
		for _, g := range clockGroups {
			all[g] = true
		}
		return all, nil
	}
	raw, ok := caps.Value(bridge.CapClock)
	if !ok {
		return nil, nil
	}
	var groups []string
	if err := json.Unmarshal(raw, &groups); err == nil {
		out := map[string]bool{}
		for _, g := range groups {
			if !slices.Contains(clockGroups, g) {
				err = fmt.Errorf("it lists %q", g)
				break
			}
			out[g] = true
		}
		if err == nil {
			return out, nil
		}
	}
	return nil, fmt.Errorf("the bridge's initialize answer declares capabilities.%s %s: it must be true (every store of the bridge reads the clock clock.advance moves) or a list of the groups whose store does, of %s; fix the bridge's capabilities",
		bridge.CapClock, raw, strings.Join(clockGroups, ", "))
}

// queueExpiryOf reads how the bridge's state adapter treats expired queue
// entries (capability chatState.queueExpiry): whether it skips them, as
// the chat-sdk-state block does. An absent declaration is the Chat SDK's
// interface: the caller drops stale entries.
func queueExpiryOf(caps bridge.Capabilities) (skips bool, err error) {
	raw, ok := caps.Value(bridge.CapChatQueueExpiry)
	if !ok {
		if !caps.Has(bridge.CapChatQueueExpiry) {
			return false, nil
		}
		raw = json.RawMessage("true")
	}
	var v string
	if json.Unmarshal(raw, &v) == nil {
		switch v {
		case bridge.QueueExpirySkip:
			return true, nil
		case bridge.QueueExpiryCaller:
			return false, nil
		}
	}
	return false, fmt.Errorf("the bridge's initialize answer declares capabilities.%s %s: it must be %q (expired entries neither count nor dequeue, as the chat-sdk-state block has it) or %q (the default: stale entries may count and dequeue, and the caller drops them, as the Chat SDK's interface has it); fix the bridge's capabilities",
		bridge.CapChatQueueExpiry, raw, bridge.QueueExpirySkip, bridge.QueueExpiryCaller)
}

// movesClock says whether the cases of group may move the bridge's clock:
// the bridge declares that the group's store reads it, and the run does
// not want real TTLs.
func (b *Store) movesClock(group string) bool { return b.clocks[group] }

// NotKept says why the bridge's store is not held to a block rule: one
// whose streams expire by themselves (capability streamStore.expiry
// "self") does not keep an expired stream until a purge, and a state
// adapter that does not declare chatState.queueExpiry "skip" leaves stale
// queue entries to its caller; an adapter's own credential provider is
// held to none of the credentials block's rules. It keeps every other
// block rule it declares the features of.
func (b *Store) NotKept(r conform.BlockRule) string {
	if (r == credentials.ServiceRoleOnly || r == credentials.AuditTrail) && b.c.Capabilities().Has(bridge.GroupCredentials) {
		return "an adapter's own credential provider is not the credentials block, whose functions check their callers and record audit events"
	}
	if r == streams.KeepsExpired && b.selfExpiring {
		return fmt.Sprintf("the bridge declares %s %q: its store expires streams by itself, which the StreamStore interface allows", bridge.CapStreamExpiry, bridge.ExpirySelf)
	}
	if r == chatstate.QueueExpiry && b.c.Capabilities().Has(bridge.GroupChatState) && !b.queueSkips {
		return fmt.Sprintf("the bridge does not declare %s %q: its state adapter may leave stale queue entries to the caller that dequeues them, which the Chat SDK's StateAdapter allows", bridge.CapChatQueueExpiry, bridge.QueueExpirySkip)
	}
	return ""
}

// Option changes how a Store drives its bridge.
type Option func(*config)

type config struct{ realTTLs bool }

// RealTTLs leaves the bridge's clock alone even when it offers one: the
// TTL and purge cases then wait for real TTLs of seconds, which checks
// the store's own expiry rather than its injected clock.
func RealTTLs() Option { return func(c *config) { c.realTTLs = true } }

// The optional capability each feature needs over the bridge.
var featureCaps = map[conform.Feature]string{
	conform.FeatureIdentity:      bridge.CapStreamIdentity,
	conform.FeatureBoundedRead:   bridge.CapStreamReadPage,
	conform.FeatureLiveRead:      bridge.CapStreamLiveRead,
	conform.FeatureStatusDetails: bridge.CapStreamStatus,
	conform.FeatureCallers:       bridge.CapStreamCallers,
	conform.FeatureTenants:       bridge.CapRunCallers,
}

// Missing says which capability a feature needs when the bridge did not
// declare it, and, for a version 1 bridge, that the capability is version
// 2's.
func (b *Store) Missing(f conform.Feature) string {
	capName, ok := featureCaps[f]
	if !ok {
		return ""
	}
	if f == conform.FeatureCallers && b.callers {
		return ""
	}
	if f != conform.FeatureCallers && b.c.Capabilities().Has(capName) {
		return ""
	}
	if v := b.c.Version(); v < 2 && f == conform.FeatureCallers {
		return fmt.Sprintf("needs capability %s (%s); a version %d bridge offers it by answering the method %s with {\"supported\": true}, and this one does not", capName, f, v, bridge.MethodStreamCallers)
	} else if v < 2 {
		return fmt.Sprintf("needs capability %s (%s), which is bridge protocol version 2's; the bridge speaks version %d", capName, f, v)
	}
	return fmt.Sprintf("needs capability %s (%s), which the bridge does not declare in initialize", capName, f)
}

// Capability returns the bridge capability feature f needs, or "".
func Capability(f conform.Feature) string { return featureCaps[f] }

type identity struct {
	APIVersion int    `json:"apiVersion"`
	Name       string `json:"name"`
}

// Name is "bridge: " and the adapter's name, or the bridge command.
func (b *Store) Name() string { return b.name }

// prefix returns a new prefix for a case's ids, unique across runs on
// one bridge.
func (b *Store) prefix() string {
	return fmt.Sprintf("conform-%s-%d", strings.ToLower(rand.Text()[:8]), b.n.Add(1))
}

// open is the opener of a suite whose subject is v: fresh ids on the
// run's one bridge process, shared with the other cases.
func open[S any](b *Store, v S) conform.Opener[S] {
	return func(t *conform.T) (S, error) {
		t.SetPrefix(b.prefix())
		t.SetShared()
		return v, nil
	}
}

// group returns the opener of a suite whose methods are the bridge's
// group g, or why the bridge does not implement the suite.
func group[S any](b *Store, g string, v S) (conform.Opener[S], error) {
	if !b.c.Capabilities().Has(g) {
		return nil, conform.NotImplemented("the bridge does not declare capabilities.%s", g)
	}
	return open(b, v), nil
}

// Close shuts the bridge process down.
func (b *Store) Close() error { return b.c.Close() }

// call sends a request with the default timeout (see callTimeout).
func (b *Store) call(ctx context.Context, method string, params, result any) error {
	return b.callTimeout(ctx, 0, method, params, result)
}

// callTimeout sends a request and maps the bridge's answer onto the
// contract's errors, remembering a fault that leaves the bridge unusable.
func (b *Store) callTimeout(ctx context.Context, timeout time.Duration, method string, params, result any) error {
	var err error
	if timeout > 0 {
		err = b.c.CallTimeout(ctx, timeout, method, params, result)
	} else {
		err = b.c.Call(ctx, method, params, result)
	}
	return b.mapErr(err)
}

// mapErr maps the bridge's error answer onto the contract's errors, and
// remembers a transport fault that leaves the bridge unusable.
func (b *Store) mapErr(err error) error {
	var rpc *bridge.RPCError
	if errors.As(err, &rpc) {
		return &conform.StoreError{Hint: rpc.Hint(), Message: rpc.Error()}
	}
	var te *bridge.TransportError
	if errors.As(err, &te) && te.Fatal() && te.Kind != bridge.FaultClosed {
		b.fatal.CompareAndSwap(nil, te)
	}
	return err
}

type bridgeStreams struct {
	b      *Store
	caller *conform.Caller
}

// bridgeCallerStreams is a bridgeStreams whose bridge takes callers.
type bridgeCallerStreams struct{ bridgeStreams }

func (b bridgeCallerStreams) As(c conform.Caller) streams.View {
	return bridgeStreams{b.b, &c}
}

func (b bridgeStreams) params(p map[string]any) map[string]any { return withCaller(p, b.caller) }

// withCaller adds the caller to a request's params, if there is one: a
// request without it is the service role's.
func withCaller(p map[string]any, c *conform.Caller) map[string]any {
	if c != nil {
		p["caller"] = c
	}
	return p
}

func (b bridgeStreams) Open(ctx context.Context, id string, o streams.OpenOptions) (bool, error) {
	opts := map[string]any{}
	if o.Owner != "" {
		opts["owner"] = o.Owner
	}
	if o.Tenant != "" {
		opts["tenant"] = o.Tenant
	}
	if o.Kind != "" {
		opts["kind"] = o.Kind
	}
	if o.TTL > 0 {
		opts["ttlSeconds"] = int64(o.TTL / time.Second)
	}
	var res struct {
		Created bool `json:"created"`
	}
	err := b.b.call(ctx, bridge.MethodStreamOpen, map[string]any{"id": id, "options": opts}, &res)
	return res.Created, err
}

func (b bridgeStreams) Append(ctx context.Context, id string, from int, chunks []string) (streams.AppendResult, error) {
	if chunks == nil {
		chunks = []string{}
	}
	var res streams.AppendResult
	err := b.b.call(ctx, bridge.MethodStreamAppend, b.params(map[string]any{"id": id, "fromIdx": from, "chunks": chunks}), &res)
	return res, err
}

func (b bridgeStreams) ReadAll(ctx context.Context, id string, from int) ([]string, error) {
	wait := conform.DefaultTimeout
	if dl, ok := ctx.Deadline(); ok {
		wait = time.Until(dl) - 100*time.Millisecond
	}
	wait = max(wait, 10*time.Millisecond)
	var res struct {
		Chunks []string `json:"chunks"`
	}
	err := b.b.callTimeout(ctx, wait+time.Second, bridge.MethodStreamRead,
		b.params(map[string]any{"id": id, "fromIdx": from, "timeoutMs": wait.Milliseconds()}), &res)
	if err == nil && res.Chunks == nil {
		res.Chunks = []string{}
	}
	return res.Chunks, err
}

// APIVersion is what streamStore.identity answered.
func (b bridgeStreams) APIVersion() int {
	if b.b.identity == nil {
		return 0
	}
	return b.b.identity.APIVersion
}

// StoreName is what streamStore.identity answered.
func (b bridgeStreams) StoreName() string {
	if b.b.identity == nil {
		return ""
	}
	return b.b.identity.Name
}

// ReadPage is streamStore.readPage, the bounded read.
func (b bridgeStreams) ReadPage(ctx context.Context, id string, from, max int) (streams.Page, error) {
	var res streams.Page
	err := b.b.call(ctx, bridge.MethodStreamReadPage, b.params(map[string]any{"id": id, "fromIdx": from, "max": max}), &res)
	if err == nil && res.Chunks == nil {
		res.Chunks = []string{}
	}
	return res, err
}

// StatusDetails is streamStore.status with kind and expiresAt
// (capability streamStore.statusDetails).
func (b bridgeStreams) StatusDetails(ctx context.Context, id string) (*streams.Details, error) {
	var res struct {
		Status *streams.Details `json:"status"`
	}
	err := b.b.call(ctx, bridge.MethodStreamStatus, b.params(map[string]any{"id": id}), &res)
	return res.Status, err
}

func (b bridgeStreams) Status(ctx context.Context, id string) (*streams.Status, error) {
	var res struct {
		Status *streams.Status `json:"status"`
	}
	err := b.b.call(ctx, bridge.MethodStreamStatus, b.params(map[string]any{"id": id}), &res)
	return res.Status, err
}

func (b bridgeStreams) IsCancelled(ctx context.Context, id string) (bool, error) {
	var res struct {
		Cancelled bool `json:"cancelled"`
	}
	err := b.b.call(ctx, bridge.MethodStreamIsCancelled, b.params(map[string]any{"id": id}), &res)
	return res.Cancelled, err
}

func (b bridgeStreams) Close(ctx context.Context, id string) (bool, error) {
	var res struct {
		Closed bool `json:"closed"`
	}
	err := b.b.call(ctx, bridge.MethodStreamClose, b.params(map[string]any{"id": id}), &res)
	return res.Closed, err
}

func (b bridgeStreams) Cancel(ctx context.Context, id string) (bool, error) {
	var res struct {
		Cancelled bool `json:"cancelled"`
	}
	err := b.b.call(ctx, bridge.MethodStreamCancel, b.params(map[string]any{"id": id}), &res)
	return res.Cancelled, err
}

func (b bridgeStreams) Purge(ctx context.Context, olderThan time.Duration) (int, error) {
	p := map[string]any{}
	if olderThan > 0 {
		p["olderThanSeconds"] = int64(olderThan / time.Second)
	}
	var res struct {
		Purged int `json:"purged"`
	}
	err := b.b.call(ctx, bridge.MethodStreamPurge, p, &res)
	return res.Purged, err
}
