package conform

import (
	"fmt"
	"reflect"

	"github.com/bsadapter/bsadapter/internal/report"
)

// Part is the JSON report of one part of a run (conform --shard K/N) and
// the file it was read from.
type Part struct {
	File string
	Doc  Document
}

// Merge joins the reports of all the parts of one run into the report of
// the whole run: the results in the run's order, as if it had run
// unsharded. It refuses parts of different runs, a part missing or given
// twice, and a case missing from its part or in two; every error names
// the file. The merged run took as long as its longest part (the parts
// run side by side in a CI matrix).
func Merge(parts []Part) (*Report, error) {
	sp := make([]report.ShardPart, len(parts))
	for i, p := range parts {
		if p.Doc.Shard == nil {
			return nil, fmt.Errorf("%s is the report of a whole run (it has no \"shard\"): merge the JSON reports of conform --shard K/N", p.File)
		}
		sp[i] = report.ShardPart{File: p.File, Shard: p.Doc.Shard}
	}
	if _, err := report.CheckShards(sp); err != nil {
		return nil, err
	}
	first := parts[0]
	units := first.Doc.Shard.Units
	pos := make(map[string]int, len(units))
	for i, id := range units {
		pos[id] = i
	}
	results := make([]Result, len(units))
	from := make([]string, len(units))
	merged := &Report{Store: first.Doc.Store, LeftOut: first.Doc.LeftOut, NotApplicable: first.Doc.NotApplicable, ModulesLeftOut: first.Doc.ModulesLeftOut}
	if len(merged.LeftOut) == 0 {
		merged.LeftOut = nil
	}
	for _, p := range parts {
		rep := FromDocument(p.Doc)
		if rep.Store != merged.Store || !sameList(rep.LeftOut, merged.LeftOut) || !sameList(rep.NotApplicable, merged.NotApplicable) || !sameList(rep.ModulesLeftOut, merged.ModulesLeftOut) {
			return nil, fmt.Errorf("%s ran against another store than %s, or one that left out other suites or modules: merge the parts of one run", p.File, first.File)
		}
		merged.Elapsed = max(merged.Elapsed, rep.Elapsed)
		for _, r := range rep.Results {
			i, ok := pos[r.ID]
			switch {
			case !ok:
				return nil, fmt.Errorf("%s holds case %s, which is not among the run's cases: the report was edited, or is of another run", p.File, r.ID)
			case from[i] != "":
				return nil, fmt.Errorf("case %s is in %s and in %s: no case may run in two parts", r.ID, from[i], p.File)
			}
			results[i], from[i] = r, p.File
		}
	}
	var missing []string
	for i, f := range from {
		if f == "" {
			missing = append(missing, units[i])
		}
	}
	switch {
	case len(missing) == 1:
		return nil, fmt.Errorf("case %s is in no part's report: the part that ran it stopped before its end; run that part again", missing[0])
	case len(missing) > 1:
		return nil, fmt.Errorf("%d of the run's %d cases are in no part's report (the first: %s): a part stopped before its end; run it again", len(missing), len(units), missing[0])
	}
	merged.Results = results
	return merged, nil
}

func sameList[T any](a, b []T) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}
