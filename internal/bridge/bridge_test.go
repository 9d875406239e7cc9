//go:build linux

package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/internal/bridge/bridgetest"
)

func TestMain(m *testing.M) { os.Exit(bridgetest.Main(m)) }

func goBridgeCmd(t *testing.T, flags ...string) []string { return bridgetest.GoBridge(t, flags...) }

func nodeBridgeCmd(t *testing.T, flags ...string) []string { return bridgetest.NodeBridge(t, flags...) }

type bridgeKind struct {
	name string
	cmd  func(t *testing.T, flags ...string) []string
}

var kinds = []bridgeKind{{"go", goBridgeCmd}, {"node", nodeBridgeCmd}}

func start(t *testing.T, ctx context.Context, argv []string, mod ...func(*Options)) *Client {
	t.Helper()
	// A request's bound is one a slow, busy machine still meets (a 16 MiB
	// message takes seconds there); the tests of the timeout itself set
	// their own short one.
	opts := Options{Command: argv, Timeout: 5 * time.Minute, ClientVersion: "0.0.0-test"}
	for _, m := range mod {
		m(&opts)
	}
	c, err := Start(ctx, opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func chatlet(i int) map[string]any {
	return map[string]any{
		"uid":  fmt.Sprintf("m%d", i),
		"from": []string{"human", "bot", "sys", "tool"}[i%4],
		"blocks": []any{
			map[string]any{"t": "txt", "body": fmt.Sprintf("hello %d °C — ✓", i)},
			map[string]any{"t": "think", "body": "hmm"},
			map[string]any{"t": "call", "ref": "c1", "fn": "weather", "args": map[string]any{"big": json.Number("123456789012345678901234567890.5"), "n": i}},
			map[string]any{"t": "ret", "ref": "c1", "fn": "weather", "value": nil, "failed": i%2 == 0},
			map[string]any{"t": "step", "edge": "finish"},
		},
		"meta": map[string]any{"seq": i},
	}
}

// Both bridges convert and round-trip a corpus with many requests in
// flight; answers come back out of order and still land on their callers.
func TestRoundTripPipelined(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			began := time.Now()
			c := start(t, context.Background(), k.cmd(t), func(o *Options) { o.Jobs = 4 })
			defer func() {
				if busy := c.BusyTime(); busy <= 0 || busy > time.Since(began) {
					t.Errorf("BusyTime() = %s, outside (0, %s]", busy, time.Since(began))
				}
			}()
			if got := c.Adapter(); got.Name != "chatlet" || got.Format != "chatlet-v1" || got.SDK != "chatlet" || got.Version != "0.1.0" {
				t.Errorf("Adapter() = %+v", got)
			}
			// The Node bridge also says which part types it expresses.
			if got := c.Capabilities(); !reflect.DeepEqual(got, Capabilities{Converter: true, Parts: got.Parts}) || (k.name == "node" && len(got.Parts) != 7) {
				t.Errorf("Capabilities() = %+v", got)
			}
			var wg sync.WaitGroup
			errs := make(chan error, 200)
			for i := 0; i < 200; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					native := chatlet(i)
					var first struct {
						Message map[string]any `json:"message"`
					}
					if err := c.Call(context.Background(), MethodFromSDK, map[string]any{"native": native}, &first); err != nil {
						errs <- err
						return
					}
					if first.Message["id"] != fmt.Sprintf("m%d", i) {
						errs <- fmt.Errorf("message %d came back as %v: answers were mixed up", i, first.Message["id"])
						return
					}
					var back struct {
						Native json.RawMessage `json:"native"`
					}
					if err := c.Call(context.Background(), MethodToSDK, map[string]any{"message": first.Message}, &back); err != nil {
						errs <- err
						return
					}
					var again json.RawMessage
					if err := c.Call(context.Background(), MethodFromSDK, map[string]any{"native": back.Native}, &again); err != nil {
						errs <- err
						return
					}
					var second struct {
						Message map[string]any `json:"message"`
					}
					d := json.NewDecoder(strings.NewReader(string(again)))
					d.UseNumber()
					if err := d.Decode(&second); err != nil {
						errs <- err
						return
					}
					if !reflect.DeepEqual(first.Message["parts"], second.Message["parts"]) {
						errs <- fmt.Errorf("message %d: parts changed in the round trip", i)
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}

// Numbers beyond float64 precision survive the Go bridge and the client
// unchanged (the client decodes into json.Number).
func TestExactNumbers(t *testing.T) {
	c := start(t, context.Background(), goBridgeCmd(t))
	var res struct {
		Message struct {
			Parts []map[string]any `json:"parts"`
		} `json:"message"`
	}
	if err := c.Call(context.Background(), MethodFromSDK, map[string]any{"native": chatlet(1)}, &res); err != nil {
		t.Fatal(err)
	}
	big := res.Message.Parts[2]["input"].(map[string]any)["big"]
	if big != json.Number("123456789012345678901234567890.5") {
		t.Errorf("big number came back as %#v", big)
	}
}

// A converter failure is an RPCError with the bridge's message; the bridge
// stays usable.
func TestRPCError(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			c := start(t, context.Background(), k.cmd(t))
			native := map[string]any{"uid": "x", "from": "bot", "blocks": []any{map[string]any{"t": "hologram"}}}
			err := c.Call(context.Background(), MethodFromSDK, map[string]any{"native": native}, nil)
			var re *RPCError
			if !errors.As(err, &re) {
				t.Fatalf("got %v, want an RPCError", err)
			}
			if re.Code != CodeAdapter || !strings.Contains(re.Message, `unknown chatlet block type "hologram"`) && !strings.Contains(re.Message, "unknown chatlet block type hologram") {
				t.Errorf("RPCError = %d %q", re.Code, re.Message)
			}
			if !strings.Contains(string(re.Data), "invalid_input") {
				t.Errorf("data = %s", re.Data)
			}
			if err := c.Call(context.Background(), MethodFromSDK, map[string]any{"native": chatlet(2)}, nil); err != nil {
				t.Errorf("bridge unusable after an RPC error: %v", err)
			}
			if err := c.Call(context.Background(), "converter.nope", map[string]any{}, nil); !errors.As(err, &re) || re.Code != CodeMethodNotFound {
				t.Errorf("unknown method: %v", err)
			}
		})
	}
}

