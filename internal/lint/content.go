package lint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/bsadapter/bsadapter/blocks"
)

// blockTables are the tables of the embedded blocks, read from their SQL
// so that a new table is known the day a block adds it.
var blockTables = sync.OnceValue(func() []string {
	re := regexp.MustCompile(`(?i)create\s+table\s+(?:if\s+not\s+exists\s+)?better_supabase\.([a-z_][a-z0-9_]*)`)
	var out []string
	for _, m := range blocks.List() {
		for _, g := range re.FindAllStringSubmatch(m.SQL, -1) {
			out = append(out, strings.ToLower(g[1]))
		}
	}
	return uniqueSorted(out)
})

// tableWords matches, as a whole word, a block table whose name has an
// underscore (ai_chats, stream_chunks): distinctive enough to count
// anywhere in a string. Names that are English words (streams, modules)
// count only qualified or as the argument of .from().
var tableWords = sync.OnceValue(func() *regexp.Regexp {
	var names []string
	for _, t := range blockTables() {
		if strings.Contains(t, "_") {
			names = append(names, regexp.QuoteMeta(t))
		}
	}
	if len(names) == 0 {
		return nil
	}
	return regexp.MustCompile(`(?:^|[^a-z0-9_])(` + strings.Join(names, "|") + `)(?:$|[^a-z0-9_])`)
})

var qualifiedTable = regexp.MustCompile(`\bbetter_supabase\.("?)([a-z_][a-z0-9_]*)`)

// sqlStatement matches SQL that creates or changes schema objects, or
// reads and writes tables. Keywords that are also English (select, from,
// truncate, grant) count only in capitals; DML needs a table after it
// that is not an article.
var sqlStatement = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\b(create|alter|drop)\s+(or\s+replace\s+)?((temp|temporary|unlogged)\s+)?(table|index|unique\s+index|schema|function|procedure|view|materialized\s+view|trigger|type|policy|extension|sequence|role)\b`),
	regexp.MustCompile(`(?i)\binsert\s+into\s+(?:(?:a|an|the|this|that|it|its|your|our)\b)?[\w."]`),
	regexp.MustCompile(`(?i)\bdelete\s+from\s+(?:(?:a|an|the|this|that|it|its|your|our)\b)?[\w."]`),
	regexp.MustCompile(`(?i)\bupdate\s+(?:(?:a|an|the|this|that|it|its|your|our)\b)?[\w."]+\s+set\s+[\w"]+\s*=`),
	regexp.MustCompile(`\bSELECT\b[\s\S]*\bFROM\s+[\w."]+`),
	regexp.MustCompile(`\bTRUNCATE\s+(TABLE\s+)?[\w."]+`),
	regexp.MustCompile(`\bGRANT\s+[\w, ]+\s+ON\b`),
}

// articleAfter tells an English "insert into the ..." from SQL.
var articleAfter = regexp.MustCompile(`(?i)^(insert\s+into|delete\s+from|update)\s+(a|an|the|this|that|it|its|your|our)\s`)

// sqlKeywords are the words one of which every SQL statement matched
// holds, lowercased: a cheap test before the regular expressions.
var sqlKeywords = []string{"create", "alter", "drop", "insert", "delete", "update", "select", "truncate", "grant"}

// isSQL reports whether s (lower is s lowercased) holds a SQL statement.
func isSQL(s, lower string) (string, bool) {
	if !slices.ContainsFunc(sqlKeywords, func(k string) bool { return strings.Contains(lower, k) }) {
		return "", false
	}
	for _, re := range sqlStatement {
		if loc := re.FindStringIndex(s); loc != nil {
			m := s[loc[0]:loc[1]]
			if articleAfter.MatchString(m + " ") {
				continue
			}
			return m, true
		}
	}
	return "", false
}

func snippet(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		s = string(r[:77]) + "..."
	}
	return s
}

