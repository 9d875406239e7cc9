// Package bridge is the client side of the adapter bridge protocol: it starts
// an adapter's bridge process, speaks JSON-RPC 2.0 to it over stdin and
// stdout (one message per line), and makes sure the process and everything it
// started are gone afterwards.
//
// The client negotiates the protocol version in initialize (it offers 2
// and drives a bridge that speaks only 1 in version 1), pipelines requests
// (up to Options.Jobs in flight), matches answers by id, hands a version 2
// bridge's notifications to their handlers, applies a timeout per request
// and keeps the last lines of the bridge's stderr so that every transport
// fault can show them. It is used
// by check-fixtures (the converter methods) and by conform --store=bridge (the
// store methods). It never prints anything; faults come back as errors.
package bridge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ProtocolVersion is the newest bridge protocol version this client
// speaks; it offers it first in initialize.
const ProtocolVersion = 2

// OldestProtocolVersion is the oldest version the client still speaks: a
// bridge that answers with it, or refuses the newest one, is driven in it.
const OldestProtocolVersion = 1

// Defaults applied when Options leaves a field zero.
const (
	DefaultTimeout = 30 * time.Second
	// DefaultStartTimeout bounds a bridge's start: its process up and its
	// answer to initialize. A start is slower than a request by orders of
	// magnitude (Node with tsx, a cold npx, a Python interpreter, all the
	// more on a loaded machine), so it has a wait of its own, however
	// short the per-request timeout is.
	DefaultStartTimeout = time.Minute
	DefaultJobs         = 8
	DefaultStderrLines  = 20
	// MaxLine is the longest stdout line the client accepts. The protocol
	// says neither side may assume a limit below 64 MiB.
	MaxLine = 128 << 20
	// exitGrace is how long Close waits for the bridge to exit on its own
	// after shutdown before killing its process group.
	exitGrace = 3 * time.Second
)

// Options says how to start a bridge.
type Options struct {
	Command       []string      // argv; run in Dir
	Dir           string        // working folder (the adapter's folder); "" is the current one
	Env           []string      // extra environment, KEY=VALUE, added to this process's
	Timeout       time.Duration // per request default (when ctx has no earlier deadline)
	Jobs          int           // max requests in flight (0 = a sensible default)
	ClientVersion string        // reported to the bridge in initialize
	StderrLines   int           // how many last stderr lines to keep for errors (0 = default 20)
	// StartTimeout bounds the start: the process up and its answer to
	// initialize (0 = DefaultStartTimeout, or Timeout when that is
	// longer). It is apart from Timeout, which bounds each request to a
	// running bridge: a bridge may take seconds to start and then answer
	// in a millisecond.
	StartTimeout time.Duration
}

// Adapter is what the bridge says about itself in its initialize answer.
type Adapter struct{ Name, Format, SDK, Version string }

// Capabilities are the method groups a bridge declared in initialize, and
// every other capability it declared true beside them (such as
// "chatState" or "clock").
type Capabilities struct {
	Converter, StreamStore, RunRegistry bool
	// ConverterHistory says the bridge converts whole conversations
	// (MethodFromSDKHistory, MethodToSDKHistory).
	ConverterHistory bool
	// Parts lists the canonical part types the converter can express
	// (nil when the bridge does not say).
	Parts []string
	// Optional holds every other capability declared true (nil if none).
	Optional map[string]bool
	// values holds, as the bridge sent them, the capabilities whose value
	// is not a boolean (CapStreamExpiry); nil if none.
	values map[string]json.RawMessage
}

// Value returns the JSON value the bridge declared for capability name,
// and whether it declared one that is not a boolean (a capability declared
// true is in Optional).
func (c Capabilities) Value(name string) (json.RawMessage, bool) {
	v, ok := c.values[name]
	return v, ok
}

// Has reports whether the bridge declared capability name.
func (c Capabilities) Has(name string) bool {
	switch name {
	case GroupConverter:
		return c.Converter
	case GroupStreamStore:
		return c.StreamStore
	case GroupRunRegistry:
		return c.RunRegistry
	}
	return c.Optional[name]
}

// RPCError is an error the bridge answered with (a JSON-RPC error object):
// the adapter's own failure, a missing method or bad params. The bridge is
// still healthy after one.
type RPCError struct {
	Code    int
	Message string
	Data    json.RawMessage
}

// JSON-RPC error codes the protocol uses.
const (
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeAdapter        = -32000
)