func TestRPCErrorHint(t *testing.T) {
	e := &RPCError{Code: -32000, Message: "no such stream", Data: json.RawMessage(`{"hint":"STREAM_NOT_FOUND","kind":"not_found"}`)}
	if e.Hint() != "STREAM_NOT_FOUND" || !strings.Contains(e.Error(), "STREAM_NOT_FOUND") {
		t.Errorf("Hint %q Error %q", e.Hint(), e.Error())
	}
	if (&RPCError{Data: json.RawMessage(`[1]`)}).Hint() != "" {
		t.Error("hint from a non-object")
	}
}

// A method of a capability the bridge did not declare fails locally,
// without a round trip.
func TestUndeclaredCapability(t *testing.T) {
	c := start(t, context.Background(), goBridgeCmd(t))
	err := c.Call(context.Background(), MethodStreamOpen, map[string]any{"id": "s"}, nil)
	var re *RPCError
	if !errors.As(err, &re) || re.Code != CodeMethodNotFound || !strings.Contains(re.Message, `"streamStore" capability`) {
		t.Fatalf("got %v", err)
	}
}

// A multi-megabyte line goes both ways intact.
func TestLongLine(t *testing.T) {
	c := start(t, context.Background(), goBridgeCmd(t))
	body := strings.Repeat("0123456789abcdef", 1<<20) // 16 MiB
	native := map[string]any{"uid": "big", "from": "bot", "blocks": []any{map[string]any{"t": "txt", "body": body}}}
	var res struct {
		Message struct {
			Parts []struct{ Text string } `json:"parts"`
		} `json:"message"`
	}
	if err := c.Call(context.Background(), MethodFromSDK, map[string]any{"native": native}, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Message.Parts) != 1 || res.Message.Parts[0].Text != body {
		t.Fatal("the 16 MiB text did not come back intact")
	}
}