// sqlInStrings reports string and template literals that hold SQL or name
// a block's table.
func (l *linter) sqlInStrings(f *sourceFile, toks []token) {
	tables := blockTables()
	for i, t := range toks {
		if t.kind != tokString && t.kind != tokTmpl {
			continue
		}
		if len(t.text) < 6 {
			continue // too short for a statement or a table name
		}
		lower := strings.ToLower(t.text)
		if m, ok := isSQL(t.text, lower); ok {
			line, col := f.li.pos(t.off)
			l.add(Finding{Rule: RuleSQLStatement, File: l.rel(f.abs), Line: line, Column: col,
				Message:  fmt.Sprintf("the adapter holds a SQL statement (%s); adapters own no tables and ship no SQL", snippet(m)),
				Evidence: snippet(t.text),
				Fix:      "call the blocks' typed APIs or SQL functions instead; an engine that needs tables gets a SQL module of its own, named after the engine, outside the adapter"})
			continue
		}
		table := ""
		if strings.Contains(lower, "better_supabase.") {
			for _, g := range qualifiedTable.FindAllStringSubmatch(lower, -1) {
				if slices.Contains(tables, g[2]) {
					table = g[2]
					break
				}
			}
		}
		if table == "" && slices.Contains(tables, lower) && i >= 3 && toks[i-1].text == "(" && (toks[i-2].text == "from" || toks[i-2].text == "table") && toks[i-3].text == "." {
			table = lower // supabase.from("ai_chats")
		}
		if re := tableWords(); table == "" && re != nil && strings.Contains(lower, "_") {
			if m := re.FindStringSubmatch(lower); m != nil {
				table = m[1]
			}
		}
		if table != "" {
			line, col := f.li.pos(t.off)
			l.add(Finding{Rule: RuleBlockTable, File: l.rel(f.abs), Line: line, Column: col,
				Message:  fmt.Sprintf("the adapter names the block table %s directly", table),
				Evidence: snippet(t.text),
				Fix:      "go through the block's functions (its typed API in better-supabase, or its SQL functions): the tables are the block's own and may change"})
		}
	}
}

// optionsType matches the names of options types.
var optionsType = regexp.MustCompile(`(Options|Opts|Config|Configuration|Settings|Params|Parameters|Init|Props)$`)

// storedKeys are the keys under which an adapter hands the blocks values
// they keep in rows.
var storedKeys = map[string]bool{"attributes": true, "metadata": true, "providerMetadata": true, "state": true, "native": true, "data": true}

// declStart are the words that begin the next declaration, where a type
// alias without a semicolon has ended.
var declStart = map[string]bool{"export": true, "interface": true, "type": true, "const": true, "let": true, "var": true, "function": true, "class": true, "declare": true, "import": true, "enum": true}

// optionsParam matches parameter names whose inline type is an options type.
var optionsParam = map[string]bool{"options": true, "opts": true, "config": true, "settings": true, "params": true, "init": true}

var identNormalizer = strings.NewReplacer("_", "", "-", "")

