// Package config reads an adapter's bsadapter.json: its name, canonical
// format, SDK, the command that starts its bridge and where its fixtures
// live. The file is what "bsadapter new" generates; keys are checked
// strictly so that a typo is an error rather than a silently ignored
// setting.
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/bsadapter/bsadapter/internal/filekind"
)

// FileName is the name of the adapter config file.
const FileName = "bsadapter.json"

// Config is a loaded bsadapter.json.
type Config struct {
	Name   string
	Format string
	SDK    string
	Bridge struct {
		// Command is the bridge's argv, run in Dir.
		Command []string
		// StartTimeout bounds the bridge's start (its process up and its
		// answer to initialize); zero for bsadapter's default.
		StartTimeout time.Duration
	}
	// Postgres is the "postgres" section: the waits of the PostgreSQL
	// server that conform and doctor start; zero for bsadapter's
	// defaults. The command-line flags win over them.
	Postgres struct {
		// StartTimeout bounds each step of the server's start
		// (--pg-start-timeout).
		StartTimeout time.Duration
		// InstallTimeout bounds the blocks' installation in it
		// (--pg-install-timeout).
		InstallTimeout time.Duration
	}
	// Fixtures lists fixture files or folders, relative to Dir. The file
	// may give one string or an array of strings.
	Fixtures []string
	// RoundTrip tunes check-fixtures' native round trip.
	RoundTrip RoundTrip
	// Blocks is the folder, relative to Dir, of another implementation of
	// the blocks for conform --store pg and the blocks commands; empty for
	// the embedded ones.
	Blocks string
	// Dir is the folder that holds the file.
	Dir string
	// Path is the file itself.
	Path string
}

// RoundTrip is the "roundTrip" section: the differences between a native
// message and the one the converters give back that are normalisation,
// not loss.
type RoundTrip struct {
	Ignore []Ignore
	// Parts lists the canonical part types the converter can express,
	// for generated round trips (check-fixtures --generate).
	Parts []string
}

// Ignore is one entry of roundTrip.ignore: a JSON Pointer into the native
// message ("*" matches any one key or index; everything below is covered
// too) and why the difference is not a loss.
type Ignore struct {
	Path   string
	Reason string
}

// Known keys, for the error on an unknown one.
var (
	topKeys       = []string{"$schema", "name", "format", "sdk", "bridge", "postgres", "fixtures", "roundTrip", "blocks"}
	bridgeKeys    = []string{"command", "startTimeout"}
	postgresKeys  = []string{"startTimeout", "installTimeout"}
	roundTripKeys = []string{"ignore", "parts"}
	ignoreKeys    = []string{"path", "reason"}
)

