// Command gobridge is a bridge for tests: it speaks the bridge protocol on
// stdin/stdout and converts "chatlet", a small made-up SDK message format,
// to and from canonical messages. Its -fault flag turns it into one of the
// broken bridges the client must survive.
//
// A chatlet message: {"uid": "m1", "from": "human|bot|sys|tool",
// "blocks": [...], "meta": {...}} with blocks
// {"t":"txt","body"}, {"t":"think","body"}, {"t":"call","ref","fn","args"},
// {"t":"ret","ref","fn","value","failed"?}, {"t":"img","mime","src"},
// {"t":"step","edge"}, {"t":"blob","name","value"}.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/bsadapter/bsadapter/internal/bridge"
)

var (
	fault      = flag.String("fault", "", "exit-at-once|crash-after|badline|hang|unknown-id|version|flood|grandchild|lossy|drift|badschema|noread|reply|init-error|detached")
	reply      = flag.String("reply", "", "with -fault=reply: answer every converter request with this line, ID replaced by the request's id")
	after      = flag.Int("after", 3, "with crash-after: crash on this converter request")
	pidFile    = flag.String("pidfile", "", "with grandchild, detached or -spawn: write the bridge's and the grandchild's pids here")
	detachHelp = flag.Bool("detach-helper", false, "internal: start sleep 1000 in a session of its own, print its pid and exit (for -fault=detached)")
	startDelay = flag.Duration("start-delay", 0, "wait this long before reading initialize, as a slow start (an interpreter loading, a cold npx) would")
	spawn      = flag.Bool("spawn", false, "start a grandchild (as -fault=grandchild does) and combine it with another fault")
	shuffle    = flag.Bool("shuffle", true, "answer in a random order")
	outMu      sync.Mutex
	out        = bufio.NewWriterSize(os.Stdout, 1<<16)
	convCalls  atomic.Int64
	roundtrips sync.Map
)

type request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

func send(v any) {
	b, _ := json.Marshal(v)
	outMu.Lock()
	out.Write(b)
	out.WriteByte('\n')
	out.Flush()
	outMu.Unlock()
}

func answer(id json.RawMessage, result any) {
	send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func answerErr(id json.RawMessage, code int, msg string, data any) {
	e := map[string]any{"code": code, "message": msg}
	if data != nil {
		e["data"] = data
	}
	send(map[string]any{"jsonrpc": "2.0", "id": id, "error": e})
}

func main() {
	flag.Parse()
	if *detachHelp {
		// Started by -fault=detached: the sleep this starts leaves the
		// bridge's process group and session (setsid), and is orphaned
		// at once when this helper exits, as a daemon is.
		child := exec.Command("sleep", "1000")
		child.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(child.Process.Pid)
		os.Exit(0)
	}
	time.Sleep(*startDelay)
	if *fault == "exit-at-once" {
		fmt.Fprintln(os.Stderr, "gobridge: loading the adapter")
		fmt.Fprintln(os.Stderr, "Error: cannot find module './adapter'")
		os.Exit(3)
	}
	if *fault == "grandchild" || *spawn {
		child := exec.Command("sleep", "1000")
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if *pidFile != "" {
			os.WriteFile(*pidFile, []byte(fmt.Sprintf("%d %d", os.Getpid(), child.Process.Pid)), 0o644)
		}
	}
	if *fault == "detached" {
		out, err := exec.Command(os.Args[0], "-detach-helper").Output()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if *pidFile != "" {
			os.WriteFile(*pidFile, []byte(fmt.Sprintf("%d %s", os.Getpid(), strings.TrimSpace(string(out)))), 0o644)
		}
	}
	if *fault == "noread" {
		// Answer initialize, then never read stdin again.
		br := bufio.NewReader(os.Stdin)
		line, _ := br.ReadBytes('\n')
		var req request
		json.Unmarshal(line, &req)
		answer(req.ID, initResult())
		time.Sleep(time.Hour)
	}
	br := bufio.NewReaderSize(os.Stdin, 1<<20)
	var wg sync.WaitGroup
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var req request
			if jerr := json.Unmarshal(line, &req); jerr != nil {
				fmt.Fprintf(os.Stderr, "gobridge: bad request line: %v\n", jerr)
				continue
			}
			if req.Method == bridge.MethodInitialize || req.Method == bridge.MethodShutdown {
				handle(req)
			} else {
				wg.Add(1)
				go func() { defer wg.Done(); handle(req) }()
			}
		}
		if err != nil {
			wg.Wait()
			return
		}
	}
}