// tokenLike reports whether a field name holds a secret.
func tokenLike(name string) bool {
	n := strings.ToLower(identNormalizer.Replace(name))
	if strings.HasPrefix(n, "credentialref") {
		return false
	}
	// Tokens that are not secrets: paging and cancellation handles.
	for _, s := range []string{"pagetoken", "continuationtoken", "synctoken", "nexttoken", "cancellationtoken", "canceltoken"} {
		if strings.HasSuffix(n, s) {
			return false
		}
	}
	for _, s := range []string{"token", "apikey", "secret", "password", "passwd", "passphrase", "privatekey", "accesskey", "secretkey", "servicerolekey", "bearer", "authorization"} {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	return n == "apikeys"
}

// braceEnd returns the index of the token after the "}" matching the
// "{" at open (len(toks) when it is not closed).
func braceEnd(lx *lexed, open int) int {
	return lx.closing()[open] + 1
}

// closing returns, for each "{" and "(" token, the index of the token
// that closes it, braces and parentheses each counted on their own, or
// len(toks)-1 when it is not closed. It is worked out once, so that a
// rule that looks for the end of a body does not count its way there
// again for each nested one.
func (lx *lexed) closing() []int {
	lx.closeOnce.Do(func() {
		toks := lx.toks
		lx.close = make([]int, len(toks))
		var braces, parens []int
		for i, t := range toks {
			if t.kind != tokPunct {
				continue
			}
			switch t.text {
			case "{":
				braces = append(braces, i)
			case "(":
				parens = append(parens, i)
			case "}":
				if n := len(braces); n > 0 {
					lx.close[braces[n-1]] = i
					braces = braces[:n-1]
				}
			case ")":
				if n := len(parens); n > 0 {
					lx.close[parens[n-1]] = i
					parens = parens[:n-1]
				}
			}
		}
		for _, i := range append(braces, parens...) {
			lx.close[i] = len(toks) - 1
		}
	})
	return lx.close
}

// members calls fn for each property name declared in the type literal
// or object whose "{" is at open, at any depth of nested literals but not
// inside parentheses (parameters of method signatures). Each token it
// passes is marked in seen, when given.
func members(src string, lx *lexed, open int, seen []bool, fn func(i int, name string)) {
	toks := lx.toks
	closing := lx.closing()
	end := braceEnd(lx, open)
	for i := open + 1; i < end-1; i++ {
		t := toks[i]
		if seen != nil {
			seen[i] = true
		}
		if t.kind == tokPunct {
			if t.text == "(" {
				i = min(closing[i], end-1) // parameters: skipped whole
			}
			continue
		}
		if t.kind != tokIdent && t.kind != tokString {
			continue
		}
		prev := toks[i-1]
		afterSeparator := prev.kind == tokPunct && (prev.text == "{" || prev.text == ";" || prev.text == ",") || prev.kind == tokIdent && prev.text == "readonly"
		// TypeScript lets members be separated by line breaks alone.
		onNewLine := strings.IndexByte(src[prev.off:t.off], '\n') >= 0 && !(prev.kind == tokPunct && strings.Contains(":|&=<(?.", prev.text))
		if !afterSeparator && !onNewLine {
			continue
		}
		j := i + 1
		if j < end && toks[j].text == "?" {
			j++
		}
		if j < end && toks[j].kind == tokPunct && toks[j].text == ":" {
			fn(i, t.text)
		}
	}
}

// tokenOptions reports token-like fields of options types: interfaces and
// type aliases named ...Options, ...Config and the like, and inline types
// of parameters named options, opts or config.
func (l *linter) tokenOptions(f *sourceFile, toks []token) {
	lx := f.lex()
	// An object nested in one already looked at was looked at with it;
	// looking again would report its fields twice, and cost the depth of
	// the nesting for each of its tokens.
	var storedSeen, paramSeen []bool
	report := func(typ string, i int, name string) {
		line, col := f.li.pos(toks[i].off)
		l.add(Finding{Rule: RuleTokenOption, File: l.rel(f.abs), Line: line, Column: col,
			Message:  fmt.Sprintf("the options type %s has a field %s that holds a token", typ, name),
			Evidence: f.li.excerpt(line, col),
			Fix:      fmt.Sprintf("replace %s with credentialRef: CredentialRef ({ provider: ... }) and resolve the token at run time with a CredentialProvider", name)})
	}
	for i := 0; i+2 < len(toks); i++ {
		t := toks[i]
		if t.kind != tokIdent {
			continue
		}
		switch {
		case (t.text == "interface" || t.text == "type") && toks[i+1].kind == tokIdent && optionsType.MatchString(toks[i+1].text):
			name := toks[i+1].text
			// The body: the first "{" before the declaration ends.
			for j := i + 2; j < len(toks); j++ {
				if toks[j].text == ";" || toks[j].kind == tokIdent && declStart[toks[j].text] {
					break
				}
				if toks[j].kind == tokPunct && toks[j].text == "{" {
					members(f.src, lx, j, nil, func(k int, field string) {
						if tokenLike(field) {
							report(name, k, field)
						}
					})
					i = braceEnd(lx, j) - 1
					break
				}
			}
		case storedKeys[t.text] && toks[i+1].text == ":" && toks[i+2].kind == tokPunct && toks[i+2].text == "{" && (i == 0 || toks[i-1].text != "."):
			// An object written where the blocks store it: a run's
			// attributes, a message's metadata, a data part.
			key := t.text
			if storedSeen == nil {
				storedSeen = make([]bool, len(toks))
			}
			if storedSeen[i+2] {
				continue
			}
			members(f.src, lx, i+2, storedSeen, func(k int, field string) {
				if tokenLike(field) {
					line, col := f.li.pos(toks[k].off)
					l.add(Finding{Rule: RuleTokenOption, File: l.rel(f.abs), Line: line, Column: col,
						Message:  fmt.Sprintf("%s stores a field %s that holds a token; stored values end up in rows", key, field),
						Evidence: f.li.excerpt(line, col),
						Fix:      fmt.Sprintf("store a credential_ref ({ provider: ... }) instead of %s, and resolve the token with a CredentialProvider when it is needed", field)})
				}
			})
		case optionsParam[t.text] && (toks[i+1].text == ":" || toks[i+1].text == "?" && i+3 < len(toks) && toks[i+2].text == ":"):
			j := i + 2
			if toks[i+1].text == "?" {
				j++
			}
			if paramSeen == nil {
				paramSeen = make([]bool, len(toks))
			}
			if j < len(toks) && toks[j].text == "{" && toks[j].kind == tokPunct && !paramSeen[j] {
				members(f.src, lx, j, paramSeen, func(k int, field string) {
					if tokenLike(field) {
						report("of "+t.text, k, field)
					}
				})
			}
		}
	}
}

// credentialRefs reports credential_ref objects and types without a
// provider.
func (l *linter) credentialRefs(f *sourceFile, toks []token) {
	lx := f.lex()
	report := func(i int, what string) {
		line, col := f.li.pos(toks[i].off)
		l.add(Finding{Rule: RuleCredential, File: l.rel(f.abs), Line: line, Column: col,
			Message:  what,
			Evidence: f.li.excerpt(line, col),
			Fix:      `give it a string provider naming the CredentialProvider that resolves it, e.g. { provider: "vault", key: "..." }`})
	}
	for i := 0; i+2 < len(toks); i++ {
		t := toks[i]
		if t.kind != tokIdent && t.kind != tokString {
			continue
		}
		isRef := t.text == "credential_ref" || t.text == "credentialRef"
		isDecl := t.kind == tokIdent && (t.text == "interface" || t.text == "type") && toks[i+1].text == "CredentialRef"
		if !isRef && !isDecl {
			continue
		}
		j := i + 1
		if isDecl {
			j = i + 2
			for j < len(toks) && toks[j].text != "{" && toks[j].text != ";" && !(toks[j].kind == tokIdent && declStart[toks[j].text]) {
				j++
			}
		} else {
			if toks[j].text == "?" {
				j++
			}
			if j >= len(toks) || toks[j].text != ":" {
				continue
			}
			j++
		}
		if j >= len(toks) || toks[j].kind != tokPunct || toks[j].text != "{" {
			continue
		}
		provider, spread := -1, false
		depth := 0
		end := braceEnd(lx, j)
		for k := j; k < end; k++ {
			switch toks[k].text {
			case "{":
				depth++
			case "}":
				depth--
			case "...":
				if depth == 1 {
					spread = true
				}
			case "provider":
				if depth == 1 && provider < 0 && k+1 < end && (toks[k+1].text == ":" || toks[k+1].text == "?" || toks[k+1].text == "," || toks[k+1].text == "}") {
					provider = k
				}
			}
		}
		switch {
		case spread:
		case provider < 0:
			what := fmt.Sprintf("this %s has no provider", t.text)
			if isDecl {
				what = "the CredentialRef type has no provider field"
			}
			report(i, what)
		case provider+2 < end && toks[provider+1].text == ":" && toks[provider+2].kind == tokString && strings.TrimSpace(toks[provider+2].text) == "":
			report(provider, fmt.Sprintf("this %s names an empty provider", t.text))
		case provider+1 < end && toks[provider+1].text == "?":
			report(provider, "the provider of a credential_ref is optional here; it must always be there")
		}
		i = end - 1
	}
}

// sqlFiles reports .sql files in the adapter's source folders.
func (l *linter) sqlFiles(files []string) {
	for _, p := range files {
		f := l.file(p)
		if f == nil {
			continue
		}
		l.collectIgnores(f, sqlComments(f.src), "--")
		l.add(Finding{Rule: RuleSQLFile, File: l.rel(p), Line: 1, Column: 1,
			Message: "the adapter's source holds a SQL file; adapters own no tables and ship no SQL",
			Fix:     "call the blocks; if the engine needs storage of its own, make it a SQL module named after the engine (NAME-state) outside the adapter's source, e.g. sql/NAME-state.sql, that records its runs in the run registry"})
	}
}

// sqlComments returns a SQL file's -- comments.
func sqlComments(src string) []comment {
	var out []comment
	off := 0
	for _, line := range strings.SplitAfter(src, "\n") {
		if i := strings.Index(line, "--"); i >= 0 && !strings.Contains(line[:i], "'") {
			out = append(out, comment{text: strings.TrimRight(line[i+2:], "\r\n"), off: off + i})
		}
		off += len(line)
	}
	return out
}

var moduleHeader = regexp.MustCompile(`(?m)^--\s*bsadapter block:\s*(\S+)`)

// engineModules checks the SQL modules beside a package's source (its
// sql/ folder, or any .sql file that declares itself a module): each is
// named after the engine, never like a block.
func (l *linter) engineModules(ctx context.Context) error {
	if l.t.kind != "package" {
		return nil
	}
	err := filepath.WalkDir(l.t.pkgDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() {
			if p != l.t.pkgDir && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") || slices.Contains(l.t.srcDirs, p)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".sql") {
			return nil
		}
		data, err := readFile(p)
		if err != nil {
			return err
		}
		name := strings.TrimSuffix(filepath.Base(p), ".sql")
		line, col := 1, 1
		if m := moduleHeader.FindSubmatchIndex(data); m != nil {
			name = string(data[m[2]:m[3]])
			line, col = newLineIndex(string(data)).pos(m[2])
		} else if filepath.Base(filepath.Dir(p)) != "sql" {
			return nil // not a module: test data, a fixture
		}
		l.read++
		f := l.file(p)
		if f != nil {
			l.collectIgnores(f, sqlComments(f.src), "--")
		}
		if slices.Contains(blocks.Names(), name) {
			l.add(Finding{Rule: RuleEngineModule, File: l.rel(p), Line: line, Column: col,
				Message: fmt.Sprintf("the SQL module %s has the name of a block", clip(name)),
				Fix:     fmt.Sprintf("name it after the engine, e.g. %s-state", l.t.name)})
			return nil
		}
		for _, c := range l.t.engineNames {
			if c != "" && (name == c || strings.HasPrefix(name, c+"-") || strings.HasPrefix(name, c+"_")) {
				return nil
			}
		}
		l.add(Finding{Rule: RuleEngineModule, File: l.rel(p), Line: line, Column: col,
			Message: fmt.Sprintf("the SQL module %s is not named after the engine (%s)", clip(name), strings.Join(uniqueSorted(slices.Clone(l.t.engineNames)), ", ")),
			Fix:     fmt.Sprintf("name it after the engine, e.g. %s-state (and its file sql/%s-state.sql)", l.t.name, l.t.name)})
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var r *refusedFile
		if errors.As(err, &r) {
			return r.usage()
		}
		return usagef("check the folder's permissions", "reading %s: %v", l.display(l.t.pkgDir), err)
	}
	return nil
}
