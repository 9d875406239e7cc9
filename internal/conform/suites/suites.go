// Package suites is the one list of bsadapter's conformance suites. Each
// suite is a package of its own below this one, holding its interface,
// its cases and its catalog text; adding a suite is that package and one
// line in All. The commands, the catalog, the scaffold's contract list,
// the bridge's method groups and the benchmarks read the list from here.
package suites

import (
	"slices"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/aicache"
	"github.com/bsadapter/bsadapter/internal/conform/suites/aitaskrunner"
	"github.com/bsadapter/bsadapter/internal/conform/suites/builder"
	"github.com/bsadapter/bsadapter/internal/conform/suites/builderrecords"
	"github.com/bsadapter/bsadapter/internal/conform/suites/chat"
	"github.com/bsadapter/bsadapter/internal/conform/suites/chatstate"
	"github.com/bsadapter/bsadapter/internal/conform/suites/credentials"
	"github.com/bsadapter/bsadapter/internal/conform/suites/embedder"
	"github.com/bsadapter/bsadapter/internal/conform/suites/engine"
	"github.com/bsadapter/bsadapter/internal/conform/suites/graphcompiler"
	"github.com/bsadapter/bsadapter/internal/conform/suites/knowledge"
	"github.com/bsadapter/bsadapter/internal/conform/suites/memory"
	"github.com/bsadapter/bsadapter/internal/conform/suites/registry"
	"github.com/bsadapter/bsadapter/internal/conform/suites/streams"
	"github.com/bsadapter/bsadapter/internal/conform/suites/world"
)

// All lists every suite, in run order.
var All = []*conform.Suite{
	streams.Suite,
	registry.Suite,
	chat.Suite,
	chatstate.Suite,
	credentials.Suite,
	engine.Suite,
	graphcompiler.Suite,
	builder.Suite,
	builderrecords.Suite,
	world.Suite,
	embedder.Suite,
	aitaskrunner.Suite,
	aicache.Suite,
	knowledge.Suite,
	memory.Suite,
}

// Names returns the suites' names, in run order.
func Names() []string {
	names := make([]string, len(All))
	for i, s := range All {
		names[i] = s.Name
	}
	return names
}

// Cases returns every case of every suite, in run order. The slice is a
// copy: callers may filter it.
func Cases() []conform.Case { return conform.AllCases(All) }

// Contracts returns the `bsadapter new --contracts` names, each once, in
// the order of the suites that check them.
func Contracts() []string {
	var out []string
	for _, s := range All {
		if s.Contract != "" && !slices.Contains(out, s.Contract) {
			out = append(out, s.Contract)
		}
	}
	return out
}

// BridgeGroups returns the bridge capabilities that offer a suite's
// methods, each once, in suite order.
func BridgeGroups() []string {
	var out []string
	for _, s := range All {
		if s.BridgeGroup != "" && !slices.Contains(out, s.BridgeGroup) {
			out = append(out, s.BridgeGroup)
		}
	}
	return out
}
