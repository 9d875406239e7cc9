package report

import (
	"fmt"
	"sort"
	"strings"
)

// ShardPart is one part's shard description with the file it was read
// from, for CheckShards.
type ShardPart struct {
	File  string
	Shard *Shard
}

// CheckShards checks that parts are the reports of all the parts of one
// run, each once: the same command, run and number of parts, and every
// index from 1 to that number. It returns parts sorted by index. Every
// error names the file.
func CheckShards(parts []ShardPart) ([]ShardPart, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("no reports to merge")
	}
	first := parts[0]
	for _, p := range parts {
		s := p.Shard
		switch {
		case s.Command != first.Shard.Command:
			return nil, fmt.Errorf("%s is a report of %s, but %s is one of %s: merge the reports of one command's run", p.File, s.Command, first.File, first.Shard.Command)
		case s.Total != first.Shard.Total:
			return nil, fmt.Errorf("%s is part %d of %d, but %s is part %d of %d: merge the parts of one run", p.File, s.Index, s.Total, first.File, first.Shard.Index, first.Shard.Total)
		case s.Run != first.Shard.Run || s.Unit != first.Shard.Unit || s.Count != first.Shard.Count:
			return nil, fmt.Errorf("%s is part of another run than %s (a different store, selection, corpus, seed or bsadapter version): merge the parts of one run", p.File, first.File)
		case s.Index < 1 || s.Index > s.Total:
			return nil, fmt.Errorf("%s: part %d of %d is not a part", p.File, s.Index, s.Total)
		}
	}
	sorted := append([]ShardPart(nil), parts...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Shard.Index < sorted[j].Shard.Index })
	for i := 1; i < len(sorted); i++ {
		if sorted[i].Shard.Index == sorted[i-1].Shard.Index {
			return nil, fmt.Errorf("%s and %s are both part %d/%d: give each part's report once", sorted[i-1].File, sorted[i].File, sorted[i].Shard.Index, sorted[i].Shard.Total)
		}
	}
	if n := first.Shard.Total; len(sorted) != n {
		var missing []string
		have := map[int]bool{}
		for _, p := range sorted {
			have[p.Shard.Index] = true
		}
		for k := 1; k <= n; k++ {
			if !have[k] {
				missing = append(missing, fmt.Sprintf("%d/%d", k, n))
			}
		}
		return nil, fmt.Errorf("the report of part %s is missing: the run has %d parts, and a merged report needs them all", strings.Join(missing, ", "), n)
	}
	return sorted, nil
}
