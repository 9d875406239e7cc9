package conform

import (
	"fmt"
	"strings"
	"time"

	"github.com/bsadapter/bsadapter/internal/report"
)

// ReportSchemaVersion is the schemaVersion of Document. Version 2 names
// outcomes "passed", "failed" and "skipped" (version 1 said "pass",
// "fail" and "skip").
const ReportSchemaVersion = 2

// Document is the report as "conform --format json" prints it.
type Document struct {
	SchemaVersion int              `json:"schemaVersion"`
	Store         string           `json:"store"`
	ElapsedMs     float64          `json:"elapsedMs"`
	Summary       DocumentSummary  `json:"summary"`
	Results       []DocumentResult `json:"results"`
	// LeftOut lists the suites the store does not implement, which a run
	// that named no suite left out; empty when none was.
	LeftOut []LeftOut `json:"leftOut"`
	// NotApplicable lists the cases of block rules the store declares it
	// does not keep, which the run did not hold it to; absent when there
	// are none, as for every store that keeps the blocks' rules.
	NotApplicable []NotApplicable `json:"notApplicable,omitempty"`
	// ModulesLeftOut lists the block modules the store could not install,
	// with why and how to get them; absent when none was.
	ModulesLeftOut []ModuleLeftOut `json:"modulesLeftOut,omitempty"`
	// Shard says which part of a run of --shard K/N the report holds,
	// and what the whole run is made of (merge-reports joins the parts);
	// absent for a whole run.
	Shard *report.Shard `json:"shard,omitempty"`
}

// DocumentSummary counts the outcomes.
type DocumentSummary struct {
	Total   int `json:"total"`
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
	// NotRun counts the cases a broken store (a bridge that died) left
	// unrun.
	NotRun int `json:"notRun"`
}

// DocumentResult is one case's result with its duration.
type DocumentResult struct {
	Result
	ElapsedMs float64 `json:"elapsedMs"`
}

// Document returns the report as its JSON document.
func (r *Report) Document() Document {
	results := make([]DocumentResult, len(r.Results))
	for i, res := range r.Results {
		results[i] = DocumentResult{res, ms(res.Elapsed.Seconds())}
	}
	leftOut := r.LeftOut
	if leftOut == nil {
		leftOut = []LeftOut{}
	}
	return Document{ReportSchemaVersion, r.Store, ms(r.Elapsed.Seconds()),
		DocumentSummary{len(r.Results), r.Count(Pass), r.Count(Fail), r.Count(Skipped), r.Count(NotRun)}, results, leftOut, r.NotApplicable, r.ModulesLeftOut, r.Shard}
}

// FromDocument reads a report back from its JSON document (durations to
// the microsecond), as merge-reports does with the reports of the parts
// of a run.
func FromDocument(d Document) *Report {
	r := &Report{Store: d.Store, Elapsed: fromMs(d.ElapsedMs), NotApplicable: d.NotApplicable, ModulesLeftOut: d.ModulesLeftOut, Shard: d.Shard}
	if len(d.LeftOut) > 0 {
		r.LeftOut = d.LeftOut
	}
	r.Results = make([]Result, len(d.Results))
	for i, dr := range d.Results {
		r.Results[i] = dr.Result
		r.Results[i].Elapsed = fromMs(dr.ElapsedMs)
	}
	return r
}

