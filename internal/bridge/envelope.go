package bridge

import "encoding/json"

// envelope is the top level of a response line.
type envelope struct {
	JSONRPC string
	ID      json.RawMessage
	Result  json.RawMessage // nil when absent
	Error   json.RawMessage // nil when absent
	Method  json.RawMessage // nil when absent (a response has none)
	Params  json.RawMessage // nil when absent (a notification's payload)
}

// splitEnvelope takes a response line apart in one pass without decoding
// the result: answers carry whole messages (megabytes with base64 files),
// and the caller decodes the result anyway. It reports false for anything
// unusual (escaped keys, duplicate or unknown structure, trailing bytes), and
// the caller then falls back to encoding/json for a precise verdict. The
// result's own validity is left to whoever decodes it.
func splitEnvelope(line []byte) (envelope, bool) {
	var env envelope
	i := skipWS(line, 0)
	if i >= len(line) || line[i] != '{' {
		return env, false
	}
	i = skipWS(line, i+1)
	if i < len(line) && line[i] == '}' {
		return env, skipWS(line, i+1) == len(line)
	}
	for {
		if i >= len(line) || line[i] != '"' {
			return env, false
		}
		ks := i + 1
		j := ks
		for j < len(line) && line[j] != '"' {
			if line[j] == '\\' || line[j] < 0x20 {
				return env, false
			}
			j++
		}
		if j >= len(line) {
			return env, false
		}
		key := string(line[ks:j])
		i = skipWS(line, j+1)
		if i >= len(line) || line[i] != ':' {
			return env, false
		}
		i = skipWS(line, i+1)
		end, ok := skipValue(line, i)
		if !ok {
			return env, false
		}
		val := line[i:end]
		switch key {
		case "jsonrpc":
			if json.Unmarshal(val, &env.JSONRPC) != nil {
				return env, false
			}
		case "id":
			env.ID = val
		case "result":
			env.Result = val
		case "error":
			env.Error = val
		case "method":
			env.Method = val
		case "params":
			env.Params = val
		}
		i = skipWS(line, end)
		if i >= len(line) {
			return env, false
		}
		if line[i] == '}' {
			return env, skipWS(line, i+1) == len(line)
		}
		if line[i] != ',' {
			return env, false
		}
		i = skipWS(line, i+1)
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// skipValue returns the end of the JSON value starting at i, tracking only
// strings and nesting.
func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch b[i] {
	case '"':
		for j := i + 1; j < len(b); j++ {
			switch b[j] {
			case '\\':
				j++
			case '"':
				return j + 1, true
			}
		}
		return len(b), false
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, ok := skipValue(b, j)
				if !ok {
					return end, false
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, true
				}
			}
		}
		return len(b), false
	default:
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\r' && b[j] != '\n' {
			j++
		}
		return j, j > i
	}
}
