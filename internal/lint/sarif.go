package lint

import (
	"strings"

	"github.com/bsadapter/bsadapter/internal/report"
)

// SARIF returns the report as a SARIF 2.1.0 log for code scanning: one
// result per finding (suppressed ones too, marked as suppressed in source
// with their reason), an eager import's chain as a code flow. URIs are
// relative to paths.Base (the repository's top in a workflow).
// report.WriteSARIF writes it.
func (r *Report) SARIF(paths Paths, toolVersion string) *report.SARIF {
	driver := report.SARIFDriver{Name: "bsadapter lint", Version: toolVersion, InformationURI: "https://github.com/bsadapter/bsadapter/blob/main/docs/lint.md"}
	index := map[string]int{}
	for i, rule := range Rules {
		index[rule.ID] = i
		tags := []string{"better-supabase", "adapter-rules"}
		if rule.Contract > 0 {
			tags = append(tags, "contract-rule-"+string(rune('0'+rule.Contract)))
		}
		driver.Rules = append(driver.Rules, report.SARIFRule{
			ID: rule.ID, Name: ruleName(rule.ID),
			ShortDescription:     report.SARIFText{Text: rule.Summary},
			FullDescription:      report.SARIFText{Text: rule.Detail},
			Help:                 report.SARIFText{Text: rule.Detail + " See docs/lint.md."},
			DefaultConfiguration: report.SARIFConfig{Level: "error"},
			Properties:           report.SARIFRuleProperties{Tags: tags},
		})
	}
	loc := func(file string, line, col int, msg string) report.SARIFLocation {
		return report.NewSARIFLocation(paths.Name(r, file), line, col, msg)
	}
	var results []report.SARIFResult
	add := func(f Finding, suppressed bool) {
		res := report.SARIFResult{
			RuleID: f.Rule, RuleIndex: index[f.Rule], Level: "error",
			Message:   report.SARIFText{Text: f.Message + ". Fix: " + f.Fix},
			Locations: []report.SARIFLocation{loc(f.File, f.Line, f.Column, "")},
			PartialFingerprints: map[string]string{
				"bsadapterLint/v1": f.Rule + ":" + f.File + ":" + f.Evidence,
			},
		}
		if len(f.Chain) > 1 {
			var tf report.SARIFThreadFlow
			for _, l := range f.Chain {
				tf.Locations = append(tf.Locations, report.SARIFThreadFlowLocation{Location: loc(l.File, l.Line, l.Column, "imports "+l.Import)})
			}
			res.CodeFlows = []report.SARIFCodeFlow{{ThreadFlows: []report.SARIFThreadFlow{tf}}}
		}
		if suppressed {
			res.Suppressions = []report.SARIFSuppression{{Kind: "inSource", Justification: f.Reason}}
		}
		results = append(results, res)
	}
	for _, f := range r.Findings {
		add(f, false)
	}
	for _, f := range r.Suppressed {
		add(f, true)
	}
	return report.NewSARIF(driver, results)
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
