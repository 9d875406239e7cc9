package lint

import (
	"encoding/json"
	"errors"
	"sort"
)

// segment maps a generated column to an original line and column, all
// 0-based (columns in UTF-16 code units, as source maps count).
type segment struct{ genCol, source, srcLine, srcCol int }

// sourceMap is a decoded version 3 source map of one generated file from
// one source.
type sourceMap struct {
	sources []string
	lines   [][]segment // by generated line
}

const base64Digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

var base64Value = func() (v [256]int8) {
	for i := range v {
		v[i] = -1
	}
	for i := 0; i < len(base64Digits); i++ {
		v[base64Digits[i]] = int8(i)
	}
	return v
}()

// parseSourceMap decodes the "mappings" of a source map.
func parseSourceMap(data []byte) (*sourceMap, error) {
	var raw struct {
		Version  int      `json:"version"`
		Sources  []string `json:"sources"`
		Mappings string   `json:"mappings"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	if raw.Version != 3 {
		return nil, errors.New("not a version 3 source map")
	}
	sm := &sourceMap{sources: raw.Sources, lines: [][]segment{nil}}
	var srcLine, srcCol, genCol, source int
	m := raw.Mappings
	for i := 0; i < len(m); {
		switch m[i] {
		case ';':
			sm.lines = append(sm.lines, nil)
			genCol = 0
			i++
			continue
		case ',':
			i++
			continue
		}
		var fields [5]int
		n := 0
		for i < len(m) && m[i] != ',' && m[i] != ';' {
			v, next, err := vlq(m, i)
			if err != nil {
				return nil, err
			}
			if n < len(fields) {
				fields[n] = v
			}
			n++
			i = next
		}
		genCol += fields[0]
		if n >= 4 {
			source += fields[1]
			srcLine += fields[2]
			srcCol += fields[3]
			last := len(sm.lines) - 1
			sm.lines[last] = append(sm.lines[last], segment{genCol: genCol, source: source, srcLine: srcLine, srcCol: srcCol})
		}
	}
	for _, l := range sm.lines {
		sort.SliceStable(l, func(a, b int) bool { return l[a].genCol < l[b].genCol })
	}
	return sm, nil
}

func vlq(s string, i int) (value, next int, err error) {
	shift, result := 0, 0
	for {
		if i >= len(s) {
			return 0, i, errors.New("source map: truncated number")
		}
		d := base64Value[s[i]]
		if d < 0 {
			return 0, i, errors.New("source map: bad character in mappings")
		}
		i++
		result += int(d&31) << shift
		shift += 5
		if d&32 == 0 {
			break
		}
	}
	if result&1 == 1 {
		return -(result >> 1), i, nil
	}
	return result >> 1, i, nil
}

// original returns the original position of a generated position: the
// segment that starts exactly there, else false (a guess from a nearby
// segment could point at the wrong call).
func (sm *sourceMap) original(genLine, genCol int) (line, col int, ok bool) {
	s, ok := sm.segment(genLine, genCol)
	return s.srcLine, s.srcCol, ok
}

// segment returns the segment that starts exactly at a generated position.
func (sm *sourceMap) segment(genLine, genCol int) (segment, bool) {
	if genLine < 0 || genLine >= len(sm.lines) {
		return segment{}, false
	}
	segs := sm.lines[genLine]
	k := sort.Search(len(segs), func(j int) bool { return segs[j].genCol >= genCol })
	if k < len(segs) && segs[k].genCol == genCol {
		return segs[k], true
	}
	return segment{}, false
}
