package lint

import (
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// tokKind classifies a token of JavaScript or TypeScript source.
type tokKind uint8

const (
	tokIdent  tokKind = iota // identifiers and keywords
	tokPunct                 // operators and brackets
	tokString                // '...' and "..." literals
	tokTmpl                  // a whole template literal, its ${} parts lexed inline
	tokNumber
	tokRegex
)

// token is one lexed token. Off is the byte offset of its first byte.
type token struct {
	kind tokKind
	text string // the source text; for strings and templates the value
	off  int
}

// comment is a // or /* */ comment, kept for ignore directives.
type comment struct {
	text string // without the comment markers
	off  int
}

// lexed is a file cut into tokens and comments.
type lexed struct {
	toks     []token
	comments []comment

	closeOnce sync.Once
	close     []int // see closing
}

// lex cuts JavaScript or TypeScript source into tokens. It is not a
// parser: it knows just enough (strings, templates with nested
// expressions, comments, regular expression literals) that string
// contents, identifiers and brackets come out right, which is what the
// rules need. It never fails; unterminated constructs end at the end of
// the source.
func lex(src string) *lexed {
	l := &lexer{src: src, out: &lexed{toks: make([]token, 0, min(len(src)/5, 1<<16)+8)}}
	l.run(0)
	return l.out
}

type lexer struct {
	src string
	i   int
	out *lexed
}

// regexKeywords are the keywords after which a slash starts a regular
// expression rather than a division.
var regexKeywords = map[string]bool{
	"return": true, "typeof": true, "instanceof": true, "in": true, "of": true, "new": true,
	"delete": true, "void": true, "throw": true, "case": true, "do": true, "else": true,
	"yield": true, "await": true,
}

func (l *lexer) regexAllowed() bool {
	t := l.out.toks
	if len(t) == 0 {
		return true
	}
	last := t[len(t)-1]
	switch last.kind {
	case tokIdent:
		return regexKeywords[last.text]
	case tokNumber, tokString, tokTmpl, tokRegex:
		return false
	}
	switch last.text {
	case ")", "]", "}", "++", "--":
		return false
	}
	return true
}

// run lexes until the end of the source or, when depth > 0, until the
// closing brace of a template's ${ } part.
func (l *lexer) run(depth int) {
	braces := 0
	src := l.src
	for l.i < len(src) {
		c := src[l.i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			l.i++
		case c == '/' && l.i+1 < len(src) && src[l.i+1] == '/':
			end := strings.IndexByte(src[l.i:], '\n')
			if end < 0 {
				end = len(src) - l.i
			}
			l.out.comments = append(l.out.comments, comment{text: src[l.i+2 : l.i+end], off: l.i})
			l.i += end
		case c == '/' && l.i+1 < len(src) && src[l.i+1] == '*':
			end := strings.Index(src[l.i+2:], "*/")
			stop := len(src)
			if end >= 0 {
				stop = l.i + 2 + end + 2
			}
			body := src[l.i+2 : max(l.i+2, stop-2)]
			if end < 0 {
				body = src[l.i+2:]
			}
			l.out.comments = append(l.out.comments, comment{text: body, off: l.i})
			l.i = stop
		case c == '"' || c == '\'':
			l.str(c)
		case c == '`':
			l.tmpl()
		case c == '/' && l.regexAllowed():
			l.regex()
		case isIdentStart(c):
			start := l.i
			for l.i < len(src) && isIdentPart(src[l.i]) {
				l.i++
			}
			l.out.toks = append(l.out.toks, token{kind: tokIdent, text: src[start:l.i], off: start})
		case c >= '0' && c <= '9' || c == '.' && l.i+1 < len(src) && src[l.i+1] >= '0' && src[l.i+1] <= '9':
			start := l.i
			for l.i < len(src) && (isIdentPart(src[l.i]) || src[l.i] == '.') {
				l.i++
			}
			l.out.toks = append(l.out.toks, token{kind: tokNumber, text: src[start:l.i], off: start})
		default:
			if depth > 0 {
				if c == '{' {
					braces++
				} else if c == '}' {
					if braces == 0 {
						l.i++
						return
					}
					braces--
				}
			}
			l.punct()
		}
	}
}

// puncts are the multi-byte operators the rules care to keep whole.
var puncts = []string{"=>", "?.", "...", "===", "!==", "==", "!=", "&&", "||", "??", "++", "--"}

func (l *lexer) punct() {
	// Only these start an operator of more than one byte.
	if strings.IndexByte("=?.!&|+-", l.src[l.i]) < 0 {
		l.out.toks = append(l.out.toks, token{kind: tokPunct, text: l.src[l.i : l.i+1], off: l.i})
		l.i++
		return
	}
	for _, p := range puncts {
		if strings.HasPrefix(l.src[l.i:], p) {
			l.out.toks = append(l.out.toks, token{kind: tokPunct, text: p, off: l.i})
			l.i += len(p)
			return
		}
	}
	l.out.toks = append(l.out.toks, token{kind: tokPunct, text: l.src[l.i : l.i+1], off: l.i})
	l.i++
}

func (l *lexer) str(q byte) {
	start := l.i
	l.i++
	for l.i < len(l.src) {
		c := l.src[l.i]
		if c == '\\' {
			l.i += 2
			continue
		}
		if c == q || c == '\n' {
			break
		}
		l.i++
	}
	end := min(l.i, len(l.src))
	raw := l.src[start+1 : end]
	if l.i < len(l.src) && l.src[l.i] == q {
		l.i++
	}
	l.out.toks = append(l.out.toks, token{kind: tokString, text: unescape(raw), off: start})
}

// tmpl lexes a template literal. Its text (the expressions replaced by
// "${}") becomes one token placed before the tokens of its expressions.
func (l *lexer) tmpl() {
	start := l.i
	l.i++
	idx := len(l.out.toks)
	l.out.toks = append(l.out.toks, token{kind: tokTmpl, off: start})
	var b strings.Builder
	for l.i < len(l.src) {
		c := l.src[l.i]
		if c == '\\' && l.i+1 < len(l.src) {
			b.WriteByte(l.src[l.i+1])
			l.i += 2
			continue
		}
		if c == '`' {
			l.i++
			break
		}
		if c == '$' && l.i+1 < len(l.src) && l.src[l.i+1] == '{' {
			b.WriteString("${}")
			l.i += 2
			l.run(1)
			continue
		}
		b.WriteByte(c)
		l.i++
	}
	l.out.toks[idx].text = b.String()
}

func (l *lexer) regex() {
	start := l.i
	l.i++
	inClass := false
	for l.i < len(l.src) {
		c := l.src[l.i]
		if c == '\\' {
			l.i += 2
			continue
		}
		if c == '\n' {
			break
		}
		if c == '[' {
			inClass = true
		} else if c == ']' {
			inClass = false
		} else if c == '/' && !inClass {
			l.i++
			break
		}
		l.i++
	}
	for l.i < len(l.src) && isIdentPart(l.src[l.i]) {
		l.i++
	}
	l.out.toks = append(l.out.toks, token{kind: tokRegex, text: l.src[start:min(l.i, len(l.src))], off: start})
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 || c == '#' || c == '@'
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// unescape returns a string literal's value; on an escape Go does not
// know it falls back to the raw text, which is good enough for matching
// module paths and SQL.
func unescape(raw string) string {
	if !strings.ContainsRune(raw, '\\') {
		return raw
	}
	q := strings.NewReplacer(`\'`, `'`, `\"`, `"`, `"`, `\"`).Replace(raw)
	if v, err := strconv.Unquote(`"` + q + `"`); err == nil {
		return v
	}
	return raw
}

// lineIndex turns byte offsets into 1-based lines and columns (columns
// count Unicode code points, as the SARIF output declares) and back.
//
// A column is a count of characters from the start of its line. Counting
// them afresh for every position would make a long line (minified code
// is one line) cost its length for each of its strings, so a file with
// a line longer than markStep keeps marks: every markStep bytes, how many
// code points and UTF-16 units come before. A count then starts from the
// nearest mark, and costs at most markStep bytes whatever the line.
type lineIndex struct {
	src    string
	starts []int
	marks  []mark // nil when every line is short
}

// counted is how many bytes lineIndex has counted characters over, for
// tests to check the count stays in proportion to the source.
var counted atomic.Int64

// mark is a place in the source with the counts from its start. A mark
// is never inside a character's encoding, so counts from it add up.
type mark struct{ off, runes, u16 int }

const markStep = 1024

func newLineIndex(src string) *lineIndex {
	li := &lineIndex{src: src, starts: []int{0}}
	long := false
	for i := 0; i < len(src); {
		j := strings.IndexByte(src[i:], '\n')
		if j < 0 {
			long = long || len(src)-i > markStep
			break
		}
		long = long || j > markStep
		i += j + 1
		li.starts = append(li.starts, i)
	}
	if long {
		li.marks = make([]mark, 0, len(src)/markStep+1)
		runes, u16 := 0, 0
		next := 0
		for i := 0; i < len(src); {
			if i >= next && utf8.RuneStart(src[i]) {
				li.marks = append(li.marks, mark{i, runes, u16})
				next = i + markStep
			}
			r, size := utf8.DecodeRuneInString(src[i:])
			i += size
			runes++
			u16++
			if r >= 0x10000 {
				u16++
			}
		}
	}
	return li
}

// markBefore returns the last mark at or before off.
func (li *lineIndex) markBefore(off int) mark {
	k := sort.Search(len(li.marks), func(j int) bool { return li.marks[j].off > off })
	if k == 0 {
		return mark{}
	}
	return li.marks[k-1]
}

// runesTo counts the code points before off (from the start of the
// source); only with marks.
func (li *lineIndex) runesTo(off int) int {
	m := li.markBefore(off)
	counted.Add(int64(off - m.off))
	return m.runes + utf8.RuneCountInString(li.src[m.off:off])
}

// u16To counts the UTF-16 units before off; only with marks.
func (li *lineIndex) u16To(off int) int {
	m := li.markBefore(off)
	counted.Add(int64(off - m.off))
	n := m.u16
	for _, r := range li.src[m.off:off] {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

// line returns the 0-based line holding off.
func (li *lineIndex) line(off int) int {
	lo, hi := 0, len(li.starts)-1
	for lo < hi {
		m := (lo + hi + 1) / 2
		if li.starts[m] <= off {
			lo = m
		} else {
			hi = m - 1
		}
	}
	return lo
}

// lineEnd returns the offset of the end of the 0-based line (its "\n",
// or the end of the source).
func (li *lineIndex) lineEnd(line int) int {
	if line+1 < len(li.starts) {
		return li.starts[line+1] - 1
	}
	return len(li.src)
}

// pos returns the line and column of a byte offset.
func (li *lineIndex) pos(off int) (line, col int) {
	off = min(max(off, 0), len(li.src))
	lo := li.line(off)
	start := li.starts[lo]
	if li.marks == nil || off-start <= 2*markStep {
		counted.Add(int64(off - start))
		return lo + 1, utf8.RuneCountInString(li.src[start:off]) + 1
	}
	return lo + 1, li.runesTo(off) - li.runesTo(start) + 1
}

// offset returns the byte offset of a 0-based line and a 0-based column
// counted in UTF-16 code units (source maps count that way).
func (li *lineIndex) offset(line, utf16col int) int {
	if line < 0 || line >= len(li.starts) {
		return -1
	}
	i, n := li.starts[line], 0
	if li.marks != nil && utf16col > 2*markStep {
		// Start from the last mark on the line before the column.
		end := li.lineEnd(line)
		base := li.u16To(i)
		k := sort.Search(len(li.marks), func(j int) bool {
			m := li.marks[j]
			return m.off > end || m.u16-base > utf16col
		})
		if k > 0 && li.marks[k-1].off > i {
			i, n = li.marks[k-1].off, li.marks[k-1].u16-base
		}
	}
	from := i
	defer func() { counted.Add(int64(i - from)) }()
	for n < utf16col && i < len(li.src) && li.src[i] != '\n' {
		r, size := utf8.DecodeRuneInString(li.src[i:])
		i += size
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return i
}

// runeOffset returns the byte offset of a 1-based line and a 1-based
// column counted in code points; the line's end when the line is shorter.
func (li *lineIndex) runeOffset(line, col int) int {
	if line < 1 || line > len(li.starts) {
		return -1
	}
	i, n := li.starts[line-1], 1
	end := li.lineEnd(line - 1)
	if li.marks != nil && col > 2*markStep {
		base := li.runesTo(i)
		k := sort.Search(len(li.marks), func(j int) bool {
			m := li.marks[j]
			return m.off > end || m.runes-base+1 > col
		})
		if k > 0 && li.marks[k-1].off > i {
			i, n = li.marks[k-1].off, li.marks[k-1].runes-base+1
		}
	}
	from := i
	defer func() { counted.Add(int64(i - from)) }()
	for n < col && i < end {
		_, size := utf8.DecodeRuneInString(li.src[i:])
		i += size
		n++
	}
	return i
}

// lineText returns the text of the 1-based line.
func (li *lineIndex) lineText(line int) string {
	if line < 1 || line > len(li.starts) {
		return ""
	}
	return strings.TrimRight(li.src[li.starts[line-1]:li.lineEnd(line-1)], "\r")
}

// excerptMax is the longest source line an excerpt shows whole; a longer
// one (minified code) is cut to excerptBefore and excerptAfter bytes
// around the position.
const (
	excerptMax    = 200
	excerptBefore = 60
	excerptAfter  = 100
)

// excerpt returns the source line of a finding, trimmed, or for a long
// line the part of it around the finding's column, marked with "..." at
// the cuts.
func (li *lineIndex) excerpt(line, col int) string {
	text := li.lineText(line)
	if len(text) <= excerptMax {
		return strings.TrimSpace(text)
	}
	start := li.starts[line-1]
	off := li.runeOffset(line, max(col, 1)) - start
	from, to := max(off-excerptBefore, 0), min(off+excerptAfter, len(text))
	for from > 0 && !utf8.RuneStart(text[from]) {
		from--
	}
	for to < len(text) && !utf8.RuneStart(text[to]) {
		to++
	}
	s := strings.TrimSpace(text[from:to])
	if from > 0 {
		s = "..." + s
	}
	if to < len(text) {
		s += "..."
	}
	return s
}
