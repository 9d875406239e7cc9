package scaffold

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"text/template"

	"github.com/bsadapter/bsadapter/internal/conform/suites"
	"github.com/bsadapter/bsadapter/templates"
)

// File is one file of a plan, its path relative to the plan's root.
type File struct {
	Path string
	Data []byte
}

// Plan is a rendered adapter: files to create and edits to make, all
// relative to Root. Nothing is on disk until Write.
type Plan struct {
	Root  string
	Files []File
	Edits []Edit
	// NextDir (relative to Root) is where the user goes next, and Next the
	// command line they run there.
	NextDir, Next string
}

// layout says where each kind of file goes for a placement.
type layout struct {
	src, test, bridge, fixtures, docs, sql string
}

func layoutFor(o *Options) layout {
	if o.Placement == PlacementSubpath {
		test := path.Join(PackageDir, "tests", o.Name)
		return layout{
			src:      path.Join(PackageDir, "src", o.Name),
			test:     test,
			bridge:   test,
			fixtures: path.Join(test, "fixtures"),
			docs:     path.Join("apps/docs/content/docs", o.Name+".mdx"),
			sql:      "sql",
		}
	}
	return layout{src: "src", test: "test", bridge: ".", fixtures: "fixtures", docs: path.Join("docs", o.Name+".md"), sql: "sql"}
}

// data is what the templates see.
type data struct {
	Name, Format, SDK, Preset, Import string
	PackageName                       string
	SDKs                              []string
	Chat, Streams, Workflows, Builder bool
	ChatState, Credentials, Engine    bool
	World, Embedder, AiTaskRunner     bool
	// Clock: the bridge offers clock.advance (a store with TTLs or times).
	Clock   bool
	Subpath bool
	// Suites are the conform suites the generated bridge runs, and
	// SuitesFlag their --suite value.
	Suites     []string
	SuitesFlag string
	// BridgeFromTest is the bridge's folder relative to the tests.
	BridgeFromTest        string
	Storage, StorageIdent string
	// SrcImport is the relative import of the src folder from the file's
	// own folder; FixturesFromTest the fixtures folder from the tests.
	SrcImport, FixturesFromTest string
	UnknownPartJS               string
	// SDKDevDeps are the preset's SDK packages its types come from.
	SDKDevDeps []Dep
	// History: the preset's converters export fromSdkHistory and
	// toSdkHistory, which the bridge's history methods call.
	History bool
}

// historyPresets are the presets whose converters convert a conversation
// as a whole (the SDK keeps a tool result apart from its call).
var historyPresets = map[string]bool{
	"openai-chat":      true,
	"openai-responses": true,
	"anthropic":        true,
}

var unknownPart = map[string]string{
	"langchain":        `(native["kwargs"] as Record<string, unknown>)["content"] = [{ type: "hologram", data: 1 }];`,
	"generic":          `native["content"] = [{ type: "hologram", data: 1 }];`,
	"ai-sdk":           `native["parts"] = [{ type: "hologram", data: 1 }];`,
	"ai-sdk-model":     `native["content"] = [{ type: "hologram", data: 1 }];`,
	"chat-sdk":         `native["attachments"] = [{ type: "hologram", url: "https://example.com/x" }];`,
	"openai-chat":      `native["content"] = [{ type: "hologram", data: 1 }];`,
	"openai-responses": `native["content"] = [{ type: "hologram", data: 1 }];`,
	"anthropic":        `native["content"] = [{ type: "hologram", data: 1 }];`,
}

func rel(from, to string) string {
	r, err := filepath.Rel(filepath.FromSlash(from), filepath.FromSlash(to))
	if err != nil {
		panic(err) // both are clean relative paths
	}
	r = filepath.ToSlash(r)
	if !strings.HasPrefix(r, ".") {
		r = "./" + r
	}
	return r
}

