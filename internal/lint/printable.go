package lint

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// unsafeRune reports whether r must not reach a terminal or a log as is:
// control characters (a newline splits a report line, ESC starts an
// escape sequence), and the invisible format characters that reorder or
// hide text (bidirectional overrides and the like).
func unsafeRune(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r)
}

func hasUnsafe(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 || unsafeRune(r) {
			return true
		}
		i += size
	}
	return false
}

// SafeName returns a file name as text output shows it: as it is when
// every character of it prints, else quoted with Go's escapes
// ("src/a\nb.ts"), so that a name can neither split a report line nor
// send an escape sequence to the terminal, and the quotes say the name is
// odd.
func SafeName(s string) string {
	if !hasUnsafe(s) {
		return s
	}
	return strconv.Quote(s)
}

// SafeText returns text from the adapter's files (a source line, an
// import specifier, a comment) with the characters that must not reach a
// terminal written as escapes (\x1b, \u202e); a tab stays a tab.
func SafeText(s string) string {
	if !hasUnsafe(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\t':
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case unsafeRune(r) && r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
