package lint

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLex feeds the lexer arbitrary text: it must not panic, and its
// tokens and comments must lie inside the source, in order.
func FuzzLex(f *testing.F) {
	files, _ := filepath.Glob("testdata/corpus/*/src/*")
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(string(data))
		}
	}
	f.Add("const s = `a ${ `b ${ c }` } d`; /* x */ // y\nconst r = /[/]/g;")
	f.Add("`unterminated ${")
	f.Add("'\\")
	f.Fuzz(func(t *testing.T, src string) {
		lx := lex(src)
		last := -1
		for _, tk := range lx.toks {
			if tk.off < 0 || tk.off >= len(src) {
				t.Fatalf("token %+v outside the source (%d bytes)", tk, len(src))
			}
			if tk.kind != tokTmpl && tk.off < last {
				t.Fatalf("token %+v before the previous one at %d", tk, last)
			}
			if tk.kind != tokTmpl {
				last = tk.off
			}
		}
		for _, c := range lx.comments {
			if c.off < 0 || c.off >= len(src) {
				t.Fatalf("comment %+v outside the source", c)
			}
		}
		findRequires(lx.toks)
		li := newLineIndex(src)
		for _, tk := range lx.toks {
			line, col := li.pos(tk.off)
			if line < 1 || col < 1 {
				t.Fatalf("pos(%d) = %d:%d", tk.off, line, col)
			}
		}
	})
}

// FuzzSourceMap feeds the source map decoder arbitrary mappings: it must
// not panic, and an answer must come from a segment it decoded.
func FuzzSourceMap(f *testing.F) {
	f.Add(`{"version":3,"sources":["a.ts"],"mappings":"AAAA,SAAS;AACA,gBAAgB"}`)
	f.Add(`{"version":3,"mappings":";;;AAAA"}`)
	f.Add(`{"version":3,"mappings":"g"}`)
	f.Fuzz(func(t *testing.T, data string) {
		sm, err := parseSourceMap([]byte(data))
		if err != nil {
			return
		}
		for gl, segs := range sm.lines {
			for _, s := range segs {
				if _, ok := sm.segment(gl, s.genCol); !ok {
					t.Fatalf("segment at %d:%d not found again", gl, s.genCol)
				}
			}
		}
	})
}
