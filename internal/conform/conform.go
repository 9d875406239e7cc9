// Package conform holds bsadapter's conformance suites for the storage
// contracts of better-supabase's blocks: the StreamStore (resumable
// output), the run registry and chat storage; and for the other
// interfaces an adapter implements: the Chat SDK state adapter, a
// credential provider, a workflow engine adapter, a graph compiler and a
// builder runtime.
//
// The suites are one table of cases ([Cases]). Each case has a stable ID,
// the one-line rule it checks, a timeout and a function that exercises a
// fresh [Subject]. A [Store] makes subjects; [Run] runs the table against
// one and reports every result.
//
// Like testing/fstest and testing/slogtest, the kit never imports what it
// checks: the stores are packages of their own beside it (memstore, the
// in-process reference; pgstore, the blocks in PostgreSQL; bridgestore, an
// adapter's own store behind a bridge), and conformtest runs the table
// under go test, so that only tests link the testing package.
//
// The package returns values and errors; it never prints to a terminal.
package conform

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"
)

// The suite names, in the order they run.
const (
	SuiteStreams  = "streams"
	SuiteRegistry = "registry"
	SuiteChat     = "chat"
	// SuiteChatState is the Chat SDK's StateAdapter (stores_chatstate.go).
	SuiteChatState = "chat-state"
	// SuiteCredentials is a CredentialProvider (stores_credentials.go).
	SuiteCredentials = "credentials"
	// SuiteGraphCompiler is a workflow builder graph compiler
	// (stores_graph.go).
	SuiteGraphCompiler = "graph-compiler"
	// SuiteEngine is a workflow engine adapter (stores_engine.go).
	SuiteEngine = "engine"
	// SuiteBuilder is a workflow builder runtime (stores_builder.go).
	SuiteBuilder = "builder"
)

// Suites lists every suite name in run order.
var Suites = []string{SuiteStreams, SuiteRegistry, SuiteChat, SuiteChatState, SuiteCredentials, SuiteEngine, SuiteGraphCompiler, SuiteBuilder}

// DefaultTimeout is the time a case gets when it does not set its own.
const DefaultTimeout = 10 * time.Second

// Case is one named check of a contract rule.
type Case struct {
	// ID is stable across releases: "<suite>/<slug>".
	ID string
	// Rule is the one-line rule the case checks.
	Rule string
	// Suite is the suite the case belongs to (the prefix of ID).
	Suite string
	// Timeout bounds the case; zero means DefaultTimeout.
	Timeout time.Duration
	// Needs names the optional store feature the case needs ("" for
	// none); stores without it report the case as skipped.
	Needs Feature
	// Isolated asks for a subject that shares no state with other cases
	// (a database of its own): the case purges, and a purge sees the whole
	// store. On a store whose subjects share state (a bridge), the case's
	// whole-store steps run alone (Subject.alone), with no other case in flight.
	Isolated bool
	// MovesClock marks a case that makes time pass for the store by its
	// clock (Subject.Clock): with a clock it moves it, as one whole-store
	// step on a shared store; without one it waits for real TTLs of a
	// second.
	MovesClock bool
	// Run exercises a fresh subject and returns nil when the rule holds.
	// It returns a *Mismatch (or an error wrapping one) to show expected
	// and actual values, or Skip(reason) when the subject lacks an
	// optional feature the case needs.
	Run func(ctx context.Context, s *Subject) error

	// suite and test are set for the cases of a Suite made by NewSuite:
	// test runs the case on the subject the suite's opener made.
	suite *Suite
	test  func(t *T, subject any)
}

// Of returns the suite the case belongs to (nil for a case of the table).
func (c *Case) Of() *Suite { return c.suite }

// Feature is an optional store capability some cases need.
type Feature string

// The optional features. Time is not among them: a store whose clock the
// cases cannot move gets real TTLs of seconds, and the cases wait.
const (
	FeatureBoundedRead   Feature = "bounded read"
	FeatureLiveRead      Feature = "incremental live read"
	FeatureStatusDetails Feature = "status kind and expiry"
	FeatureCallers       Feature = "caller identity"
	FeatureIdentity      Feature = "store identity"
	// FeatureClock is the chat suite's: its stale-run and harness-lock
	// cases move a run's clock, which every store of that suite can.
	FeatureClock Feature = "movable clock"
	// FeatureTenants: the registry takes the caller's identity and can
	// grant a member a permission in a tenant (RegistryCallers).
	FeatureTenants Feature = "tenant permissions"
)

// FeatureLister is implemented by stores that lack some optional features
// for a reason worth saying (a bridge that does not declare a capability):
// Missing returns "" when the store has f, or why it does not. The runner
// skips a case whose Needs is missing with that reason, before making a
// subject.
type FeatureLister interface {
	Missing(f Feature) string
}

