package lint

import (
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"strings"
)

// SARIF 2.1.0, the parts lint writes.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool       sarifTool     `json:"tool"`
		ColumnKind string        `json:"columnKind"`
		Results    []sarifResult `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version,omitempty"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string          `json:"id"`
		Name                 string          `json:"name"`
		ShortDescription     sarifText       `json:"shortDescription"`
		FullDescription      sarifText       `json:"fullDescription"`
		Help                 sarifText       `json:"help"`
		DefaultConfiguration sarifConfig     `json:"defaultConfiguration"`
		Properties           sarifProperties `json:"properties"`
	}
	sarifConfig struct {
		Level string `json:"level"`
	}
	sarifProperties struct {
		Tags []string `json:"tags"`
	}
	sarifText struct {
		Text string `json:"text"`
	}
	sarifResult struct {
		RuleID              string             `json:"ruleId"`
		RuleIndex           int                `json:"ruleIndex"`
		Level               string             `json:"level"`
		Message             sarifText          `json:"message"`
		Locations           []sarifLocation    `json:"locations"`
		CodeFlows           []sarifCodeFlow    `json:"codeFlows,omitempty"`
		Suppressions        []sarifSuppression `json:"suppressions,omitempty"`
		PartialFingerprints map[string]string  `json:"partialFingerprints,omitempty"`
	}
	sarifLocation struct {
		PhysicalLocation sarifPhysical `json:"physicalLocation"`
		Message          *sarifText    `json:"message,omitempty"`
	}
	sarifPhysical struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
		Region           sarifRegion   `json:"region"`
	}
	sarifArtifact struct {
		URI string `json:"uri"`
	}
	sarifRegion struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn"`
	}
	sarifCodeFlow struct {
		ThreadFlows []sarifThreadFlow `json:"threadFlows"`
	}
	sarifThreadFlow struct {
		Locations []sarifThreadFlowLocation `json:"locations"`
	}
	sarifThreadFlowLocation struct {
		Location sarifLocation `json:"location"`
	}
	sarifSuppression struct {
		Kind          string `json:"kind"`
		Justification string `json:"justification"`
	}
)

// WriteSARIF writes the report as a SARIF 2.1.0 log for code scanning:
// one result per finding (suppressed ones too, marked as suppressed in
// source with their reason), an eager import's chain as a code flow.
// URIs are relative to paths.Base (the repository's top in a workflow).
func WriteSARIF(w io.Writer, r *Report, paths Paths, toolVersion string) error {
	driver := sarifDriver{Name: "bsadapter lint", Version: toolVersion, InformationURI: "https://github.com/bsadapter/bsadapter/blob/main/docs/lint.md"}
	index := map[string]int{}
	for i, rule := range Rules {
		index[rule.ID] = i
		tags := []string{"better-supabase", "adapter-rules"}
		if rule.Contract > 0 {
			tags = append(tags, "contract-rule-"+string(rune('0'+rule.Contract)))
		}
		driver.Rules = append(driver.Rules, sarifRule{
			ID: rule.ID, Name: ruleName(rule.ID),
			ShortDescription:     sarifText{rule.Summary},
			FullDescription:      sarifText{rule.Detail},
			Help:                 sarifText{rule.Detail + " See docs/lint.md."},
			DefaultConfiguration: sarifConfig{"error"},
			Properties:           sarifProperties{tags},
		})
	}
	loc := func(file string, line, col int, msg string) sarifLocation {
		l := sarifLocation{PhysicalLocation: sarifPhysical{
			ArtifactLocation: sarifArtifact{URI: sarifURI(paths.Name(r, file))},
			Region:           sarifRegion{StartLine: max(line, 1), StartColumn: max(col, 1)},
		}}
		if msg != "" {
			l.Message = &sarifText{msg}
		}
		return l
	}
	results := []sarifResult{}
	add := func(f Finding, suppressed bool) {
		res := sarifResult{
			RuleID: f.Rule, RuleIndex: index[f.Rule], Level: "error",
			Message:   sarifText{f.Message + ". Fix: " + f.Fix},
			Locations: []sarifLocation{loc(f.File, f.Line, f.Column, "")},
			PartialFingerprints: map[string]string{
				"bsadapterLint/v1": f.Rule + ":" + f.File + ":" + f.Evidence,
			},
		}
		if len(f.Chain) > 1 {
			var tf sarifThreadFlow
			for _, l := range f.Chain {
				tf.Locations = append(tf.Locations, sarifThreadFlowLocation{loc(l.File, l.Line, l.Column, "imports "+l.Import)})
			}
			res.CodeFlows = []sarifCodeFlow{{ThreadFlows: []sarifThreadFlow{tf}}}
		}
		if suppressed {
			res.Suppressions = []sarifSuppression{{Kind: "inSource", Justification: f.Reason}}
		}
		results = append(results, res)
	}
	for _, f := range r.Findings {
		add(f, false)
	}
	for _, f := range r.Suppressed {
		add(f, true)
	}
	log := sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs:    []sarifRun{{Tool: sarifTool{driver}, ColumnKind: "unicodeCodePoints", Results: results}},
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

// ruleName turns an ID into the PascalCase name SARIF viewers show.
func ruleName(id string) string {
	var b strings.Builder
	for _, part := range strings.Split(id, "-") {
		if part == "" {
			continue
		}
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// sarifURI is a relative URI reference for a relative path, a file URI
// for an absolute one.
func sarifURI(p string) string {
	if filepath.IsAbs(filepath.FromSlash(p)) || strings.HasPrefix(p, "/") {
		return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String()
	}
	return (&url.URL{Path: p}).String()
}