// Error returns the bridge's message with its code.
func (e *RPCError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = "(no message)"
	}
	if h := e.Hint(); h != "" {
		return fmt.Sprintf("bridge error %d: %s [%s]", e.Code, msg, h)
	}
	return fmt.Sprintf("bridge error %d: %s", e.Code, msg)
}

// Hint returns data.hint (a contract hint such as STREAM_NOT_FOUND), or ""
// when the error carries none.
func (e *RPCError) Hint() string {
	var d struct {
		Hint string `json:"hint"`
	}
	if len(e.Data) == 0 || json.Unmarshal(e.Data, &d) != nil {
		return ""
	}
	return d.Hint
}

// FaultKind classifies a transport fault.
type FaultKind string

// The transport faults. Every one but FaultTimeout leaves the bridge unusable.
const (
	FaultStart    FaultKind = "start"    // the command could not be started
	FaultExited   FaultKind = "exited"   // the process exited (or closed stdout) while requests were due
	FaultProtocol FaultKind = "protocol" // a stdout line that is not a JSON-RPC response
	FaultUnknown  FaultKind = "unknown"  // an answer to an id nobody asked
	FaultVersion  FaultKind = "version"  // the bridge speaks another protocol version
	FaultTimeout  FaultKind = "timeout"  // a request got no answer in time
	FaultClosed   FaultKind = "closed"   // the client was closed (or its context cancelled)
)

// TransportError is a fault of the bridge process or of the protocol rather
// than an answer: a crash, a bad line, a timeout, an unknown id, a version
// mismatch. Its message ends with the last lines of the bridge's stderr.
type TransportError struct {
	Kind    FaultKind
	Message string
	// Stderr holds the last lines the bridge wrote to stderr when the
	// fault happened ("" when it wrote nothing).
	Stderr string
	Err    error
	// StartTimeout says that the wait that ran out was the start's (no
	// answer to initialize within Options.StartTimeout), not a request's.
	StartTimeout bool
}

// Error returns the message followed by the bridge's last stderr lines.
func (e *TransportError) Error() string {
	var b strings.Builder
	b.WriteString(e.Message)
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	if e.Stderr != "" {
		b.WriteString("\nlast lines of the bridge's stderr:\n")
		for _, l := range strings.Split(strings.TrimRight(e.Stderr, "\n"), "\n") {
			b.WriteString("  | ")
			b.WriteString(l)
			b.WriteByte('\n')
		}
	} else if e.Kind != FaultStart {
		// A bridge that did not start had no stderr to write to.
		b.WriteString(" (the bridge wrote nothing to stderr)")
	}
	return strings.TrimRight(b.String(), "\n")
}

// Unwrap returns the underlying error, if any.
func (e *TransportError) Unwrap() error { return e.Err }

// Fatal says whether the fault leaves the bridge unusable.
func (e *TransportError) Fatal() bool { return e.Kind != FaultTimeout }

// Client is a running bridge. Its methods are safe for concurrent use.
type Client struct {
	opts Options
	// cmd is the bridge's process, or on Linux its supervisor's, which
	// sup then describes (see proc_supervise_linux.go).
	cmd    *exec.Cmd
	sup    *supervisor
	stdin  *os.File
	stderr *tailBuffer
	sem    chan struct{}

	wmu sync.Mutex // serialises writes to stdin

	mu        sync.Mutex
	nextID    int64
	pending   map[int64]chan response
	abandoned map[int64]struct{} // timed-out ids whose late answers are ignored
	busy      time.Duration      // time with at least one request awaiting its answer
	busySince time.Time

	dead     chan struct{} // closed when the bridge became unusable
	deadErr  error
	deadOnce sync.Once

	exited     chan struct{} // closed when the process has been reaped
	exitState  *os.ProcessState
	readerDone chan struct{}
	stderrDone chan struct{}

	closeOnce sync.Once
	closing   chan struct{}
	killOnce  sync.Once

	adapter Adapter
	caps    Capabilities
	// startedIn is how long the bridge took to answer initialize.
	startedIn time.Duration
	version   int

	// notify holds the handlers of the notifications a version 2 bridge
	// may send, by method.
	nmu    sync.Mutex
	notify map[string]func(params json.RawMessage) error
}

type response struct {
	result json.RawMessage
	err    *RPCError
}

// StartError is what Start returns when the bridge did not start: its
// process could not run, or it did not complete the initialize handshake
// (it exited, timed out, refused or broke the protocol there). Err is the
// fault itself (a *TransportError, mostly), and the message is its.
// Errors of later calls are never a StartError: a caller that does more
// after Start (asks for a capability the bridge declared) can tell a
// bridge that did not start from one that answered initialize and then
// failed.
type StartError struct{ Err error }

