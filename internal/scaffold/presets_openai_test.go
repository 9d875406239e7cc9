package scaffold_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/bsadapter/bsadapter/internal/scaffold"
)

// sdkPresetCases are the SDK presets TestSDKPresets checks: each mutant
// drops one field the corpus carries, and fails exactly the corpus
// messages that hold it.
var sdkPresetCases = []presetE2E{
	{
		preset: "openai-chat", corpus: "openai-chat",
		sdk: "openai", version: "7.60.0", types: "openai/resources/chat/completions", fixtures: 3,
		generated: checkPresetGenerated,
		// The completion's annotations (url citations) are no longer kept.
		mutant: [2]string{"    fields[k] = v;\n", "    if (k !== \"annotations\") fields[k] = v;\n"},
		holds:  func(m map[string]any) bool { _, ok := m["annotations"]; return ok },
	},
	{
		preset: "openai-responses", corpus: "openai-responses",
		sdk: "openai", version: "7.60.0", types: "openai/resources/responses/responses", fixtures: 3,
		generated: checkPresetGenerated,
		// A text's annotations (url citations) are no longer kept.
		mutant: [2]string{
			"const { text, ...more } = rest;\n      if (typeof text !== \"string\") fail(`${where}: a ${type} part",
			"const { text, annotations: _a, ...more } = rest;\n      if (typeof text !== \"string\") fail(`${where}: a ${type} part",
		},
		holds: func(m map[string]any) bool {
			parts, _ := m["content"].([]any)
			return slices.ContainsFunc(parts, func(p any) bool { _, ok := p.(map[string]any)["annotations"]; return ok })
		},
	},
	{
		preset: "anthropic", corpus: "anthropic",
		sdk: "@anthropic-ai/sdk", version: "1.17.0", types: "@anthropic-ai/sdk/resources/messages", fixtures: 3,
		generated: checkPresetGenerated,
		// A thinking block's signature is no longer kept.
		mutant: [2]string{
			`return { type: "reasoning", text: thinking, ...pmOf(more) };`,
			`return { type: "reasoning", text: thinking, ...pmOf(Object.fromEntries(Object.entries(more).filter(([k]) => k !== "signature"))) };`,
		},
		holds: func(m map[string]any) bool {
			blocks, _ := m["content"].([]any)
			return slices.ContainsFunc(blocks, func(b any) bool {
				o, _ := b.(map[string]any)
				_, ok := o["signature"]
				return o["type"] == "thinking" && ok
			})
		},
	},
}

// TestSDKPresets scaffolds each SDK preset with its defaults, installs it
// with npm, and checks that it type-checks against the SDK's published
// types under the strictest settings, that npm test passes, that the
// converters take every message of the preset's corpus folder through the
// native round trip with no ignore rule, and that generated canonical
// messages keep their parts (refusals aside) on three seeds. A mutant that
// drops one field fails exactly the corpus messages that hold it.
// (testPresetsEndToEnd says all it checks.) openai-chat and
// openai-responses pin the same SDK and share one install.
func TestSDKPresets(t *testing.T) {
	h := scaffold.NewE2E(t, "the preset run")
	dirs := testPresetsEndToEnd(t, h, sdkPresetCases)

	// The LangChain preset's two shapes from outside the corpus: an
	// AIMessageChunk whose reasoning summary is only in
	// response_metadata.output, and a nameless continuation chunk whose
	// tool call has id null. Both failed before (a hollow conversion; an
	// id "" invented on the way back).
	t.Run("langchain-outside-shapes", func(t *testing.T) {
		h.Run(t, h.Work, h.Bin, "new", "langchain", "--yes")
		lc := filepath.Join(h.Work, "langchain")
		// The bridge needs tsx only: the openai-chat install has it.
		if err := os.Symlink(filepath.Join(dirs["openai-chat"], "node_modules"), filepath.Join(lc, "node_modules")); err != nil {
			t.Fatal(err)
		}
		out := h.Run(t, lc, h.Bin, "check-fixtures", "--format", "json",
			filepath.Join("fixtures", "07-ai-chunk-reasoning-in-response-output.json"), filepath.Join("fixtures", "08-ai-chunk-nameless-continuation.json"))
		checkFixtures(t, out, 2)
		var r struct {
			Coverage []struct {
				Type  string
				Count int
			}
		}
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for _, c := range r.Coverage {
			got[c.Type] = c.Count
		}
		if got["reasoning"] != 2 || got["tool-call"] != 1 {
			t.Errorf("coverage %v: want the 2 reasoning summaries and the 1 tool call as parts", got)
		}
	})
}

// checkPresetGenerated checks a --generate run through an SDK preset: no
// message fails, and a message that was converted (not refused) changed
// nothing but its id (these SDKs' request messages have none: the stored
// row keeps it) and the preset's own metadata.
func checkPresetGenerated(t *testing.T, _ presetE2E, out []byte, n int) {
	t.Helper()
	var r struct {
		Summary struct{ Messages, Passed, Failed, FileErrors, Refused int }
		Results []struct {
			Name, Status string
			Warnings     []struct{ Pointer, Op string }
		}
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("check-fixtures --generate --format json: %v\n%s", err, out)
	}
	s := r.Summary
	if s.Messages != n || s.Failed != 0 || s.FileErrors != 0 || s.Passed != n || s.Refused == n {
		t.Errorf("check-fixtures --generate: %+v", s)
	}
	for _, m := range r.Results {
		if m.Status == "failed" {
			t.Errorf("%s failed", m.Name)
		}
		for _, w := range m.Warnings {
			if w.Pointer != "/id" {
				t.Errorf("%s: the round trip changed %s (%s)", m.Name, w.Pointer, w.Op)
			}
		}
	}
}