// Render renders the adapter described by o (already Completed) into a
// plan: the current templates' files, and the record of what they were
// (RecordFile) that later add and upgrade runs start from. For a subpath
// placement it reads the checkout's package.json to plan the edit; it
// writes nothing.
func Render(o *Options) (*Plan, error) {
	return RenderVersion(o, templates.FS)
}

// RenderVersion is Render from another template tree, one that
// templates.Version returns (an older release's, or one registered with
// templates.Register): the adapter as that version generated it, with
// its record naming that version.
func RenderVersion(o *Options, fsys fs.FS) (*Plan, error) {
	if err := o.Complete(); err != nil {
		return nil, err
	}
	id := templates.CurrentID()
	if fsys != fs.FS(templates.FS) {
		var err error
		if id, err = templates.IDOf(fsys); err != nil {
			return nil, err
		}
	}
	files, err := renderFiles(o, fsys)
	if err != nil {
		return nil, err
	}
	rec, err := newRecord(o, id, files)
	if err != nil {
		return nil, err
	}
	l := layoutFor(o)
	d := newData(o)
	files = append(files, File{Path: path.Join(l.bridge, RecordFile), Data: rec})
	sort.Slice(files, func(i, k int) bool { return files[i].Path < files[k].Path })
	plan := &Plan{Root: o.Dir, Files: files}
	if d.Subpath {
		edit, err := planPackageJSONEdit(o)
		if err != nil {
			return nil, err
		}
		plan.Edits = append(plan.Edits, *edit)
		plan.NextDir, plan.Next = l.test, "bsadapter check-fixtures"
		if len(d.Suites) > 0 {
			plan.Next += " && bsadapter conform --store=bridge"
		}
	} else {
		plan.NextDir, plan.Next = ".", "npm install --legacy-peer-deps && bsadapter check-fixtures"
		if len(d.Suites) > 0 {
			plan.Next += " && bsadapter conform --store=bridge"
		}
	}
	return plan, nil
}

// newData is what the templates see for o.
func newData(o *Options) data {
	l := layoutFor(o)
	d := data{
		Name: o.Name, PackageName: o.PackageName, Format: o.Format, SDK: o.SDKs[0], SDKs: o.SDKs, Preset: o.Preset,
		Chat: o.Has(ContractChat), Streams: o.Has(ContractStreams), Workflows: o.Has(ContractWorkflows),
		Builder: o.Has(ContractBuilder), Subpath: o.Placement == PlacementSubpath,
		ChatState: o.Has(ContractChatState), Credentials: o.Has(ContractCredentials), Engine: o.Has(ContractEngine),
		World: o.Has(ContractWorld), Embedder: o.Has(ContractEmbedder), AiTaskRunner: o.Has(ContractAiTaskRunner),
		Suites:         BridgeSuites(o),
		BridgeFromTest: rel(l.test, l.bridge),
		Storage:        o.Storage, StorageIdent: strings.ReplaceAll(o.Storage, "-", "_"),
		Import:           o.PackageName,
		FixturesFromTest: rel(l.test, l.fixtures),
		UnknownPartJS:    unknownPart[o.Preset],
		SDKDevDeps:       presetDevDeps(o.Preset),
		History:          historyPresets[o.Preset],
	}
	if d.Subpath {
		d.Import = "better-supabase/" + o.Name
	}
	d.Clock = d.Streams || d.Workflows || d.ChatState
	d.SuitesFlag = strings.Join(d.Suites, ",")
	return d
}

