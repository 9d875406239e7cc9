package scaffold_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/config"
	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/bridgestore"
	"github.com/bsadapter/bsadapter/internal/conform/conformtest"
	"github.com/bsadapter/bsadapter/internal/conform/suites"
	"github.com/bsadapter/bsadapter/internal/conform/suites/aitaskrunner"
	"github.com/bsadapter/bsadapter/internal/conform/suites/builder"
	"github.com/bsadapter/bsadapter/internal/conform/suites/chatstate"
	"github.com/bsadapter/bsadapter/internal/conform/suites/credentials"
	"github.com/bsadapter/bsadapter/internal/conform/suites/embedder"
	"github.com/bsadapter/bsadapter/internal/conform/suites/engine"
	"github.com/bsadapter/bsadapter/internal/conform/suites/graphcompiler"
	"github.com/bsadapter/bsadapter/internal/conform/suites/registry"
	"github.com/bsadapter/bsadapter/internal/conform/suites/streams"
	"github.com/bsadapter/bsadapter/internal/conform/suites/world"
	"github.com/bsadapter/bsadapter/internal/fixtures"
	"github.com/bsadapter/bsadapter/internal/scaffold"
	"github.com/bsadapter/bsadapter/internal/testenv"
	"github.com/bsadapter/bsadapter/schemas"
)

// scaffoldInto renders and writes an adapter into a fresh temp folder.
func scaffoldInto(t *testing.T, o scaffold.Options) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), o.Name)
	o.Dir = dir
	if o.Placement == "" {
		o.Placement = scaffold.PlacementPackage
	}
	plan, err := scaffold.Render(&o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := scaffold.Write(plan, false); err != nil {
		t.Fatal(err)
	}
	return dir
}

