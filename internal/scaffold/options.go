// Package scaffold renders a better-supabase adapter from the embedded
// templates into an in-memory plan (files to create, edits to make), then
// writes that plan carefully: never outside the target folder, never over
// an existing file unless forced, and leaving nothing behind on failure.
// It knows nothing about terminals; internal/cli collects the options
// (from flags or the wizard in scaffold/wizard) and prints the results.
package scaffold

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/bsadapter/bsadapter/internal/conform/suites"
	"github.com/bsadapter/bsadapter/templates"
)

// Placement values: a standalone npm package, or a subpath inside a
// better-supabase checkout.
const (
	PlacementPackage = "package"
	PlacementSubpath = "subpath"
)

// Contract names accepted by --contracts.
const (
	ContractChat      = "chat"
	ContractStreams   = "streams"
	ContractWorkflows = "workflows"
	// ContractChatState is a Chat SDK state adapter (the chat-state suite).
	ContractChatState = "chat-state"
	// ContractCredentials is a credential provider (the credentials suite).
	ContractCredentials = "credentials"
	// ContractEngine is a workflow engine adapter (the engine suite); it
	// records into the run registry, so it needs workflows.
	ContractEngine = "engine"
	// ContractBuilder is a workflow builder runtime with its graph
	// compiler (the builder and graph-compiler suites); it needs workflows.
	ContractBuilder = "builder"
	// ContractWorld is a Workflow SDK World (the world suite): the
	// storage, streams and queue a workflow runtime runs on.
	ContractWorld = "world"
	// ContractEmbedder is better-supabase's Embedder (the embedder suite),
	// which the knowledge and memory blocks embed with.
	ContractEmbedder = "embedder"
	// ContractAiTaskRunner is better-supabase's AiTaskRunner (the
	// ai-task-runner suite), which the ai-tasks block runs prompts with.
	ContractAiTaskRunner = "ai-task-runner"
)

// DefaultContracts are what an adapter implements when --contracts is not
// given: the three blocks every SDK adapter touches. The other interfaces
// belong to some SDKs only and are asked for by name.
var DefaultContracts = []string{ContractChat, ContractStreams, ContractWorkflows}

// AllContracts lists the contracts --contracts accepts, as the
// conformance suites name them (a contract is what a suite checks): the
// defaults first, then the others in the suites' order.
func AllContracts() []string {
	out := slices.Clone(DefaultContracts)
	for _, s := range suites.All {
		if c := s.Contract; c != "" && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// ContractList is the valid --contracts values, for messages.
func ContractList() string { return strings.Join(AllContracts(), ", ") }

// ValidateContracts checks a --contracts list: every name known, and each
// contract only beside the contract it builds on (engine and builder
// record into the workflows block's run registry).
func ValidateContracts(list []string) error {
	if len(list) == 0 {
		return &OptionError{Flag: "--contracts", Msg: "is empty", Fix: "use a comma-separated list of " + ContractList()}
	}
	all := AllContracts()
	for _, c := range list {
		if !slices.Contains(all, c) {
			return &OptionError{Flag: "--contracts", Value: c, Msg: "is not a contract (the contracts are " + ContractList() + ")", Fix: "use a comma-separated list of " + ContractList()}
		}
	}
	for _, s := range suites.All {
		if s.Requires == "" || !slices.Contains(list, s.Contract) || slices.Contains(list, s.Requires) {
			continue
		}
		return &OptionError{Flag: "--contracts", Value: s.Contract, Msg: "needs the " + s.Requires + " contract: " + s.RequiresWhy, Fix: "add " + s.Requires + " to --contracts, e.g. --contracts " + s.Requires + "," + s.Contract}
	}
	return nil
}

// Reserved lists names that are already subpaths (or SQL modules) of
// better-supabase; an adapter named like one would collide with it.
var Reserved = []string{
	"access", "ai", "ai-chat", "ai-sdk", "blocks", "chat", "chat-sdk", "cli", "client",
	"credentials", "react", "schemas", "server", "source", "streams", "tenant",
	"testing", "workflow-sdk", "workflows",
}

// PresetSDKs are the npm packages each converter preset is written
// against: the SDK peers an adapter gets when --sdk is not given.
var PresetSDKs = map[string][]string{
	"langchain":        {"@langchain/core"},
	"ai-sdk":           {"ai"},
	"ai-sdk-model":     {"ai"},
	"chat-sdk":         {"chat"},
	"openai-chat":      {"openai"},
	"openai-responses": {"openai"},
	"anthropic":        {"@anthropic-ai/sdk"},
}

// Options are everything "bsadapter new" needs to render an adapter.
type Options struct {
	// Name is the adapter's name: lowercase kebab-case.
	Name string
	// SDKs are the SDK's npm packages, optional peer dependencies.
	SDKs []string
	// Format is the name stored beside native messages (default NAME-v1).
	Format string
	// Preset selects the converters: "generic" or "langchain".
	Preset string
	// Contracts are the blocks and interfaces the adapter implements
	// (AllContracts).
	Contracts []string
	// Builder is the deprecated --builder flag: the builder contract.
	Builder bool
	// Storage names the engine's own SQL module; empty for none.
	Storage string
	// Placement is PlacementPackage or PlacementSubpath.
	Placement string
	// Dir is the folder written into: the adapter's folder for a package,
	// the checkout's top folder for a subpath.
	Dir string
	// PackageName is the npm package of a standalone adapter (default
	// PackagePrefix+Name). The adapter's name alone would often be the
	// SDK's own package ("langchain"), which npm refuses to install into
	// a package of the same name and which is taken on the registry.
	PackageName string
}

// PackagePrefix starts the default package name of a standalone adapter,
// after the ecosystem's habit for plugins (eslint-plugin-*, babel-plugin-*):
// no SDK's package is named like it.
const PackagePrefix = "better-supabase-adapter-"

// Has reports whether the options include a contract.
func (o *Options) Has(contract string) bool { return slices.Contains(o.Contracts, contract) }

// OptionError is a bad option value. Flag names the flag (or "NAME" for
// the argument) so that the caller can say which one to fix.
type OptionError struct {
	Flag  string
	Value string
	Msg   string
	Fix   string
}

func (e *OptionError) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("%s %s", e.Flag, e.Msg)
	}
	return fmt.Sprintf("%s %q %s", e.Flag, e.Value, e.Msg)
}

