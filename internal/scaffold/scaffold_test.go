package scaffold

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestValidateName(t *testing.T) {
	good := []string{"langchain", "temporal", "my-sdk", "a1", "vercel-chat-v2"}
	for _, n := range good {
		if err := ValidateName(n); err != nil {
			t.Errorf("%q refused: %v", n, err)
		}
	}
	bad := map[string]string{
		"":                      "is required",
		"../evil":               "would leave the target folder",
		"a/b":                   "would leave the target folder",
		`a\b`:                   "would leave the target folder",
		"..":                    "would leave the target folder",
		"MySDK":                 "kebab-case",
		"my_sdk":                "kebab-case",
		"-x":                    "kebab-case",
		"x-":                    "kebab-case",
		"a--b":                  "kebab-case",
		"1password":             "kebab-case",
		"ai-chat":               "already a better-supabase subpath",
		"streams":               "already a better-supabase subpath",
		"testing":               "already a better-supabase subpath",
		"credentials":           "already a better-supabase subpath",
		strings.Repeat("a", 41): "longer than",
	}
	for n, want := range bad {
		err := ValidateName(n)
		var oe *OptionError
		if !errors.As(err, &oe) || !strings.Contains(err.Error(), want) || oe.Fix == "" {
			t.Errorf("ValidateName(%q) = %v; want an OptionError with %q and a fix", n, err, want)
		}
	}
	for in, want := range map[string]string{"MySDK": "my-s-d-k", "my_sdk": "my-sdk", "../evil": "evil", "My Adapter!": "my-adapter", "--x--": "x"} {
		if got := Suggest(in); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCompleteDefaultsAndErrors(t *testing.T) {
	o := Options{Name: "langchain", Placement: PlacementPackage, Dir: "x"}
	if err := o.Complete(); err != nil {
		t.Fatal(err)
	}
	if o.Preset != "langchain" || o.Format != "langchain-v1" || o.SDKs[0] != "@langchain/core" || len(o.Contracts) != 3 {
		t.Errorf("defaults: %+v", o)
	}
	cases := map[string]Options{
		"--sdk":            {Name: "acme", Placement: PlacementPackage, Dir: "x"},
		"--message-format": {Name: "acme", SDKs: []string{"a"}, Format: "canonical", Placement: PlacementPackage, Dir: "x"},
		"--contracts":      {Name: "acme", SDKs: []string{"a"}, Contracts: []string{"chat", "cron"}, Placement: PlacementPackage, Dir: "x"},
		"--builder":        {Name: "acme", SDKs: []string{"a"}, Contracts: []string{"chat"}, Builder: true, Placement: PlacementPackage, Dir: "x"},
		"--storage":        {Name: "acme", SDKs: []string{"a"}, Storage: "Acme State", Placement: PlacementPackage, Dir: "x"},
		"--placement":      {Name: "acme", SDKs: []string{"a"}, Placement: "monorepo", Dir: "x"},
		"--preset":         {Name: "acme", SDKs: []string{"a"}, Preset: "openai", Placement: PlacementPackage, Dir: "x"},
	}
	for flag, o := range cases {
		err := o.Complete()
		var oe *OptionError
		if !errors.As(err, &oe) || oe.Flag != flag {
			t.Errorf("%s: got %v", flag, err)
		}
	}
	for _, sdk := range []string{"Not A Package", "better-supabase", "@scope/"} {
		if ValidateSDK(sdk) == nil {
			t.Errorf("--sdk %q accepted", sdk)
		}
	}
}

func render(t *testing.T, o Options) *Plan {
	t.Helper()
	p, err := Render(&o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// No template leaks a delimiter, a TODO for another adapter, or a token
// field into the generated code; the package.json follows rule 3.
func TestRenderedAdapterFollowsTheRules(t *testing.T) {
	p := render(t, Options{Name: "acme", SDKs: []string{"@acme/sdk"}, Placement: PlacementPackage, Dir: t.TempDir(), Storage: "acme-state"})
	for _, f := range p.Files {
		s := string(f.Data)
		if strings.Contains(s, "[%") || strings.Contains(s, "%]") || strings.Contains(s, "<no value>") {
			t.Errorf("%s has an unrendered template action", f.Path)
		}
		if strings.HasPrefix(f.Path, "src/") && regexpToken.MatchString(s) {
			t.Errorf("%s has a token-like option: %s", f.Path, regexpToken.FindString(s))
		}
		if strings.HasPrefix(f.Path, "src/") && strings.Contains(strings.ToLower(s), "create table") {
			t.Errorf("%s has SQL: adapters ship no SQL", f.Path)
		}
	}
	var pkg struct {
		Type                 string
		Exports              map[string]map[string]string
		PeerDependencies     map[string]string
		PeerDependenciesMeta map[string]struct{ Optional bool }
		Files                []string
		Scripts              map[string]string
	}
	for _, f := range p.Files {
		if f.Path == "package.json" {
			if err := json.Unmarshal(f.Data, &pkg); err != nil {
				t.Fatalf("package.json: %v", err)
			}
		}
	}
	if pkg.Type != "module" || pkg.Exports["."]["types"] == "" || pkg.PeerDependencies["better-supabase"] == "" ||
		pkg.PeerDependencies["@acme/sdk"] == "" || !pkg.PeerDependenciesMeta["@acme/sdk"].Optional {
		t.Errorf("package.json: %+v", pkg)
	}
	for _, s := range []string{"build", "test", "check-fixtures", "conform"} {
		if pkg.Scripts[s] == "" {
			t.Errorf("package.json has no %s script", s)
		}
	}
	if len(pkg.Files) != 1 || pkg.Files[0] != "dist" {
		t.Errorf("package.json files %v: only dist is published (no SQL)", pkg.Files)
	}
}

func TestWriteRefusesAndRollsBack(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	p := render(t, Options{Name: "acme", SDKs: []string{"a"}, Placement: PlacementPackage, Dir: dir, Contracts: []string{"chat"}})

	// A file in the way of a folder makes the write fail midway: every
	// file and folder written so far is removed again, the root included.
	blocker := &Plan{Root: dir, Files: append([]File{{Path: "aaa.txt", Data: []byte("x")}}, p.Files...)}
	blocker.Files = append(blocker.Files, File{Path: "src/types.ts/oops", Data: []byte("x")})
	if _, err := Write(blocker, false); err == nil {
		t.Fatal("a write through a file succeeded")
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the failed write left %s behind", dir)
	}

	// An existing file is a conflict; --force overwrites it; edits restore.
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "src", "index.ts"), []byte("mine"), 0o644)
	_, err := Write(p, false)
	var ce *ConflictError
	if !errors.As(err, &ce) || len(ce.Paths) != 1 || ce.Paths[0] != "src/index.ts" {
		t.Fatalf("want a conflict on src/index.ts, got %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "src"))
	if len(entries) != 1 {
		t.Errorf("a refused write wrote files: %v", entries)
	}
	res, err := Write(p, true)
	if err != nil || len(res.Overwritten) != 1 || len(res.Created) != len(p.Files)-1 {
		t.Fatalf("forced write: %+v %v", res, err)
	}
}

// A symbolic link inside the target that points outside it is not
// followed: os.Root refuses, and nothing is written outside.
func TestWriteNeverLeavesTheRoot(t *testing.T) {
	base := t.TempDir()
	outside := filepath.Join(base, "outside")
	root := filepath.Join(base, "root")
	os.MkdirAll(outside, 0o755)
	os.MkdirAll(root, 0o755)
	if err := os.Symlink(outside, filepath.Join(root, "src")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	p := &Plan{Root: root, Files: []File{{Path: "src/index.ts", Data: []byte("x")}}}
	if _, err := Write(p, true); err == nil {
		t.Error("a write through a symlink leaving the root succeeded")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("wrote outside the root: %v", entries)
	}
	p = &Plan{Root: root, Files: []File{{Path: "../escape.ts", Data: []byte("x")}}}
	if _, err := Write(p, true); err == nil {
		t.Error("a ../ path was written")
	}
	if _, err := os.Stat(filepath.Join(base, "escape.ts")); err == nil {
		t.Error("../escape.ts exists")
	}
}

func checkout(t *testing.T, pkg string) string {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "packages", "better-supabase")
	os.MkdirAll(p, 0o755)
	if err := os.WriteFile(filepath.Join(p, "package.json"), []byte(pkg), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestPackageJSONEditKeepsFormatting(t *testing.T) {
	cases := map[string]struct{ in, want string }{
		"tabs and CRLF, no peers": {
			in:   "{\r\n\t\"name\": \"better-supabase\",\r\n\t\"exports\": {\r\n\t\t\".\": \"./dist/index.js\"\r\n\t}\r\n}\r\n",
			want: "{\r\n\t\"name\": \"better-supabase\",\r\n\t\"exports\": {\r\n\t\t\".\": \"./dist/index.js\",\r\n\t\t\"./acme\": {\r\n\t\t\t\"@better-supabase/source\": \"./src/acme/index.ts\",\r\n\t\t\t\"types\": \"./dist/acme/index.d.ts\",\r\n\t\t\t\"default\": \"./dist/acme/index.js\"\r\n\t\t}\r\n\t},\r\n\t\"peerDependencies\": {\r\n\t\t\"@acme/sdk\": \"*\"\r\n\t},\r\n\t\"peerDependenciesMeta\": {\r\n\t\t\"@acme/sdk\": {\r\n\t\t\t\"optional\": true\r\n\t\t}\r\n\t}\r\n}\r\n",
		},
		"empty exports and peers already there": {
			in:   "{\n  \"name\": \"better-supabase\",\n  \"exports\": {},\n  \"peerDependencies\": { \"@acme/sdk\": \"^1\" },\n  \"peerDependenciesMeta\": {}\n}\n",
			want: "{\n  \"name\": \"better-supabase\",\n  \"exports\": {\n    \"./acme\": {\n      \"@better-supabase/source\": \"./src/acme/index.ts\",\n      \"types\": \"./dist/acme/index.d.ts\",\n      \"default\": \"./dist/acme/index.js\"\n    }\n  },\n  \"peerDependencies\": { \"@acme/sdk\": \"^1\" },\n  \"peerDependenciesMeta\": {\n    \"@acme/sdk\": {\n      \"optional\": true\n    }\n  }\n}\n",
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dir := checkout(t, c.in)
			o := &Options{Name: "acme", SDKs: []string{"@acme/sdk"}, Placement: PlacementSubpath, Dir: dir}
			if err := o.Complete(); err != nil {
				t.Fatal(err)
			}
			e, err := planPackageJSONEdit(o)
			if err != nil {
				t.Fatal(err)
			}
			if string(e.After) != c.want {
				t.Errorf("got\n%q\nwant\n%q", e.After, c.want)
			}
			// Running it again on the result changes nothing.
			os.WriteFile(filepath.Join(dir, "packages", "better-supabase", "package.json"), e.After, 0o644)
			again, err := planPackageJSONEdit(o)
			if err != nil || string(again.After) != c.want {
				t.Errorf("second edit: %v\n%q", err, again.After)
			}
		})
	}
	// A key given twice where the edit goes (found by FuzzPackageJSONEdit):
	// the entry would land in the copy JSON ignores.
	for _, broken := range []string{`{"name": "better-supabase", "exports": "./x.js"}`, `{"name": "better-supabase",`, `[1]`,
		`{"exports": {}, "exports": {"./x": "y"}}`, `{"peerDependencies": {"a": "1", "a": "2"}}`} {
		dir := checkout(t, broken)
		o := &Options{Name: "acme", SDKs: []string{"a"}, Placement: PlacementSubpath, Dir: dir}
		o.Complete()
		if _, err := planPackageJSONEdit(o); err == nil || !strings.Contains(err.Error(), "package.json") {
			t.Errorf("%s: want an error naming package.json, got %v", broken, err)
		}
	}
}

func TestFindCheckout(t *testing.T) {
	dir := checkout(t, `{"name": "better-supabase"}`)
	sub := filepath.Join(dir, "apps", "web")
	os.MkdirAll(sub, 0o755)
	if got, ok := FindCheckout(sub); !ok || got != dir {
		t.Errorf("FindCheckout(%s) = %s, %v", sub, got, ok)
	}
	other := checkout(t, `{"name": "not-it"}`)
	if _, ok := FindCheckout(other); ok {
		t.Error("a package named not-it is a checkout")
	}
}

var regexpToken = regexp.MustCompile(`(?i)\b(api_?key|access_?token|secret|password)\??\s*:`)

// duplicateKey returns the first key that occurs twice in one JSON object
// of data, or "". encoding/json keeps the last of two equal keys silently;
// npm does too, so a doubled peer would go unnoticed.
func duplicateKey(t *testing.T, data []byte) string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(data)))
	type frame struct {
		object bool
		keys   map[string]bool
		isKey  bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.isKey {
			if k, ok := tok.(string); ok {
				if top.keys[k] {
					return k
				}
				top.keys[k] = true
				top.isKey = false
				continue
			}
		}
		if top != nil && top.object {
			top.isKey = true
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, keys: map[string]bool{}, isKey: true})
		case json.Delim('['):
			stack = append(stack, &frame{})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && stack[len(stack)-1].object {
				stack[len(stack)-1].isKey = true
			}
		}
	}
}