func initResult() any {
	return map[string]any{
		"protocolVersion": 1,
		"adapter":         map[string]any{"name": "chatlet", "format": "chatlet-v1", "sdk": "chatlet", "version": "0.1.0"},
		"capabilities":    map[string]any{"converter": true, "streamStore": false, "runRegistry": false},
	}
}

func handle(req request) {
	switch req.Method {
	case bridge.MethodInitialize:
		if *fault == "init-error" {
			fmt.Fprintln(os.Stderr, "Error: Cannot find module '@chatlet/core'")
			answerErr(req.ID, -32000, "cannot load the adapter", nil)
			return
		}
		if *fault == "v1-strict" && !strings.Contains(string(req.Params), `"protocolVersion":1`) {
			answerErr(req.ID, -32000, "this bridge speaks protocol version 1", nil)
			return
		}
		if *fault == "version" {
			answerErr(req.ID, -32600, "unsupported protocol version: this bridge speaks version 3", map[string]any{"protocolVersion": 3})
			return
		}
		answer(req.ID, initResult())
		return
	case bridge.MethodShutdown:
		answer(req.ID, nil)
		return
	}
	n := convCalls.Add(1)
	if *shuffle {
		time.Sleep(time.Duration(rand.IntN(3)) * time.Millisecond)
	}
	switch *fault {
	case "crash-after":
		if int(n) >= *after {
			fmt.Fprintf(os.Stderr, "gobridge: converting request %d\npanic: something broke inside the converter\n\tat convert (adapter.ts:12:3)\n", n)
			os.Exit(2)
		}
	case "badline":
		outMu.Lock()
		out.WriteString("converting message... done\n")
		out.Flush()
		outMu.Unlock()
	case "hang":
		select {}
	case "unknown-id":
		send(map[string]any{"jsonrpc": "2.0", "id": 4242, "result": nil})
		return
	case "reply":
		outMu.Lock()
		out.Write(bytes.ReplaceAll([]byte(*reply), []byte("ID"), req.ID))
		out.WriteByte('\n')
		out.Flush()
		outMu.Unlock()
		return
	case "flood":
		for i := 0; i < 2000; i++ {
			fmt.Fprintf(os.Stderr, "gobridge: debug line %d for request %d\n", i, n)
		}
	}
	var p map[string]json.RawMessage
	if err := decode(req.Params, &p); err != nil {
		answerErr(req.ID, -32602, "params must be an object", nil)
		return
	}
	switch req.Method {
	case bridge.MethodFromSDK:
		var native map[string]any
		if err := decode(p["native"], &native); err != nil || native == nil {
			answerErr(req.ID, -32602, "native must be a chatlet message object", nil)
			return
		}
		msg, err := fromSdk(native)
		if err != nil {
			answerErr(req.ID, -32000, err.Error(), map[string]any{"kind": "invalid_input"})
			return
		}
		answer(req.ID, map[string]any{"message": msg})
	case bridge.MethodToSDK:
		var msg map[string]any
		if err := decode(p["message"], &msg); err != nil || msg == nil {
			answerErr(req.ID, -32602, "message must be an object", nil)
			return
		}
		native, err := toSdk(msg)
		if err != nil {
			answerErr(req.ID, -32000, err.Error(), nil)
			return
		}
		answer(req.ID, map[string]any{"native": native})
	default:
		answerErr(req.ID, -32601, "method not found: "+req.Method, nil)
	}
}

