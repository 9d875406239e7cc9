package conform

import (
	"fmt"
	"strings"
)

// A case checks one of two kinds of rule. Most check what an interface
// promises (better-supabase's StreamStore, the Chat SDK's StateAdapter),
// which every implementation must keep. Some check what one
// implementation, a SQL block, does beyond that promise: the streams
// block keeps an expired stream until a purge removes it, where a
// Redis-backed store lets Redis expire it. Such a case names its
// BlockRule; a store that declares it does not keep the rule (see
// BlockRuleDecliner) is not held to the case, and the report says so.

// Source is where the rule a case checks comes from.
type Source string

// The sources of a case's rule.
const (
	// SourceInterface is the interface's own promise: every store is held
	// to it.
	SourceInterface Source = "interface"
	// SourceBlock is a behaviour of the SQL block beyond the interface:
	// the blocks keep it, and so does every store that does not declare
	// otherwise.
	SourceBlock Source = "block"
)

// BlockRule is a behaviour of a SQL block that the interface it implements
// does not promise, which some cases check. The zero BlockRule is none:
// the case checks the interface's own rule.
type BlockRule struct {
	// Name is the rule's short name, for the catalog's table and the
	// reports ("expired streams kept until a purge").
	Name string
	// Text says what the block does that the interface leaves open, and
	// which stores are held to it, for the catalog.
	Text string
}

// IsZero says whether r is no rule at all: a case of the interface.
func (r BlockRule) IsZero() bool { return r.Name == "" }

// BlockRuleDecliner is implemented by a store that declares it does not
// keep some block rules (a bridge whose store expires streams by itself):
// NotKept returns "" when the store keeps r, or why it does not. A store
// that does not implement it keeps every block rule, as the blocks do, and
// runs every case.
type BlockRuleDecliner interface {
	NotKept(r BlockRule) string
}

// NotApplicable is a case a run did not hold the store to: it checks a
// block rule the store declares it does not keep.
type NotApplicable struct {
	ID    string `json:"id"`
	Suite string `json:"suite"`
	Rule  string `json:"rule"`
	// BlockRule is the name of the block rule the case checks.
	BlockRule string `json:"blockRule"`
	// Reason is why the store does not keep it, in the store's words.
	Reason string `json:"reason"`
}

// Applicable keeps the cases store is held to and returns the others:
// those of a block rule the store declares it does not keep, in table
// order.
func Applicable(store Store, cases []Case) ([]Case, []NotApplicable) {
	d, ok := store.(BlockRuleDecliner)
	if !ok {
		return cases, nil
	}
	var kept []Case
	var out []NotApplicable
	for _, c := range cases {
		if !c.Block.IsZero() {
			if why := d.NotKept(c.Block); why != "" {
				out = append(out, NotApplicable{ID: c.ID, Suite: c.Suite, Rule: c.Rule, BlockRule: c.Block.Name, Reason: why})
				continue
			}
		}
		kept = append(kept, c)
	}
	return kept, out
}

// NotApplicableLines renders the cases a run did not hold the store to,
// those of one block rule and reason on one line: the rule's name, its
// cases and the reason.
func NotApplicableLines(na []NotApplicable) []string {
	type group struct {
		rule, reason string
		ids          []string
	}
	var groups []*group
	for _, n := range na {
		var g *group
		for _, x := range groups {
			if x.rule == n.BlockRule && x.reason == n.Reason {
				g = x
			}
		}
		if g == nil {
			g = &group{rule: n.BlockRule, reason: n.Reason}
			groups = append(groups, g)
		}
		g.ids = append(g.ids, n.ID)
	}
	lines := make([]string, len(groups))
	for i, g := range groups {
		lines[i] = fmt.Sprintf("%s (%s): %s", g.rule, strings.Join(g.ids, ", "), g.reason)
	}
	return lines
}