// An SDK named twice (--sdk x --sdk x, or --sdk x,x) is one optional peer,
// in a package's package.json and in the checkout's for a subpath.
func TestSDKNamedTwiceIsOnePeer(t *testing.T) {
	if k := duplicateKey(t, []byte(`{"a": {"b": 1, "c": [1, {"b": 2}]}, "d": {"x": 1, "x": 2}}`)); k != "x" {
		t.Fatalf("duplicateKey found %q, want x", k)
	}
	sdks := []string{"@acme/sdk", "extra", "@acme/sdk", "extra"}
	p := render(t, Options{Name: "acme", SDKs: sdks, Contracts: []string{"chat", "chat"}, Placement: PlacementPackage, Dir: t.TempDir()})
	for _, f := range p.Files {
		if f.Path != "package.json" {
			continue
		}
		if k := duplicateKey(t, f.Data); k != "" {
			t.Errorf("package.json has the key %q twice:\n%s", k, f.Data)
		}
	}
	o := Options{Name: "acme", SDKs: sdks, Contracts: []string{"chat", "chat"}, Placement: PlacementPackage, Dir: "x"}
	if err := o.Complete(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(o.SDKs, ",") != "@acme/sdk,extra" || strings.Join(o.Contracts, ",") != "chat" {
		t.Errorf("after Complete: SDKs %v, contracts %v", o.SDKs, o.Contracts)
	}

	dir := checkout(t, "{\n  \"name\": \"better-supabase\",\n  \"peerDependencies\": { \"extra\": \"^1\" }\n}\n")
	sub := render(t, Options{Name: "acme", SDKs: sdks, Placement: PlacementSubpath, Dir: dir})
	if len(sub.Edits) != 1 {
		t.Fatalf("edits: %+v", sub.Edits)
	}
	if k := duplicateKey(t, sub.Edits[0].After); k != "" {
		t.Errorf("the edited package.json has the key %q twice:\n%s", k, sub.Edits[0].After)
	}
	if got := strings.Join(sub.Edits[0].Summary, "; "); !strings.Contains(got, "peerDependencies: add @acme/sdk (optional peer)") {
		t.Errorf("summary names peers it does not add: %s", got)
	}
}

// A subpath whose SDK is already a peer of better-supabase but not an
// optional one is refused, naming the line and the fix, rather than
// leaving the SDK a required peer (contracts rule 3).
func TestSubpathRefusesANonOptionalPeer(t *testing.T) {
	for name, meta := range map[string]string{
		"optional false":  `{ "optional": false }`,
		"no optional":     `{}`,
		"optional string": `{ "optional": "true" }`,
		"not an object":   `true`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := checkout(t, "{\n  \"name\": \"better-supabase\",\n  \"peerDependencies\": {\n    \"ai\": \"^5\"\n  },\n  \"peerDependenciesMeta\": {\n    \"ai\": "+meta+"\n  }\n}\n")
			o := Options{Name: "acme", SDKs: []string{"ai"}, Placement: PlacementSubpath, Dir: dir}
			_, err := Render(&o)
			if err == nil {
				t.Fatal("a non-optional peer was accepted")
			}
			for _, want := range []string{"packages/better-supabase/package.json:7:", `peerDependenciesMeta "ai"`, `"optional": true`} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
	dir := checkout(t, `{"name": "better-supabase", "peerDependencies": {"ai": "^5"}, "peerDependenciesMeta": {"ai": {"optional": true}}}`)
	o := Options{Name: "acme", SDKs: []string{"ai"}, Placement: PlacementSubpath, Dir: dir}
	if _, err := Render(&o); err != nil {
		t.Errorf("an optional peer is refused: %v", err)
	}
}

// The conform script runs suites the adapter has: the bridge for its own
// StreamStore or run registry; without either, the bridge answers no suite
// (conform exits 2), so a chat-only adapter checks the chat block instead.
func TestConformScriptMatchesTheContracts(t *testing.T) {
	for _, tc := range []struct {
		contracts []string
		want      string
	}{
		{[]string{"chat"}, "bsadapter conform --suite chat"},
		{[]string{"streams"}, "bsadapter conform --store=bridge --suite streams"},
		{[]string{"workflows"}, "bsadapter conform --store=bridge --suite registry"},
		{[]string{"chat", "streams"}, "bsadapter conform --store=bridge --suite streams"},
		{[]string{"chat", "workflows"}, "bsadapter conform --store=bridge --suite registry"},
		{[]string{"streams", "workflows"}, "bsadapter conform --store=bridge --suite streams,registry"},
		{[]string{"chat", "streams", "workflows"}, "bsadapter conform --store=bridge --suite streams,registry"},
		{[]string{"chat", "chat-state"}, "bsadapter conform --store=bridge --suite chat-state"},
		{[]string{"credentials"}, "bsadapter conform --store=bridge --suite credentials"},
		{[]string{"workflows", "engine"}, "bsadapter conform --store=bridge --suite registry,engine"},
		// The builder brings its graph compiler, and both suites.
		{[]string{"builder", "workflows"}, "bsadapter conform --store=bridge --suite registry,graph-compiler,builder"},
		{[]string{"builder", "engine", "credentials", "chat-state", "workflows", "streams", "chat"}, "bsadapter conform --store=bridge --suite streams,registry,chat-state,credentials,engine,graph-compiler,builder"},
	} {
		p := render(t, Options{Name: "acme", SDKs: []string{"@acme/sdk"}, Contracts: tc.contracts, Placement: PlacementPackage, Dir: t.TempDir()})
		var pkg struct{ Scripts map[string]string }
		var readme, conformTest string
		for _, f := range p.Files {
			switch f.Path {
			case "package.json":
				if err := json.Unmarshal(f.Data, &pkg); err != nil {
					t.Fatal(err)
				}
			case "README.md":
				readme = string(f.Data)
			case "test/conform.test.ts":
				conformTest = string(f.Data)
			}
		}
		if got := pkg.Scripts["conform"]; got != tc.want {
			t.Errorf("%v: conform script %q, want %q", tc.contracts, got, tc.want)
		}
		if !strings.Contains(readme, tc.want) {
			t.Errorf("%v: README does not name %q:\n%s", tc.contracts, tc.want, readme)
		}
		// The generated conformance test runs the same suites, and only
		// with a bridge to run them over.
		suites, bridged := strings.CutPrefix(tc.want, "bsadapter conform --store=bridge --suite ")
		if !bridged {
			if conformTest != "" {
				t.Errorf("%v: a test/conform.test.ts without a suite to run over the bridge", tc.contracts)
			}
			continue
		}
		var quoted []string
		for _, s := range strings.Split(suites, ",") {
			quoted = append(quoted, `"`+s+`"`)
		}
		if want := "const SUITES = [" + strings.Join(quoted, ", ") + "];"; !strings.Contains(conformTest, want) {
			t.Errorf("%v: test/conform.test.ts does not hold %s:\n%s", tc.contracts, want, conformTest)
		}
		// Nothing is left out: every case of those suites must run.
		if strings.Contains(conformTest, "--skip") || strings.Contains(conformTest, "--run") {
			t.Errorf("%v: test/conform.test.ts leaves cases out:\n%s", tc.contracts, conformTest)
		}
	}
}

// TestContractsValidation checks --contracts values: an unknown name is
// refused naming the flag and every valid value, and engine and builder
// need workflows.
func TestContractsValidation(t *testing.T) {
	for _, tc := range []struct {
		contracts []string
		builder   bool
		flag, msg string
	}{
		{[]string{"chat", "cron"}, false, "--contracts", `--contracts "cron" is not a contract (the contracts are chat, streams, workflows, chat-state, credentials, engine, builder, world, embedder, ai-task-runner)`},
		{[]string{"chatstate"}, false, "--contracts", `--contracts "chatstate" is not a contract (the contracts are chat, streams, workflows, chat-state, credentials, engine, builder, world, embedder, ai-task-runner)`},
		{[]string{"engine"}, false, "--contracts", `--contracts "engine" needs the workflows contract: it records its runs in the run registry`},
		{[]string{"chat", "builder"}, false, "--contracts", `--contracts "builder" needs the workflows contract: it records its runs in the run registry`},
		{[]string{"chat"}, true, "--builder", "--builder needs the workflows contract"},
	} {
		o := Options{Name: "acme", SDKs: []string{"@acme/sdk"}, Contracts: tc.contracts, Builder: tc.builder, Placement: PlacementPackage, Dir: t.TempDir()}
		err := o.Complete()
		var oe *OptionError
		if !errors.As(err, &oe) {
			t.Errorf("%v: %v, want an *OptionError", tc.contracts, err)
			continue
		}
		if oe.Flag != tc.flag || oe.Error() != tc.msg {
			t.Errorf("%v: %s (flag %s), want %s (flag %s)", tc.contracts, oe.Error(), oe.Flag, tc.msg, tc.flag)
		}
		if !strings.Contains(oe.Fix, "workflows") {
			t.Errorf("%v: fix %q does not say what to write", tc.contracts, oe.Fix)
		}
	}
	// --builder is the builder contract, and every new contract is accepted.
	o := Options{Name: "acme", SDKs: []string{"@acme/sdk"}, Contracts: []string{"workflows"}, Builder: true, Placement: PlacementPackage, Dir: "."}
	if err := o.Complete(); err != nil || !slices.Equal(o.Contracts, []string{"workflows", "builder"}) {
		t.Errorf("--builder: %v, contracts %v", err, o.Contracts)
	}
	o = Options{Name: "acme", SDKs: []string{"@acme/sdk"}, Contracts: []string{"chat-state", "credentials", "workflows", "engine", "builder"}, Placement: PlacementPackage, Dir: "."}
	if err := o.Complete(); err != nil || !o.Builder {
		t.Errorf("every contract: %v, builder %v", err, o.Builder)
	}
	o = Options{Name: "acme", SDKs: []string{"@acme/sdk"}, Placement: PlacementPackage, Dir: "."}
	if err := o.Complete(); err != nil || !slices.Equal(o.Contracts, []string{"chat", "streams", "workflows"}) {
		t.Errorf("the default contracts: %v, %v", err, o.Contracts)
	}
}