func (e *StartError) Error() string { return e.Err.Error() }

// Unwrap returns the fault.
func (e *StartError) Unwrap() error { return e.Err }

// Start starts the bridge in its own process group, runs the initialize
// handshake and returns a client ready for calls. Cancelling ctx later kills
// the bridge's process group (as Close does, without the shutdown call).
// Its errors are *StartError.
func Start(ctx context.Context, opts Options) (*Client, error) {
	c, err := launch(ctx, opts)
	if err != nil {
		return nil, &StartError{Err: err}
	}
	return c, nil
}

func launch(ctx context.Context, opts Options) (*Client, error) {
	if len(opts.Command) == 0 {
		return nil, &TransportError{Kind: FaultStart, Message: "no bridge command given"}
	}
	if opts.Command[0] == "" {
		return nil, &TransportError{Kind: FaultStart, Message: fmt.Sprintf("the bridge command %s names no program: its first word is empty", quoteArgv(opts.Command))}
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Jobs <= 0 {
		opts.Jobs = DefaultJobs
	}
	if opts.StderrLines <= 0 {
		opts.StderrLines = DefaultStderrLines
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = max(DefaultStartTimeout, opts.Timeout)
	}
	if opts.ClientVersion == "" {
		opts.ClientVersion = "0.0.0"
	}
	// Its own process group, so that one signal reaches the bridge and
	// every process it started (npx -> node -> workers); on Linux under a
	// supervisor, which also stops the processes that leave the group.
	cmd, sup, err := newBridgeCmd(opts.Command)
	if err != nil {
		return nil, &TransportError{Kind: FaultStart, Message: "cannot start the bridge " + quoteArgv(opts.Command), Err: err}
	}
	cmd.Dir = opts.Dir
	cmd.Env = append(os.Environ(), opts.Env...)
	// Our own pipe rather than StdinPipe: an *os.File takes write
	// deadlines, so a bridge that stops reading cannot block a call past
	// its timeout.
	stdinR, stdin, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdin = stdinR
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	err = cmd.Start()
	_ = stdinR.Close()
	if err == nil {
		err = sup.started(cmd)
	}
	if err != nil {
		sup.abort(cmd)
	}
	if err != nil {
		_ = stdin.Close()
		where := ""
		if opts.Dir != "" {
			where = " in " + opts.Dir
		}
		return nil, &TransportError{Kind: FaultStart, Message: fmt.Sprintf("cannot start the bridge %s%s", quoteArgv(opts.Command), where), Err: err}
	}
	c := &Client{
		opts:       opts,
		cmd:        cmd,
		sup:        sup,
		stdin:      stdin,
		stderr:     newTailBuffer(opts.StderrLines),
		sem:        make(chan struct{}, opts.Jobs),
		pending:    map[int64]chan response{},
		abandoned:  map[int64]struct{}{},
		dead:       make(chan struct{}),
		exited:     make(chan struct{}),
		readerDone: make(chan struct{}),
		stderrDone: make(chan struct{}),
		closing:    make(chan struct{}),
	}
	go c.readStderr(stderr)
	go c.wait()
	go c.readStdout(stdout)
	go func() {
		select {
		case <-ctx.Done():
			c.fail(&TransportError{Kind: FaultClosed, Message: "the bridge was stopped: " + context.Cause(ctx).Error()})
			c.kill()
		case <-c.closing:
		}
	}()
	if err := c.initialize(ctx); err != nil {
		close(c.closing)
		c.kill()
		<-c.exited
		// What the bridge wrote to stderr just before it refused or
		// failed explains why: take every line of it.
		var te *TransportError
		if errors.As(err, &te) && te.Kind != FaultClosed {
			c.waitStderr()
			te.Stderr = c.stderr.String()
		}
		return nil, err
	}
	return c, nil
}

func quoteArgv(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t'\"\\$") {
			parts[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		} else {
			parts[i] = a
		}
	}
	return strings.Join(parts, " ")
}

