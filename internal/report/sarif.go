package report

import (
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"strings"
)

// SARIF 2.1.0, the parts bsadapter writes for code scanning: one run of
// one tool, its rules, and results with their places, code flows (the
// chain of files that leads to a finding) and in-source suppressions.
// A package that finds things builds a SARIF; WriteSARIF turns it into
// bytes.
type (
	// SARIF is a SARIF log.
	SARIF struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []SARIFRun `json:"runs"`
	}
	// SARIFRun is one run of a tool: the tool and its results.
	SARIFRun struct {
		Tool       SARIFTool     `json:"tool"`
		ColumnKind string        `json:"columnKind"`
		Results    []SARIFResult `json:"results"`
	}
	// SARIFTool names the tool that ran.
	SARIFTool struct {
		Driver SARIFDriver `json:"driver"`
	}
	// SARIFDriver is the tool's name, version and the rules it checks.
	SARIFDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version,omitempty"`
		InformationURI string      `json:"informationUri"`
		Rules          []SARIFRule `json:"rules"`
	}
	// SARIFRule is one rule a result can name, by its index in the
	// driver's rules.
	SARIFRule struct {
		ID                   string              `json:"id"`
		Name                 string              `json:"name"`
		ShortDescription     SARIFText           `json:"shortDescription"`
		FullDescription      SARIFText           `json:"fullDescription"`
		Help                 SARIFText           `json:"help"`
		DefaultConfiguration SARIFConfig         `json:"defaultConfiguration"`
		Properties           SARIFRuleProperties `json:"properties"`
	}
	// SARIFConfig is a rule's default level.
	SARIFConfig struct {
		Level string `json:"level"`
	}
	// SARIFRuleProperties are a rule's tags.
	SARIFRuleProperties struct {
		Tags []string `json:"tags"`
	}
	// SARIFText is a plain-text message.
	SARIFText struct {
		Text string `json:"text"`
	}
	// SARIFResult is one finding.
	SARIFResult struct {
		RuleID              string             `json:"ruleId"`
		RuleIndex           int                `json:"ruleIndex"`
		Level               string             `json:"level"`
		Message             SARIFText          `json:"message"`
		Locations           []SARIFLocation    `json:"locations"`
		CodeFlows           []SARIFCodeFlow    `json:"codeFlows,omitempty"`
		Suppressions        []SARIFSuppression `json:"suppressions,omitempty"`
		PartialFingerprints map[string]string  `json:"partialFingerprints,omitempty"`
	}
	// SARIFLocation is a place in a file, with an optional message.
	SARIFLocation struct {
		PhysicalLocation SARIFPhysical `json:"physicalLocation"`
		Message          *SARIFText    `json:"message,omitempty"`
	}
	// SARIFPhysical is a file and a place in it.
	SARIFPhysical struct {
		ArtifactLocation SARIFArtifact `json:"artifactLocation"`
		Region           SARIFRegion   `json:"region"`
	}
	// SARIFArtifact names a file by URI.
	SARIFArtifact struct {
		URI string `json:"uri"`
	}
	// SARIFRegion is a 1-based line and column.
	SARIFRegion struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn"`
	}
	// SARIFCodeFlow is a path through the code to a result.
	SARIFCodeFlow struct {
		ThreadFlows []SARIFThreadFlow `json:"threadFlows"`
	}
	// SARIFThreadFlow is the places of a code flow, in order.
	SARIFThreadFlow struct {
		Locations []SARIFThreadFlowLocation `json:"locations"`
	}
	// SARIFThreadFlowLocation is one step of a thread flow.
	SARIFThreadFlowLocation struct {
		Location SARIFLocation `json:"location"`
	}
	// SARIFSuppression marks a result silenced, and why.
	SARIFSuppression struct {
		Kind          string `json:"kind"`
		Justification string `json:"justification"`
	}
)

// NewSARIF returns a SARIF 2.1.0 log of one run of driver with results.
func NewSARIF(driver SARIFDriver, results []SARIFResult) *SARIF {
	return &SARIF{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs:    []SARIFRun{{Tool: SARIFTool{driver}, ColumnKind: "unicodeCodePoints", Results: nonNil(results)}},
	}
}

// NewSARIFLocation is a place in file (a path as output shows it), at a
// 1-based line and column (lower ones are taken as 1), with an optional
// message.
func NewSARIFLocation(file string, line, col int, msg string) SARIFLocation {
	l := SARIFLocation{PhysicalLocation: SARIFPhysical{
		ArtifactLocation: SARIFArtifact{URI: sarifURI(file)},
		Region:           SARIFRegion{StartLine: max(line, 1), StartColumn: max(col, 1)},
	}}
	if msg != "" {
		l.Message = &SARIFText{msg}
	}
	return l
}

// WriteSARIF writes log as indented JSON.
func WriteSARIF(w io.Writer, log *SARIF) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

// sarifURI is a relative URI reference for a relative path, a file URI
// for an absolute one.
func sarifURI(p string) string {
	if filepath.IsAbs(filepath.FromSlash(p)) || strings.HasPrefix(p, "/") {
		return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String()
	}
	return (&url.URL{Path: p}).String()
}
