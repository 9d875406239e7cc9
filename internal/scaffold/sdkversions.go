package scaffold

import "sort"

// PresetSDKVersions are the versions of a preset's SDK packages that its
// converters are typed against. The generated package installs them as
// devDependencies, so that its type check reads the SDK's own published
// types; the peer dependency stays "*" (contracts rule 3: the app brings
// the SDK). A preset that is not listed types its messages structurally.
var PresetSDKVersions = map[string]map[string]string{
	"ai-sdk":           {"ai": "^5.0.0"},
	"ai-sdk-model":     {"ai": "^5.0.0"},
	"chat-sdk":         {"chat": "^4.41.1"},
	"openai-chat":      {"openai": "7.60.0"},
	"openai-responses": {"openai": "7.60.0"},
	"anthropic":        {"@anthropic-ai/sdk": "1.17.0"},
}

// Dep is one package and its version range in package.json.
type Dep struct{ Name, Version string }

// presetDevDeps lists the SDK devDependencies of a preset, by name.
func presetDevDeps(preset string) []Dep {
	var out []Dep
	for name, version := range PresetSDKVersions[preset] {
		out = append(out, Dep{name, version})
	}
	sort.Slice(out, func(i, k int) bool { return out[i].Name < out[k].Name })
	return out
}
