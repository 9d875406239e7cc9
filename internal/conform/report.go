package conform

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// ReportSchemaVersion is the schemaVersion of WriteJSON's document.
const ReportSchemaVersion = 1

type jsonResult struct {
	Result
	ElapsedMs float64 `json:"elapsedMs"`
}

// WriteJSON writes the report as one JSON document with a schemaVersion.
func WriteJSON(w io.Writer, r *Report) error {
	results := make([]jsonResult, len(r.Results))
	for i, res := range r.Results {
		results[i] = jsonResult{res, ms(res.Elapsed.Seconds())}
	}
	type summary struct {
		Total   int `json:"total"`
		Passed  int `json:"passed"`
		Failed  int `json:"failed"`
		Skipped int `json:"skipped"`
	}
	doc := struct {
		SchemaVersion int          `json:"schemaVersion"`
		Store         string       `json:"store"`
		ElapsedMs     float64      `json:"elapsedMs"`
		Summary       summary      `json:"summary"`
		Results       []jsonResult `json:"results"`
	}{ReportSchemaVersion, r.Store, ms(r.Elapsed.Seconds()), summary{len(r.Results), r.Count(Pass), r.Count(Fail), r.Count(Skipped)}, results}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

func ms(sec float64) float64 { return float64(int64(sec*1e6)) / 1e3 }

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

// WriteJUnit writes the report as JUnit XML, one testsuite per suite.
func WriteJUnit(w io.Writer, r *Report) error {
	doc := junitSuites{Name: "bsadapter conform " + r.Store, Time: fmt.Sprintf("%.3f", r.Elapsed.Seconds())}
	idx := map[string]int{}
	for _, res := range r.Results {
		i, ok := idx[res.Suite]
		if !ok {
			i = len(doc.Suites)
			idx[res.Suite] = i
			doc.Suites = append(doc.Suites, junitSuite{Name: res.Suite})
		}
		s := &doc.Suites[i]
		c := junitCase{Name: res.ID, Classname: "conform." + res.Suite, Time: fmt.Sprintf("%.3f", res.Elapsed.Seconds())}
		switch res.Outcome {
		case Fail:
			c.Failure = &junitMessage{Message: res.Rule, Body: FailureText(res)}
			s.Failures++
			doc.Failures++
		case Skipped:
			c.Skipped = &junitMessage{Message: res.Reason}
			s.Skipped++
			doc.Skipped++
		}
		s.Tests++
		doc.Tests++
		s.Cases = append(s.Cases, c)
	}
	for i := range doc.Suites {
		var t float64
		for _, res := range r.Results {
			if res.Suite == doc.Suites[i].Name {
				t += res.Elapsed.Seconds()
			}
		}
		doc.Suites[i].Time = fmt.Sprintf("%.3f", t)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
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

// githubEscape escapes a workflow command's message.
func githubEscape(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// WriteGitHub writes the report as GitHub Actions workflow commands: an
// error annotation per failed case and a notice with the summary.
func WriteGitHub(w io.Writer, r *Report) error {
	for _, res := range r.Results {
		if res.Outcome != Fail {
			continue
		}
		title := strings.NewReplacer(",", "%2C", ":", "%3A").Replace("conform " + res.ID)
		if _, err := fmt.Fprintf(w, "::error title=%s::%s\n", title, githubEscape("rule: "+res.Rule+"\n"+strings.TrimRight(FailureText(res), "\n"))); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "::notice title=bsadapter conform::%s\n", githubEscape(Summary(r)))
	return err
}

// Summary is the report's one-line summary.
func Summary(r *Report) string {
	return fmt.Sprintf("%d cases against %s: %d passed, %d failed, %d skipped in %.2fs",
		len(r.Results), r.Store, r.Count(Pass), r.Count(Fail), r.Count(Skipped), r.Elapsed.Seconds())
}