// Find looks for bsadapter.json in start and then in each parent folder,
// and loads the nearest one. It returns nil, nil when there is none.
func Find(start string) (*Config, error) {
	dir, err := filepath.Abs(start)
	if err != nil {
		return nil, err
	}
	for {
		p := filepath.Join(dir, FileName)
		st, err := os.Stat(p)
		if err == nil && !st.IsDir() {
			return Load(p)
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("looking for %s: %w", FileName, err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil, nil
		}
		dir = parent
	}
}

// MaxSize is the largest config file Load reads. A bsadapter.json holds a
// few settings (a hand-written one is well under 10 KiB); anything near
// this is a mistake, and every command reads the file.
const MaxSize = 1 << 20

// Load reads and checks one config file. An unknown key is an error naming
// the key and the known ones; a wrong type names the key and the type
// wanted. Only a regular file of at most MaxSize bytes is read: a named
// pipe would block every command until something writes to it, and a
// device or a huge file would be read without end.
func Load(path string) (*Config, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	data, err := readLimited(path, abs)
	if err != nil {
		return nil, err
	}
	return parse(path, abs, data)
}

// readLimited reads the config file at abs (named path in errors), if it
// is a regular file of at most MaxSize bytes.
func readLimited(path, abs string) ([]byte, error) {
	// Look before opening: opening a named pipe for reading waits for a
	// writer.
	st, err := os.Stat(abs)
	if err != nil {
		return nil, err
	}
	if err := regular(path, st); err != nil {
		return nil, err
	}
	// O_NONBLOCK: should a pipe have taken the file's place since the
	// look, the open still returns, and the check below refuses it.
	f, err := os.OpenFile(abs, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := regular(path, st); err != nil {
		return nil, err
	}
	if st.Size() > MaxSize {
		return nil, tooLarge(path, st.Size())
	}
	// The size may change while it is read: never take more than the cap.
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read the file: %w", path, err)
	}
	if len(data) > MaxSize {
		return nil, tooLarge(path, int64(len(data)))
	}
	return data, nil
}

// regular refuses a config file that is not a regular file.
func regular(path string, st fs.FileInfo) error {
	mode := st.Mode()
	if mode.IsRegular() {
		return nil
	}
	return fmt.Errorf("%s %s, so it is not read (a pipe would wait for ever, a device never ends); make it a regular file holding a JSON object, or remove it", path, filekind.IsNot(mode, filekind.Regular))
}

func tooLarge(path string, size int64) error {
	return fmt.Errorf("%s is %s, more than the %s a config file may be; it holds a few settings: keep them and remove the rest", path, sizeText(size), sizeText(MaxSize))
}

// sizeText writes a size in the largest unit that keeps it above 1.
func sizeText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// parse checks the contents of the config file at abs; path is how errors
// name it.
func parse(path, abs string, data []byte) (*Config, error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...))
	}
	if bytes.HasPrefix(data, []byte("\xEF\xBB\xBF")) {
		return nil, fail("the file starts with a UTF-8 byte-order mark (EF BB BF), which JSON does not allow; save it as UTF-8 without BOM")
	}
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			// Offset counts the offending byte too.
			line, col := lineCol(data, max(se.Offset-1, 0))
			return nil, fail("line %d, column %d: %s", line, col, se.Error())
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, fail("the file must hold one JSON object")
		}
		if errors.Is(err, io.EOF) {
			return nil, fail("the file is empty; it must hold a JSON object")
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			line, col := lineCol(data, int64(len(bytes.TrimRight(data, " \t\r\n"))))
			return nil, fail("line %d, column %d: the file ends in the middle of the JSON object (a missing closing brace, bracket or quote?)", line, col)
		}
		return nil, fail("%v", err)
	}
	if raw == nil {
		return nil, fail("the file must hold a JSON object, not null")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fail("unexpected content after the JSON object")
	}
	if k, off := duplicateKey(data, 0, ""); k != "" {
		line, col := lineCol(data, off)
		return nil, fail("line %d, column %d: key %q is given twice; JSON keeps only the last one, so remove the one you do not mean", line, col, k)
	}
	if err := checkKeys(raw, topKeys, "", fail); err != nil {
		return nil, err
	}
	c := &Config{Dir: filepath.Dir(abs), Path: abs}
	str := func(key string, dst *string) error {
		v, ok := raw[key]
		if !ok {
			return nil
		}
		if err := json.Unmarshal(v, dst); err != nil || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			return fail("%q must be a string, not %s", key, kind(v))
		}
		return nil
	}
	for key, dst := range map[string]*string{"name": &c.Name, "format": &c.Format, "sdk": &c.SDK, "blocks": &c.Blocks} {
		if err := str(key, dst); err != nil {
			return nil, err
		}
	}
	if v, ok := raw["bridge"]; ok {
		var b map[string]json.RawMessage
		if err := json.Unmarshal(v, &b); err != nil || b == nil {
			return nil, fail(`"bridge" must be an object like {"command": ["npx", "tsx", "bsadapter.bridge.ts"]}, not %s`, kind(v))
		}
		if err := checkKeys(b, bridgeKeys, ` in "bridge"`, fail); err != nil {
			return nil, err
		}
		if cv, ok := b["command"]; ok {
			if err := json.Unmarshal(cv, &c.Bridge.Command); err != nil || len(c.Bridge.Command) == 0 {
				return nil, fail(`"bridge.command" must be a non-empty array of strings (an argv, run without a shell), like ["npx", "tsx", "bsadapter.bridge.ts"]`)
			}
			for i, a := range c.Bridge.Command {
				if i == 0 && a == "" {
					return nil, fail(`"bridge.command[0]" is empty; it must name the program to run`)
				}
			}
		}
		if err := duration(b, "bridge", "startTimeout", &c.Bridge.StartTimeout, fail); err != nil {
			return nil, err
		}
	}
	if v, ok := raw["postgres"]; ok {
		var pg map[string]json.RawMessage
		if err := json.Unmarshal(v, &pg); err != nil || pg == nil {
			return nil, fail(`"postgres" must be an object like {"startTimeout": "5m", "installTimeout": "10m"}, not %s`, kind(v))
		}
		if err := checkKeys(pg, postgresKeys, ` in "postgres"`, fail); err != nil {
			return nil, err
		}
		if err := duration(pg, "postgres", "startTimeout", &c.Postgres.StartTimeout, fail); err != nil {
			return nil, err
		}
		if err := duration(pg, "postgres", "installTimeout", &c.Postgres.InstallTimeout, fail); err != nil {
			return nil, err
		}
	}
	if _, ok := raw["blocks"]; ok && c.Blocks == "" {
		return nil, fail(`"blocks" is empty; give the folder of the modules' .sql files, relative to the file, or leave the key out for the embedded blocks`)
	}
	if v, ok := raw["fixtures"]; ok {
		var one string
		if err := json.Unmarshal(v, &one); err == nil && !bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			c.Fixtures = []string{one}
		} else if err := json.Unmarshal(v, &c.Fixtures); err != nil || c.Fixtures == nil {
			return nil, fail(`"fixtures" must be a string or an array of strings (paths relative to the file), not %s`, kind(v))
		}
		for i, f := range c.Fixtures {
			if f == "" {
				return nil, fail(`"fixtures" entry %d is empty`, i)
			}
		}
	}
	if v, ok := raw["roundTrip"]; ok {
		if err := parseRoundTrip(v, &c.RoundTrip, fail); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// parseRoundTrip checks the roundTrip section.
func parseRoundTrip(v json.RawMessage, rt *RoundTrip, fail func(string, ...any) error) error {
	const example = `{"ignore": [{"path": "/parts/*/providerMetadata", "reason": "the SDK fills it in"}]}`
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(v, &obj); err != nil || obj == nil {
		return fail(`"roundTrip" must be an object like %s, not %s`, example, kind(v))
	}
	if err := checkKeys(obj, roundTripKeys, ` in "roundTrip"`, fail); err != nil {
		return err
	}
	if pv, ok := obj["parts"]; ok {
		if err := json.Unmarshal(pv, &rt.Parts); err != nil || len(rt.Parts) == 0 {
			return fail(`"roundTrip.parts" must be a non-empty array of part types, like ["text", "tool-call"], not %s`, kind(pv))
		}
	}
	iv, ok := obj["ignore"]
	if !ok {
		return nil
	}
	var list []map[string]json.RawMessage
	if err := json.Unmarshal(iv, &list); err != nil || list == nil {
		return fail(`"roundTrip.ignore" must be an array of {"path", "reason"} objects, not %s`, kind(iv))
	}
	for i, e := range list {
		if e == nil {
			return fail(`"roundTrip.ignore" entry %d must be an object like {"path": "/id", "reason": "the SDK generates ids"}`, i)
		}
		if err := checkKeys(e, ignoreKeys, fmt.Sprintf(` in "roundTrip.ignore" entry %d`, i), fail); err != nil {
			return err
		}
		var ig Ignore
		if json.Unmarshal(e["path"], &ig.Path) != nil || ig.Path == "" {
			return fail(`"roundTrip.ignore" entry %d needs a "path": a JSON Pointer into the native message, like "/parts/*/providerMetadata"`, i)
		}
		if !strings.HasPrefix(ig.Path, "/") {
			return fail(`"roundTrip.ignore" entry %d: path %q must start with "/" (a JSON Pointer, like "/parts/*/providerMetadata")`, i, ig.Path)
		}
		if json.Unmarshal(e["reason"], &ig.Reason) != nil || strings.TrimSpace(ig.Reason) == "" {
			return fail(`"roundTrip.ignore" entry %d (%s) needs a "reason": say why this difference is not a loss`, i, ig.Path)
		}
		rt.Ignore = append(rt.Ignore, ig)
	}
	return nil
}

// checkKeys refuses a key of obj that is not one of known, naming it, the
// object it is in (where: "" at the top, else ` in "bridge"` and the
// like), a close known key and all of them. Keys are looked at in order,
// so the error is the same from run to run.
func checkKeys(obj map[string]json.RawMessage, known []string, where string, fail func(string, ...any) error) error {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !contains(known, k) {
			return fail("unknown key %q%s%s (known keys: %s)", k, where, suggest(k, known), strings.Join(known, ", "))
		}
	}
	return nil
}

