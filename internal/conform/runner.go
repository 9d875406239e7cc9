package conform

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bsadapter/bsadapter/internal/report"
)

// Outcome is the result of one case, in the words every command's results
// use.
type Outcome = report.Outcome

// The outcomes of a case.
const (
	Pass    = report.Passed
	Fail    = report.Failed
	Skipped = report.Skipped
	NotRun  = report.NotRun
)

// Result is the outcome of one case against one store.
type Result struct {
	ID      string        `json:"id"`
	Suite   string        `json:"suite"`
	Rule    string        `json:"rule"`
	Outcome Outcome       `json:"outcome"`
	Elapsed time.Duration `json:"-"`
	// Failures lists every failed expectation (empty unless Outcome is Fail).
	Failures []Failure `json:"failures,omitempty"`
	// Reason says why a case was skipped or not run.
	Reason string `json:"reason,omitempty"`
	// Needs is the optional feature a skipped case needed, when that is
	// why it was skipped.
	Needs Feature `json:"needs,omitempty"`
}

// Failure is one failed expectation, or one unexpected error when
// Expected and Actual are empty.
type Failure struct {
	Message  string `json:"message"`
	What     string `json:"what,omitempty"`
	Expected string `json:"expected,omitempty"`
	Actual   string `json:"actual,omitempty"`
}

// Report is the outcome of a run.
type Report struct {
	Store   string        `json:"store"`
	Results []Result      `json:"results"`
	Elapsed time.Duration `json:"-"`
	// LeftOut lists the suites the run did not select because the store
	// does not implement them (see Implemented).
	LeftOut []LeftOut `json:"leftOut,omitempty"`
	// NotApplicable lists the cases the run did not hold the store to:
	// they check block rules it declares it does not keep (see
	// Applicable).
	NotApplicable []NotApplicable `json:"notApplicable,omitempty"`
	// ModulesLeftOut lists the block modules the store could not install
	// (the server lacks an extension they need), with why and how to get
	// them; empty for every other store.
	ModulesLeftOut []ModuleLeftOut `json:"modulesLeftOut,omitempty"`
	// Shard says which part of the run this is (--shard); nil for a
	// whole run.
	Shard *report.Shard `json:"shard,omitempty"`
}

// ModuleLeftOut is a block module a store left out, and why.
type ModuleLeftOut struct {
	Module string `json:"module"`
	Reason string `json:"reason"`
}

// ModuleLeaver is a store that may leave block modules out: the pg store
// on a server without an extension a module needs.
type ModuleLeaver interface {
	ModulesLeftOut() []ModuleLeftOut
}

// Count returns how many results have outcome o.
func (r *Report) Count(o Outcome) int {
	n := 0
	for _, res := range r.Results {
		if res.Outcome == o {
			n++
		}
	}
	return n
}

// Failed returns the IDs of the failed cases, in table order.
func (r *Report) Failed() []string {
	var ids []string
	for _, res := range r.Results {
		if res.Outcome == Fail {
			ids = append(ids, res.ID)
		}
	}
	return ids
}

// Event is what Run reports while it works: a case started (Done false)
// or finished (Done true, with its result).
type Event struct {
	Case   *Case
	Done   bool
	Result Result
}

// Options select and pace the cases of a run.
type Options struct {
	// Suites restricts the run to these suites (none: all).
	Suites []string
	// Run keeps only cases whose ID matches; Skip drops those that match.
	// A case matched by both is an error (see Select).
	Run, Skip *regexp.Regexp
	// Parallel is how many cases run at once (0 or 1: one at a time).
	Parallel int
	// Timeout, when set, replaces every case's own timeout.
	Timeout time.Duration
	// OnEvent, when set, is called (from one goroutine at a time) as
	// cases start and finish.
	OnEvent func(Event)
}

