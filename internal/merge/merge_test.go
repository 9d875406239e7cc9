package merge

import (
	"strings"
	"testing"
)

func lines(s ...string) string { return strings.Join(s, "\n") + "\n" }

var labels = Labels{Ours: "yours", Base: "old", Theirs: "new"}

func TestMerge(t *testing.T) {
	base := lines("a", "b", "c", "d", "e", "f", "g")
	cases := []struct {
		name, ours, theirs, want string
		conflicts                int
	}{
		{"nothing changed", base, base, base, 0},
		{"only ours", lines("a", "B", "c", "d", "e", "f", "g"), base, lines("a", "B", "c", "d", "e", "f", "g"), 0},
		{"only theirs", base, lines("a", "b", "c", "d", "e", "F", "g"), lines("a", "b", "c", "d", "e", "F", "g"), 0},
		{"both, apart", lines("a", "B", "c", "d", "e", "f", "g"), lines("a", "b", "c", "d", "e", "F", "g"), lines("a", "B", "c", "d", "e", "F", "g"), 0},
		{"same change both sides", lines("a", "X", "c", "d", "e", "f", "g"), lines("a", "X", "c", "d", "e", "f", "g"), lines("a", "X", "c", "d", "e", "f", "g"), 0},
		{"insert and delete apart", lines("a", "b", "c", "c2", "d", "e", "f", "g"), lines("a", "b", "c", "d", "e", "g"), lines("a", "b", "c", "c2", "d", "e", "g"), 0},
		{"appends at the end by one side", lines("a", "b", "c", "d", "e", "f", "g", "h"), lines("z", "a", "b", "c", "d", "e", "f", "g"), lines("z", "a", "b", "c", "d", "e", "f", "g", "h"), 0},
		{"conflict", lines("a", "b", "c", "D1", "e", "f", "g"), lines("a", "b", "c", "D2", "e", "f", "g"),
			lines("a", "b", "c", "<<<<<<< yours", "D1", "||||||| old", "d", "=======", "D2", ">>>>>>> new", "e", "f", "g"), 1},
		{"ours deleted what theirs changed", lines("a", "b", "c", "e", "f", "g"), lines("a", "b", "c", "D2", "e", "f", "g"),
			lines("a", "b", "c", "<<<<<<< yours", "||||||| old", "d", "=======", "D2", ">>>>>>> new", "e", "f", "g"), 1},
		{"both insert at one place", lines("a", "x", "b", "c", "d", "e", "f", "g"), lines("a", "y", "b", "c", "d", "e", "f", "g"),
			lines("a", "<<<<<<< yours", "x", "||||||| old", "=======", "y", ">>>>>>> new", "b", "c", "d", "e", "f", "g"), 1},
		{"two conflicts and a clean change", lines("A1", "b", "c", "d", "e", "f", "G1"), lines("A2", "b", "C", "d", "e", "f", "G2"),
			lines("<<<<<<< yours", "A1", "||||||| old", "a", "=======", "A2", ">>>>>>> new", "b", "C", "d", "e", "f", "<<<<<<< yours", "G1", "||||||| old", "g", "=======", "G2", ">>>>>>> new"), 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Merge([]byte(base), []byte(c.ours), []byte(c.theirs), labels)
			if string(r.Text) != c.want || r.Conflicts != c.conflicts {
				t.Errorf("got %d conflicts:\n%s\nwant %d:\n%s", r.Conflicts, r.Text, c.conflicts, c.want)
			}
		})
	}
}

func TestMergeKeepBothInserts(t *testing.T) {
	base := lines("a", "b", "c")
	l := labels
	l.KeepBothInserts = true
	r := Merge([]byte(base), []byte(lines("a", "b", "c", "mine")), []byte(lines("a", "b", "c", "theirs1", "theirs2")), l)
	if string(r.Text) != lines("a", "b", "c", "mine", "theirs1", "theirs2") || r.Conflicts != 0 {
		t.Errorf("inserts at the end: %q (%d conflicts)", r.Text, r.Conflicts)
	}
	// A change of an existing line on both sides stays a conflict.
	r = Merge([]byte(base), []byte(lines("a", "B1", "c")), []byte(lines("a", "B2", "c")), l)
	if r.Conflicts != 1 {
		t.Errorf("changed line on both sides: %q", r.Text)
	}
	// Without the option the inserts conflict.
	r = Merge([]byte(base), []byte(lines("a", "b", "c", "mine")), []byte(lines("a", "b", "c", "theirs")), labels)
	if r.Conflicts != 1 {
		t.Errorf("inserts without KeepBothInserts: %q", r.Text)
	}
}