// renderFiles renders the adapter's own files (not the record, not the
// edits) from the template tree fsys, sorted by path. A template missing
// from an older tree (one a later release added) renders nothing: that
// version did not generate the file. The current tree has them all.
func renderFiles(o *Options, fsys fs.FS) ([]File, error) {
	l := layoutFor(o)
	d := newData(o)
	type job struct{ tmpl, dest string }
	var jobs []job
	add := func(cond bool, tmpl, dest string) {
		if cond {
			jobs = append(jobs, job{tmpl, dest})
		}
	}
	add(true, "adapter/src/types.ts.tmpl", path.Join(l.src, "types.ts"))
	add(true, "adapter/src/result.ts.tmpl", path.Join(l.src, "result.ts"))
	add(true, "presets/"+o.Preset+"/converters.ts.tmpl", path.Join(l.src, "converters.ts"))
	add(true, "adapter/src/index.ts.tmpl", path.Join(l.src, "index.ts"))
	add(d.Chat, "adapter/src/chat.ts.tmpl", path.Join(l.src, "chat.ts"))
	add(d.Streams, "adapter/src/streams.ts.tmpl", path.Join(l.src, "streams.ts"))
	add(d.Streams, "adapter/src/memory-stream-store.ts.tmpl", path.Join(l.src, "memory-stream-store.ts"))
	add(d.Workflows, "adapter/src/workflows.ts.tmpl", path.Join(l.src, "workflows.ts"))
	add(d.Workflows, "adapter/src/memory-run-registry.ts.tmpl", path.Join(l.src, "memory-run-registry.ts"))
	add(d.ChatState, "adapter/src/memory-chat-state.ts.tmpl", path.Join(l.src, "memory-chat-state.ts"))
	add(d.Credentials, "adapter/src/memory-credentials.ts.tmpl", path.Join(l.src, "memory-credentials.ts"))
	add(d.Engine, "adapter/src/engine.ts.tmpl", path.Join(l.src, "engine.ts"))
	add(d.Engine, "adapter/src/memory-engine.ts.tmpl", path.Join(l.src, "memory-engine.ts"))
	add(d.Builder, "adapter/src/builder.ts.tmpl", path.Join(l.src, "builder.ts"))
	add(d.World, "adapter/src/memory-world.ts.tmpl", path.Join(l.src, "memory-world.ts"))
	add(d.Embedder, "adapter/src/memory-embedder.ts.tmpl", path.Join(l.src, "memory-embedder.ts"))
	add(d.AiTaskRunner, "adapter/src/memory-ai-task-runner.ts.tmpl", path.Join(l.src, "memory-ai-task-runner.ts"))
	add(true, "adapter/bsadapter.bridge.ts.tmpl", path.Join(l.bridge, "bsadapter.bridge.ts"))
	// The bridge's method groups, one file per interface beside the bridge.
	add(true, "adapter/bridge/rpc.ts.tmpl", path.Join(l.bridge, "bridge", "rpc.ts"))
	add(d.ChatState, "adapter/bridge/chat-state.ts.tmpl", path.Join(l.bridge, "bridge", "chat-state.ts"))
	add(d.Credentials, "adapter/bridge/credentials.ts.tmpl", path.Join(l.bridge, "bridge", "credentials.ts"))
	add(d.Engine, "adapter/bridge/engine.ts.tmpl", path.Join(l.bridge, "bridge", "engine.ts"))
	add(d.Builder, "adapter/bridge/builder.ts.tmpl", path.Join(l.bridge, "bridge", "builder.ts"))
	add(d.World, "adapter/bridge/world.ts.tmpl", path.Join(l.bridge, "bridge", "world.ts"))
	add(d.Embedder || d.AiTaskRunner, "adapter/bridge/signals.ts.tmpl", path.Join(l.bridge, "bridge", "signals.ts"))
	add(d.Embedder, "adapter/bridge/embedder.ts.tmpl", path.Join(l.bridge, "bridge", "embedder.ts"))
	add(d.AiTaskRunner, "adapter/bridge/ai-task-runner.ts.tmpl", path.Join(l.bridge, "bridge", "ai-task-runner.ts"))
	add(true, "adapter/bsadapter.json.tmpl", path.Join(l.bridge, "bsadapter.json"))
	add(true, "adapter/test/converters.test.ts.tmpl", path.Join(l.test, "converters.test.ts"))
	add(true, "adapter/test/kits.test.ts.tmpl", path.Join(l.test, "kits.test.ts"))
	add(d.Chat, "adapter/test/chat.test.ts.tmpl", path.Join(l.test, "chat.test.ts"))
	add(d.Workflows, "adapter/test/workflows.test.ts.tmpl", path.Join(l.test, "workflows.test.ts"))
	add(d.Builder, "adapter/test/builder.test.ts.tmpl", path.Join(l.test, "builder.test.ts"))
	add(d.World, "adapter/test/world.test.ts.tmpl", path.Join(l.test, "world.test.ts"))
	add(len(d.Suites) > 0, "adapter/test/conform.test.ts.tmpl", path.Join(l.test, "conform.test.ts"))
	add(true, "docs/adapter.md.tmpl", l.docs)
	fixtures, err := fs.Glob(fsys, "presets/"+o.Preset+"/fixtures/*.tmpl")
	if err != nil {
		return nil, err
	}
	for _, f := range fixtures {
		add(true, f, path.Join(l.fixtures, strings.TrimSuffix(path.Base(f), ".tmpl")))
	}
	if !d.Subpath {
		for _, f := range []string{"package.json", "tsconfig.json", "tsconfig.build.json", "README.md"} {
			add(true, "package/"+f+".tmpl", f)
		}
		add(true, "package/gitignore.tmpl", ".gitignore")
	}
	add(o.Storage != "", "sql/module.sql.tmpl", path.Join(l.sql, o.Storage+".sql"))
	add(o.Storage != "", "sql/README.md.tmpl", path.Join(l.sql, "README.md"))

	var files []File
	for _, j := range jobs {
		dd := d
		dd.SrcImport = rel(path.Dir(j.dest), l.src)
		if _, err := fs.Stat(fsys, j.tmpl); errors.Is(err, fs.ErrNotExist) && fsys != fs.FS(templates.FS) {
			continue
		}
		out, err := execute(fsys, j.tmpl, dd)
		if err != nil {
			return nil, err
		}
		if !filepath.IsLocal(filepath.FromSlash(j.dest)) {
			return nil, fmt.Errorf("template %s would write %s, outside the target folder", j.tmpl, j.dest)
		}
		files = append(files, File{Path: j.dest, Data: out})
	}
	sort.Slice(files, func(i, k int) bool { return files[i].Path < files[k].Path })
	return files, nil
}