// duration reads the key of the section obj (named section in errors) into
// dst, when it is there: a positive duration in a string, as Go writes
// them ("90s", "2m", "1m30s").
func duration(obj map[string]json.RawMessage, section, key string, dst *time.Duration, fail func(string, ...any) error) error {
	v, ok := obj[key]
	if !ok {
		return nil
	}
	var text string
	d, err := time.Duration(0), json.Unmarshal(v, &text)
	if err == nil {
		d, err = time.ParseDuration(text)
	}
	if err != nil || d <= 0 {
		return fail(`"%s.%s" must be a positive duration in a string, like "90s" or "2m", not %s`, section, key, strings.TrimSpace(string(v)))
	}
	*dst = d
	return nil
}

// duplicateKey finds a key given twice in any object of the value data
// (which starts at offset base of the file), at any depth: a section
// that means two things is as wrong inside "roundTrip" as at the top. It
// returns the key with the path to it ("bridge.command",
// "roundTrip.ignore[0].reason") and the offset of its second
// occurrence, or "" when every key is unique.
func duplicateKey(data []byte, base int64, prefix string) (string, int64) {
	dec := json.NewDecoder(bytes.NewReader(data))
	t, err := dec.Token()
	if err != nil {
		return "", 0
	}
	// inner looks into the value v just decoded, named name.
	inner := func(v json.RawMessage, name string) (string, int64) {
		if len(v) == 0 || (v[0] != '{' && v[0] != '[') {
			return "", 0
		}
		start := dec.InputOffset() - int64(len(v))
		return duplicateKey(v, base+start, name)
	}
	switch t {
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			t, err := dec.Token()
			if err != nil {
				return "", 0
			}
			k, _ := t.(string)
			keyEnd := dec.InputOffset()
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				return "", 0
			}
			if seen[k] {
				q, _ := json.Marshal(k)
				return prefix + k, base + max(keyEnd-int64(len(q)), 0)
			}
			seen[k] = true
			if dk, off := inner(v, prefix+k+"."); dk != "" {
				return dk, off
			}
		}
	case json.Delim('['):
		name := strings.TrimSuffix(prefix, ".")
		for i := 0; dec.More(); i++ {
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				return "", 0
			}
			if dk, off := inner(v, fmt.Sprintf("%s[%d].", name, i)); dk != "" {
				return dk, off
			}
		}
	}
	return "", 0
}

// FixturePaths returns the fixture paths made absolute against Dir.
func (c *Config) FixturePaths() []string {
	out := make([]string, len(c.Fixtures))
	for i, f := range c.Fixtures {
		if filepath.IsAbs(f) {
			out[i] = f
		} else {
			out[i] = filepath.Join(c.Dir, f)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// suggest names a known key that is close to an unknown one.
func suggest(k string, known []string) string {
	best, bestD := "", 3
	for _, c := range known {
		if d := distance(strings.ToLower(k), strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

func kind(v json.RawMessage) string {
	t := bytes.TrimSpace(v)
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

func lineCol(data []byte, off int64) (int, int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line, col := 1, 1
	for _, b := range data[:off] {
		if b == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}
