// Package conform holds bsadapter's conformance suites for the storage
// contracts of better-supabase's blocks: the StreamStore (resumable
// output), the run registry and chat storage; and for the other
// interfaces an adapter implements: the Chat SDK state adapter, a
// credential provider, a workflow engine adapter, a graph compiler and a
// builder runtime.
//
// A suite ([Suite]) is a package of its own below internal/conform/suites:
// the interface it checks, its cases and its catalog text; that folder's
// package suites is the one list of them. Each case has a stable ID, the
// one-line rule it checks, a timeout and a named function of a [T] and a
// fresh subject of its suite. A [Store] offers a suite by implementing the
// suite's provider interface, which opens a fresh subject per case; [Run]
// runs cases against one store and reports every result.
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
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"
)

// DefaultTimeout is the time a case gets when it does not set its own. It
// only stops a store that hangs: a case takes milliseconds on an idle
// machine, but on a runner busy with other jobs one call to a bridge has
// been seen to take more than ten seconds, and a limit a busy machine
// cannot meet is a false failure.
const DefaultTimeout = 30 * time.Second

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
	// Isolated asks for a subject that no case running beside it uses (a
	// database of its own): the case purges, and a purge sees the whole
	// store. On a store whose subjects share state (a bridge), the case's
	// whole-store steps run alone (T.Alone), with no other case in flight.
	Isolated bool
	// Counts marks an Isolated case whose checks count what a purge finds
	// in the whole store (a purge's count), on a subject it does not share
	// (T.Shared false): its subject must also hold no row an earlier case
	// of its suite left. A store that reuses one case's database for
	// another gives such a case none a case of its suite has used.
	Counts bool
	// MovesClock marks a case that makes time pass for the store by its
	// clock (T.Clock): with a clock it moves it, as one whole-store
	// step on a shared store; without one it waits for real TTLs of a
	// second.
	MovesClock bool
	// Block names the block rule the case checks: a behaviour of the SQL
	// block beyond what the interface promises, which a store that
	// declares it does not keep is not held to (see BlockRuleDecliner).
	// The zero value: the case checks the interface's own rule.
	Block BlockRule

	// suite is the suite the case is of, and test runs the case on the
	// subject the suite's opener made (see NewSuite).
	suite *Suite
	test  func(t *T, subject any)
}

// Of returns the suite the case belongs to.
func (c *Case) Of() *Suite { return c.suite }

// Source says whose rule the case checks: the interface's, or its
// block's beyond it.
func (c *Case) Source() Source {
	if c.Block.IsZero() {
		return SourceInterface
	}
	return SourceBlock
}

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
	// grant a member a permission in a tenant (the registry suite's
	// Callers).
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

// caseState is what the runner keeps of a running case besides its T:
// the ids it handed out and its place in the run's gate. It is the owner
// of the case's holds (see gate).
type caseState struct {
	// clock, when the store has one, moves the store's time forward, so
	// that TTL cases need no waiting; nil when time cannot be moved.
	clock Clock
	// prefix makes the case's ids unique within a shared store.
	prefix string
	// shared says that the case's store is shared with the other cases
	// of the run (a bridge): what a purge returns counts their rows too.
	shared bool
	// private says that the case works on a subject of its own, which no
	// other case sees (a database cloned for it): its whole-store steps
	// reach nothing of theirs, so they need not wait for them.
	private bool
	seq     int

	// Set by the runner: the run's gate, this case's parallel slot,
	// whether the case is Isolated (may make whole-store steps), and its
	// timeout's context.
	gate     *gate
	slot     *slot
	isolated bool
	deadline *pausableCtx
	// disturbed says that another case's whole-store step may have
	// removed what this case waited for (guarded by gate.mu).
	disturbed bool
}

// id returns a new id, unique within the store: the prefix and a counter.
func (s *caseState) id(name string) string {
	s.seq++
	return fmt.Sprintf("%s-%s-%d", s.prefix, name, s.seq)
}

// Store is a store the suites run against. It offers a suite by
// implementing that suite's provider interface (as a file system offers
// fs.ReadDirFS); a store that does not is left out of the suite, with
// the reason it gives by Decline.
type Store interface {
	// Name describes the store in reports ("memory", "pg", "bridge: node store.mjs").
	Name() string
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
