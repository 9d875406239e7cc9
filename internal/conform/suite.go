package conform

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Suite is one conformance suite: the interface it checks, where that
// interface comes from (the contract `bsadapter new` generates, the
// bridge's method group, the embedded block module), the catalog's text
// about it, its cases, and how a store is asked for it. A suite lives in a
// package of its own under internal/conform/suites, and the list of all
// of them is that package's All.
type Suite struct {
	// Name is the suite's name, the prefix of its case IDs and the value
	// of --suite.
	Name string
	// Contract is the `bsadapter new --contracts` name whose generated
	// implementation this suite checks ("" for none).
	Contract string
	// Requires is another contract an implementation of this suite's
	// interface builds on ("" for none), and RequiresWhy says why: an
	// engine adapter records its runs in the workflows block's registry.
	// `bsadapter new` refuses the contract without it.
	Requires, RequiresWhy string
	// BridgeGroup is the capability a bridge declares to offer the suite's
	// methods ("" when the bridge protocol has none).
	BridgeGroup string
	// Module is the embedded block module that implements the suite's
	// interface in SQL ("" for none).
	Module string
	// Intro is the catalog's paragraph about the suite.
	Intro string
	// Cases are the suite's cases in run order.
	Cases []Case
	// open asks a store for the suite (see NewSuite).
	open func(ctx context.Context, store Store) (opener, error)
}

// Decliner is implemented by a store that says, in its own words, why it
// does not implement a suite it has no provider for (pg: a credential
// provider is an adapter's own code, not a block).
type Decliner interface {
	Decline(s *Suite) string
}

// opener makes a fresh subject of the suite for one case.
type opener func(t *T) (any, error)

// Opener makes the fresh subject of a suite for one case: the typed
// implementation the case functions get. It may set the case's prefix,
// clock and sharing on t, and register with t.Cleanup what releases the
// subject.
type Opener[S any] func(t *T) (S, error)

// CaseOf is a case of a suite whose subject has type S, as the suite's
// package writes it: a named function of the case's T and a fresh subject.
type CaseOf[S any] struct {
	// ID is stable across releases: "<suite>/<slug>".
	ID string
	// Rule is the one-line rule the case checks.
	Rule     string
	Timeout  time.Duration
	Needs    Feature
	Isolated bool
	// Counts: see Case.Counts; only an Isolated case counts.
	Counts     bool
	MovesClock bool
	// Block is the block rule the case checks, beyond the interface
	// (see Case.Block); the zero value for a rule of the interface.
	Block BlockRule
	// Run checks the rule; it records failures on t and may stop with
	// t.Fatal or t.Skip.
	Run func(t *T, s S)
}

// Info is what NewSuite takes besides the cases and the provider's
// method: the Suite's descriptive fields.
type Info struct {
	Name, Contract, BridgeGroup, Module, Intro string
	Requires, RequiresWhy                      string
}

// NewSuite returns the suite described by info, with cases, which a store
// offers by implementing the provider interface P. ask is P's method that
// prepares the suite on one store for a run (a method expression such as
// Provider.ChatState): it returns an Opener, or why the store cannot run
// the suite; a *NotImplementedError says it does not implement the
// interface at all. A store that is not a P does not implement the suite.
func NewSuite[P any, S any](info Info, ask func(P, context.Context) (Opener[S], error), cases []CaseOf[S]) *Suite {
	s := &Suite{Name: info.Name, Contract: info.Contract, Requires: info.Requires, RequiresWhy: info.RequiresWhy,
		BridgeGroup: info.BridgeGroup, Module: info.Module, Intro: info.Intro}
	s.open = func(ctx context.Context, store Store) (opener, error) {
		p, ok := store.(P)
		if !ok {
			if d, ok := store.(Decliner); ok {
				if why := d.Decline(s); why != "" {
					return nil, NotImplemented("%s", why)
				}
			}
			return nil, NotImplemented("the %s store does not implement the %s suite's interface", store.Name(), info.Name)
		}
		o, err := ask(p, ctx)
		if err != nil {
			return nil, err
		}
		return func(t *T) (any, error) { return o(t) }, nil
	}
	for _, c := range cases {
		if !strings.HasPrefix(c.ID, info.Name+"/") {
			panic(fmt.Sprintf("conform: case %s is not in suite %s", c.ID, info.Name))
		}
		if c.Counts && !c.Isolated {
			panic(fmt.Sprintf("conform: case %s counts what a purge removes but is not Isolated", c.ID))
		}
		run := c.Run
		s.Cases = append(s.Cases, Case{
			ID: c.ID, Rule: c.Rule, Suite: info.Name, Timeout: c.Timeout, Needs: c.Needs,
			Isolated: c.Isolated, Counts: c.Counts, MovesClock: c.MovesClock, Block: c.Block, suite: s,
			test: func(t *T, subject any) { run(t, subject.(S)) },
		})
	}
	return s
}

// Open prepares the suite on store for a run: nil when the store can run
// it, or why not (a *NotImplementedError when it does not implement the
// suite's interface).
func (s *Suite) Open(ctx context.Context, store Store) error {
	_, err := s.open(ctx, store)
	return err
}

// AllCases returns every case of suites, in order.
func AllCases(suites []*Suite) []Case {
	var all []Case
	for _, s := range suites {
		all = append(all, s.Cases...)
	}
	return all
}

// CanRun returns nil when store can run the suite of case c, or why not
// (a *NotImplementedError when the store does not implement the suite's
// interface).
func CanRun(ctx context.Context, store Store, c *Case) error {
	if c.suite == nil {
		return fmt.Errorf("case %s is of no suite: make cases with NewSuite", c.ID)
	}
	return c.suite.Open(ctx, store)
}
