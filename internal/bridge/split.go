package bridge

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// SplitCommand splits a command line the way a POSIX shell does for simple
// quoting: words are separated by blanks, 'single quotes' keep everything,
// "double quotes" keep everything but \" \\ \$ \`, and a backslash outside
// quotes escapes the next character. There is no expansion of variables,
// globs or substitutions; the result is run directly, without a shell.
// Bytes that are not UTF-8 are kept as they are (a file name need not be
// UTF-8): every character with a meaning here is ASCII, so the line is
// read byte by byte.
func SplitCommand(s string) ([]string, error) {
	var (
		args  []string
		cur   strings.Builder
		inArg bool
	)
	// char numbers a byte offset as a character for messages.
	char := func(i int) int { return utf8.RuneCountInString(s[:i]) + 1 }
	for i := 0; i < len(s); i++ {
		r := s[i]
		switch {
		case r == ' ' || r == '\t' || r == '\n':
			if inArg {
				args = append(args, cur.String())
				cur.Reset()
				inArg = false
			}
		case r == '\\':
			inArg = true
			if i+1 >= len(s) {
				return nil, fmt.Errorf("command %q ends with a lone backslash", s)
			}
			i++
			cur.WriteByte(s[i])
		case r == '\'':
			inArg = true
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("command %q has an unterminated single quote at character %d", s, char(i))
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += 1 + end
		case r == '"':
			inArg = true
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' && j+1 < len(s) && strings.IndexByte("\"\\$`", s[j+1]) >= 0 {
					j++
				}
				cur.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, fmt.Errorf("command %q has an unterminated double quote at character %d", s, char(i))
			}
			i = j
		default:
			inArg = true
			cur.WriteByte(r)
		}
	}
	if inArg {
		args = append(args, cur.String())
	}
	if len(args) == 0 {
		return nil, fmt.Errorf("the bridge command is empty")
	}
	return args, nil
}