func (c *Client) initialize(ctx context.Context) error {
	err := c.handshake(ctx, ProtocolVersion)
	var rpcErr *RPCError
	if errors.As(err, &rpcErr) {
		// A version 1 bridge refuses version 2 in its own words (not all
		// of them say which version they speak): offer version 1 before
		// giving up, so that bridges written for it keep working.
		if err1 := c.handshake(ctx, OldestProtocolVersion); err1 == nil {
			return nil
		} else if !errors.As(err1, new(*RPCError)) {
			return err1
		}
		theirs := versionIn(rpcErr.Data)
		if theirs == "" {
			// No version given: the refusal may have any cause (an
			// adapter that fails to load, say), so claim none.
			return c.transportErr(FaultVersion, fmt.Sprintf("the bridge refused the handshake with error %d: %s (bsadapter speaks bridge protocol versions %d and %d; a bridge that speaks another one says which in the error's data, e.g. {\"supported\": [3]})", rpcErr.Code, rpcErr.Message, OldestProtocolVersion, ProtocolVersion), nil)
		}
		return c.transportErr(FaultVersion, fmt.Sprintf("the bridge refused the handshake: bsadapter speaks bridge protocol versions %d and %d, the bridge answered %q (it speaks version %s)", OldestProtocolVersion, ProtocolVersion, rpcErr.Message, theirs), nil)
	}
	return err
}

// handshake sends initialize offering version offer and takes the answer
// when it names a version bsadapter speaks, no newer than offer.
func (c *Client) handshake(ctx context.Context, offer int) error {
	var res struct {
		ProtocolVersion json.RawMessage `json:"protocolVersion"`
		Adapter         struct {
			Name    string `json:"name"`
			Format  string `json:"format"`
			SDK     string `json:"sdk"`
			Version string `json:"version"`
		} `json:"adapter"`
		Capabilities json.RawMessage `json:"capabilities"`
	}
	params := map[string]any{
		"protocolVersion": offer,
		"client":          map[string]any{"name": "bsadapter", "version": c.opts.ClientVersion},
	}
	began := time.Now()
	err := c.call(ctx, c.opts.StartTimeout, MethodInitialize, params, &res)
	c.startedIn = time.Since(began)
	if err != nil {
		var te *TransportError
		if errors.As(err, &te) && te.Kind == FaultExited {
			te.Message = "the bridge exited before answering initialize (" + strings.TrimPrefix(te.Message, "the bridge ") + ")"
		}
		if errors.As(err, &te) && te.Kind == FaultTimeout {
			// Which wait ran out matters: this one is the start's, not a
			// request's.
			te.Message = fmt.Sprintf("the bridge did not start: no answer to initialize within its start timeout of %s", c.opts.StartTimeout)
			te.StartTimeout = true
		}
		return err
	}
	v := strings.TrimSpace(string(res.ProtocolVersion))
	n, perr := strconv.Atoi(v)
	if perr != nil || n < OldestProtocolVersion || n > offer {
		if v == "" {
			v = "none"
		}
		return c.transportErr(FaultVersion, fmt.Sprintf("the bridge speaks protocol version %s, bsadapter speaks versions %d to %d (it offered %d)", v, OldestProtocolVersion, ProtocolVersion, offer), nil)
	}
	c.version = n
	c.adapter = Adapter{Name: res.Adapter.Name, Format: res.Adapter.Format, SDK: res.Adapter.SDK, Version: res.Adapter.Version}
	var rc struct {
		Converter   bool     `json:"converter"`
		StreamStore bool     `json:"streamStore"`
		RunRegistry bool     `json:"runRegistry"`
		History     bool     `json:"converterHistory"`
		Parts       []string `json:"parts"`
	}
	var all map[string]json.RawMessage
	if len(res.Capabilities) > 0 {
		if err := json.Unmarshal(res.Capabilities, &rc); err != nil {
			return c.transportErr(FaultProtocol, "the initialize answer's capabilities do not decode: "+err.Error(), nil)
		}
		_ = json.Unmarshal(res.Capabilities, &all)
	}
	caps := Capabilities{Converter: rc.Converter, StreamStore: rc.StreamStore, RunRegistry: rc.RunRegistry,
		ConverterHistory: rc.Converter && rc.History, Parts: rc.Parts}
	for name, raw := range all {
		var on bool
		switch name {
		case GroupConverter, GroupStreamStore, GroupRunRegistry, "converterHistory", "parts":
			continue
		}
		if json.Unmarshal(raw, &on) != nil {
			// Not a boolean: a capability with a value (CapStreamExpiry),
			// which its user reads and checks.
			if caps.values == nil {
				caps.values = map[string]json.RawMessage{}
			}
			caps.values[name] = raw
			continue
		}
		if !on {
			continue
		}
		if caps.Optional == nil {
			caps.Optional = map[string]bool{}
		}
		caps.Optional[name] = true
	}
	c.caps = caps
	return nil
}

