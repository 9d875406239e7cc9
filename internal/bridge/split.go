package bridge

import (
	"fmt"
	"strings"
)

// SplitCommand splits a command line the way a POSIX shell does for simple
// quoting: words are separated by blanks, 'single quotes' keep everything,
// "double quotes" keep everything but \" \\ \$ \`, and a backslash outside
// quotes escapes the next character. There is no expansion of variables,
// globs or substitutions; the result is run directly, without a shell.
func SplitCommand(s string) ([]string, error) {
	var (
		args  []string
		cur   strings.Builder
		inArg bool
	)
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == ' ' || r == '\t' || r == '\n':
			if inArg {
				args = append(args, cur.String())
				cur.Reset()
				inArg = false
			}
		case r == '\\':
			inArg = true
			if i+1 >= len(rs) {
				return nil, fmt.Errorf("command %q ends with a lone backslash", s)
			}
			i++
			cur.WriteRune(rs[i])
		case r == '\'':
			inArg = true
			end := -1
			for j := i + 1; j < len(rs); j++ {
				if rs[j] == '\'' {
					end = j
					break
				}
			}
			if end < 0 {
				return nil, fmt.Errorf("command %q has an unterminated single quote at character %d", s, i+1)
			}
			cur.WriteString(string(rs[i+1 : end]))
			i = end
		case r == '"':
			inArg = true
			j := i + 1
			for ; j < len(rs) && rs[j] != '"'; j++ {
				if rs[j] == '\\' && j+1 < len(rs) && strings.ContainsRune("\"\\$`", rs[j+1]) {
					j++
				}
				cur.WriteRune(rs[j])
			}
			if j >= len(rs) {
				return nil, fmt.Errorf("command %q has an unterminated double quote at character %d", s, i+1)
			}
			i = j
		default:
			inArg = true
			cur.WriteRune(r)
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
