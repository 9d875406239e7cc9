package lint

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/bsadapter/bsadapter/internal/report"
	"github.com/bsadapter/bsadapter/internal/testenv"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// sarifReports are reports that exercise every part of the SARIF output:
// findings with and without chains, a suppressed finding, none at all.
func sarifReports(t *testing.T) map[string]*Report {
	out := map[string]*Report{}
	for _, name := range []string{"eager-three-deep", "ignored", "sdk-in-dependencies", "type-only-imports"} {
		out[name] = run(t, filepath.Join("testdata/corpus", name))
	}
	return out
}

// TestSARIFStructure checks what code scanning relies on, without the
// schema: every result names a rule the driver lists, at its index, with
// a 1-based place; a chain is a code flow; a suppressed finding is marked.
func TestSARIFStructure(t *testing.T) {
	for name, r := range sarifReports(t) {
		var b bytes.Buffer
		if err := report.WriteSARIF(&b, r.SARIF(Paths{Base: r.Root}, "1.2.3")); err != nil {
			t.Fatal(err)
		}
		var log struct {
			Version string `json:"version"`
			Runs    []struct {
				Tool struct {
					Driver struct {
						Name    string `json:"name"`
						Version string `json:"version"`
						Rules   []struct {
							ID string `json:"id"`
						} `json:"rules"`
					} `json:"driver"`
				} `json:"tool"`
				Results []struct {
					RuleID    string `json:"ruleId"`
					RuleIndex int    `json:"ruleIndex"`
					Locations []struct {
						PhysicalLocation struct {
							ArtifactLocation struct {
								URI string `json:"uri"`
							} `json:"artifactLocation"`
							Region struct {
								StartLine, StartColumn int
							} `json:"region"`
						} `json:"physicalLocation"`
					} `json:"locations"`
					CodeFlows []struct {
						ThreadFlows []struct {
							Locations []json.RawMessage `json:"locations"`
						} `json:"threadFlows"`
					} `json:"codeFlows"`
					Suppressions []struct {
						Kind, Justification string
					} `json:"suppressions"`
				} `json:"results"`
			} `json:"runs"`
		}
		if err := json.Unmarshal(b.Bytes(), &log); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if log.Version != "2.1.0" || len(log.Runs) != 1 || log.Runs[0].Tool.Driver.Version != "1.2.3" {
			t.Fatalf("%s: header = %+v", name, log)
		}
		run := log.Runs[0]
		if len(run.Tool.Driver.Rules) != len(Rules) {
			t.Errorf("%s: %d rules, want %d", name, len(run.Tool.Driver.Rules), len(Rules))
		}
		if len(run.Results) != len(r.Findings)+len(r.Suppressed) {
			t.Errorf("%s: %d results for %d findings and %d suppressed", name, len(run.Results), len(r.Findings), len(r.Suppressed))
		}
		for i, res := range run.Results {
			if res.RuleIndex < 0 || res.RuleIndex >= len(run.Tool.Driver.Rules) || run.Tool.Driver.Rules[res.RuleIndex].ID != res.RuleID {
				t.Errorf("%s: result %d: ruleIndex %d does not name %s", name, i, res.RuleIndex, res.RuleID)
			}
			loc := res.Locations[0].PhysicalLocation
			var f Finding
			if i < len(r.Findings) {
				f = r.Findings[i]
			} else {
				f = r.Suppressed[i-len(r.Findings)]
				if len(res.Suppressions) != 1 || res.Suppressions[0].Kind != "inSource" || res.Suppressions[0].Justification != f.Reason {
					t.Errorf("%s: suppressed result %d: %+v", name, i, res.Suppressions)
				}
			}
			if loc.ArtifactLocation.URI != f.File || loc.Region.StartLine != f.Line || loc.Region.StartColumn != f.Column {
				t.Errorf("%s: result %d at %+v, finding at %s:%d:%d", name, i, loc, f.File, f.Line, f.Column)
			}
			if len(f.Chain) > 1 && (len(res.CodeFlows) != 1 || len(res.CodeFlows[0].ThreadFlows[0].Locations) != len(f.Chain)) {
				t.Errorf("%s: result %d: the chain of %d is not a code flow: %+v", name, i, len(f.Chain), res.CodeFlows)
			}
		}
	}
}

// TestSARIFSchema validates the output against the SARIF 2.1.0 schema
// that @microsoft/jest-sarif ships (installed under tools/node).
func TestSARIFSchema(t *testing.T) {
	p := filepath.Join(testenv.NodeModules(t), "@microsoft", "jest-sarif", "lib", "schemas", "sarif-2.1.0-rtm.5.json")
	data, err := os.ReadFile(p)
	if err != nil {
		testenv.Missing(t, "the SARIF schema is not installed (%v): run 'npm install --no-save --prefix tools/node'", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("sarif-2.1.0.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("sarif-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	// The schema must be able to fail: a result without a message is invalid.
	bad, _ := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"ruleId":"r"}]}]}`)))
	if sch.Validate(bad) == nil {
		t.Fatal("the schema accepts a result without a message")
	}
	for name, r := range sarifReports(t) {
		var b bytes.Buffer
		if err := report.WriteSARIF(&b, r.SARIF(Paths{Base: r.Root}, "dev")); err != nil {
			t.Fatal(err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("%s: the SARIF log is not valid SARIF 2.1.0: %v", name, err)
		}
	}
}
