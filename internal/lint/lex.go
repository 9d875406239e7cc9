package lint

import (
	"strconv"
	"strings"
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
}

// lex cuts JavaScript or TypeScript source into tokens. It is not a
// parser: it knows just enough (strings, templates with nested
// expressions, comments, regular expression literals) that string
// contents, identifiers and brackets come out right, which is what the
// rules need. It never fails; unterminated constructs end at the end of
// the source.
func lex(src string) *lexed {
	l := &lexer{src: src, out: &lexed{toks: make([]token, 0, len(src)/5+8)}}
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
// count Unicode code points, as the SARIF output declares).
type lineIndex struct {
	src    string
	starts []int
}

func newLineIndex(src string) *lineIndex {
	li := &lineIndex{src: src, starts: []int{0}}
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			li.starts = append(li.starts, i+1)
		}
	}
	return li
}

// pos returns the line and column of a byte offset.
func (li *lineIndex) pos(off int) (line, col int) {
	lo, hi := 0, len(li.starts)-1
	for lo < hi {
		m := (lo + hi + 1) / 2
		if li.starts[m] <= off {
			lo = m
		} else {
			hi = m - 1
		}
	}
	start := li.starts[lo]
	return lo + 1, len([]rune(li.src[start:min(off, len(li.src))])) + 1
}

// offset returns the byte offset of a 0-based line and a 0-based column
// counted in UTF-16 code units (source maps count that way).
func (li *lineIndex) offset(line, utf16col int) int {
	if line < 0 || line >= len(li.starts) {
		return -1
	}
	i := li.starts[line]
	for n := 0; n < utf16col && i < len(li.src) && li.src[i] != '\n'; {
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

// lineText returns the text of the 1-based line.
func (li *lineIndex) lineText(line int) string {
	if line < 1 || line > len(li.starts) {
		return ""
	}
	s := li.src[li.starts[line-1]:]
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimRight(s, "\r")
}