var kebab = regexp.MustCompile(`^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$`)

// MaxNameLen bounds a name so that the package name, the export path and
// the storage module name stay readable and within Postgres identifiers.
const MaxNameLen = 40

// ValidateName checks an adapter name and says why it is refused and what
// to use instead.
func ValidateName(name string) error {
	bad := func(msg, fix string) error { return &OptionError{Flag: "NAME", Value: name, Msg: msg, Fix: fix} }
	suggest := Suggest(name)
	switch {
	case name == "":
		return &OptionError{Flag: "NAME", Msg: "is required", Fix: "pass the adapter's name, e.g. 'bsadapter new langchain'"}
	case strings.ContainsAny(name, `/\`) || name == "." || name == ".." || strings.Contains(name, ".."):
		return bad("would leave the target folder: a name is one path segment", fixWith(suggest))
	case len(name) > MaxNameLen:
		return bad(fmt.Sprintf("is longer than %d characters", MaxNameLen), "use a shorter name")
	case !kebab.MatchString(name):
		return bad("is not lowercase kebab-case (a-z, 0-9 and single dashes, starting with a letter)", fixWith(suggest))
	case slices.Contains(Reserved, name) && !slices.Contains(templates.Presets, name):
		return bad(fmt.Sprintf("is already a better-supabase subpath (better-supabase/%s)", name), fmt.Sprintf("pick a name of your own, such as %q", name+"-adapter"))
	case slices.Contains(nodeBuiltins, name):
		return bad(fmt.Sprintf("is a Node.js built-in module (node:%s): an import of it would never reach the adapter", name), fmt.Sprintf("pick a name of your own, such as %q", name+"-adapter"))
	case windowsReserved(name):
		return bad("is a reserved device name on Windows: a folder or file named so cannot be created there", fmt.Sprintf("pick a name of your own, such as %q", name+"-adapter"))
	}
	return nil
}

// nodeBuiltins are Node.js's built-in modules whose names are valid
// adapter names (the others hold an underscore or a slash).
var nodeBuiltins = []string{
	"assert", "buffer", "cluster", "console", "constants", "crypto", "dgram", "dns", "domain",
	"events", "fs", "http", "http2", "https", "inspector", "module", "net", "os", "path",
	"process", "punycode", "querystring", "readline", "repl", "sea", "sqlite", "stream", "sys",
	"test", "timers", "tls", "tty", "url", "util", "v8", "vm", "wasi", "zlib",
}

// windowsReserved says whether name is one of the device names Windows
// reserves in every folder (CON, PRN, AUX, NUL, COM0-9, LPT0-9).
func windowsReserved(name string) bool {
	switch name {
	case "con", "prn", "aux", "nul":
		return true
	}
	return len(name) == 4 && (strings.HasPrefix(name, "com") || strings.HasPrefix(name, "lpt")) && name[3] >= '0' && name[3] <= '9'
}

// ValidatePackageName checks a --package-name.
func ValidatePackageName(pkg string) error {
	if len(pkg) > 214 || !npmName.MatchString(pkg) {
		return &OptionError{Flag: "--package-name", Value: pkg, Msg: "is not an npm package name", Fix: "use lowercase letters, digits, dashes and dots, optionally with a scope: @you/my-adapter"}
	}
	base := pkg[strings.LastIndexByte(pkg, '/')+1:]
	if !strings.HasPrefix(pkg, "@") && (slices.Contains(nodeBuiltins, base) || windowsReserved(base)) {
		return &OptionError{Flag: "--package-name", Value: pkg, Msg: "is a Node.js built-in module or a name Windows reserves", Fix: "use " + PackagePrefix + "NAME or a scoped name"}
	}
	return nil
}

func fixWith(s string) string {
	if len(s) < 3 || ValidateName(s) != nil {
		return "use lowercase letters, digits and dashes, e.g. my-sdk"
	}
	return fmt.Sprintf("use %q", s)
}

// Suggest turns an arbitrary string into a kebab-case name, or "".
func Suggest(s string) string {
	if i := strings.LastIndexAny(s, `/\`); i >= 0 {
		s = s[i+1:]
	}
	var b strings.Builder
	dash := false
	for i, r := range s {
		switch {
		case r >= 'A' && r <= 'Z':
			// camelCase -> camel-case
			if i > 0 && b.Len() > 0 && !dash {
				b.WriteByte('-')
			}
			b.WriteRune(r + ('a' - 'A'))
			dash = false
		case (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9'):
			b.WriteRune(r)
			dash = false
		case unicode.IsLetter(r):
			// "café" is "cafe", not "caf": a letter is spelt in ASCII
			// when it can be, and a name with letters that cannot gets
			// no suggestion rather than a mangled one.
			ascii, ok := asciiLetter(unicode.ToLower(r))
			if !ok {
				return ""
			}
			b.WriteString(ascii)
			dash = false
		default:
			if b.Len() > 0 && !dash {
				b.WriteByte('-')
				dash = true
			}
		}
	}
	out := strings.Trim(b.String(), "-")
	out = strings.TrimLeft(out, "0123456789-")
	if len(out) > MaxNameLen {
		out = strings.Trim(out[:MaxNameLen], "-")
	}
	return out
}

var npmName = regexp.MustCompile(`^(?:@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*$`)

// ValidateSDK checks one npm package name given to --sdk.
func ValidateSDK(sdk string) error {
	if sdk == "" {
		return &OptionError{Flag: "--sdk", Msg: "is required when not running interactively", Fix: "pass the SDK's npm package, e.g. --sdk @langchain/core"}
	}
	if len(sdk) > 214 || !npmName.MatchString(sdk) {
		return &OptionError{Flag: "--sdk", Value: sdk, Msg: "is not an npm package name", Fix: "use the package's name as on npm, e.g. ai or @langchain/core"}
	}
	if sdk == "better-supabase" {
		return &OptionError{Flag: "--sdk", Value: sdk, Msg: "is the toolkit itself, not an SDK", Fix: "name the SDK the adapter connects"}
	}
	return nil
}

var formatName = regexp.MustCompile(`^[a-z][a-z0-9]*(?:[-.][a-z0-9]+)*$`)

// Complete fills the defaults (format, preset, contracts, placement) and
// validates everything. It returns the first problem as an *OptionError.
func (o *Options) Complete() error {
	if err := ValidateName(o.Name); err != nil {
		return err
	}
	if o.Preset == "" {
		o.Preset = "generic"
		if slices.Contains(templates.Presets, o.Name) {
			o.Preset = o.Name
		}
	}
	if !slices.Contains(templates.Presets, o.Preset) {
		return &OptionError{Flag: "--preset", Value: o.Preset, Msg: "is not a preset", Fix: "use one of " + strings.Join(templates.Presets, ", ")}
	}
	if len(o.SDKs) == 0 {
		o.SDKs = slices.Clone(PresetSDKs[o.Preset])
	}
	if len(o.SDKs) == 0 {
		return ValidateSDK("")
	}
	for _, s := range o.SDKs {
		if err := ValidateSDK(s); err != nil {
			return err
		}
	}
	// An SDK named twice is one peer: listing it twice would write the same
	// key twice into package.json.
	o.SDKs = dedupe(o.SDKs)
	if o.PackageName == "" {
		o.PackageName = PackagePrefix + o.Name
	}
	if err := ValidatePackageName(o.PackageName); err != nil {
		return err
	}
	for _, sdk := range o.SDKs {
		if sdk == o.PackageName {
			return &OptionError{Flag: "--package-name", Value: o.PackageName, Msg: "is the SDK's own package: npm refuses to install a package into one of the same name", Fix: "use " + PackagePrefix + o.Name}
		}
	}
	if o.Format == "" {
		o.Format = o.Name + "-v1"
	}
	if o.Format == "canonical" || !formatName.MatchString(o.Format) || len(o.Format) > 100 {
		return &OptionError{Flag: "--message-format", Value: o.Format, Msg: "is not a format name (lowercase, digits, dashes and dots; not \"canonical\")", Fix: fmt.Sprintf("use e.g. %q", o.Name+"-v1")}
	}
	if o.Contracts == nil {
		o.Contracts = slices.Clone(DefaultContracts)
	}
	if o.Builder && !o.Has(ContractWorkflows) {
		return &OptionError{Flag: "--builder", Msg: "needs the workflows contract", Fix: "use --contracts workflows,builder"}
	}
	if o.Builder {
		o.Contracts = append(slices.Clip(o.Contracts), ContractBuilder)
	}
	o.Contracts = dedupe(o.Contracts)
	if err := ValidateContracts(o.Contracts); err != nil {
		return err
	}
	o.Builder = o.Has(ContractBuilder)
	if o.Storage != "" && !kebab.MatchString(o.Storage) {
		return &OptionError{Flag: "--storage", Value: o.Storage, Msg: "is not a kebab-case SQL module name", Fix: fmt.Sprintf("use e.g. %q", o.Name+"-state")}
	}
	if o.Storage != "" && (slices.Contains(Reserved, o.Storage) || o.Storage == o.Name) {
		return &OptionError{Flag: "--storage", Value: o.Storage, Msg: "collides with a better-supabase module or the adapter itself", Fix: fmt.Sprintf("use e.g. %q", o.Name+"-state")}
	}
	switch o.Placement {
	case PlacementPackage, PlacementSubpath:
	default:
		return &OptionError{Flag: "--placement", Value: o.Placement, Msg: "is not a placement", Fix: "use package or subpath"}
	}
	if o.Dir == "" {
		return &OptionError{Flag: "--dir", Msg: "is empty", Fix: "pass the folder to write into"}
	}
	// A preset's name may be a better-supabase subpath (ai-sdk, chat-sdk):
	// as its own package (better-supabase-adapter-ai-sdk) it collides with
	// nothing, but inside a checkout it would be that subpath.
	if o.Placement == PlacementSubpath && slices.Contains(Reserved, o.Name) {
		return &OptionError{Flag: "NAME", Value: o.Name, Msg: fmt.Sprintf("is already a better-supabase subpath (better-supabase/%s)", o.Name), Fix: fmt.Sprintf("pick a name of your own, such as %q (with --preset %s)", o.Name+"-adapter", o.Preset)}
	}
	return nil
}

// dedupe drops repeated values, keeping the first of each in order.
func dedupe(list []string) []string {
	out := make([]string, 0, len(list))
	for _, v := range list {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// latin spells the accented Latin letters in ASCII.
var latin = map[rune]string{
	'à': "a", 'á': "a", 'â': "a", 'ã': "a", 'ä': "a", 'å': "a", 'ā': "a", 'ă': "a", 'ą': "a",
	'ç': "c", 'ć': "c", 'č': "c", 'ď': "d", 'đ': "d",
	'è': "e", 'é': "e", 'ê': "e", 'ë': "e", 'ē': "e", 'ė': "e", 'ę': "e", 'ě': "e",
	'ğ': "g", 'ì': "i", 'í': "i", 'î': "i", 'ï': "i", 'ī': "i", 'į': "i", 'ı': "i",
	'ł': "l", 'ľ': "l", 'ñ': "n", 'ń': "n", 'ň': "n",
	'ò': "o", 'ó': "o", 'ô': "o", 'õ': "o", 'ö': "o", 'ø': "o", 'ō': "o", 'ő': "o",
	'ř': "r", 'ś': "s", 'š': "s", 'ş': "s", 'ß': "ss", 'ť': "t", 'ţ': "t",
	'ù': "u", 'ú': "u", 'û': "u", 'ü': "u", 'ū': "u", 'ů': "u", 'ű': "u", 'ų': "u",
	'ý': "y", 'ÿ': "y", 'ź': "z", 'ż': "z", 'ž': "z", 'æ': "ae", 'œ': "oe", 'þ': "th", 'ð': "d",
}

func asciiLetter(r rune) (string, bool) {
	s, ok := latin[r]
	return s, ok
}
