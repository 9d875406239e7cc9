package scaffold_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/internal/scaffold"
)

// A preset whose name is a better-supabase subpath (ai-sdk, chat-sdk) is
// a standalone package of its own name, and refused only inside a
// checkout, where it would be that subpath.
func TestPresetNameThatIsASubpath(t *testing.T) {
	for _, name := range []string{"ai-sdk", "chat-sdk"} {
		o := &scaffold.Options{Name: name, Placement: scaffold.PlacementPackage, Dir: t.TempDir()}
		if err := o.Complete(); err != nil {
			t.Fatalf("new %s as a package: %v", name, err)
		}
		if o.Preset != name || o.PackageName != scaffold.PackagePrefix+name {
			t.Errorf("new %s: preset %q, package %q", name, o.Preset, o.PackageName)
		}
		o = &scaffold.Options{Name: name, Placement: scaffold.PlacementSubpath, Dir: t.TempDir()}
		var oe *scaffold.OptionError
		if err := o.Complete(); !errors.As(err, &oe) || !strings.Contains(err.Error(), "already a better-supabase subpath") || !strings.Contains(oe.Fix, name+"-adapter") {
			t.Errorf("new %s as a subpath: %v; want it refused with a fix", name, err)
		}
	}
	// A reserved name that is no preset stays refused everywhere.
	if err := scaffold.ValidateName("ai-chat"); err == nil {
		t.Error("ai-chat accepted")
	}
}

// aiPresets are the AI SDK and Chat SDK presets as TestAIPresetsEndToEnd
// checks them.
var aiPresets = []presetE2E{
	{
		preset: "ai-sdk", corpus: "ai-sdk-v5-uimessage", messages: 24,
		sdk: "ai", version: "^5.0.0", installed: `"version": "5\.`, types: "ai", fixtures: 2,
		generated: checkGeneratedPreset,
		refusals: []string{
			"a UI message has no tool role",
			"a step finish part has no UI part",
			"a step-start UI part has no stepId or providerMetadata",
			"a tool-result must directly follow its tool-call",
			"UI part has no providerMetadata",
		},
		// A tool part's providerExecuted, which files 06 and 18 hold.
		mutant:       [2]string{`...(typeof part["providerExecuted"] === "boolean" ? { providerExecuted: part["providerExecuted"] } : {}),`, ``},
		mutantFailed: []string{"06-assistant-provider-executed-tools.json", "18-assistant-tool-output-error-provider-executed.json"},
	},
	{
		preset: "ai-sdk-model", corpus: "ai-sdk-v5-modelmessage", messages: 25,
		sdk: "ai", version: "^5.0.0", installed: `"version": "5\.`, types: "ai", fixtures: 2,
		generated: checkGeneratedPreset,
		refusals: []string{
			"a tool model message cannot hold a",
			"a system model message's content is one string",
		},
		// A file part's filename, which files 08 and 11 hold.
		mutant:       [2]string{`...(part["filename"] !== undefined ? { filename: str(part["filename"], where, "filename") } : {}),`, ``},
		mutantFailed: []string{"08-user-file-with-filename-url-data.json", "11-assistant-file-data-url.json"},
	},
	{
		preset: "chat-sdk", corpus: "vercel-chat-sdk", messages: 12,
		sdk: "chat", version: "^4.41.1", types: "chat", fixtures: 2,
		generated: checkGeneratedPreset,
		refusals: []string{
			"a Chat SDK message has one text",
			"a Chat SDK message's text comes before its attachments",
		},
		// isMention, which the Slack messages (files 01 to 10) hold.
		mutant: [2]string{`if (!PART_FIELDS.includes(k) && k !== "raw") kept[k] = v;`, `if (!PART_FIELDS.includes(k) && k !== "raw" && k !== "isMention") kept[k] = v;`},
		mutantFailed: []string{
			"01-slack-channel-message-with-bot-mention.json", "02-slack-app-mention-event.json", "03-slack-bot-reply-in-thread-italic.json",
			"04-slack-user-thread-reply-minimal.json", "05-slack-bot-placeholder-message.json", "06-slack-edited-message-first-edit.json",
			"07-slack-edited-message-second-edit.json", "08-slack-dm-with-app-context.json", "09-slack-system-user-archived-channel.json",
			"10-slack-message-with-pasted-table-attachment.json",
		},
	},
}

// TestAIPresetsEndToEnd scaffolds the ai-sdk, ai-sdk-model and chat-sdk
// presets with the real binary ('bsadapter new X --preset X --yes'),
// installs them with npm (the SDK itself among the devDependencies, so
// that the type check reads its published types), type-checks them under
// the strictest settings, runs npm test, and runs the real check-fixtures
// on the preset's corpus folder (with the native round trip, no ignore
// rule) and with --generate 1000 --float64 on seeds 1, 2 and 3. A mutant
// of each preset that drops one field fails exactly the corpus files that
// hold it. ai-sdk and ai-sdk-model have the same devDependencies and
// share one install. (testPresetsEndToEnd says all it checks.)
func TestAIPresetsEndToEnd(t *testing.T) {
	testPresetsEndToEnd(t, scaffold.NewE2E(t, "the end-to-end run"), aiPresets)
}

// checkGeneratedPreset checks a --generate run through a preset: no
// message fails, the round trip changes nothing (a warning would be a
// changed id, role or metadata), and toSdk refuses only for the reasons
// the preset lists.
func checkGeneratedPreset(t *testing.T, p presetE2E, out []byte, n int) {
	t.Helper()
	var r struct {
		Summary   struct{ Messages, Passed, Failed, FileErrors, Refused, Warnings int }
		Results   []struct{ Name, Status string }
		Refusals  []struct{ Reason string }
		Generated struct{ Parts []string }
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("check-fixtures --generate: %v\n%s", err, out)
	}
	s := r.Summary
	if s.Messages != n || s.Passed != n || s.Failed != 0 || s.FileErrors != 0 || s.Warnings != s.Refused || len(r.Results) != 0 {
		t.Errorf("check-fixtures --generate: %+v, results %+v", s, r.Results)
	}
	if s.Refused >= n*3/4 {
		t.Errorf("check-fixtures --generate: %d of %d refused", s.Refused, n)
	}
	for _, ref := range r.Refusals {
		known := false
		for _, why := range p.refusals {
			known = known || strings.Contains(ref.Reason, why)
		}
		if !known {
			t.Errorf("toSdk refused for a reason the preset does not list: %s", ref.Reason)
		}
	}
}