func TestStartMissingCommand(t *testing.T) {
	_, err := Start(context.Background(), Options{Command: []string{"bsadapter-no-such-bridge", "x"}})
	var te *TransportError
	if !errors.As(err, &te) || te.Kind != FaultStart {
		t.Fatalf("got %v", err)
	}
	if !strings.Contains(err.Error(), "cannot start the bridge bsadapter-no-such-bridge x") || !strings.Contains(err.Error(), "executable file not found") {
		t.Errorf("message: %v", err)
	}
	_, err = Start(context.Background(), Options{Command: []string{"./bridge.mjs"}, Dir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("relative command in Dir: %v", err)
	}
	if _, err := Start(context.Background(), Options{}); err == nil {
		t.Error("empty command accepted")
	}
}

func faultOf(err error) FaultKind {
	var te *TransportError
	if errors.As(err, &te) {
		return te.Kind
	}
	return ""
}

// Each deliberately broken bridge gives its own clear error, with the last
// lines of the bridge's stderr, and never a hang.
func TestFaults(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			t.Run("exit-at-once", func(t *testing.T) {
				_, err := Start(context.Background(), Options{Command: k.cmd(t, "--fault=exit-at-once")})
				if faultOf(err) != FaultExited {
					t.Fatalf("got %v", err)
				}
				msg := err.Error()
				for _, want := range []string{"exited before answering initialize", "status 3", "annot find module"} {
					if !strings.Contains(msg, want) {
						t.Errorf("error lacks %q:\n%s", want, msg)
					}
				}
			})
			t.Run("version", func(t *testing.T) {
				_, err := Start(context.Background(), Options{Command: k.cmd(t, "--fault=version")})
				if faultOf(err) != FaultVersion {
					t.Fatalf("got %v", err)
				}
				if !strings.Contains(err.Error(), "protocol versions 1 and 2") || !strings.Contains(err.Error(), "version 3") {
					t.Errorf("error does not name both versions: %v", err)
				}
			})
			t.Run("crash-after", func(t *testing.T) {
				c := start(t, context.Background(), k.cmd(t, "--fault=crash-after", "--after=3"), func(o *Options) { o.Jobs = 1 })
				var errs []error
				for i := 0; i < 5; i++ {
					errs = append(errs, c.Call(context.Background(), MethodFromSDK, map[string]any{"native": chatlet(i)}, nil))
				}
				if errs[0] != nil || errs[1] != nil {
					t.Fatalf("first calls failed: %v %v", errs[0], errs[1])
				}
				for _, err := range errs[2:] {
					if faultOf(err) != FaultExited {
						t.Fatalf("after the crash: %v", err)
					}
				}
				msg := errs[2].Error()
				if !strings.Contains(msg, "exited with status 2") || !strings.Contains(msg, "adapter.ts:12:3") {
					t.Errorf("crash error lacks status or stderr:\n%s", msg)
				}
			})
			t.Run("badline", func(t *testing.T) {
				c := start(t, context.Background(), k.cmd(t, "--fault=badline"))
				err := c.Call(context.Background(), MethodFromSDK, map[string]any{"native": chatlet(0)}, nil)
				if faultOf(err) != FaultProtocol || !strings.Contains(err.Error(), "converting message... done") {
					t.Fatalf("got %v", err)
				}
			})
			t.Run("hang", func(t *testing.T) {
				c := start(t, context.Background(), k.cmd(t, "--fault=hang"))
				err := c.CallTimeout(context.Background(), 300*time.Millisecond, MethodFromSDK, map[string]any{"native": chatlet(0)}, nil)
				if faultOf(err) != FaultTimeout || !strings.Contains(err.Error(), "did not answer converter.fromSdk") || !strings.Contains(err.Error(), "300ms") {
					t.Fatalf("got %v", err)
				}
				var te *TransportError
				errors.As(err, &te)
				if te.Fatal() {
					t.Error("a timeout should not be fatal")
				}
			})
			t.Run("unknown-id", func(t *testing.T) {
				c := start(t, context.Background(), k.cmd(t, "--fault=unknown-id"))
				err := c.Call(context.Background(), MethodFromSDK, map[string]any{"native": chatlet(0)}, nil)
				if faultOf(err) != FaultUnknown || !strings.Contains(err.Error(), "id 4242") {
					t.Fatalf("got %v", err)
				}
			})
			t.Run("flood", func(t *testing.T) {
				c := start(t, context.Background(), k.cmd(t, "--fault=flood"))
				for i := 0; i < 20; i++ {
					if err := c.Call(context.Background(), MethodFromSDK, map[string]any{"native": chatlet(i)}, nil); err != nil {
						t.Fatal(err)
					}
				}
				c.Close()
				tail := c.StderrTail()
				lines := strings.Split(strings.TrimRight(tail, "\n"), "\n")
				if len(lines) != DefaultStderrLines+1 || !strings.Contains(lines[0], "earlier lines not shown") {
					t.Errorf("tail has %d lines, first %q", len(lines), lines[0])
				}
				if !strings.Contains(lines[len(lines)-1], "debug line 1999") {
					t.Errorf("last line %q", lines[len(lines)-1])
				}
			})
		})
	}
}

