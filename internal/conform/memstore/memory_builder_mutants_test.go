package memstore

import (
	"context"
	"slices"
	"strings"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/builder"
)

// builderStore is the reference store whose builder runtimes pass through
// mutant.
type builderStore struct {
	*memoryStore
	mutant func(builder.Runtime) builder.Runtime
}

// BuilderRuntime gives each case a reference runtime made the mutant.
func (m builderStore) BuilderRuntime(ctx context.Context) (conform.Opener[builder.Runtime], error) {
	open, err := m.memoryStore.BuilderRuntime(ctx)
	return mutate(open, err, m.mutant)
}

// builderMutant returns the reference store with its builder runtime made
// the mutant name.
func builderMutant(name string) conform.Store {
	return builderStore{&memoryStore{}, func(b builder.Runtime) builder.Runtime {
		switch name {
		case "retries-step":
			return reporting{b, retriesStep}
		case "skips-sleep":
			return reporting{b, skipsSleep}
		case "signal-by-node":
			return reporting{b, signalByNode}
		case "outputs-miss-trigger":
			return reporting{b, outputsMissTrigger}
		case "runs-both-branches", "denied-stops", "strict-approval", "step-in-config":
			b.(*refBuilder).mut = builderMutation(name)
			return b
		}
		panic("no builder mutant is named " + name)
	}}
}

// reporting is a runtime that walks the graph as the reference does and
// then changes what it reports with report.
type reporting struct {
	builder.Runtime
	report func(builder.Request, *builder.Result)
}

// Execute runs the reference's walk and changes what it reports.
func (b reporting) Execute(ctx context.Context, r builder.Request) (builder.Result, error) {
	res, err := b.Runtime.Execute(ctx, r)
	if err == nil {
		b.report(r, &res)
	}
	return res, err
}

// retriesStep calls every step twice, as a runtime that retries outside
// the engine's durable step might.
func retriesStep(_ builder.Request, res *builder.Result) {
	trace := make([]builder.TraceEvent, 0, len(res.Trace))
	for _, e := range res.Trace {
		trace = append(trace, e)
		if e.Type == "step" {
			trace = append(trace, e)
		}
	}
	res.Trace = trace
}

// skipsSleep sleeps without a durable timer.
func skipsSleep(_ builder.Request, res *builder.Result) {
	res.Trace = slices.DeleteFunc(res.Trace, func(e builder.TraceEvent) bool { return e.Type == "sleep" })
}

// signalByNode waits on an approval's hook by its node id alone, so that
// two runs of a graph wait for the same hook.
func signalByNode(r builder.Request, res *builder.Result) {
	for i, e := range res.Trace {
		if e.Type == "approval" {
			res.Trace[i].Token = strings.TrimPrefix(e.Token, r.RunKey+":")
		}
	}
}

// outputsMissTrigger keeps no output for the trigger: neither
// executeGraph's result nor the results a step is called with have it.
func outputsMissTrigger(r builder.Request, res *builder.Result) {
	for _, n := range r.Graph.Nodes {
		if n.Kind != "trigger" {
			continue
		}
		delete(res.Outputs, n.ID)
		for _, e := range res.Trace {
			delete(e.Results, n.ID)
		}
	}
}