// startBridge starts the generated bridge with the tsx of tools/node, as
// its bsadapter.json says but without an npm install: the bridge's
// runtime path needs nothing beyond Node itself.
func startBridge(t *testing.T, dir string) *bridge.Client {
	t.Helper()
	tsx := testenv.NodeBin(t, "tsx")
	cfg, err := config.Load(filepath.Join(dir, config.FileName))
	if err != nil {
		t.Fatalf("the generated bsadapter.json does not load: %v", err)
	}
	if got := strings.Join(cfg.Bridge.Command, " "); got != "npx tsx bsadapter.bridge.ts" {
		t.Fatalf("bridge command = %q", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	c, err := bridge.Start(ctx, bridge.Options{Command: []string{tsx, "bsadapter.bridge.ts"}, Dir: dir, Jobs: 64, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatalf("start bridge: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func loadMessages(t *testing.T, path string) []json.RawMessage {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var arr []json.RawMessage
	if json.Unmarshal(data, &arr) == nil {
		return arr
	}
	// A conversation fixture: {"conversation": [...]}.
	var conv map[string][]json.RawMessage
	if json.Unmarshal(data, &conv) == nil && len(conv) == 1 && conv["conversation"] != nil {
		return conv["conversation"]
	}
	return []json.RawMessage{data}
}

// roundTrip converts native, validates it against ai-message-v1,
// converts it back and again, and compares the parts.
func roundTrip(t *testing.T, c *bridge.Client, where string, native json.RawMessage) map[string]any {
	t.Helper()
	ctx := context.Background()
	schema, err := schemas.Compile(schemas.AiMessageV1)
	if err != nil {
		t.Fatal(err)
	}
	var first struct{ Message json.RawMessage }
	if err := c.Call(ctx, bridge.MethodFromSDK, map[string]any{"native": native}, &first); err != nil {
		t.Errorf("%s: fromSdk: %v", where, err)
		return nil
	}
	msg, err := jsonValue(first.Message)
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(msg); err != nil {
		t.Errorf("%s: the canonical message is not valid ai-message-v1: %v\n%s", where, err, first.Message)
		return nil
	}
	var back struct{ Native json.RawMessage }
	if err := c.Call(ctx, bridge.MethodToSDK, map[string]any{"message": first.Message}, &back); err != nil {
		t.Errorf("%s: toSdk: %v", where, err)
		return nil
	}
	var second struct{ Message json.RawMessage }
	if err := c.Call(ctx, bridge.MethodFromSDK, map[string]any{"native": back.Native}, &second); err != nil {
		t.Errorf("%s: fromSdk of the round trip: %v", where, err)
		return nil
	}
	m1, m2 := msg.(map[string]any), mustValue(t, second.Message).(map[string]any)
	if !reflect.DeepEqual(m1["parts"], m2["parts"]) {
		t.Errorf("%s: the round trip changed the parts:\nfirst  %v\nsecond %v", where, m1["parts"], m2["parts"])
	}
	return m1
}

// norm re-decodes v with plain float64 numbers (the bridge client keeps
// json.Number), so results compare with reflect.DeepEqual.
func norm[T any](v T) T {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}

func jsonValue(raw json.RawMessage) (any, error) {
	var v any
	err := json.Unmarshal(raw, &v)
	return v, err
}

func mustValue(t *testing.T, raw json.RawMessage) any {
	v, err := jsonValue(raw)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The LangChain preset converts every message of the shared LangChain
// corpus (the JS forms and the Python-only ones), and its own fixtures.
func TestLangChainBridgeOverCorpus(t *testing.T) {
	corpus := filepath.Join(testenv.Corpus(t), "langchain")
	dir := scaffoldInto(t, scaffold.Options{Name: "langchain"})
	c := startBridge(t, dir)
	if a := c.Adapter(); a.Name != "langchain" || a.Format != "langchain-v1" || a.SDK != "@langchain/core" {
		t.Errorf("initialize reported %+v", a)
	}
	if caps := c.Capabilities(); !caps.Converter || !caps.StreamStore || !caps.RunRegistry {
		t.Errorf("capabilities %+v: want all three", caps)
	}
	files, _ := filepath.Glob(filepath.Join(corpus, "*.json"))
	own, _ := filepath.Glob(filepath.Join(dir, "fixtures", "*.json"))
	if len(files) < 15 || len(own) == 0 {
		t.Fatalf("corpus has %d files, fixtures %d", len(files), len(own))
	}
	roles := map[string]int{}
	partTypes := map[string]int{}
	for _, f := range append(files, own...) {
		for i, native := range loadMessages(t, f) {
			m := roundTrip(t, c, fmt.Sprintf("%s[%d]", filepath.Base(f), i), native)
			if m == nil {
				continue
			}
			roles[m["role"].(string)]++
			for _, p := range m["parts"].([]any) {
				partTypes[p.(map[string]any)["type"].(string)]++
			}
		}
	}
	for _, r := range []string{"user", "assistant", "tool", "system"} {
		if roles[r] == 0 {
			t.Errorf("no %s message among the converted ones: %v", r, roles)
		}
	}
	for _, p := range []string{"text", "reasoning", "tool-call", "tool-result", "data"} {
		if partTypes[p] == 0 {
			t.Errorf("no %s part among the converted ones: %v", p, partTypes)
		}
	}
}

// Specific mappings of the LangChain preset, checked field by field.
func TestLangChainMappings(t *testing.T) {
	dir := scaffoldInto(t, scaffold.Options{Name: "langchain"})
	c := startBridge(t, dir)
	ctx := context.Background()
	from := func(native string) map[string]any {
		var res struct{ Message map[string]any }
		if err := c.Call(ctx, bridge.MethodFromSDK, map[string]any{"native": json.RawMessage(native)}, &res); err != nil {
			t.Fatalf("fromSdk %s: %v", native, err)
		}
		return norm(res.Message)
	}
	m := from(`{"lc":1,"type":"constructor","id":["langchain_core","messages","AIMessage"],"kwargs":{"id":"a1","content":"hi","tool_calls":[{"name":"f","args":{"x":1},"id":"c1","type":"tool_call"}],"invalid_tool_calls":[]}}`)
	parts := m["parts"].([]any)
	if m["role"] != "assistant" || m["id"] != "a1" || len(parts) != 2 {
		t.Fatalf("AI message: %v", m)
	}
	if p := parts[1].(map[string]any); p["type"] != "tool-call" || p["toolCallId"] != "c1" || p["toolName"] != "f" || !reflect.DeepEqual(p["input"], map[string]any{"x": 1.0}) {
		t.Errorf("tool call part: %v", p)
	}
	m = from(`{"type":"tool","data":{"content":"boom","tool_call_id":"c1","name":"f","status":"error"}}`)
	if p := m["parts"].([]any)[0].(map[string]any); m["role"] != "tool" || p["type"] != "tool-result" || p["isError"] != true || p["output"] != "boom" {
		t.Errorf("tool message: %v", m)
	}
	if id, _ := m["id"].(string); id == "" {
		t.Errorf("a message without an id got no id: %v", m)
	}
	// The id generated for a message without one does not leak back.
	var back struct{ Native map[string]any }
	if err := c.Call(ctx, bridge.MethodToSDK, map[string]any{"message": m}, &back); err != nil {
		t.Fatal(err)
	}
	if _, has := back.Native["data"].(map[string]any)["id"]; has || back.Native["type"] != "tool" {
		t.Errorf("toSdk of a dict-form message: %v", back.Native)
	}
	// A message from elsewhere comes back in the JS constructor form.
	back.Native = nil
	if err := c.Call(ctx, bridge.MethodToSDK, map[string]any{"message": map[string]any{"id": "u1", "role": "user", "parts": []any{map[string]any{"type": "text", "text": "yo"}}}}, &back); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"lc": 1.0, "type": "constructor", "id": []any{"langchain_core", "messages", "HumanMessage"}, "kwargs": map[string]any{"content": "yo", "id": "u1"}}
	if back.Native = norm(back.Native); !reflect.DeepEqual(back.Native, want) {
		t.Errorf("toSdk of a canonical user message:\n got %v\nwant %v", back.Native, want)
	}
	// A file part from elsewhere becomes the standard block for its media
	// type, not an image_url: a PDF stays a file with its type and name, and
	// reading it back gives the same parts.
	foreign := map[string]any{"id": "u2", "role": "user", "parts": []any{
		map[string]any{"type": "file", "mediaType": "application/pdf", "url": "data:application/pdf;base64,JVBERi0x", "filename": "report.pdf"},
		map[string]any{"type": "file", "mediaType": "image/png", "url": "https://example.com/p.png"},
		map[string]any{"type": "file", "mediaType": "audio/wav", "url": "data:audio/wav;base64,UklGRg=="},
	}}
	back.Native = nil
	if err := c.Call(ctx, bridge.MethodToSDK, map[string]any{"message": foreign}, &back); err != nil {
		t.Fatal(err)
	}
	wantBlocks := []any{
		map[string]any{"type": "file", "mimeType": "application/pdf", "data": "JVBERi0x", "filename": "report.pdf"},
		map[string]any{"type": "image", "mimeType": "image/png", "url": "https://example.com/p.png"},
		map[string]any{"type": "audio", "mimeType": "audio/wav", "data": "UklGRg=="},
	}
	if got := norm(back.Native)["kwargs"].(map[string]any)["content"]; !reflect.DeepEqual(got, wantBlocks) {
		t.Errorf("file parts from elsewhere:\n got %v\nwant %v", got, wantBlocks)
	}
	raw, _ := json.Marshal(back.Native)
	again := from(string(raw))
	for i, p := range again["parts"].([]any) {
		got := p.(map[string]any)
		delete(got, "providerMetadata")
		if want := foreign["parts"].([]any)[i]; !reflect.DeepEqual(got, want) {
			t.Errorf("file part %d read back:\n got %v\nwant %v", i, got, want)
		}
	}

	// Anthropic's tool_use blocks repeat tool_calls: kept verbatim as data
	// parts, and written back into content in place.
	anth := `{"lc":1,"type":"constructor","id":["langchain_core","messages","AIMessage"],"kwargs":{"id":"a2","content":[{"type":"text","text":"Let me look."},{"type":"tool_use","id":"toolu_1","name":"search","input":{"q":"x"}}],"tool_calls":[{"name":"search","args":{"q":"x"},"id":"toolu_1","type":"tool_call"}],"invalid_tool_calls":[]}}`
	m = from(anth)
	var types []string
	for _, p := range m["parts"].([]any) {
		types = append(types, p.(map[string]any)["type"].(string))
	}
	if strings.Join(types, ",") != "text,data,tool-call" {
		t.Errorf("Anthropic-style AI message parts: %v", types)
	}
	roundTrip(t, c, "anthropic tool_use", json.RawMessage(anth))
	back.Native = nil
	if err := c.Call(ctx, bridge.MethodToSDK, map[string]any{"message": m}, &back); err != nil {
		t.Fatal(err)
	}
	var orig map[string]any
	json.Unmarshal([]byte(anth), &orig)
	if got := norm(back.Native)["kwargs"].(map[string]any)["content"]; !reflect.DeepEqual(got, orig["kwargs"].(map[string]any)["content"]) {
		t.Errorf("content after the round trip: %v", got)
	}

	// Python's content lists may hold bare strings beside blocks: each is a
	// text part, written back as a bare string in its place.
	bare := `{"type":"human","data":{"content":["look at this",{"type":"image_url","image_url":{"url":"https://example.com/a.png"}},"and this"],"id":"h9"}}`
	m = from(bare)
	types = nil
	for _, p := range m["parts"].([]any) {
		types = append(types, p.(map[string]any)["type"].(string))
	}
	if strings.Join(types, ",") != "text,file,text" || m["parts"].([]any)[2].(map[string]any)["text"] != "and this" {
		t.Errorf("bare strings in content: %v", m["parts"])
	}
	roundTrip(t, c, "bare strings", json.RawMessage(bare))
	back.Native = nil
	if err := c.Call(ctx, bridge.MethodToSDK, map[string]any{"message": m}, &back); err != nil {
		t.Fatal(err)
	}
	var bareWant map[string]any
	json.Unmarshal([]byte(bare), &bareWant)
	if got := norm(back.Native); !reflect.DeepEqual(got, bareWant) {
		t.Errorf("bare strings written back:\n got %v\nwant %v", got, bareWant)
	}

	// Unknown content blocks and parts are refused, not dropped (rule 5).
	for _, bad := range []string{
		`{"lc":1,"type":"constructor","id":["langchain_core","messages","HumanMessage"],"kwargs":{"content":[{"type":"hologram"}]}}`,
		`{"lc":1,"type":"constructor","id":["langchain_core","messages","FancyMessage"],"kwargs":{"content":"x"}}`,
		`{"type":"ai","data":{"content":"x","tool_calls":[{"name":"f","args":{},"type":"server_tool_call"}]}}`,
		`"just a string"`,
		`{"type":"human","data":{"content":["fine",42]}}`,
	} {
		err := c.Call(ctx, bridge.MethodFromSDK, map[string]any{"native": json.RawMessage(bad)}, nil)
		var rpc *bridge.RPCError
		if !errors.As(err, &rpc) || rpc.Code != bridge.CodeAdapter {
			t.Errorf("fromSdk %s: want an adapter error, got %v", bad, err)
		}
	}
	err := c.Call(ctx, bridge.MethodToSDK, map[string]any{"message": map[string]any{"id": "u1", "role": "user", "parts": []any{map[string]any{"type": "step", "boundary": "start"}}}}, nil)
	if err == nil || !strings.Contains(err.Error(), "step") {
		t.Errorf("toSdk of a step part: want a refusal naming it, got %v", err)
	}
}

// The generic preset maps text, refuses anything else and passes its own
// fixtures.
func TestGenericBridge(t *testing.T) {
	dir := scaffoldInto(t, scaffold.Options{Name: "acme", SDKs: []string{"@acme/sdk"}, Contracts: []string{"chat"}})
	c := startBridge(t, dir)
	if caps := c.Capabilities(); !caps.Converter || caps.StreamStore || caps.RunRegistry {
		t.Errorf("capabilities %+v: want the converter only", caps)
	}
	own, _ := filepath.Glob(filepath.Join(dir, "fixtures", "*.json"))
	for _, f := range own {
		for i, native := range loadMessages(t, f) {
			roundTrip(t, c, fmt.Sprintf("%s[%d]", filepath.Base(f), i), native)
		}
	}
	err := c.Call(context.Background(), bridge.MethodFromSDK, map[string]any{"native": map[string]any{"id": "x", "role": "user", "content": []any{map[string]any{"type": "image", "url": "u"}}}}, nil)
	if err == nil || !strings.Contains(err.Error(), `unknown SDK part kind "image"`) {
		t.Errorf("unknown part: %v", err)
	}
	err = c.Call(context.Background(), bridge.MethodStreamOpen, map[string]any{"id": "s"}, nil)
	var rpc *bridge.RPCError
	if !errors.As(err, &rpc) || rpc.Code != bridge.CodeMethodNotFound {
		// The client may refuse it itself since the capability is off.
		if err == nil {
			t.Errorf("streamStore.open on a converter-only bridge succeeded")
		}
	}
}

func hint(err error) string {
	var rpc *bridge.RPCError
	if errors.As(err, &rpc) {
		return rpc.Hint()
	}
	return ""
}

// The generated in-memory StreamStore, over the bridge, keeps the
// contract of section 3.
func TestBridgeStreamStore(t *testing.T) {
	dir := scaffoldInto(t, scaffold.Options{Name: "acme", SDKs: []string{"acme"}, Contracts: []string{"streams"}})
	c := startBridge(t, dir)
	ctx := context.Background()
	call := func(method string, params map[string]any) (map[string]any, error) {
		var res map[string]any
		err := c.Call(ctx, method, params, &res)
		return norm(res), err
	}
	must := func(method string, params map[string]any) map[string]any {
		t.Helper()
		res, err := call(method, params)
		if err != nil {
			t.Fatalf("%s %v: %v", method, params, err)
		}
		return res
	}
	if r := must(bridge.MethodStreamOpen, map[string]any{"id": "s1"}); r["created"] != true {
		t.Errorf("first open: %v", r)
	}
	if r := must(bridge.MethodStreamOpen, map[string]any{"id": "s1"}); r["created"] != false {
		t.Errorf("second open: %v", r)
	}
	// A live read started before the appends sees them and ends at close.
	var wg sync.WaitGroup
	var live map[string]any
	var liveErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		live, liveErr = call(bridge.MethodStreamRead, map[string]any{"id": "s1", "fromIdx": 0, "timeoutMs": 10000})
	}()
	if r := must(bridge.MethodStreamAppend, map[string]any{"id": "s1", "fromIdx": 0, "chunks": []string{"a", "b"}}); r["next"] != 2.0 {
		t.Errorf("append: %v", r)
	}
	if r := must(bridge.MethodStreamAppend, map[string]any{"id": "s1", "fromIdx": 0, "chunks": []string{"X", "Y", "c"}}); r["next"] != 3.0 || r["cancelled"] != false {
		t.Errorf("retried append: %v", r)
	}
	if _, err := call(bridge.MethodStreamAppend, map[string]any{"id": "s1", "fromIdx": 5, "chunks": []string{"f"}}); hint(err) != "STREAM_GAP" {
		t.Errorf("append at 5: want STREAM_GAP, got %v", err)
	}
	if _, err := call(bridge.MethodStreamAppend, map[string]any{"id": "s1", "fromIdx": -1, "chunks": []string{"f"}}); hint(err) != "STREAM_GAP" {
		t.Errorf("append at -1: want STREAM_GAP, got %v", err)
	}
	if r := must(bridge.MethodStreamClose, map[string]any{"id": "s1"}); r["closed"] != true {
		t.Errorf("close: %v", r)
	}
	wg.Wait()
	if liveErr != nil || !reflect.DeepEqual(live["chunks"], []any{"a", "b", "c"}) {
		t.Errorf("live read: %v %v", live, liveErr)
	}
	if r := must(bridge.MethodStreamStatus, map[string]any{"id": "s1"}); !statusIs(r["status"], map[string]any{"next": 3.0, "closed": true, "cancelled": false, "kind": "default"}) {
		t.Errorf("status: %v", r)
	}
	if _, err := call(bridge.MethodStreamAppend, map[string]any{"id": "s1", "fromIdx": 3, "chunks": []string{"d"}}); hint(err) != "STREAM_CLOSED" {
		t.Errorf("append after close: want STREAM_CLOSED, got %v", err)
	}
	if r := must(bridge.MethodStreamCancel, map[string]any{"id": "s1"}); r["cancelled"] != false {
		t.Errorf("cancel after close: %v", r)
	}
	// Missing streams.
	if _, err := call(bridge.MethodStreamAppend, map[string]any{"id": "nope", "fromIdx": 0, "chunks": []string{}}); hint(err) != "STREAM_NOT_FOUND" {
		t.Errorf("append to a missing stream: %v", err)
	}
	if r := must(bridge.MethodStreamRead, map[string]any{"id": "nope", "fromIdx": 0, "timeoutMs": 1000}); !reflect.DeepEqual(r["chunks"], []any{}) {
		t.Errorf("read of a missing stream: %v", r)
	}
	if r := must(bridge.MethodStreamStatus, map[string]any{"id": "nope"}); r["status"] != nil {
		t.Errorf("status of a missing stream: %v", r)
	}
	// Cancel: flag set, appends still accepted and report it.
	must(bridge.MethodStreamOpen, map[string]any{"id": "s2"})
	if r := must(bridge.MethodStreamCancel, map[string]any{"id": "s2"}); r["cancelled"] != true {
		t.Errorf("cancel: %v", r)
	}
	if r := must(bridge.MethodStreamIsCancelled, map[string]any{"id": "s2"}); r["cancelled"] != true {
		t.Errorf("isCancelled: %v", r)
	}
	if r := must(bridge.MethodStreamAppend, map[string]any{"id": "s2", "fromIdx": 0, "chunks": []string{"late"}}); r["cancelled"] != true || r["next"] != 1.0 {
		t.Errorf("append after cancel: %v", r)
	}
	// A read of an open stream that never closes fails with READ_TIMEOUT.
	if _, err := call(bridge.MethodStreamRead, map[string]any{"id": "s2", "fromIdx": 0, "timeoutMs": 200}); hint(err) != "READ_TIMEOUT" {
		t.Errorf("read of an open stream: want READ_TIMEOUT, got %v", err)
	}
	if r := must(bridge.MethodStreamPurge, map[string]any{}); r["purged"] != 0.0 {
		t.Errorf("purge: %v", r)
	}
	// Large and non-ASCII chunks come back byte for byte.
	must(bridge.MethodStreamOpen, map[string]any{"id": "s3"})
	big := strings.Repeat("ü\n\"\\", 1<<18)
	must(bridge.MethodStreamAppend, map[string]any{"id": "s3", "fromIdx": 0, "chunks": []string{big, "°C — 🙂"}})
	must(bridge.MethodStreamClose, map[string]any{"id": "s3"})
	if r := must(bridge.MethodStreamRead, map[string]any{"id": "s3", "fromIdx": 0, "timeoutMs": 5000}); !reflect.DeepEqual(r["chunks"], []any{big, "°C — 🙂"}) {
		t.Errorf("large read came back different")
	}
}

// The generated in-memory run registry, over the bridge, keeps the
// contract of section 5.
func TestBridgeRunRegistry(t *testing.T) {
	dir := scaffoldInto(t, scaffold.Options{Name: "acme", SDKs: []string{"acme"}, Contracts: []string{"workflows"}, Builder: true})
	c := startBridge(t, dir)
	ctx := context.Background()
	record := func(run map[string]any) (string, error) {
		var res struct{ ID string }
		err := c.Call(ctx, bridge.MethodRunRecord, map[string]any{"run": run}, &res)
		return res.ID, err
	}
	get := func(ref string) map[string]any {
		var res struct{ Run map[string]any }
		if err := c.Call(ctx, bridge.MethodRunGet, map[string]any{"run": ref}, &res); err != nil {
			t.Fatal(err)
		}
		return norm(res.Run)
	}
	completed := time.Date(2026, 1, 2, 3, 4, 5, 123456000, time.UTC).Format(time.RFC3339Nano)
	id, err := record(map[string]any{"engine": "e", "externalId": "x1", "definition": "d", "status": "running", "tenant": "t1", "attributes": map[string]any{"a": 1}, "error": "boom", "completedAt": completed})
	if err != nil {
		t.Fatal(err)
	}
	id2, err := record(map[string]any{"engine": "e", "externalId": "x1", "definition": "d2", "status": "completed", "tenant": "t2", "attributes": map[string]any{"b": 2}})
	if err != nil || id2 != id {
		t.Fatalf("upsert returned %q, %v; want %q", id2, err, id)
	}
	r := get("x1")
	if r["id"] != id || r["definition"] != "d2" || r["status"] != "completed" || r["tenant"] != "t1" || r["error"] != "boom" ||
		!reflect.DeepEqual(r["attributes"], map[string]any{"a": 1.0, "b": 2.0}) {
		t.Errorf("after upsert: %v", r)
	}
	if got, _ := time.Parse(time.RFC3339Nano, r["completedAt"].(string)); got.Format(time.RFC3339Nano) != completed {
		t.Errorf("completedAt %v, want %s (microseconds kept)", r["completedAt"], completed)
	}
	if _, err := record(map[string]any{"engine": "e", "externalId": "x2", "definition": "d", "status": "paused"}); err == nil {
		t.Errorf("status paused was accepted")
	}
	if get("x2") != nil {
		t.Errorf("a refused run was stored")
	}
	long := strings.Repeat("é", 5000)
	if _, err := record(map[string]any{"engine": "e", "externalId": "x3", "definition": "d", "status": "failed", "error": long}); err != nil {
		t.Fatal(err)
	}
	if e := get("x3")["error"].(string); e != strings.Repeat("é", 4000) {
		t.Errorf("error kept %d characters, want 4000", len([]rune(e)))
	}
	// Cancel requests keep the status and the first time; terminal runs are unchanged.
	if _, err := record(map[string]any{"engine": "e", "externalId": "x4", "definition": "d", "status": "running"}); err != nil {
		t.Fatal(err)
	}
	var c1, c2 struct{ Run map[string]any }
	c.Call(ctx, bridge.MethodRunRequestCancel, map[string]any{"run": "x4"}, &c1)
	c.Call(ctx, bridge.MethodRunRequestCancel, map[string]any{"run": "x4"}, &c2)
	if c1.Run["status"] != "running" || c1.Run["cancelRequestedAt"] == nil || c1.Run["cancelRequestedAt"] != c2.Run["cancelRequestedAt"] {
		t.Errorf("cancel requests: %v then %v", c1.Run, c2.Run)
	}
	var term struct{ Run map[string]any }
	c.Call(ctx, bridge.MethodRunRequestCancel, map[string]any{"run": "x3"}, &term)
	if term.Run["cancelRequestedAt"] != nil {
		t.Errorf("a failed run got a cancel request: %v", term.Run)
	}
	// List: newest first, limit and before page on even within one millisecond.
	var made []string
	for i := range 5 {
		id, err := record(map[string]any{"engine": "e", "externalId": fmt.Sprintf("p%d", i), "definition": "d", "status": "queued", "tenant": "pager"})
		if err != nil {
			t.Fatal(err)
		}
		made = append([]string{id}, made...)
	}
	var page struct{ Runs []map[string]any }
	c.Call(ctx, bridge.MethodRunList, map[string]any{"tenant": "pager", "limit": 2}, &page)
	if len(page.Runs) != 2 || page.Runs[0]["id"] != made[0] || page.Runs[1]["id"] != made[1] {
		t.Fatalf("first page: %v", page.Runs)
	}
	var page2 struct{ Runs []map[string]any }
	c.Call(ctx, bridge.MethodRunList, map[string]any{"tenant": "pager", "limit": 2, "before": page.Runs[1]["createdAt"]}, &page2)
	var got []string
	for _, r := range page2.Runs {
		got = append(got, r["id"].(string))
	}
	if !reflect.DeepEqual(got, made[2:4]) {
		t.Errorf("second page %v, want %v", got, made[2:4])
	}
	var purge struct{ Purged int }
	if err := c.Call(ctx, bridge.MethodRunPurge, map[string]any{}, &purge); err != nil || purge.Purged != 0 {
		t.Errorf("purge of young runs: %v %v", purge, err)
	}
	var missing struct{ Run any }
	c.Call(ctx, bridge.MethodRunGet, map[string]any{"run": "00000000-0000-0000-0000-000000000000"}, &missing)
	if missing.Run != nil {
		t.Errorf("get of an unknown id: %v", missing.Run)
	}
}

// A LangChain message without an id gets the fallbackId check-fixtures
// sends (derived from its file and place), so it converts the same way on
// every run and in the round trip: no warning, no failure, and the same
// id twice.
func TestLangChainStableFallbackID(t *testing.T) {
	dir := scaffoldInto(t, scaffold.Options{Name: "langchain"})
	c := startBridge(t, dir)
	fix := t.TempDir()
	os.WriteFile(filepath.Join(fix, "noid.jsonl"), []byte(`{"type":"human","content":"hi"}`+"\n"+`{"type":"ai","content":"hello","tool_calls":[]}`+"\n"), 0o644)
	for range 2 {
		rep, err := fixtures.Run(context.Background(), fixtures.Options{Paths: []string{fix}, WorkDir: fix, Bridge: c, Strict: true, Update: true})
		if err != nil {
			t.Fatal(err)
		}
		if !rep.OK() || rep.Summary.Warnings != 0 {
			t.Fatalf("summary %+v: %+v", rep.Summary, rep.Results)
		}
	}
	// The preset's own fixtures, its conversation through the history
	// methods.
	if !c.Capabilities().ConverterHistory {
		t.Error("the generated bridge does not declare converterHistory")
	}
	rep, err := fixtures.Run(context.Background(), fixtures.Options{Paths: []string{filepath.Join(dir, "fixtures")}, WorkDir: dir, Bridge: c, Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.Summary.Messages < 8 {
		t.Errorf("the preset's fixtures: %+v", rep.Summary)
	}
	snap, err := os.ReadFile(filepath.Join(fix, "noid.canonical.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(snap), `"id": "noid.jsonl#0"`) || !strings.Contains(string(snap), `"id": "noid.jsonl#1"`) {
		t.Errorf("snapshot ids:\n%s", snap)
	}
}

// statusIs compares a status without its expiresAt, which must be a time.
func statusIs(got any, want map[string]any) bool {
	m, ok := got.(map[string]any)
	if !ok {
		return false
	}
	m = maps.Clone(m)
	exp, _ := m["expiresAt"].(string)
	if _, err := time.Parse(time.RFC3339Nano, exp); err != nil {
		return false
	}
	delete(m, "expiresAt")
	return reflect.DeepEqual(m, want)
}

// The generated stores and interfaces, behind the generated bridge, run
// every case of the suites that apply to them (streams, registry and the
// interface suites) and pass them all, eight at a time, with the cases
// moving their clock and with the cases waiting for their real TTLs.
func TestBridgeConformance(t *testing.T) {
	dir := scaffoldInto(t, scaffold.Options{Name: "acme", SDKs: []string{"acme"}, Contracts: scaffold.AllContracts()})
	tsx := testenv.NodeBin(t, "tsx")
	for _, real := range []bool{false, true} {
		t.Run(fmt.Sprintf("real-ttls=%v", real), func(t *testing.T) {
			t.Parallel()
			var opts []bridgestore.Option
			if real {
				opts = append(opts, bridgestore.RealTTLs())
			}
			st, err := bridgestore.New(t.Context(), bridge.Options{Command: []string{tsx, "bsadapter.bridge.ts"}, Dir: dir, Timeout: 2 * time.Minute}, opts...)
			if err != nil {
				t.Fatalf("start bridge: %v", err)
			}
			defer st.Close()
			cases, err := conform.Select(suites.Cases(), conform.Options{Suites: []string{streams.Suite.Name, registry.Suite.Name,
				chatstate.Suite.Name, credentials.Suite.Name, engine.Suite.Name, graphcompiler.Suite.Name, builder.Suite.Name, world.Suite.Name,
				embedder.Suite.Name, aitaskrunner.Suite.Name}})
			if err != nil {
				t.Fatal(err)
			}
			rep := conform.Run(t.Context(), st, cases, conform.Options{Parallel: 8})
			if f := conformtest.Failures(rep); f != "" {
				t.Errorf("the generated stores failed cases:\n%s", f)
			}
			// The bridge has every capability these suites use: nothing skips.
			for _, r := range rep.Results {
				if r.Outcome == conform.Skipped {
					t.Errorf("%s skipped: %s", r.ID, r.Reason)
				}
			}
			// What did not apply is the block rules of the credentials
			// block (its audit events, its service-role rule), which a
			// credential provider of the adapter's own need not keep.
			for _, n := range rep.NotApplicable {
				if n.Suite != credentials.Suite.Name {
					t.Errorf("%s did not apply: %s", n.ID, n.Reason)
				}
			}
			if rep.Count(conform.Pass)+len(rep.NotApplicable) != len(cases) || len(rep.NotApplicable) > 2 {
				t.Errorf("%d of %d cases passed, %d did not apply", rep.Count(conform.Pass), len(cases), len(rep.NotApplicable))
			}
		})
	}
}
