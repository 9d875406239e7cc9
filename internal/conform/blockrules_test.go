package conform

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/internal/report"
)

// decliningStore is a fakeStore that declares it does not keep one block
// rule.
type decliningStore struct {
	fakeStore
	rule BlockRule
}

// opens is what a fakeStore and a decliningStore both are: a store that
// opens fake suites.
type opens interface {
	open(name string) (Opener[bare], error)
}

// openSuite returns a suite called name with cases, which every store that
// opens fake suites offers.
func openSuite(name string, cases ...CaseOf[bare]) *Suite {
	return NewSuite(Info{Name: name}, func(f opens, _ context.Context) (Opener[bare], error) { return f.open(name) }, cases)
}

func (d *decliningStore) NotKept(r BlockRule) string {
	if r == d.rule {
		return "it keeps no such thing"
	}
	return ""
}

// A run holds a store to every case of the interface and of the block rules
// it keeps; the cases of a block rule it declares it does not keep are not
// run, and the report lists them apart, with the rule and the reason, in
// its summary, its JSON document and a GitHub notice. A store that declares
// nothing runs every case, and its JSON document has no notApplicable.
func TestRunLeavesOutBlockRulesTheStoreDoesNotKeep(t *testing.T) {
	kept, dropped := BlockRule{Name: "kept rule"}, BlockRule{Name: "dropped rule"}
	noop := func(*T, bare) {}
	s := openSuite("s", CaseOf[bare]{ID: "s/interface", Run: noop}, CaseOf[bare]{ID: "s/kept", Block: kept, Run: noop},
		CaseOf[bare]{ID: "s/dropped-a", Block: dropped, Run: noop}, CaseOf[bare]{ID: "s/dropped-b", Block: dropped, Run: noop})
	if got := []Source{s.Cases[0].Source(), s.Cases[1].Source()}; !slices.Equal(got, []Source{SourceInterface, SourceBlock}) {
		t.Errorf("sources %v", got)
	}

	rep := Run(context.Background(), &decliningStore{rule: dropped}, s.Cases, Options{})
	var ran []string
	for _, r := range rep.Results {
		ran = append(ran, r.ID)
		if r.Outcome != Pass {
			t.Errorf("%s: %s", r.ID, r.Outcome)
		}
	}
	if !slices.Equal(ran, []string{"s/interface", "s/kept"}) {
		t.Errorf("ran %v", ran)
	}
	want := []NotApplicable{
		{ID: "s/dropped-a", Suite: "s", BlockRule: "dropped rule", Reason: "it keeps no such thing"},
		{ID: "s/dropped-b", Suite: "s", BlockRule: "dropped rule", Reason: "it keeps no such thing"},
	}
	if !slices.Equal(rep.NotApplicable, want) {
		t.Errorf("not applicable %+v", rep.NotApplicable)
	}
	if got := Summary(rep); !strings.Contains(got, "2 cases against bare: 2 passed") || !strings.HasSuffix(got, "; 2 cases of block rules the store does not keep did not apply") {
		t.Errorf("summary %q", got)
	}
	var b bytes.Buffer
	if err := report.WriteJSON(&b, rep.Document()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"notApplicable": [
    {
      "id": "s/dropped-a",
      "suite": "s",
      "rule": "",
      "blockRule": "dropped rule",
      "reason": "it keeps no such thing"
    },`) {
		t.Errorf("json:\n%s", b.String())
	}
	b.Reset()
	if err := report.WriteGitHub(&b, rep.Annotations(), ""); err != nil {
		t.Fatal(err)
	}
	if want := "::notice title=bsadapter conform (block rules not applicable)::bare declares it does not keep these block rules, which its interface does not promise; their cases did not run%0Adropped rule (s/dropped-a, s/dropped-b): it keeps no such thing\n"; !strings.Contains(b.String(), want) {
		t.Errorf("github:\n%s\nwant it to contain:\n%s", b.String(), want)
	}

	rep = Run(context.Background(), &fakeStore{}, s.Cases, Options{})
	if len(rep.Results) != 4 || rep.NotApplicable != nil {
		t.Errorf("a store that declares nothing: %d results, not applicable %v", len(rep.Results), rep.NotApplicable)
	}
	b.Reset()
	if err := report.WriteJSON(&b, rep.Document()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "notApplicable") {
		t.Errorf("json of a run that held the store to every case names notApplicable:\n%s", b.String())
	}
}

// The catalog says whose rule each case checks, and lists each suite's
// block rules with their text under its table.
func TestCatalogNamesBlockRules(t *testing.T) {
	noop := func(*T, bare) {}
	r := BlockRule{Name: "kept until a purge", Text: "the block keeps it."}
	s := fakeSuite("s", CaseOf[bare]{ID: "s/a", Rule: "a holds", Run: noop}, CaseOf[bare]{ID: "s/b", Rule: "b holds", Block: r, Run: noop},
		CaseOf[bare]{ID: "s/c", Rule: "c holds", Block: r, Run: noop})
	var b bytes.Buffer
	if err := WriteCatalog(&b, []*Suite{s}); err != nil {
		t.Fatal(err)
	}
	want := "| ID | rule | of | needs |\n| --- | --- | --- | --- |\n" +
		"| `s/a` | a holds | interface | - |\n| `s/b` | b holds | block: kept until a purge | - |\n| `s/c` | c holds | block: kept until a purge | - |\n" +
		"\nThe block rules of this suite, beyond the interface:\n\n- **kept until a purge**: the block keeps it.\n"
	if !strings.HasSuffix(b.String(), want) {
		t.Errorf("catalog ends:\n%s\nwant:\n%s", b.String()[max(0, b.Len()-400):], want)
	}
}
