package conform_test

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/report"
)

func sampleReport() *conform.Report {
	return &conform.Report{Store: "memory", Elapsed: 2 * time.Second, Results: []conform.Result{
		{ID: "streams/a", Suite: "streams", Rule: "a holds", Outcome: conform.Pass, Elapsed: time.Millisecond},
		{ID: "streams/b", Suite: "streams", Rule: "b, always: b", Outcome: conform.Fail, Elapsed: 2 * time.Millisecond,
			Failures: []conform.Failure{{What: "second open", Expected: "false", Actual: "true"}, {Message: "50% gone"}}},
		{ID: "chat/c", Suite: "chat", Rule: "c holds", Outcome: conform.Skipped, Reason: "no chat methods"},
	}}
}

// The report's CI forms: a JUnit suite per suite with the rule as the
// failure's message, an error annotation per failure and a summary notice,
// and a JSON document in the shared result words.
func TestReportForms(t *testing.T) {
	rep := sampleReport()
	var b bytes.Buffer
	if err := report.WriteJUnit(&b, rep.JUnit()); err != nil {
		t.Fatal(err)
	}
	want := xml.Header + `<testsuites name="bsadapter conform memory" tests="3" failures="1" skipped="1" time="2.000">
  <testsuite name="streams" tests="2" failures="1" skipped="0" time="0.003">
    <testcase name="streams/a" classname="conform.streams" time="0.001"></testcase>
    <testcase name="streams/b" classname="conform.streams" time="0.002">
      <failure message="b, always: b">second open&#xA;    expected: false&#xA;    actual:   true&#xA;50% gone&#xA;</failure>
    </testcase>
  </testsuite>
  <testsuite name="chat" tests="1" failures="0" skipped="1" time="0.000">
    <testcase name="chat/c" classname="conform.chat" time="0.000">
      <skipped message="no chat methods"></skipped>
    </testcase>
  </testsuite>
</testsuites>
`
	if b.String() != want {
		t.Errorf("junit:\n%s\nwant:\n%s", b.String(), want)
	}

	b.Reset()
	if err := report.WriteGitHub(&b, rep.Annotations(), ""); err != nil {
		t.Fatal(err)
	}
	want = "::error title=conform streams/b::rule: b, always: b%0Asecond open%0A    expected: false%0A    actual:   true%0A50%25 gone\n" +
		"::notice title=bsadapter conform::3 cases against memory: 1 passed, 1 failed, 1 skipped in 2.00s\n"
	if b.String() != want {
		t.Errorf("github:\n%s\nwant:\n%s", b.String(), want)
	}

	b.Reset()
	if err := report.WriteJSON(&b, rep.Document()); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"schemaVersion": 2`, `"outcome": "passed"`, `"outcome": "failed"`, `"outcome": "skipped"`,
		`"summary": {
    "total": 3,
    "passed": 1,
    "failed": 1,
    "skipped": 1,
    "notRun": 0
  }`, `"elapsedMs": 2000`} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("json lacks %s:\n%s", s, b.String())
		}
	}
}

// The suites a run left out appear in the JSON document and as one GitHub
// notice before the summary; a run that left none out has an empty list.
func TestReportLeftOut(t *testing.T) {
	rep := sampleReport()
	var b bytes.Buffer
	if err := report.WriteJSON(&b, rep.Document()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"leftOut": []`) {
		t.Errorf("json without left-out suites lacks an empty leftOut:\n%s", b.String())
	}
	rep.LeftOut = []conform.LeftOut{{Suite: "credentials", Cases: 11, Reason: "adapter code"}, {Suite: "builder", Cases: 8, Reason: "adapter code"}}
	b.Reset()
	if err := report.WriteJSON(&b, rep.Document()); err != nil {
		t.Fatal(err)
	}
	if want := `"leftOut": [
    {
      "suite": "credentials",
      "cases": 11,
      "reason": "adapter code"
    },`; !strings.Contains(b.String(), want) {
		t.Errorf("json lacks %s:\n%s", want, b.String())
	}
	b.Reset()
	if err := report.WriteGitHub(&b, rep.Annotations(), ""); err != nil {
		t.Fatal(err)
	}
	want := "::notice title=bsadapter conform (suites not selected)::memory does not implement them; name one with --suite to run it anyway%0Acredentials (11 cases): adapter code%0Abuilder (8 cases): adapter code\n" +
		"::notice title=bsadapter conform::3 cases against memory: 1 passed, 1 failed, 1 skipped in 2.00s\n"
	if !strings.HasSuffix(b.String(), want) {
		t.Errorf("github:\n%s\nwant it to end with:\n%s", b.String(), want)
	}
}