// versionIn finds a protocol version a refusing bridge may have put in its
// error data ({"protocolVersion": 2} or {"supported": [2]}).
func versionIn(data json.RawMessage) string {
	var d map[string]json.RawMessage
	if json.Unmarshal(data, &d) != nil {
		return ""
	}
	for _, k := range []string{"protocolVersion", "supported", "version"} {
		if v, ok := d[k]; ok {
			return strings.TrimSpace(string(v))
		}
	}
	return ""
}

// Adapter returns what the bridge said about itself.
func (c *Client) Adapter() Adapter { return c.adapter }

// Capabilities returns the method groups the bridge declared.
func (c *Client) Capabilities() Capabilities { return c.caps }

// Version returns the protocol version the bridge and bsadapter agreed on
// in initialize.
func (c *Client) Version() int { return c.version }

// OnNotification sets the handler of the notifications named method that a
// version 2 bridge sends (a live read's chunks, say); nil removes it. The
// handler runs on the goroutine that reads the bridge's stdout: it must not
// block. An error it returns is a protocol fault that ends the bridge's
// part of the run. A notification nobody handles is a protocol fault too.
func (c *Client) OnNotification(method string, fn func(params json.RawMessage) error) {
	c.nmu.Lock()
	defer c.nmu.Unlock()
	if c.notify == nil {
		c.notify = map[string]func(json.RawMessage) error{}
	}
	if fn == nil {
		delete(c.notify, method)
		return
	}
	c.notify[method] = fn
}

// StderrTail returns the last lines the bridge wrote to stderr.
func (c *Client) StderrTail() string { return c.stderr.String() }

// StartedIn is how long the bridge took to start: from the initialize
// request to its answer.
func (c *Client) StartedIn() time.Duration { return c.startedIn }

// Call sends one request and waits for its answer, at most the default
// timeout. params is encoded with encoding/json, except a json.RawMessage,
// which must be valid JSON and is sent as it is. result may be a pointer to
// decode into (numbers decode as json.Number into interface values, so none
// lose precision), a *json.RawMessage, or nil.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	return c.CallTimeout(ctx, c.opts.Timeout, method, params, result)
}

// CallTimeout is Call with its own timeout for this request (a
// streamStore.read that waits for appends needs a longer one).
func (c *Client) CallTimeout(ctx context.Context, timeout time.Duration, method string, params, result any) error {
	if err := c.checkCapability(method); err != nil {
		return err
	}
	return c.call(ctx, timeout, method, params, result)
}

func (c *Client) checkCapability(method string) error {
	group, _, ok := strings.Cut(method, ".")
	if !ok {
		return nil
	}
	var have bool
	switch group {
	case GroupConverter:
		have = c.caps.Converter
	case GroupStreamStore:
		have = c.caps.StreamStore
	case GroupRunRegistry:
		have = c.caps.RunRegistry
	default:
		return nil
	}
	if !have {
		return &RPCError{Code: CodeMethodNotFound, Message: fmt.Sprintf("the bridge did not declare the %q capability in initialize, so %s is not available", group, method)}
	}
	return nil
}

func (c *Client) call(ctx context.Context, timeout time.Duration, method string, params, result any) error {
	if timeout <= 0 {
		timeout = c.opts.Timeout
	}
	// Bounded concurrency: wait for a slot, the bridge's death or ctx.
	select {
	case c.sem <- struct{}{}:
	case <-c.dead:
		return c.deadErr
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-c.sem }()

	c.mu.Lock()
	select {
	case <-c.dead:
		c.mu.Unlock()
		return c.deadErr
	default:
	}
	c.nextID++
	id := c.nextID
	ch := make(chan response, 1)
	c.pending[id] = ch
	if len(c.pending) == 1 {
		c.busySince = time.Now()
	}
	c.mu.Unlock()

	line, err := encodeRequest(id, method, params)
	if err != nil {
		c.forget(id, false)
		return fmt.Errorf("bridge request %s: cannot encode params: %w", method, err)
	}
	c.wmu.Lock()
	_ = c.stdin.SetWriteDeadline(time.Now().Add(timeout))
	_, werr := c.stdin.Write(line)
	c.wmu.Unlock()
	if errors.Is(werr, os.ErrDeadlineExceeded) {
		c.forget(id, false)
		// Part of the line may be written: the stream is no longer
		// framed, so the bridge cannot be used any more.
		err := c.transportErr(FaultTimeout, fmt.Sprintf("the bridge did not read request %s (id %d) from its stdin within %s", method, id, timeout), nil)
		c.fail(err)
		c.kill()
		return err
	}
	if werr != nil {
		c.forget(id, false)
		// A write fails when the bridge is gone; its death explains why
		// better than EPIPE does.
		select {
		case <-c.dead:
			return c.deadErr
		case <-time.After(2 * time.Second):
			return c.transportErr(FaultExited, "cannot write to the bridge's stdin", werr)
		}
	}

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case resp := <-ch:
		return decodeResult(method, resp, result)
	case <-c.dead:
		select {
		case resp := <-ch:
			return decodeResult(method, resp, result)
		default:
		}
		return c.deadErr
	case <-timer.C:
		c.forget(id, true)
		return c.transportErr(FaultTimeout, fmt.Sprintf("the bridge did not answer %s (request id %d) within %s", method, id, timeout), nil)
	case <-ctx.Done():
		c.forget(id, true)
		return ctx.Err()
	}
}

