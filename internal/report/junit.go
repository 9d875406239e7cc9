package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"time"
)

// JUnit is a run as JUnit XML sees it: suites of test cases. The counts
// are not part of the model; WriteJUnit derives them from the cases.
type JUnit struct {
	// Name names the run (the testsuites element).
	Name string
	// Timed says the run measured its cases: the time attributes appear,
	// Time on the testsuites element and each case's Time, summed for
	// its suite.
	Timed bool
	Time  time.Duration
	// Counters chooses the optional count attributes the run reports,
	// even at zero.
	Counters Counters
	Suites   []JUnitSuite
}

// Counters is a set of optional JUnit count attributes.
type Counters uint8

// The optional counters: errors (a run whose cases can error, such as a
// bad fixture file) and skipped (a run whose cases can be skipped).
const (
	CountErrors Counters = 1 << iota
	CountSkipped
)

// JUnitSuite is one testsuite element.
type JUnitSuite struct {
	Name  string
	Cases []JUnitCase
}

// JUnitCase is one testcase element. At most one of Failure, Error and
// Skipped is set; none means it passed.
type JUnitCase struct {
	Name, Classname string
	// File and Line say where the case's input is, when it has one.
	File string
	Line int
	// Time is shown when the run is Timed.
	Time      time.Duration
	Failure   *JUnitMessage
	Error     *JUnitMessage
	Skipped   *JUnitMessage
	SystemOut string
}

// JUnitMessage is a failure, error or skipped element: a one-line message,
// an optional type and the full text.
type JUnitMessage struct {
	Message, Type, Body string
}

// AddCase appends c to the suite named suite, creating the suite (after
// the existing ones) the first time the name comes up.
func (j *JUnit) AddCase(suite string, c JUnitCase) {
	for i := range j.Suites {
		if j.Suites[i].Name == suite {
			j.Suites[i].Cases = append(j.Suites[i].Cases, c)
			return
		}
	}
	j.Suites = append(j.Suites, JUnitSuite{Name: suite, Cases: []JUnitCase{c}})
}

type xmlSuites struct {
	XMLName xml.Name `xml:"testsuites"`
	xmlTotals
	Suites []xmlSuite `xml:"testsuite"`
}

type xmlSuite struct {
	xmlTotals
	Cases []xmlCase `xml:"testcase"`
}

// xmlTotals are the attributes testsuites and testsuite share.
type xmlTotals struct {
	Name     string `xml:"name,attr"`
	Tests    int    `xml:"tests,attr"`
	Failures int    `xml:"failures,attr"`
	// Errors and Skipped are nil, and left out, when the run does not
	// report them.
	Errors  *int   `xml:"errors,attr"`
	Skipped *int   `xml:"skipped,attr"`
	Time    string `xml:"time,attr,omitempty"`
}

type xmlCase struct {
	Name      string `xml:"name,attr"`
	Classname string `xml:"classname,attr"`
	// file and line are an extension many CI servers read to link a
	// failure to its input.
	File string `xml:"file,attr,omitempty"`
	Line int    `xml:"line,attr,omitempty"`
	// Time is "" (left out) when the run is not timed.
	Time      string      `xml:"time,attr,omitempty"`
	Failure   *xmlMessage `xml:"failure,omitempty"`
	Error     *xmlMessage `xml:"error,omitempty"`
	Skipped   *xmlMessage `xml:"skipped,omitempty"`
	SystemOut string      `xml:"system-out,omitempty"`
}

type xmlMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Body    string `xml:",chardata"`
}

// counts are a suite's or a run's totals.
type counts struct{ tests, failures, errors, skipped int }

func (c *counts) add(o counts) {
	c.tests += o.tests
	c.failures += o.failures
	c.errors += o.errors
	c.skipped += o.skipped
}

// totals returns the attributes for name with counts n: the optional
// counters when the run reports them, the time when it is timed.
func (j *JUnit) totals(name string, n counts, t time.Duration) xmlTotals {
	x := xmlTotals{Name: name, Tests: n.tests, Failures: n.failures}
	if j.Counters&CountErrors != 0 {
		x.Errors = &n.errors
	}
	if j.Counters&CountSkipped != 0 {
		x.Skipped = &n.skipped
	}
	if j.Timed {
		x.Time = seconds(t)
	}
	return x
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

func xmlMsg(m *JUnitMessage) *xmlMessage {
	if m == nil {
		return nil
	}
	return &xmlMessage{Message: m.Message, Type: m.Type, Body: m.Body}
}

// WriteJUnit writes j as an indented JUnit XML document.
func WriteJUnit(w io.Writer, j *JUnit) error {
	var doc xmlSuites
	var total counts
	for _, s := range j.Suites {
		var xs xmlSuite
		var n counts
		var t time.Duration
		for _, c := range s.Cases {
			xc := xmlCase{Name: c.Name, Classname: c.Classname, File: c.File, Line: c.Line,
				Failure: xmlMsg(c.Failure), Error: xmlMsg(c.Error), Skipped: xmlMsg(c.Skipped), SystemOut: c.SystemOut}
			if j.Timed {
				xc.Time = seconds(c.Time)
			}
			n.tests++
			switch {
			case c.Failure != nil:
				n.failures++
			case c.Error != nil:
				n.errors++
			case c.Skipped != nil:
				n.skipped++
			}
			t += c.Time
			xs.Cases = append(xs.Cases, xc)
		}
		xs.xmlTotals = j.totals(s.Name, n, t)
		total.add(n)
		doc.Suites = append(doc.Suites, xs)
	}
	doc.xmlTotals = j.totals(j.Name, total, j.Time)
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
