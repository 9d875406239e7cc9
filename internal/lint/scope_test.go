package lint

import (
	"fmt"
	"strings"
	"testing"
)

// TestScanRequires checks which require calls run while the module is
// evaluated, on TypeScript as authors write it (esbuild strips the types
// first, and the source map brings each call back to its place).
func TestScanRequires(t *testing.T) {
	cases := []struct {
		name  string
		src   string
		eager []bool // per require("x"), in source order
	}{
		{"top level", `const a = require("x");`, []bool{true}},
		{"function body", `export function f(): unknown { return require("x"); }`, []bool{false}},
		{"typed function with generic return", "function f<T>(a: Map<string, T>): Promise<Array<T>> {\n  return require(\"x\");\n}", []bool{false}},
		{"arrow block", `export const f = async (a: number): Promise<void> => { require("x"); };`, []bool{false}},
		{"arrow expression", `export const f = () => require("x"), g = require("x");`, []bool{false, true}},
		{"arrow in ternary", `const f = c ? () => require("x") : require("x");`, []bool{false, true}},
		{"arrow body with ternary", `const f = () => c ? require("x") : null; const g = require("x");`, []bool{false, true}},
		{"method", `class A { m(): void { require("x"); } }`, []bool{false}},
		{"class field runs with the class", `class A { static s = require("x"); }`, []bool{true}},
		{"class extending a call", `class A extends mixin(B) { m() { return require("x"); } }`, []bool{false}},
		{"object method and getter", `const o = { m() { return require("x"); }, get g() { return require("x"); } };`, []bool{false, false}},
		{"if block at top level", `if (process.env.X) { require("x"); }`, []bool{true}},
		{"try/catch at top level", `try { require("x"); } catch (e) { require("x"); }`, []bool{true, true}},
		{"for and while heads", `for (const k of ks) { require("x"); } while (w()) { require("x"); }`, []bool{true, true}},
		{"switch", "switch (k) {\n case 1: { require(\"x\"); }\n}", []bool{true}},
		{"arrow IIFE", `(() => { require("x"); })();`, []bool{true}},
		{"function IIFE", `(function () { require("x"); })();`, []bool{true}},
		{"call IIFE", `(function () { require("x"); }).call(this);`, []bool{true}},
		{"expression IIFE", `const v = (() => require("x"))();`, []bool{true}},
		{"function inside IIFE", `(() => { function f() { return require("x"); } })();`, []bool{false}},
		{"callback passed on", `setTimeout(() => { require("x"); }, 1);`, []bool{false}},
		{"string and comment that look like code", "const s = \"require('x') { }\"; // function () {\n/* } */ const a = require(\"x\");", []bool{true}},
		{"template with nested braces", "const s = `${ {a: 1}.a }`;\nconst a = require(\"x\");", []bool{true}},
		{"regex with braces", "const r = /\\{[}]/g;\nfunction f() { return require(\"x\"); }\nconst a = require(\"x\");", []bool{false, true}},
		{"member call is not require", `const a = module.require("x");`, nil},
		{"nested functions", `function f() { const g = () => { require("x"); }; }`, []bool{false}},
		{"generator and async method", `class A { async *m() { yield require("x"); } }`, []bool{false}},
		{"default export function", `export default function () { return require("x"); }`, []bool{false}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := &sourceFile{abs: "file.ts", src: c.src, li: newLineIndex(c.src)}
			got, ok := scanRequires(f)
			if !ok {
				t.Fatalf("esbuild could not read the source")
			}
			var eager []bool
			for _, r := range got {
				if r.path != "x" {
					t.Errorf("path %q, want x", r.path)
				}
				eager = append(eager, r.eager)
			}
			if fmt.Sprint(eager) != fmt.Sprint(c.eager) {
				t.Errorf("eager = %v, want %v", eager, c.eager)
			}
			// Each call is placed on its string literal in the source.
			for _, r := range got {
				text := f.li.lineText(r.line)
				if r.col < 1 || r.col > len(text) || !strings.HasPrefix(text[r.col-1:], `"x"`) {
					t.Errorf("call placed at %d:%d, which is not the string \"x\": %q", r.line, r.col, text)
				}
			}
		})
	}
}

