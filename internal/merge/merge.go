// Package merge is a line-based three-way merge (diff3): given the text
// a change started from (base), one side's edit of it (ours) and the
// other side's (theirs), it keeps both sides' changes where they touch
// different lines and marks the places where both changed the same lines
// differently. bsadapter upgrade and add use it to carry an adapter
// author's edits over a template change.
package merge

import (
	"bytes"
)

// Labels name the three sides in conflict markers, and say how to take
// insertions both sides made at one place.
type Labels struct {
	Ours, Base, Theirs string
	// KeepBothInserts takes lines both sides inserted at the same place
	// (where the base has none) as ours followed by theirs instead of a
	// conflict. It suits additions to lists (an export added by the author
	// at the end of a file and one added by a template there); a change
	// of existing lines on both sides is a conflict still.
	KeepBothInserts bool
}

// Result is a merge: the merged text (with conflict markers where both
// sides changed the same lines) and how many conflicts it holds.
type Result struct {
	Text      []byte
	Conflicts int
}

// Lines splits text into lines, each keeping its line ending; a last line
// without one is kept as it is.
func Lines(text []byte) [][]byte {
	var out [][]byte
	for len(text) > 0 {
		i := bytes.IndexByte(text, '\n')
		if i < 0 {
			out = append(out, text)
			break
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	return out
}

// match returns, for each line of a, the index of the line of b it is
// paired with in a longest common subsequence of lines, or -1. Lines are
// compared after hashing them to ints, and the common head and tail are
// taken off first, so the quadratic table covers only the changed middle.
func match(a, b [][]byte) []int {
	m := make([]int, len(a))
	for i := range m {
		m[i] = -1
	}
	lo := 0
	for lo < len(a) && lo < len(b) && bytes.Equal(a[lo], b[lo]) {
		m[lo] = lo
		lo++
	}
	ea, eb := len(a), len(b)
	for ea > lo && eb > lo && bytes.Equal(a[ea-1], b[eb-1]) {
		ea--
		eb--
		m[ea] = eb
	}
	ids := map[string]int{}
	id := func(l []byte) int {
		k := string(l)
		v, ok := ids[k]
		if !ok {
			v = len(ids)
			ids[k] = v
		}
		return v
	}
	x := make([]int, ea-lo)
	for i := range x {
		x[i] = id(a[lo+i])
	}
	y := make([]int, eb-lo)
	for j := range y {
		y[j] = id(b[lo+j])
	}
	n, k := len(x), len(y)
	if n == 0 || k == 0 {
		return m
	}
	// lcs[i][j] is the length of the LCS of x[i:] and y[j:].
	w := k + 1
	lcs := make([]int32, (n+1)*w)
	for i := n - 1; i >= 0; i-- {
		for j := k - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n && j < k {
		switch {
		case x[i] == y[j]:
			m[lo+i] = lo + j
			i++
			j++
		case lcs[(i+1)*w+j] >= lcs[i*w+j+1]:
			i++
		default:
			j++
		}
	}
	return m
}

// Merge merges ours and theirs, both edits of base. Where only one side
// changed a region, that side wins; where both made the same change, it
// is taken once; where both changed it differently, the region is written
// as a conflict:
//
//	<<<<<<< Ours
//	(ours)
//	||||||| Base
//	(base)
//	=======
//	(theirs)
//	>>>>>>> Theirs
func Merge(base, ours, theirs []byte, l Labels) Result {
	o, a, b := Lines(base), Lines(ours), Lines(theirs)
	ma, mb := match(o, a), match(o, b)
	var out bytes.Buffer
	conflicts := 0
	// Walk the base; a stable line is a base line both sides kept. The
	// text between two stable lines is one region per side.
	io, ia, ib := 0, 0, 0
	emit := func(ls [][]byte) {
		for _, x := range ls {
			out.Write(x)
		}
	}
	for {
		// The next stable base line at or after io.
		s := io
		for s < len(o) && (ma[s] < 0 || mb[s] < 0) {
			s++
		}
		ea, eb := len(a), len(b)
		if s < len(o) {
			ea, eb = ma[s], mb[s]
		}
		ro, ra, rb := o[io:s], a[ia:ea], b[ib:eb]
		switch {
		case same(ra, ro):
			emit(rb)
		case same(rb, ro), same(ra, rb):
			emit(ra)
		case l.KeepBothInserts && len(ro) == 0:
			emitEnded(&out, ra)
			emit(rb)
		default:
			conflicts++
			marker := func(m, label string) {
				out.WriteString(m)
				if label != "" {
					out.WriteString(" " + label)
				}
				out.WriteString("\n")
			}
			marker("<<<<<<<", l.Ours)
			emitEnded(&out, ra)
			marker("|||||||", l.Base)
			emitEnded(&out, ro)
			marker("=======", "")
			emitEnded(&out, rb)
			marker(">>>>>>>", l.Theirs)
		}
		if s >= len(o) {
			break
		}
		out.Write(o[s])
		io, ia, ib = s+1, ea+1, eb+1
	}
	return Result{Text: out.Bytes(), Conflicts: conflicts}
}

// emitEnded writes lines, ending the last with a newline when it has none
// so that the marker after it starts a line of its own.
func emitEnded(out *bytes.Buffer, ls [][]byte) {
	for _, x := range ls {
		out.Write(x)
	}
	if n := len(ls); n > 0 && !bytes.HasSuffix(ls[n-1], []byte("\n")) {
		out.WriteByte('\n')
	}
}

func same(x, y [][]byte) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if !bytes.Equal(x[i], y[i]) {
			return false
		}
	}
	return true
}