// encodeRequest writes one request line. Params that are already JSON
// (json.RawMessage, which must be valid) are copied as they are, compacted
// only when they span several lines: a converter round trip forwards large
// native messages, and re-encoding them would cost more than the bridge's
// work.
func encodeRequest(id int64, method string, params any) ([]byte, error) {
	m, err := json.Marshal(method)
	if err != nil {
		return nil, err
	}
	line := make([]byte, 0, 64)
	line = append(line, `{"jsonrpc":"2.0","id":`...)
	line = strconv.AppendInt(line, id, 10)
	line = append(line, `,"method":`...)
	line = append(line, m...)
	switch p := params.(type) {
	case nil:
	case json.RawMessage:
		line = append(line, `,"params":`...)
		if bytes.IndexByte(p, '\n') >= 0 || bytes.IndexByte(p, '\r') >= 0 {
			var buf bytes.Buffer
			if err := json.Compact(&buf, p); err != nil {
				return nil, err
			}
			p = buf.Bytes()
		}
		line = append(line, p...)
	default:
		b, err := json.Marshal(p)
		if err != nil {
			return nil, err
		}
		line = append(line, `,"params":`...)
		line = append(line, b...)
	}
	return append(line, '}', '\n'), nil
}

// removePendingLocked drops a request from the pending set, ending a busy
// period when it was the last one. c.mu must be held.
func (c *Client) removePendingLocked(id int64) (chan response, bool) {
	ch, ok := c.pending[id]
	if !ok {
		return nil, false
	}
	delete(c.pending, id)
	if len(c.pending) == 0 {
		c.busy += time.Since(c.busySince)
	}
	return ch, true
}

// BusyTime returns how long the bridge has had at least one request to
// answer: the time the run spent waiting on the bridge rather than on
// bsadapter itself.
func (c *Client) BusyTime() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.pending) > 0 {
		return c.busy + time.Since(c.busySince)
	}
	return c.busy
}

func (c *Client) forget(id int64, abandon bool) {
	c.mu.Lock()
	c.removePendingLocked(id)
	if abandon {
		c.abandoned[id] = struct{}{}
	}
	c.mu.Unlock()
}

func decodeResult(method string, resp response, result any) error {
	if resp.err != nil {
		return resp.err
	}
	switch r := result.(type) {
	case nil:
		return nil
	case *json.RawMessage:
		*r = resp.result // already this call's own copy
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(resp.result))
	dec.UseNumber()
	if err := dec.Decode(result); err != nil {
		return fmt.Errorf("the bridge's answer to %s does not have the expected shape: %w", method, err)
	}
	return nil
}

// transportErr builds a TransportError with the current stderr tail.
func (c *Client) transportErr(kind FaultKind, msg string, err error) *TransportError {
	return &TransportError{Kind: kind, Message: msg, Err: err, Stderr: c.stderr.String()}
}

// fail marks the bridge unusable with err and wakes every waiting call.
func (c *Client) fail(err error) {
	c.deadOnce.Do(func() {
		c.deadErr = err
		close(c.dead)
	})
}

func (c *Client) readStdout(r io.Reader) {
	defer close(c.readerDone)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readLine(br, MaxLine)
		if len(bytes.TrimSpace(line)) > 0 {
			if ferr := c.handleLine(line); ferr != nil {
				c.fail(ferr)
				// Keep draining so the bridge never blocks on a full pipe
				// while it is being shut down.
				_, _ = io.Copy(io.Discard, br)
				return
			}
		}
		if err != nil {
			if errors.Is(err, errLineTooLong) {
				c.fail(c.transportErr(FaultProtocol, fmt.Sprintf("the bridge wrote a stdout line longer than %d MiB", MaxLine>>20), nil))
				_, _ = io.Copy(io.Discard, br)
				return
			}
			c.onStdoutClosed()
			return
		}
	}
}

