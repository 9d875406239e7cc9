package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func write(t *testing.T, dir, body string) string {
	t.Helper()
	p := filepath.Join(dir, FileName)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The file "bsadapter new" generates loads, with fixtures as a string.
func TestLoadScaffoldShape(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, `{"name": "langchain", "format": "langchain-v1", "sdk": "@langchain/core",
  "bridge": {"command": ["npx","tsx","bsadapter.bridge.ts"]}, "fixtures": "fixtures"}`)
	c, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "langchain" || c.Format != "langchain-v1" || c.SDK != "@langchain/core" {
		t.Errorf("got %+v", c)
	}
	if !slices.Equal(c.Bridge.Command, []string{"npx", "tsx", "bsadapter.bridge.ts"}) {
		t.Errorf("command %q", c.Bridge.Command)
	}
	if !slices.Equal(c.Fixtures, []string{"fixtures"}) {
		t.Errorf("fixtures %q", c.Fixtures)
	}
	if c.Dir != dir || c.Path != p {
		t.Errorf("dir %q path %q", c.Dir, c.Path)
	}
	if got := c.FixturePaths(); got[0] != filepath.Join(dir, "fixtures") {
		t.Errorf("fixture paths %q", got)
	}
}

// The bridge's start timeout is a duration in Go's syntax.
func TestLoadStartTimeout(t *testing.T) {
	c, err := Load(write(t, t.TempDir(), `{"bridge": {"command": ["node", "b.mjs"], "startTimeout": "2m30s"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Bridge.StartTimeout != 150*time.Second {
		t.Errorf("start timeout %s, want 2m30s", c.Bridge.StartTimeout)
	}
}

// PostgreSQL's waits are durations in Go's syntax too; a key left out
// stays zero (bsadapter's default).
func TestLoadPostgresWaits(t *testing.T) {
	c, err := Load(write(t, t.TempDir(), `{"postgres": {"startTimeout": "3m", "installTimeout": "1h30m"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Postgres.StartTimeout != 3*time.Minute || c.Postgres.InstallTimeout != 90*time.Minute {
		t.Errorf("postgres waits %+v, want 3m and 1h30m", c.Postgres)
	}
	c, err = Load(write(t, t.TempDir(), `{"postgres": {"installTimeout": "45s"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Postgres.StartTimeout != 0 || c.Postgres.InstallTimeout != 45*time.Second {
		t.Errorf("postgres waits %+v, want 0 and 45s", c.Postgres)
	}
	c, err = Load(write(t, t.TempDir(), `{"postgres": {}}`))
	if err != nil || c.Postgres.StartTimeout != 0 || c.Postgres.InstallTimeout != 0 {
		t.Errorf("an empty section: %+v, %v", c, err)
	}
}

func TestLoadFixturesArray(t *testing.T) {
	c, err := Load(write(t, t.TempDir(), `{"fixtures": ["a", "b/c.jsonl"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Fixtures, []string{"a", "b/c.jsonl"}) {
		t.Errorf("fixtures %q", c.Fixtures)
	}
}

func TestLoadErrors(t *testing.T) {
	cases := []struct{ body, want string }{
		{`{"name": "x", "fixture": "f"}`, `unknown key "fixture" (did you mean "fixtures"?) (known keys: $schema, name, format, sdk, bridge, postgres, fixtures, roundTrip, blocks)`},
		{`{"postgress": {}}`, `unknown key "postgress" (did you mean "postgres"?)`},
		{`{"postgres": "5m"}`, `"postgres" must be an object like {"startTimeout": "5m", "installTimeout": "10m"}, not a string`},
		{`{"postgres": null}`, `"postgres" must be an object like`},
		{`{"postgres": {"startTimeout": 120}}`, `"postgres.startTimeout" must be a positive duration in a string, like "90s" or "2m", not 120`},
		{`{"postgres": {"startTimeout": "2 minutes"}}`, `"postgres.startTimeout" must be a positive duration in a string, like "90s" or "2m", not "2 minutes"`},
		{`{"postgres": {"installTimeout": "0s"}}`, `"postgres.installTimeout" must be a positive duration in a string, like "90s" or "2m", not "0s"`},
		{`{"postgres": {"installTimeout": "-5m"}}`, `"postgres.installTimeout" must be a positive duration`},
		{`{"postgres": {"installTimeout": null}}`, `"postgres.installTimeout" must be a positive duration in a string, like "90s" or "2m", not null`},
		{`{"postgres": {"installTimeOut": "5m"}}`, `unknown key "installTimeOut" in "postgres" (did you mean "installTimeout"?) (known keys: startTimeout, installTimeout)`},
		{`{"postgres": {"startTimeout": "1m", "startTimeout": "2m"}}`, `key "postgres.startTimeout" is given twice`},
		{`{"bridge": {"cmd": ["node"]}}`, `unknown key "cmd" in "bridge"`},
		{`{"bridge": {"command": "node bridge.mjs"}}`, `"bridge.command" must be a non-empty array of strings`},
		{`{"bridge": {"command": []}}`, `"bridge.command" must be a non-empty array`},
		{`{"bridge": {"startTimeout": 90}}`, `"bridge.startTimeout" must be a positive duration in a string, like "90s" or "2m", not 90`},
		{`{"bridge": {"startTimeout": "soon"}}`, `"bridge.startTimeout" must be a positive duration in a string, like "90s" or "2m", not "soon"`},
		{`{"bridge": {"startTimeout": "-1s"}}`, `"bridge.startTimeout" must be a positive duration`},
		{`{"bridge": {"startTimeOut": "1s"}}`, `unknown key "startTimeOut" in "bridge" (did you mean "startTimeout"?)`},
		{`{"fixtures": 3}`, `"fixtures" must be a string or an array of strings`},
		{`{"fixtures": null}`, `"fixtures" must be a string or an array of strings`},
		{`{"name": 1}`, `"name" must be a string, not a number`},
		{`{"name": "x",}`, `line 1, column 14`},
		{``, `the file is empty`},
		{`[1]`, `must hold one JSON object`},
		{`{} {}`, `unexpected content after the JSON object`},
		{"{\n  \"name\": \"x\",\n  \"bridge\": {\"command\": [\"node\"]", `line 3, column 33: the file ends in the middle of the JSON object (a missing closing brace, bracket or quote?)`},
		{`{"name": "x", "fixtures": "a",` + "\n" + `  "fixtures": "b"}`, `line 2, column 3: key "fixtures" is given twice; JSON keeps only the last one`},
		{`{"name": "x", "bridge": {"command": ["a"], "command": ["b"]}}`, `line 1, column 44: key "bridge.command" is given twice`},
		{`{"roundTrip": {"ignore": [], "ignore": []}}`, `line 1, column 30: key "roundTrip.ignore" is given twice`},
		{`{"roundTrip": {"ignore": [{"path": "/id", "reason": "a", "reason": "b"}]}}`, `line 1, column 58: key "roundTrip.ignore[0].reason" is given twice`},
		{`{"roundTrip": {"parts": ["text"], "ignore": [{"path": "/a", "reason": "r"}, {"path": "/b", "path": "/c", "reason": "r"}]}}`, `key "roundTrip.ignore[1].path" is given twice`},
		{`{"$schema": "s", "name": "x", "extra": [[{"k": 1, "k": 2}]]}`, `key "extra[0][0].k" is given twice`},
		{`{"roundTrip": []}`, `"roundTrip" must be an object like`},
		{`{"roundTrip": {"parts": "text"}}`, `"roundTrip.parts" must be a non-empty array of part types`},
		{`{"roundTrip": {"ignores": []}}`, `unknown key "ignores" in "roundTrip" (did you mean "ignore"?)`},
		{`{"roundTrip": {"ignore": {}}}`, `"roundTrip.ignore" must be an array`},
		{`{"roundTrip": {"ignore": [3]}}`, `"roundTrip.ignore" must be an array`},
		{`{"roundTrip": {"ignore": [{"path": "/id"}]}}`, `entry 0 (/id) needs a "reason"`},
		{`{"roundTrip": {"ignore": [{"path": "id", "reason": "r"}]}}`, `path "id" must start with "/"`},
		{`{"roundTrip": {"ignore": [{"path": "/id", "reason": "r", "why": 1}]}}`, `unknown key "why" in "roundTrip.ignore" entry 0`},
		{"\xEF\xBB\xBF{\"name\": \"x\"}", `the file starts with a UTF-8 byte-order mark (EF BB BF), which JSON does not allow; save it as UTF-8 without BOM`},
	}
	for _, tc := range cases {
		p := write(t, t.TempDir(), tc.body)
		_, err := Load(p)
		if err == nil {
			t.Errorf("%s: no error", tc.body)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s:\n got  %v\n want %q and the path", tc.body, err, tc.want)
		}
	}
}

func TestFindNearestParent(t *testing.T) {
	root := t.TempDir()
	write(t, root, `{"name": "outer"}`)
	inner := filepath.Join(root, "a")
	deep := filepath.Join(inner, "b", "c")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, inner, `{"name": "inner"}`)
	c, err := Find(deep)
	if err != nil || c == nil || c.Name != "inner" || c.Dir != inner {
		t.Fatalf("Find(deep) = %+v, %v", c, err)
	}
	c, err = Find(root)
	if err != nil || c == nil || c.Name != "outer" {
		t.Fatalf("Find(root) = %+v, %v", c, err)
	}
}

func TestFindNone(t *testing.T) {
	// A temp folder normally has no bsadapter.json above it; if the
	// machine has one in a parent, the test cannot prove "none".
	dir := t.TempDir()
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, FileName)); err == nil {
			t.Skipf("a %s exists above the temp folder at %s", FileName, d)
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	c, err := Find(dir)
	if c != nil || err != nil {
		t.Fatalf("Find = %+v, %v; want nil, nil", c, err)
	}
}

func TestLoadRoundTrip(t *testing.T) {
	c, err := Load(write(t, t.TempDir(), `{"roundTrip": {"ignore": [{"path": "/parts/*/providerMetadata", "reason": "the SDK fills it in"}, {"reason": "generated", "path": "/id"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []Ignore{{"/parts/*/providerMetadata", "the SDK fills it in"}, {"/id", "generated"}}
	if !slices.Equal(c.RoundTrip.Ignore, want) {
		t.Errorf("ignore %+v", c.RoundTrip.Ignore)
	}
}

// A config file above MaxSize is refused before it is parsed, with its
// size and the limit; one just under it is read.
func TestLoadSizeCap(t *testing.T) {
	dir := t.TempDir()
	big := `{"name": "` + strings.Repeat("x", MaxSize) + `"}`
	p := write(t, dir, big)
	_, err := Load(p)
	if err == nil || !strings.Contains(err.Error(), p+" is 1.0 MiB, more than the 1.0 MiB a config file may be") {
		t.Errorf("got %v", err)
	}
	ok := `{"name": "` + strings.Repeat("x", MaxSize-20) + `"}`
	if _, err := Load(write(t, dir, ok)); err != nil {
		t.Errorf("a file under the cap: %v", err)
	}
}
