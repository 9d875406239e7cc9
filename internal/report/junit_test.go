package report

import (
	"bytes"
	"encoding/xml"
	"testing"
	"time"
)

// The counts come from the cases; the optional attributes appear exactly
// when the run says it reports them, even at zero.
func TestWriteJUnit(t *testing.T) {
	j := &JUnit{Name: "run", Timed: true, Time: 1500 * time.Millisecond, Counters: CountSkipped}
	j.AddCase("a", JUnitCase{Name: "a/1", Classname: "x.a", Time: 250 * time.Millisecond})
	j.AddCase("b", JUnitCase{Name: "b/1", Classname: "x.b", Time: time.Millisecond,
		Failure: &JUnitMessage{Message: "the rule", Body: "expected <1> & got 2"}})
	j.AddCase("a", JUnitCase{Name: "a/2", Classname: "x.a", Skipped: &JUnitMessage{Message: "not supported"}})
	var b bytes.Buffer
	if err := WriteJUnit(&b, j); err != nil {
		t.Fatal(err)
	}
	want := xml.Header + `<testsuites name="run" tests="3" failures="1" skipped="1" time="1.500">
  <testsuite name="a" tests="2" failures="0" skipped="1" time="0.250">
    <testcase name="a/1" classname="x.a" time="0.250"></testcase>
    <testcase name="a/2" classname="x.a" time="0.000">
      <skipped message="not supported"></skipped>
    </testcase>
  </testsuite>
  <testsuite name="b" tests="1" failures="1" skipped="0" time="0.001">
    <testcase name="b/1" classname="x.b" time="0.001">
      <failure message="the rule">expected &lt;1&gt; &amp; got 2</failure>
    </testcase>
  </testsuite>
</testsuites>
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}

	j = &JUnit{Name: "fixtures", Counters: CountErrors}
	j.AddCase("f.json", JUnitCase{Name: "f.json#0", Classname: "c", File: "f.json", Line: 2, SystemOut: "warned"})
	j.AddCase("f.json", JUnitCase{Name: "f.json", Classname: "c.file", File: "f.json", Error: &JUnitMessage{Message: "bad", Type: "file", Body: "f.json: bad"}})
	b.Reset()
	if err := WriteJUnit(&b, j); err != nil {
		t.Fatal(err)
	}
	want = xml.Header + `<testsuites name="fixtures" tests="2" failures="0" errors="1">
  <testsuite name="f.json" tests="2" failures="0" errors="1">
    <testcase name="f.json#0" classname="c" file="f.json" line="2">
      <system-out>warned</system-out>
    </testcase>
    <testcase name="f.json" classname="c.file" file="f.json">
      <error message="bad" type="file">f.json: bad</error>
    </testcase>
  </testsuite>
</testsuites>
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