// onStdoutClosed explains why stdout ended: usually the process exited.
func (c *Client) onStdoutClosed() {
	select {
	case <-c.exited:
	case <-time.After(2 * time.Second):
		c.fail(c.transportErr(FaultExited, "the bridge closed its stdout but kept running", nil))
		return
	}
	c.waitStderr()
	select {
	case <-c.closing:
		c.fail(&TransportError{Kind: FaultClosed, Message: "the bridge was shut down", Stderr: c.stderr.String()})
	default:
		c.fail(c.transportErr(FaultExited, "the bridge "+c.describeExit(), nil))
	}
}

// describeExit says how the bridge ended: as its supervisor reported it,
// else from its process state.
func (c *Client) describeExit() string {
	if s := c.sup.describeEnd(); s != "" {
		return s
	}
	ps := c.exitState
	if ps == nil {
		return "exited"
	}
	if sig := signalOf(ps); sig != "" {
		return "was killed by signal " + sig
	}
	return fmt.Sprintf("exited with status %d", ps.ExitCode())
}

// waitStderr gives the stderr reader a moment to take the last lines a
// crashing bridge wrote, so the error shows them.
func (c *Client) waitStderr() {
	select {
	case <-c.stderrDone:
	case <-time.After(500 * time.Millisecond):
	}
}

func (c *Client) handleLine(line []byte) error {
	bad := func(why string) error {
		return c.transportErr(FaultProtocol, fmt.Sprintf("the bridge wrote a stdout line that is not a JSON-RPC response (%s): %s", why, shorten(string(line), 200)), nil)
	}
	env, ok := splitEnvelope(line)
	if !ok {
		// The slow path, for the exact verdict on odd lines.
		if !json.Valid(line) {
			return bad("not JSON; stdout is for protocol lines only, logs go to stderr")
		}
		var msg map[string]json.RawMessage
		if err := json.Unmarshal(line, &msg); err != nil {
			if first := bytes.TrimSpace(line); len(first) > 0 && first[0] == '[' {
				return bad("a batch; bsadapter sends no batches, so answer each request with one object on its own line")
			}
			return bad("JSON, but not an object; stdout is for protocol lines only, logs go to stderr")
		}
		env = envelope{ID: msg["id"], Result: msg["result"], Error: msg["error"], Method: msg["method"], Params: msg["params"]}
		if v, ok := msg["jsonrpc"]; ok && json.Unmarshal(v, &env.JSONRPC) != nil {
			env.JSONRPC = ""
		}
	}
	if env.JSONRPC != "2.0" {
		return bad(`"jsonrpc" is not "2.0"`)
	}
	if env.Method != nil {
		return c.notification(env, bad)
	}
	var rpcErr *struct {
		Code    *int            `json:"code"`
		Message *string         `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	if env.Error != nil && string(env.Error) != "null" {
		if err := json.Unmarshal(env.Error, &rpcErr); err != nil || rpcErr == nil || rpcErr.Code == nil || rpcErr.Message == nil {
			return bad(`"error" is not an object with an integer "code" and a string "message"`)
		}
		if env.Result != nil {
			return bad(`it has both "result" and "error"; a response carries exactly one of them`)
		}
	}
	idText := string(env.ID)
	if env.ID == nil || idText == "null" {
		if rpcErr != nil {
			return c.transportErr(FaultProtocol, fmt.Sprintf("the bridge reported an error for no request (id null: it could not read a request line): %d %s", *rpcErr.Code, *rpcErr.Message), nil)
		}
		return bad(`no "id"; answer with the id of the request`)
	}
	var id int64
	if err := json.Unmarshal(env.ID, &id); err != nil {
		return bad(fmt.Sprintf("id %s is not one bsadapter sent: its ids are integers, so answer with the request's id exactly as it came", shorten(idText, 40)))
	}
	if env.Result == nil && rpcErr == nil {
		return bad(`neither "result" nor "error"`)
	}
	c.mu.Lock()
	ch, ok := c.removePendingLocked(id)
	_, late := c.abandoned[id]
	delete(c.abandoned, id)
	sent := id > 0 && id <= c.nextID
	c.mu.Unlock()
	if !ok {
		if late {
			return nil // the caller gave up on it already
		}
		if sent {
			return c.transportErr(FaultUnknown, fmt.Sprintf("the bridge answered request id %d a second time: %s", id, shorten(string(line), 200)), nil)
		}
		return c.transportErr(FaultUnknown, fmt.Sprintf("the bridge answered request id %d, which nobody asked: %s", id, shorten(string(line), 200)), nil)
	}
	var resp response
	if rpcErr != nil {
		resp.err = &RPCError{Code: *rpcErr.Code, Message: *rpcErr.Message, Data: rpcErr.Data}
	} else {
		// The line's buffer is reused by the reader: keep a copy.
		resp.result = append(json.RawMessage(nil), env.Result...)
	}
	ch <- resp
	return nil
}

// notification hands a version 2 bridge's notification to its handler.
// Before version 2, and for requests (a "method" with an "id"), it is the
// protocol fault it always was.
func (c *Client) notification(env envelope, bad func(string) error) error {
	var method string
	if c.version < 2 || (env.ID != nil && string(env.ID) != "null") || json.Unmarshal(env.Method, &method) != nil {
		return bad(`it has a "method", so it is a request or a notification; a bridge only answers bsadapter's requests, and sends notifications only from protocol version 2 on, without an "id"`)
	}
	c.nmu.Lock()
	fn := c.notify[method]
	c.nmu.Unlock()
	if fn == nil {
		return bad(fmt.Sprintf("a notification %q, which bsadapter did not ask for", method))
	}
	if err := fn(append(json.RawMessage(nil), env.Params...)); err != nil {
		return c.transportErr(FaultProtocol, fmt.Sprintf("the bridge sent a notification %q that breaks the protocol: %v: %s", method, err, shorten(string(env.Params), 200)), nil)
	}
	return nil
}