// Subject is what a case runs against: fresh for every case, so that no
// case sees another's ids, owners or tenants. A store fills the field of
// the suite it was asked for.
type Subject struct {
	Registry RunRegistry
	// ChatState is the Chat SDK state adapter under test (chat-state).
	ChatState ChatState
	// Credentials is the credential provider under test (credentials).
	Credentials CredentialProvider
	// Engine is the workflow engine adapter under test (engine); it
	// records into Registry, which the cases read.
	Engine WorkflowEngine
	// Clock, when the store has one, moves the store's time forward, so
	// that TTL cases need no waiting; nil when time cannot be moved.
	Clock Clock

	// Prefix makes the case's ids unique within a shared store.
	Prefix string
	// Shared says that the subject's store is shared with the other cases
	// of the run (a bridge): what a purge returns counts their rows too.
	Shared bool
	seq    int

	// Set by the runner: the run's gate, this case's parallel slot, and
	// whether the case is Isolated (may make whole-store steps).
	gate     *gate
	slot     *slot
	isolated bool
	clock    *pausableCtx // the case's timeout
}

// ID returns a new id for a stream, a run or a message, unique within the
// store: the subject's prefix and a counter. Like the rest of a subject it
// belongs to one case; call it from the case's own goroutine.
func (s *Subject) ID(name string) string {
	s.seq++
	return fmt.Sprintf("%s-%s-%d", s.Prefix, name, s.seq)
}

// UUID returns a fresh random UUID (an owner, a tenant, a user).
func (s *Subject) UUID() string { return newUUID() }

// Store makes subjects for the suites it supports.
type Store interface {
	// Name describes the store in reports ("memory", "pg", "bridge: node store.mjs").
	Name() string
	// Supports returns nil when the store can run suite, or an error
	// whose text is the reason to report the suite's cases as skipped. A
	// *NotImplementedError says the store does not implement the suite's
	// interface at all (pg has no credential provider): a run that did
	// not name the suite leaves it out instead (see Implemented).
	Supports(suite string) error
	// NewSubject returns a fresh subject for case c (its suite's store
	// filled in) and a function that releases it.
	NewSubject(ctx context.Context, c *Case) (*Subject, func(), error)
	// Close releases everything the store holds (servers, databases,
	// bridge processes).
	Close() error
}

// Mismatch is a failed expectation: what was checked, the value the rule
// requires and the value the store produced.
type Mismatch struct {
	What     string
	Expected string
	Actual   string
}

// Error renders the mismatch as "what: expected X, got Y".
func (m *Mismatch) Error() string {
	return fmt.Sprintf("%s: expected %s, got %s", m.What, m.Expected, m.Actual)
}

// skipError marks a case that cannot run against this subject.
type skipError struct{ reason string }

func (e *skipError) Error() string { return "skipped: " + e.reason }

// Skip returns the error a case returns when the subject lacks an
// optional feature the case needs; the case is reported as skipped with
// the reason.
func Skip(format string, args ...any) error { return &skipError{reason: fmt.Sprintf(format, args...)} }

// IsSkip reports whether err is a Skip and returns its reason.
func IsSkip(err error) (string, bool) {
	var s *skipError
	if errors.As(err, &s) {
		return s.reason, true
	}
	return "", false
}

// show renders a value for a Mismatch: strings quoted (and long ones
// shortened), everything else in Go syntax.
func show(v any) string {
	if v == nil {
		return "nil"
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return "nil"
		}
		return show(rv.Elem().Interface())
	}
	var s string
	switch x := v.(type) {
	case string:
		s = fmt.Sprintf("%q", x)
	case []string:
		parts := make([]string, len(x))
		for i, p := range x {
			parts[i] = show(p)
		}
		s = "[" + strings.Join(parts, " ") + "]"
	case error:
		s = x.Error()
	default:
		s = fmt.Sprintf("%+v", v)
	}
	if len(s) > 200 {
		s = s[:90] + fmt.Sprintf("...(%d bytes)...", len(s)-180) + s[len(s)-90:]
	}
	return s
}

// checks collects every failed expectation of a case, so that one run
// shows all the ways a store departs from a rule, not only the first.
type checks struct{ list []error }

// eq records a mismatch unless got deeply equals want.
func (c *checks) eq(what string, got, want any) bool {
	if reflect.DeepEqual(got, want) {
		return true
	}
	c.list = append(c.list, &Mismatch{What: what, Expected: show(want), Actual: show(got)})
	return false
}

// that records a mismatch unless ok; expected describes the rule.
func (c *checks) that(ok bool, what, expected string, got any) bool {
	if !ok {
		c.list = append(c.list, &Mismatch{What: what, Expected: expected, Actual: show(got)})
	}
	return ok
}

// err returns nil, the single mismatch, or all of them joined.
func (c *checks) err() error {
	switch len(c.list) {
	case 0:
		return nil
	case 1:
		return c.list[0]
	}
	return errors.Join(c.list...)
}

// eq is the one-shot form of checks.eq.
func eq(what string, got, want any) error {
	var c checks
	c.eq(what, got, want)
	return c.err()
}

// op names the store operation that failed unexpectedly.
func op(name string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: unexpected error: %w", name, err)
}

// newUUID returns a random version 4 UUID.
func newUUID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