func fromMs(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

func ms(sec float64) float64 { return float64(int64(sec*1e6)) / 1e3 }

// JUnit returns the report as JUnit, one test suite per suite.
func (r *Report) JUnit() *report.JUnit {
	counters := report.CountSkipped
	if r.Count(NotRun) > 0 {
		// Unrun cases are JUnit errors: the run broke, not the case.
		counters |= report.CountErrors
	}
	j := &report.JUnit{Name: "bsadapter conform " + r.Store, Timed: true, Time: r.Elapsed, Counters: counters}
	for _, res := range r.Results {
		c := report.JUnitCase{Name: res.ID, Classname: "conform." + res.Suite, Time: res.Elapsed}
		switch res.Outcome {
		case Fail:
			c.Failure = &report.JUnitMessage{Message: res.Rule, Body: FailureText(res)}
		case Skipped:
			c.Skipped = &report.JUnitMessage{Message: res.Reason}
		case NotRun:
			c.Error = &report.JUnitMessage{Message: "not run", Body: res.Reason}
		}
		j.AddCase(res.Suite, c)
	}
	return j
}

// FailureText renders a failed result's failures, one per line: what was
// checked, then expected and actual values.
func FailureText(res Result) string {
	var b strings.Builder
	for _, f := range res.Failures {
		if f.What != "" {
			fmt.Fprintf(&b, "%s\n    expected: %s\n    actual:   %s\n", f.What, f.Expected, f.Actual)
		} else {
			fmt.Fprintf(&b, "%s\n", f.Message)
		}
	}
	return b.String()
}

// Annotations returns the report as GitHub annotations: an error per
// failed case, a notice naming the suites left out, if any, and a notice
// with the summary.
func (r *Report) Annotations() []report.Annotation {
	var out []report.Annotation
	for _, res := range r.Results {
		if res.Outcome == Fail {
			out = append(out, report.Annotation{Level: report.LevelError, Title: "conform " + res.ID,
				Message: "rule: " + res.Rule + "\n" + strings.TrimRight(FailureText(res), "\n")})
		}
	}
	if len(r.LeftOut) > 0 {
		var lines []string
		for _, l := range r.LeftOut {
			lines = append(lines, fmt.Sprintf("%s (%d cases): %s", l.Suite, l.Cases, l.Reason))
		}
		out = append(out, report.Annotation{Level: report.LevelNotice, Title: "bsadapter conform (suites not selected)",
			Message: r.Store + " does not implement them; name one with --suite to run it anyway\n" + strings.Join(lines, "\n")})
	}
	if len(r.NotApplicable) > 0 {
		out = append(out, report.Annotation{Level: report.LevelNotice, Title: "bsadapter conform (block rules not applicable)",
			Message: r.Store + " declares it does not keep these block rules, which its interface does not promise; their cases did not run\n" + strings.Join(NotApplicableLines(r.NotApplicable), "\n")})
	}
	if len(r.ModulesLeftOut) > 0 {
		var lines []string
		for _, m := range r.ModulesLeftOut {
			lines = append(lines, m.Module+": "+m.Reason)
		}
		out = append(out, report.Annotation{Level: report.LevelNotice, Title: "bsadapter conform (block modules left out)",
			Message: r.Store + " could not install these modules, so nothing of theirs was checked\n" + strings.Join(lines, "\n")})
	}
	return append(out, report.Annotation{Level: report.LevelNotice, Title: "bsadapter conform", Message: Summary(r)})
}

// Summary is the report's one-line summary. A run in which owner rules
// did not run (the store takes no callers, or its registry takes none or
// cannot grant permissions) says how many, and so does one that did not
// hold the store to some block rules.
func Summary(r *Report) string {
	notRun := ""
	if n := r.Count(NotRun); n > 0 {
		notRun = fmt.Sprintf(", %d not run", n)
	}
	shard := ""
	if r.Shard != nil {
		shard = fmt.Sprintf(" (%s)", r.Shard.Label())
	}
	s := fmt.Sprintf("%d cases against %s%s: %d passed, %d failed, %d skipped%s in %.2fs",
		len(r.Results), r.Store, shard, r.Count(Pass), r.Count(Fail), r.Count(Skipped), notRun, r.Elapsed.Seconds())
	streams, tenants := r.SkippedFor(FeatureCallers), r.SkippedFor(FeatureTenants)
	switch {
	case tenants == 0 && streams > 0:
		s += fmt.Sprintf("; %d owner rules did not run: the store takes no caller identity", streams)
	case tenants > 0:
		s += fmt.Sprintf("; %d owner rules did not run: the store takes no caller identity or grants no tenant permissions", streams+tenants)
	}
	switch n := len(r.NotApplicable); {
	case n == 1:
		s += "; 1 case of a block rule the store does not keep did not apply"
	case n > 1:
		s += fmt.Sprintf("; %d cases of block rules the store does not keep did not apply", n)
	}
	return s
}

// SkippedFor counts the cases skipped for lack of feature f.
func (r *Report) SkippedFor(f Feature) int {
	n := 0
	for _, res := range r.Results {
		if res.Outcome == Skipped && res.Needs == f {
			n++
		}
	}
	return n
}