// A bridge that refuses initialize without naming a version gets its own
// error shown, with its stderr, and is not said to speak another version.
func TestInitializeRefused(t *testing.T) {
	_, err := Start(context.Background(), Options{Command: goBridgeCmd(t, "--fault=init-error")})
	if faultOf(err) != FaultVersion {
		t.Fatalf("got %v", err)
	}
	msg := err.Error()
	for _, want := range []string{
		`the bridge refused the handshake with error -32000: cannot load the adapter (bsadapter speaks bridge protocol versions 1 and 2; a bridge that speaks another one says which in the error's data, e.g. {"supported": [3]})`,
		"  | Error: Cannot find module '@chatlet/core'",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "another version") {
		t.Errorf("error claims a version mismatch:\n%s", msg)
	}
}

// Each answer that breaks JSON-RPC 2.0 is a protocol fault that says what is
// wrong with it; an error object that follows the rules is the bridge's
// answer to that call.
func TestResponseShapes(t *testing.T) {
	cases := []struct {
		reply string
		kind  FaultKind
		want  string
	}{
		{`{"jsonrpc":"2.0","id":ID,"result":{"message":{}},"error":{"code":-32000,"message":"boom"}}`, FaultProtocol,
			`it has both "result" and "error"; a response carries exactly one of them`},
		{`{"jsonrpc":"2.0","method":"log","params":{"line":"converting"}}`, FaultProtocol,
			`it has a "method", so it is a request or a notification; a bridge only answers bsadapter's requests`},
		{`{"jsonrpc":"2.0","id":"ID","result":null}`, FaultProtocol,
			`id "2" is not one bsadapter sent: its ids are integers, so answer with the request's id exactly as it came`},
		{`{"jsonrpc":"2.0","id":ID.5,"result":null}`, FaultProtocol, `id 2.5 is not one bsadapter sent`},
		{`{"jsonrpc":"2.0","id":+ID,"result":null}`, FaultProtocol, `id +2 is not one bsadapter sent`},
		{`{"jsonrpc":"2.0","id":0ID,"result":null}`, FaultProtocol, `id 02 is not one bsadapter sent`},
		{`{"jsonrpc":"2.0","id":ID,"error":{}}`, FaultProtocol,
			`"error" is not an object with an integer "code" and a string "message"`},
		{`{"jsonrpc":"2.0","id":ID,"error":{"code":-32000}}`, FaultProtocol, `"error" is not an object with an integer "code"`},
		{`[{"jsonrpc":"2.0","id":ID,"result":null}]`, FaultProtocol,
			`a batch; bsadapter sends no batches, so answer each request with one object on its own line`},
		{`"done"`, FaultProtocol, `JSON, but not an object`},
		{`{"jsonrpc":2,"id":ID,"result":null}`, FaultProtocol, `"jsonrpc" is not "2.0"`},
		{`{"jsonrpc":"2.0","id":ID}`, FaultProtocol, `neither "result" nor "error"`},
		{`{"jsonrpc":"2.0","result":null}`, FaultProtocol, `no "id"; answer with the id of the request`},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, FaultProtocol,
			`the bridge reported an error for no request (id null: it could not read a request line): -32700 Parse error`},
		{`{"jsonrpc":"2.0","id":ID,"error":{"code":-32000,"message":"refused","data":{"hint":"X"}}}`, "",
			`bridge error -32000: refused [X]`},
		{`{"jsonrpc":"2.0","id":ID,"result":{"ok":true},"error":null}`, "", ""},
	}
	// An answer given twice: the call gets the first; the second is a
	// fault of its own, named as such.
	t.Run("twice", func(t *testing.T) {
		c := start(t, context.Background(), goBridgeCmd(t, "--fault=reply", "--reply="+`{"jsonrpc":"2.0","id":ID,"result":{"n":1}}`+"\n"+`{"jsonrpc":"2.0","id":ID,"result":{"n":2}}`))
		var res map[string]any
		if err := c.Call(context.Background(), MethodFromSDK, map[string]any{"native": chatlet(0)}, &res); err != nil || fmt.Sprint(res["n"]) != "1" {
			t.Fatalf("first answer: %v %v", res, err)
		}
		err := c.Call(context.Background(), MethodFromSDK, map[string]any{"native": chatlet(1)}, nil)
		if faultOf(err) != FaultUnknown || !strings.Contains(err.Error(), `the bridge answered request id 2 a second time: {"jsonrpc":"2.0","id":2,"result":{"n":2}}`) {
			t.Fatalf("got %v", err)
		}
	})
	for _, tc := range cases {
		t.Run(tc.reply, func(t *testing.T) {
			c := start(t, context.Background(), goBridgeCmd(t, "--fault=reply", "--reply="+tc.reply))
			err := c.Call(context.Background(), MethodFromSDK, map[string]any{"native": chatlet(0)}, nil)
			if got := faultOf(err); got != tc.kind {
				t.Fatalf("fault %q, want %q: %v", got, tc.kind, err)
			}
			if tc.want == "" {
				if err != nil {
					t.Fatalf("got %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error lacks %q:\n%v", tc.want, err)
			}
			if tc.kind == "" {
				var re *RPCError
				if !errors.As(err, &re) {
					t.Fatalf("not an RPCError: %T %v", err, err)
				}
			}
		})
	}
}