// Select returns the cases of table that opts keeps, in table order. It
// fails when a suite name is unknown, when a case matches both Run and
// Skip (overlapping filters are refused rather than silently resolved),
// or when nothing is left.
func Select(table []Case, opts Options) ([]Case, error) {
	known := suitesOf(table)
	for _, s := range opts.Suites {
		if !slices.Contains(known, s) {
			return nil, fmt.Errorf("unknown suite %q (the suites are %s)", s, strings.Join(known, ", "))
		}
	}
	var out, both []Case
	for _, c := range table {
		if len(opts.Suites) > 0 && !slices.Contains(opts.Suites, c.Suite) {
			continue
		}
		in := opts.Run == nil || opts.Run.MatchString(c.ID)
		out1 := opts.Skip != nil && opts.Skip.MatchString(c.ID)
		if opts.Run != nil && in && out1 {
			both = append(both, c)
			continue
		}
		if in && !out1 {
			out = append(out, c)
		}
	}
	if len(both) > 0 {
		ids := make([]string, 0, len(both))
		for _, c := range both {
			ids = append(ids, c.ID)
		}
		return nil, fmt.Errorf("--run %q and --skip %q both match %s; narrow one of them so that no case is in both", opts.Run, opts.Skip, strings.Join(ids, ", "))
	}
	if len(out) == 0 {
		return nil, errors.New("no case matches the selection")
	}
	return out, nil
}

// Run runs cases against store and reports every result, in table order.
// A case runs on a fresh subject; one that does not finish within its
// timeout fails (its goroutine is abandoned, with its context cancelled).
// A case of a block rule the store declares it does not keep is not run:
// the report lists it apart (Report.NotApplicable). Run returns early,
// with the cases not yet run missing from the report, only when ctx is
// cancelled.
func Run(ctx context.Context, store Store, cases []Case, opts Options) *Report {
	start := time.Now()
	cases, notApplicable := Applicable(store, cases)
	rep := &Report{Store: store.Name(), Results: make([]Result, len(cases)), NotApplicable: notApplicable}
	par := max(opts.Parallel, 1)

	var mu sync.Mutex
	emit := func(e Event) {
		if opts.OnEvent == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		opts.OnEvent(e)
	}
	supported := map[string]error{}
	openers := map[string]opener{}
	for i := range cases {
		c := &cases[i]
		if _, done := supported[c.Suite]; done {
			continue
		}
		if c.suite == nil {
			supported[c.Suite] = CanRun(ctx, store, c)
			continue
		}
		openers[c.Suite], supported[c.Suite] = c.suite.open(ctx, store)
	}
	lister, _ := store.(FeatureLister)
	g := gateOf(store)

	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	ran := make([]bool, len(cases))
	for i := range cases {
		c := &cases[i]
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		ran[i] = true
		wg.Add(1)
		sl := &slot{sem: sem, held: true}
		go func() {
			defer wg.Done()
			defer sl.finish()
			emit(Event{Case: c})
			var res Result
			if err := supported[c.Suite]; err != nil {
				res = Result{ID: c.ID, Suite: c.Suite, Rule: c.Rule, Outcome: Skipped, Reason: err.Error()}
			} else if why := missing(lister, c.Needs); why != "" {
				res = Result{ID: c.ID, Suite: c.Suite, Rule: c.Rule, Outcome: Skipped, Reason: why, Needs: c.Needs}
			} else {
				res = runCase(ctx, store, openers[c.Suite], c, opts.Timeout, g, sl)
			}
			if err := brokenStore(store); err != nil && res.Outcome == Fail {
				// The store (a bridge) stopped working: this case and the
				// ones after it say nothing about the store's behaviour.
				res.Outcome, res.Failures = NotRun, nil
				res.Reason = "the store stopped working during the run: " + err.Error()
			}
			if ctx.Err() != nil {
				// Interrupted: the case did not fail, it was stopped.
				return
			}
			rep.Results[i] = res
			emit(Event{Case: c, Done: true, Result: res})
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		kept := rep.Results[:0]
		for i, r := range rep.Results {
			if ran[i] && r.ID != "" {
				kept = append(kept, r)
			}
		}
		rep.Results = kept
	}
	rep.Elapsed = time.Since(start)
	return rep
}

func missing(l FeatureLister, f Feature) string {
	if l == nil || f == "" {
		return ""
	}
	return l.Missing(f)
}

// runCase runs one case on a fresh subject, within its timeout. An
// ordinary case holds the run's gate shared while it runs, so that no
// whole-store step of an Isolated case meets it; it lets go when it ends
// or is given up on.
func runCase(ctx context.Context, store Store, open opener, c *Case, override time.Duration, g *gate, sl *slot) Result {
	start := time.Now()
	for attempt := 1; ; attempt++ {
		res, disturbed := runAttempt(ctx, store, open, c, override, g, sl)
		// A case that waited in real time and failed after another case's
		// purge may have taken what it waited for says nothing sure about
		// the store: it runs again, on a fresh subject, with the guard
		// grown to the steps the gate has seen. A store that breaks the
		// rule fails every time.
		if res.Outcome != Fail || !disturbed || attempt == disturbedAttempts || ctx.Err() != nil {
			res.Elapsed = time.Since(start)
			return res
		}
	}
}

// disturbedAttempts is how many times a case whose wait another case's
// purge disturbed runs before its failure stands.
const disturbedAttempts = 3

// runAttempt runs case c once; disturbed says that a whole-store step of
// another case may have removed what it waited for.
func runAttempt(ctx context.Context, store Store, open opener, c *Case, override time.Duration, g *gate, sl *slot) (Result, bool) {
	res := Result{ID: c.ID, Suite: c.Suite, Rule: c.Rule}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if override > 0 {
		timeout = override
	}
	start := time.Now()
	cctx, cancel := newPausableCtx(ctx, timeout)
	defer cancel()
	sh := &sharedHold{g: g}
	if !c.Isolated {
		// A case given up on may still hold the gate: let go for it.
		defer func() {
			if cctx.Err() != nil {
				sh.abandon()
			}
		}()
	}

	var disturbed atomic.Bool
	done := make(chan error, 1)
	go func() {
		done <- func() (err error) {
			defer func() {
				if p := recover(); p != nil {
					err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
				}
			}()
			state := &caseState{gate: g, slot: sl, isolated: c.Isolated, deadline: cctx}
			defer func() {
				disturbed.Store(g.disturbed(state))
				g.releaseHolds(state)
			}()
			t := newT(cctx, c, state)
			return t.run(func(t *T) {
				s, err := open(t)
				if err != nil {
					t.Fatal(fmt.Errorf("cannot make a fresh subject: %w", err))
				}
				if !c.Isolated {
					cctx.pause()
					sh.lock()
					cctx.resume()
					t.Cleanup(sh.unlock)
				}
				c.test(t, s)
			})
		}()
	}()
	var err error
	select {
	case err = <-done:
	case <-cctx.Done():
		// Give a case whose calls honour the context a moment to return
		// its own (more precise) error; then give up on it.
		select {
		case err = <-done:
		case <-time.After(200 * time.Millisecond):
			err = cctx.Err()
		}
	}
	res.Elapsed = time.Since(start)
	if ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded) {
		if _, skip := IsSkip(err); !skip {
			err = errors.Join(fmt.Errorf("the case did not finish within its timeout of %s", timeout), err)
		}
	}
	switch reason, skip := IsSkip(err); {
	case err == nil:
		res.Outcome = Pass
	case skip:
		res.Outcome = Skipped
		res.Reason = reason
		res.Needs = c.Needs
	default:
		res.Outcome = Fail
		res.Failures = failures(err)
	}
	return res, disturbed.Load()
}