func TestMergeNoFinalNewline(t *testing.T) {
	base := "a\nb\nx\nc"
	r := Merge([]byte(base), []byte("a\nB\nx\nc"), []byte("a\nb\nx\nC"), labels)
	if string(r.Text) != "a\nB\nx\nC" || r.Conflicts != 0 {
		t.Errorf("got %q (%d conflicts)", r.Text, r.Conflicts)
	}
	r = Merge([]byte(base), []byte("a\nb\nx\nX"), []byte("a\nb\nx\nY"), labels)
	want := "a\nb\nx\n<<<<<<< yours\nX\n||||||| old\nc\n=======\nY\n>>>>>>> new\n"
	if string(r.Text) != want || r.Conflicts != 1 {
		t.Errorf("got %q, want %q", r.Text, want)
	}
}

func TestMergeEmpty(t *testing.T) {
	if r := Merge(nil, nil, nil, labels); len(r.Text) != 0 || r.Conflicts != 0 {
		t.Errorf("got %q", r.Text)
	}
	if r := Merge(nil, nil, []byte("x\n"), labels); string(r.Text) != "x\n" || r.Conflicts != 0 {
		t.Errorf("got %q", r.Text)
	}
	if r := Merge([]byte("x\n"), nil, []byte("x\n"), labels); len(r.Text) != 0 || r.Conflicts != 0 {
		t.Errorf("a side that emptied the file keeps it empty, got %q", r.Text)
	}
}

// TestMergeProperties checks, on generated edits, the laws every merge
// keeps: merging a side with the base gives the side, and merging two
// sides whose edits touch disjoint halves gives both edits.
func TestMergeProperties(t *testing.T) {
	var base []string
	for i := range 60 {
		base = append(base, "line "+string(rune('a'+i%26))+strings.Repeat("!", i/26))
	}
	b := lines(base...)
	for seed := range 40 {
		side := func(lo, hi, s int) string {
			out := []string{}
			for i, l := range base {
				switch {
				case i < lo || i >= hi:
					out = append(out, l)
				case (i+s)%5 == 0:
					// dropped
				case (i+s)%7 == 0:
					out = append(out, l, "inserted "+l)
				case (i+s)%3 == 0:
					out = append(out, "changed "+l)
				default:
					out = append(out, l)
				}
			}
			return lines(out...)
		}
		ours, theirs := side(0, 28, seed), side(32, 60, seed+1)
		if r := Merge([]byte(b), []byte(ours), []byte(b), labels); string(r.Text) != ours || r.Conflicts != 0 {
			t.Fatalf("seed %d: merge with an unchanged side is not the other side", seed)
		}
		if r := Merge([]byte(b), []byte(b), []byte(theirs), labels); string(r.Text) != theirs || r.Conflicts != 0 {
			t.Fatalf("seed %d: merge with an unchanged side is not the other side", seed)
		}
		want := lines(append(Lines2(side(0, 28, seed))[:0:0], append(firstN(side(0, 28, seed), 30), lastFrom(side(32, 60, seed+1), 30)...)...)...)
		r := Merge([]byte(b), []byte(ours), []byte(theirs), labels)
		if r.Conflicts != 0 || string(r.Text) != want {
			t.Fatalf("seed %d: disjoint edits: %d conflicts\n%s\nwant\n%s", seed, r.Conflicts, r.Text, want)
		}
	}
}

// Lines2 splits text into lines without their endings.
func Lines2(s string) []string { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") }

// firstN returns the lines of s before the base line index n (the edits
// of one half end before it; line 28..31 are never touched).
func firstN(s string, n int) []string {
	ls := Lines2(s)
	for i, l := range ls {
		if l == "line "+string(rune('a'+n%26))+strings.Repeat("!", n/26) {
			return ls[:i]
		}
	}
	return ls
}

func lastFrom(s string, n int) []string {
	ls := Lines2(s)
	for i, l := range ls {
		if l == "line "+string(rune('a'+n%26))+strings.Repeat("!", n/26) {
			return ls[i:]
		}
	}
	return nil
}