// BridgeSuites are the conform suites that run over the generated bridge
// for o's contracts, in conform's order: those of its contracts that have
// bridge methods (chat has none).
func BridgeSuites(o *Options) []string {
	var out []string
	for _, s := range suites.All {
		if s.BridgeGroup != "" && o.Has(s.Contract) {
			out = append(out, s.Name)
		}
	}
	return out
}

func execute(fsys fs.FS, name string, d data) ([]byte, error) {
	src, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	t, err := template.New(path.Base(name)).Delims(templates.LeftDelim, templates.RightDelim).Option("missingkey=error").Parse(string(src))
	if err != nil {
		return nil, fmt.Errorf("template %s: %w", name, err)
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, d); err != nil {
		return nil, fmt.Errorf("template %s: %w", name, err)
	}
	return buf.Bytes(), nil
}

// PackageDir is the better-supabase package inside a checkout.
const PackageDir = "packages/better-supabase"

// FindCheckout looks for a better-supabase checkout at dir or above it:
// a folder holding packages/better-supabase/package.json whose name is
// "better-supabase". It returns the checkout's top folder.
func FindCheckout(dir string) (string, bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	for {
		if isCheckout(abs) {
			return abs, true
		}
		parent := filepath.Dir(abs)
		if parent == abs {
			return "", false
		}
		abs = parent
	}
}

func isCheckout(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(PackageDir), "package.json"))
	if err != nil {
		return false
	}
	name, err := topLevelString(b, "name")
	return err == nil && name == "better-supabase"
}