// failures flattens err (possibly joined) into one Failure per mismatch
// or error.
func failures(err error) []Failure {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []Failure
		for _, e := range j.Unwrap() {
			if e != nil {
				out = append(out, failures(e)...)
			}
		}
		return out
	}
	f := Failure{Message: err.Error()}
	var m *Mismatch
	if errors.As(err, &m) {
		f.What, f.Expected, f.Actual = m.What, m.Expected, m.Actual
	}
	return []Failure{f}
}

// brokenStore returns the fault that left the store unusable during the
// run (a bridge that exited or broke the protocol), or nil. A store that
// cannot break does not implement Fatal.
func brokenStore(store Store) error {
	if f, ok := store.(interface{ Fatal() error }); ok {
		return f.Fatal()
	}
	return nil
}

// sharedHold is an ordinary case's shared hold of the gate, which the
// runner takes back from a case it gave up on.
type sharedHold struct {
	g                 *gate
	mu                sync.Mutex
	locked, abandoned bool
}

func (h *sharedHold) lock() {
	h.g.rw.RLock()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.abandoned {
		h.g.rw.RUnlock()
		return
	}
	h.locked = true
}

func (h *sharedHold) unlock() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.locked {
		h.g.rw.RUnlock()
		h.locked = false
	}
}

func (h *sharedHold) abandon() {
	h.mu.Lock()
	h.abandoned = true
	h.mu.Unlock()
	h.unlock()
}