func decode(raw json.RawMessage, v any) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	return d.Decode(v)
}

var roles = map[string]string{"human": "user", "bot": "assistant", "sys": "system", "tool": "tool"}

func fromSdk(n map[string]any) (map[string]any, error) {
	role, ok := roles[fmt.Sprint(n["from"])]
	if !ok {
		return nil, fmt.Errorf("unknown chatlet sender %v", n["from"])
	}
	blocks, _ := n["blocks"].([]any)
	parts := []any{}
	for i, b := range blocks {
		blk, _ := b.(map[string]any)
		var part map[string]any
		switch blk["t"] {
		case "txt":
			part = map[string]any{"type": "text", "text": blk["body"]}
		case "think":
			part = map[string]any{"type": "reasoning", "text": blk["body"]}
		case "call":
			part = map[string]any{"type": "tool-call", "toolCallId": blk["ref"], "toolName": blk["fn"], "input": blk["args"]}
		case "ret":
			part = map[string]any{"type": "tool-result", "toolCallId": blk["ref"], "toolName": blk["fn"], "output": blk["value"]}
			if f, ok := blk["failed"].(bool); ok {
				part["isError"] = f
			}
		case "img":
			part = map[string]any{"type": "file", "mediaType": blk["mime"], "url": blk["src"]}
		case "step":
			part = map[string]any{"type": "step", "boundary": blk["edge"]}
		case "blob":
			part = map[string]any{"type": "data", "name": blk["name"], "data": blk["value"]}
		default:
			return nil, fmt.Errorf("unknown chatlet block type %v at blocks[%d]", blk["t"], i)
		}
		if *fault == "badschema" && part["type"] == "text" {
			part["state"] = "half"
		}
		parts = append(parts, part)
	}
	msg := map[string]any{"id": n["uid"], "role": role, "parts": parts}
	if m, ok := n["meta"]; ok {
		msg["metadata"] = m
	}
	if *fault == "drift" {
		if _, seen := roundtrips.LoadOrStore(fmt.Sprint(n["uid"]), true); seen {
			msg["id"] = fmt.Sprint(n["uid"]) + "-copy"
		}
	}
	return msg, nil
}

func toSdk(m map[string]any) (map[string]any, error) {
	from := ""
	for k, v := range roles {
		if v == m["role"] {
			from = k
		}
	}
	parts, _ := m["parts"].([]any)
	blocks := []any{}
	for i, p := range parts {
		part, _ := p.(map[string]any)
		var blk map[string]any
		switch part["type"] {
		case "text":
			blk = map[string]any{"t": "txt", "body": part["text"]}
		case "reasoning":
			if *fault == "lossy" {
				continue
			}
			blk = map[string]any{"t": "think", "body": part["text"]}
		case "tool-call":
			blk = map[string]any{"t": "call", "ref": part["toolCallId"], "fn": part["toolName"], "args": part["input"]}
		case "tool-result":
			blk = map[string]any{"t": "ret", "ref": part["toolCallId"], "fn": part["toolName"], "value": part["output"]}
			if f, ok := part["isError"]; ok && *fault != "lossy" {
				blk["failed"] = f
			}
		case "file":
			blk = map[string]any{"t": "img", "mime": part["mediaType"], "src": part["url"]}
		case "step":
			blk = map[string]any{"t": "step", "edge": part["boundary"]}
		case "data":
			blk = map[string]any{"t": "blob", "name": part["name"], "value": part["data"]}
		default:
			return nil, fmt.Errorf("chatlet has no block for canonical part type %v (parts[%d])", part["type"], i)
		}
		blocks = append(blocks, blk)
	}
	n := map[string]any{"uid": m["id"], "from": from, "blocks": blocks}
	if md, ok := m["metadata"]; ok {
		n["meta"] = md
	}
	return n, nil
}