func (c *Client) readStderr(r io.Reader) {
	defer close(c.stderrDone)
	br := bufio.NewReaderSize(r, 16<<10)
	for {
		line, err := br.ReadSlice('\n')
		c.stderr.Write(line, err == nil)
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return
		}
	}
}

func (c *Client) wait() {
	ps, _ := c.cmd.Process.Wait()
	c.exitState = ps
	if c.sup != nil {
		// The supervisor is gone, and everything below it with it.
		c.sup.finish()
		close(c.exited)
		return
	}
	close(c.exited)
	// The bridge is gone: anything left in its group (a child it started)
	// must not outlive it, and would keep the pipes open.
	reapGroup(c.cmd.Process)
}

func (c *Client) killGroup() {
	select {
	case <-c.exited:
		if c.sup == nil {
			reapGroup(c.cmd.Process)
		}
	default:
		if c.sup != nil {
			c.sup.stop(c.cmd.Process, c.exited)
		} else {
			killProcessGroup(c.cmd.Process)
		}
	}
}

// kill stops the whole process group at once.
func (c *Client) kill() {
	c.killOnce.Do(func() {
		c.killGroup()
		_ = c.stdin.Close()
	})
}

// Close shuts the bridge down: a shutdown request, stdin closed, a few
// seconds for the process to exit, then its process group is killed. It
// waits until the process is reaped and is safe to call more than once.
// On Linux it also waits until every process the bridge started, in its
// group or not, is killed and reaped.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		alive := true
		select {
		case <-c.dead:
			alive = false
		default:
		}
		if alive {
			_ = c.call(context.Background(), 2*time.Second, MethodShutdown, nil, nil)
		}
		close(c.closing)
		c.wmu.Lock()
		_ = c.stdin.Close()
		c.wmu.Unlock()
		select {
		case <-c.exited:
		case <-time.After(exitGrace):
		}
		c.kill()
		<-c.exited
		for _, done := range []chan struct{}{c.readerDone, c.stderrDone} {
			select {
			case <-done:
			case <-time.After(2 * time.Second):
			}
		}
		c.fail(&TransportError{Kind: FaultClosed, Message: "the bridge client is closed"})
	})
	return nil
}

// shorten cuts s to at most n runes, marking the cut.
func shorten(s string, n int) string {
	s = strings.TrimRight(s, "\r\n")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + fmt.Sprintf("… (%d more characters)", len(r)-n)
}

var errLineTooLong = errors.New("line too long")

// readLine reads one line (without its newline), refusing lines longer than
// limit. At end of input it returns the last partial line and io.EOF.
func readLine(br *bufio.Reader, limit int) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > limit {
			return nil, errLineTooLong
		}
		if err == nil {
			if buf == nil {
				return bytes.TrimRight(chunk, "\r\n"), nil
			}
			buf = append(buf, chunk...)
			return bytes.TrimRight(buf, "\r\n"), nil
		}
		buf = append(buf, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return buf, err
		}
	}
}