func TestLexStrings(t *testing.T) {
	src := "const a = 'it\\'s'; const b = `x ${ `in ${1}` } y`; // 'no'\nconst c = a / 2 / 3; const r = /'q'/;"
	var strs []string
	for _, tk := range lex(src).toks {
		if tk.kind == tokString || tk.kind == tokTmpl {
			strs = append(strs, tk.text)
		}
	}
	want := []string{"it's", "x ${} y", "in ${}"}
	if fmt.Sprint(strs) != fmt.Sprint(want) {
		t.Errorf("strings = %q, want %q", strs, want)
	}
	if c := lex(src).comments; len(c) != 1 || strings.TrimSpace(c[0].text) != "'no'" {
		t.Errorf("comments = %+v", c)
	}
}

// encodeVLQ writes one source map number, the other way from vlq.
func encodeVLQ(v int) string {
	u := v << 1
	if v < 0 {
		u = (-v)<<1 | 1
	}
	var b strings.Builder
	for {
		d := u & 31
		u >>= 5
		if u > 0 {
			d |= 32
		}
		b.WriteByte(base64Digits[d])
		if u == 0 {
			return b.String()
		}
	}
}

func TestSourceMapVLQ(t *testing.T) {
	// Two generated lines; fields are relative to the previous segment.
	seg := func(f ...int) string {
		var s string
		for _, v := range f {
			s += encodeVLQ(v)
		}
		return s
	}
	mappings := seg(0, 0, 0, 0) + "," + seg(9, 0, 0, 1000) + ";" + seg(4, 0, 3, -990) + "," + seg(40, 0, -1, -7)
	sm, err := parseSourceMap([]byte(`{"version":3,"mappings":"` + mappings + `"}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ gl, gc, sl, sc int }{{0, 0, 0, 0}, {0, 9, 0, 1000}, {1, 4, 3, 10}, {1, 44, 2, 3}} {
		sl, sc, ok := sm.original(c.gl, c.gc)
		if !ok || sl != c.sl || sc != c.sc {
			t.Errorf("original(%d,%d) = %d,%d,%v; want %d,%d", c.gl, c.gc, sl, sc, ok, c.sl, c.sc)
		}
	}
	if _, _, ok := sm.original(0, 5); ok {
		t.Error("a column between segments must not map")
	}
	if _, err := parseSourceMap([]byte(`{"version":3,"mappings":"A!"}`)); err == nil {
		t.Error("a bad character must be an error")
	}
}

// TestFindRequiresInBundle reads esbuild's bundle forms: a package's
// require is __require, and a module loaded by require is wrapped in
// __esm or __commonJS, whose one method is the module's top level.
func TestFindRequiresInBundle(t *testing.T) {
	src := `var __require = ((x) => typeof require !== "undefined" ? require : x)(function(x) {
  if (typeof require !== "undefined") return require.apply(this, arguments);
});
var init_x = __esm({
  "src/x.ts"() {
    a = __require("x");
    later = function() {
      return __require("x");
    };
  }
});
var require_y = __commonJS({
  "src/y.js"(exports, module) {
    module.exports = __require("x");
  }
});
function f() {
  return __require("x");
}
var top = __require("x");
`
	var eager []bool
	for _, c := range findRequires(lex(src).toks) {
		eager = append(eager, c.eager)
	}
	if want := []bool{true, false, true, false, true}; fmt.Sprint(eager) != fmt.Sprint(want) {
		t.Errorf("eager = %v, want %v", eager, want)
	}
}

// TestTokenOptionsStyles checks options types however they are written:
// members on lines without semicolons, commas, readonly, nested literals,
// intersections, inline parameter types; and what is not an options field.
func TestTokenOptionsStyles(t *testing.T) {
	src := `export interface ClientOptions {
  baseUrl?: string
  apiKey?: string
  readonly secret: string,
  auth?: { password: string }
  getToken(ref: unknown, opts: { token: string }): string
}
export type ServerConfig = Base & {
  accessToken: string
}
type Plain = { token: string }
export function start(options: { serviceRoleKey: string; nextPageToken?: string; credentialRef?: unknown }) {}
const other = { apiKey: "not an options type" }
`
	l := &linter{t: &target{root: "/r"}, files: map[string]*sourceFile{}}
	f := &sourceFile{abs: "/r/src/x.ts", src: src, li: newLineIndex(src)}
	l.tokenOptions(f, f.lex().toks)
	got := describe(l.findings, "")
	want := []string{
		"token-option src/x.ts:3:3",
		"token-option src/x.ts:4:12",
		"token-option src/x.ts:5:12",
		"token-option src/x.ts:9:3",
		"token-option src/x.ts:12:34",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("findings:\n  got  %q\n  want %q", got, want)
	}
}