// A bridge that stops reading its stdin cannot block a call past its
// timeout, even when the request does not fit in the pipe.
func TestNoReadTimeout(t *testing.T) {
	c := start(t, context.Background(), goBridgeCmd(t, "--fault=noread"))
	native := map[string]any{"uid": "big", "from": "bot", "blocks": []any{map[string]any{"t": "txt", "body": strings.Repeat("x", 4<<20)}}}
	err := c.CallTimeout(context.Background(), 300*time.Millisecond, MethodFromSDK, map[string]any{"native": native}, nil)
	if faultOf(err) != FaultTimeout || !strings.Contains(err.Error(), "did not read request") {
		t.Fatalf("got %v", err)
	}
}

func readPids(t *testing.T, file string) (int, int) {
	t.Helper()
	for i := 0; i < 500; i++ {
		b, err := os.ReadFile(file)
		if err == nil && len(strings.Fields(string(b))) == 2 {
			f := strings.Fields(string(b))
			a, _ := strconv.Atoi(f[0])
			c, _ := strconv.Atoi(f[1])
			return a, c
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the bridge never wrote its pid file")
	return 0, 0
}

func waitGone(t *testing.T, pids ...int) {
	t.Helper()
	for i := 0; i < 500; i++ {
		any := false
		for _, p := range pids {
			if bridgetest.Alive(p) {
				any = true
			}
		}
		if !any {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, p := range pids {
		if bridgetest.Alive(p) {
			syscall.Kill(p, syscall.SIGKILL)
			t.Errorf("process %d outlived the bridge client", p)
		}
	}
}

// Cancelling the context (Ctrl-C in the CLI) kills the bridge and the
// process it started; so does Close.
func TestInterruptKillsProcessGroup(t *testing.T) {
	for _, k := range kinds {
		for _, how := range []string{"cancel", "close"} {
			t.Run(k.name+"/"+how, func(t *testing.T) {
				pidFile := filepath.Join(t.TempDir(), "pids")
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				c := start(t, ctx, k.cmd(t, "--fault=grandchild", "--pidfile="+pidFile))
				bridgePid, childPid := readPids(t, pidFile)
				if !bridgetest.Alive(bridgePid) || !bridgetest.Alive(childPid) {
					t.Fatal("bridge or grandchild not running")
				}
				if how == "cancel" {
					cancel()
				} else {
					c.Close()
				}
				waitGone(t, bridgePid, childPid)
				if err := c.Call(context.Background(), MethodFromSDK, map[string]any{"native": chatlet(0)}, nil); faultOf(err) != FaultClosed {
					t.Errorf("call after stop: %v", err)
				}
			})
		}
	}
}

// Close is idempotent and shuts a healthy bridge down in order.
func TestCloseTwice(t *testing.T) {
	c := start(t, context.Background(), goBridgeCmd(t))
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if c.cmd.ProcessState == nil && c.exitState == nil {
		t.Fatal("process not reaped")
	}
	if c.exitState.ExitCode() != 0 {
		t.Errorf("bridge exit code %d after an orderly shutdown", c.exitState.ExitCode())
	}
}

func TestSplitCommand(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"npx tsx bsadapter.bridge.ts", []string{"npx", "tsx", "bsadapter.bridge.ts"}},
		{`  node  'my bridge.mjs'   --x="a b"  `, []string{"node", "my bridge.mjs", "--x=a b"}},
		{`node "say \"hi\"" a\ b ''`, []string{"node", `say "hi"`, "a b", ""}},
		{`'$HOME' "\$HOME"`, []string{"$HOME", "$HOME"}},
		// A name that is not UTF-8 is kept byte for byte (FuzzSplitCommand).
		{"node caf\xe9.mjs 'd\xe9j\xe0'", []string{"node", "caf\xe9.mjs", "d\xe9j\xe0"}},
	}
	for _, tc := range cases {
		got, err := SplitCommand(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "   ", `node 'x`, `node "x`, `node x\`} {
		if _, err := SplitCommand(bad); err == nil {
			t.Errorf("SplitCommand(%q) accepted", bad)
		}
	}
}

// A version 1 bridge is driven in version 1: one that answers an offer of
// version 2 with 1, and one that refuses any version but 1 (as bridges
// written for version 1 do) and then accepts it.
func TestInitializeNegotiatesVersion1(t *testing.T) {
	for _, fault := range []string{"--fault=none", "--fault=v1-strict"} {
		c, err := Start(context.Background(), Options{Command: goBridgeCmd(t, fault)})
		if err != nil {
			t.Fatalf("%s: %v", fault, err)
		}
		if c.Version() != 1 {
			t.Errorf("%s: agreed on version %d, want 1", fault, c.Version())
		}
		if len(c.Capabilities().Optional) != 0 {
			t.Errorf("%s: a version 1 bridge has optional capabilities %v", fault, c.Capabilities().Optional)
		}
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	}
}

// A start and a request are two waits: a bridge that takes seconds to
// start passes with a per-request timeout far below that, and a bridge
// that starts and then hangs on its first request is a request timeout,
// not a start timeout.
func TestStartTimeoutApartFromRequests(t *testing.T) {
	t.Run("slow start, quick answers", func(t *testing.T) {
		t.Parallel()
		c, err := Start(context.Background(), Options{Command: goBridgeCmd(t, "-start-delay=5s"), Timeout: 300 * time.Millisecond})
		if err != nil {
			t.Fatalf("a bridge that starts in 5s failed with a request timeout of 300ms: %v", err)
		}
		defer c.Close()
		if c.StartedIn() < 5*time.Second {
			t.Errorf("StartedIn %s, want at least the 5s the bridge waited", c.StartedIn())
		}
		for i := range 3 {
			if err := c.Call(context.Background(), MethodFromSDK, map[string]any{"native": chatlet(i)}, nil); err != nil {
				t.Errorf("request %d: %v", i, err)
			}
		}
	})
	t.Run("hangs on its first request", func(t *testing.T) {
		t.Parallel()
		c, err := Start(context.Background(), Options{Command: goBridgeCmd(t, "-fault=hang"), Timeout: 300 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		err = c.Call(context.Background(), MethodFromSDK, map[string]any{"native": chatlet(0)}, nil)
		var te *TransportError
		if !errors.As(err, &te) || te.Kind != FaultTimeout || te.StartTimeout {
			t.Fatalf("got %v, want a request timeout", err)
		}
		if !strings.Contains(err.Error(), "did not answer "+MethodFromSDK) || !strings.Contains(err.Error(), "300ms") {
			t.Errorf("the error does not name the request and its wait: %v", err)
		}
	})
	t.Run("never answers initialize", func(t *testing.T) {
		t.Parallel()
		_, err := Start(context.Background(), Options{Command: goBridgeCmd(t, "-start-delay=1h"), Timeout: 10 * time.Millisecond, StartTimeout: time.Second})
		var te *TransportError
		if !errors.As(err, &te) || te.Kind != FaultTimeout || !te.StartTimeout {
			t.Fatalf("got %v, want a start timeout", err)
		}
		if !strings.Contains(err.Error(), "did not start") || !strings.Contains(err.Error(), "start timeout of 1s") {
			t.Errorf("the error does not say the start's wait ran out, and how long it was: %v", err)
		}
	})
}
