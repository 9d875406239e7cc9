package lint

// requireCall is a require("path") call found in a file.
type requireCall struct {
	path string
	off  int // the byte offset of the path's string literal
	// eager is true when the call runs while the module itself is
	// evaluated: at top level, in a block or class body, in an
	// immediately invoked function; false inside a function body that
	// is only called later.
	eager bool
	// awaited marks an "await import(path)": a dynamic import that the
	// module waits for, eager when it is at top level.
	awaited bool
}

// controlKeywords open a parenthesised head followed by a block that is
// not a function body.
var controlKeywords = map[string]bool{"if": true, "for": true, "while": true, "switch": true, "catch": true, "with": true}

type frameKind uint8

const (
	frameParen frameKind = iota
	frameBracket
	frameBrace
	frameArrow // an arrow function's expression body
)

type frame struct {
	kind frameKind
	fn   int  // > 0: the id of the function whose body this is
	ctl  bool // a paren frame that holds a control statement's head
	// wrapper marks the object literal esbuild passes to __esm or
	// __commonJS in a bundle: the one method in it is the module's top
	// level, run when the module is first loaded.
	wrapper bool
	q       int // open ?s in an arrow body, so its own : does not end it
}

// findRequires finds the require calls of JavaScript source as esbuild
// prints it (types stripped, one statement per line, semicolons
// everywhere), and tells which of them are eager. In a bundle esbuild
// writes a package's require as __require, and a module that is loaded
// by require is wrapped in __esm or __commonJS: its body counts as top
// level. It follows function
// bodies by their brackets: "{" after "=>" or after the ")" of a
// parameter list (not of an if/for/while/switch/catch head), and arrow
// expression bodies up to the comma, semicolon or bracket that ends
// them. A function that is called where it is defined ("(() => {...})()",
// "(function () {...}).call(this)") counts as eager code.
func findRequires(toks []token) []requireCall {
	type pending struct {
		call requireCall
		fn   int // the innermost function around the call, 0 at top level
	}
	var (
		stack      []frame
		calls      []pending
		fns        []int      // the function frames on stack, innermost last
		parent     = []int{0} // by function id (from 1): the function around it
		iife       = map[int]bool{}
		lastParen  frame // the paren frame closed most recently
		classDepth = -1  // stack depth at which a class head waits for its body
		innermost  = func() int {
			if len(fns) == 0 {
				return 0
			}
			return fns[len(fns)-1]
		}
		// newFn numbers a function that starts here.
		newFn = func() int {
			parent = append(parent, innermost())
			return len(parent) - 1
		}
		push = func(f frame) {
			stack = append(stack, f)
			if f.fn > 0 {
				fns = append(fns, f.fn)
			}
		}
		pop = func() frame {
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if f.fn > 0 {
				fns = fns[:len(fns)-1]
			}
			return f
		}
	)
	at := func(i int) token {
		if i >= 0 && i < len(toks) {
			return toks[i]
		}
		return token{kind: tokPunct, text: ""}
	}
	isP := func(i int, s string) bool { t := at(i); return t.kind == tokPunct && t.text == s }
	// calledNow reports whether the tokens from i on call the function
	// that just ended (its closing token is at i-1).
	calledNow := func(i int) bool {
		if isP(i, "(") {
			return true
		}
		if isP(i, ")") && (isP(i+1, "(") || isP(i+1, ".") && (at(i+2).text == "call" || at(i+2).text == "apply")) {
			return true
		}
		return false
	}
	closeArrows := func(i int) {
		for len(stack) > 0 && stack[len(stack)-1].kind == frameArrow {
			f := pop()
			if calledNow(i) {
				iife[f.fn] = true
			}
		}
	}

	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind == tokIdent {
			switch t.text {
			case "class":
				if !isP(i-1, ".") {
					classDepth = len(stack)
				}
			case "import":
				if isP(i+1, "(") && at(i+2).kind == tokString && isP(i+3, ")") && at(i-1).kind == tokIdent && at(i-1).text == "await" {
					calls = append(calls, pending{call: requireCall{path: toks[i+2].text, off: toks[i+2].off, awaited: true}, fn: innermost()})
				}
			case "require", "__require":
				if !isP(i-1, ".") && !isP(i-1, "?.") && isP(i+1, "(") && at(i+2).kind == tokString && isP(i+3, ")") {
					calls = append(calls, pending{call: requireCall{path: toks[i+2].text, off: toks[i+2].off}, fn: innermost()})
				}
			}
			continue
		}
		if t.kind != tokPunct {
			continue
		}
		switch t.text {
		case "(":
			prev := at(i - 1)
			push(frame{kind: frameParen, ctl: prev.kind == tokIdent && controlKeywords[prev.text]})
		case "[":
			push(frame{kind: frameBracket})
		case "{":
			f := frame{kind: frameBrace}
			inWrapper := len(stack) > 0 && stack[len(stack)-1].wrapper
			switch {
			case isP(i-1, "(") && (at(i-2).text == "__esm" || at(i-2).text == "__commonJS") && at(i-2).kind == tokIdent:
				f.wrapper = true
			case classDepth == len(stack):
				classDepth = -1 // a class body: its methods are functions, the rest runs now
			case isP(i-1, "=>"):
				f.fn = newFn()
			case isP(i-1, ")") && !lastParen.ctl:
				f.fn = newFn()
			}
			if f.fn > 0 && inWrapper {
				iife[f.fn] = true
			}
			push(f)
		case "=>":
			if !isP(i+1, "{") {
				push(frame{kind: frameArrow, fn: newFn()})
			}
		case "?":
			if n := len(stack); n > 0 && stack[n-1].kind == frameArrow {
				stack[n-1].q++
			}
		case ":":
			if n := len(stack); n > 0 && stack[n-1].kind == frameArrow {
				if stack[n-1].q > 0 {
					stack[n-1].q--
				} else {
					closeArrows(i)
				}
			}
		case ",", ";":
			closeArrows(i)
		case ")", "]", "}":
			closeArrows(i)
			if len(stack) > 0 {
				f := pop()
				if f.kind == frameParen {
					lastParen = f
				}
				if f.kind == frameBrace && f.fn > 0 && calledNow(i+1) {
					iife[f.fn] = true
				}
			}
		}
	}
	// A call is eager when every function around it is called where it
	// is defined; functions are numbered after the ones around them, so
	// one pass in order settles each from the one around it.
	eager := make([]bool, len(parent))
	eager[0] = true
	for fn := 1; fn < len(parent); fn++ {
		eager[fn] = iife[fn] && eager[parent[fn]]
	}
	out := make([]requireCall, 0, len(calls))
	for _, p := range calls {
		p.call.eager = eager[p.fn]
		out = append(out, p.call)
	}
	return out
}
