package memstore

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/conformtest"
	"github.com/bsadapter/bsadapter/internal/conform/suites"
	"github.com/bsadapter/bsadapter/internal/conform/suites/aitaskrunner"
	"github.com/bsadapter/bsadapter/internal/conform/suites/builder"
	"github.com/bsadapter/bsadapter/internal/conform/suites/builderrecords"
	"github.com/bsadapter/bsadapter/internal/conform/suites/chatstate"
	"github.com/bsadapter/bsadapter/internal/conform/suites/credentials"
	"github.com/bsadapter/bsadapter/internal/conform/suites/embedder"
	"github.com/bsadapter/bsadapter/internal/conform/suites/engine"
	"github.com/bsadapter/bsadapter/internal/conform/suites/graphcompiler"
)

// Each mutant of a memory reference departs from its interface's contract
// in one way, and exactly the cases of the rule it breaks fail: no rule
// goes unchecked, and no case fails for another rule's fault. None is
// skipped: the memory store has every feature.
//
// A mutant is a wrapper around the reference where its fault shows at the
// interface, and a fault the reference itself carries where it lies
// inside the reference's logic (each reference's mutation type lists
// those). Either way the mutant's store is the reference store with one
// provider method overridden, so it offers exactly what the memory store
// offers.
func TestInterfaceMutants(t *testing.T) {
	type mutant struct {
		mutation string
		caught   []string
	}
	for _, suite := range []struct {
		name    string
		store   func(mutation string) conform.Store
		mutants []mutant
	}{
		{chatstate.Suite.Name, chatStateMutant, []mutant{
			{"release-ignores-token", []string{"chat-state/lock-wrong-token"}},
			{"lock-never-expires", []string{"chat-state/lock-extend-moves-expiry", "chat-state/lock-expired"}},
			{"lock-check-then-set", []string{"chat-state/lock-one-winner", "chat-state/concurrent-lock"}},
			{"set-ignores-ttl", []string{"chat-state/value-ttl"}},
			{"null-is-a-miss", []string{"chat-state/value-null-not-a-miss"}},
			{"list-cap-keeps-oldest", []string{"chat-state/list-cap-keeps-newest"}},
			{"list-read-modify-write", []string{"chat-state/concurrent-list"}},
			{"queue-counts-expired", []string{"chat-state/queue-expired-skipped", "chat-state/queue-expired-arrival-takes-no-place", "chat-state/queue-entry-expires"}},
			{"expired-takes-a-place", []string{"chat-state/queue-expired-arrival-takes-no-place"}},
		}},
		{credentials.Suite.Name, credentialsMutant, []mutant{
			{"unknown-provider-not-found", []string{"credentials/unknown-provider"}},
			{"stale-cache", []string{"credentials/reseed-seen"}},
			{"ignore-tenant", []string{"credentials/tenants-apart"}},
			{"revoke-all-users", []string{"credentials/revoke-one-user"}},
			{"verify-ignores-body", []string{"credentials/inbound-tampered-refused"}},
			{"token-in-rows", []string{"credentials/no-token-at-rest"}},
		}},
		{graphcompiler.Suite.Name, graphMutant, []mutant{
			{"lossy", []string{"graph-compiler/json-round-trip"}},
			{"nondeterministic", []string{"graph-compiler/deterministic"}},
			{"mutates-input", []string{"graph-compiler/input-not-mutated"}},
			{"accepts-cycles", []string{"graph-compiler/invalid-rejected"}},
			{"from-to", []string{"graph-compiler/json-round-trip", "graph-compiler/deterministic", "graph-compiler/input-not-mutated"}},
		}},
		{engine.Suite.Name, engineMutant, []mutant{
			{"terminated-is-running", []string{"engine/status-map-total"}},
			{"guess-unknown", []string{"engine/unknown-status-refused"}},
			{"start-ignores-key", []string{"engine/start-idempotent"}},
			{"ignores-cancel", []string{"engine/cancel-reaches-engine"}},
			{"drops-error", []string{"engine/records-follow-registry"}},
		}},
		{builder.Suite.Name, builderMutant, []mutant{
			{"retries-step", []string{"builder/step-called-once"}},
			{"skips-sleep", []string{"builder/sleep-durable-timer"}},
			{"signal-by-node", []string{"builder/approval-signal"}},
			{"strict-approval", []string{"builder/approval-branches"}},
			{"denied-stops", []string{"builder/approval-branches", "builder/only-active-edges"}},
			{"runs-both-branches", []string{"builder/only-active-edges"}},
			{"outputs-miss-trigger", []string{"builder/step-sees-results", "builder/outputs-of-nodes-that-ran"}},
			{"step-in-config", []string{"builder/step-called-once", "builder/step-sees-results", "builder/outputs-of-nodes-that-ran"}},
		}},
		{builderrecords.Suite.Name, builderRecordsMutant, []mutant{
			{"drops-compiled", []string{"builder-records/publish-keeps-compiled", "builder-records/save-after-publish-opens-draft", "builder-records/publish-archives-previous"}},
			{"drafts-edit-published", []string{"builder-records/save-after-publish-opens-draft", "builder-records/publish-archives-previous"}},
			{"rotation-keeps-old-token", []string{"builder-records/webhook-token-live"}},
			{"disabled-resolve", []string{"builder-records/webhook-token-live"}},
			{"attempts-overwritten", []string{"builder-records/node-runs"}},
			{"ended-kept", []string{"builder-records/node-runs"}},
			{"alerts-fire-every-time", []string{"builder-records/alerts-fire-once"}},
		}},
		{embedder.Suite.Name, embedderMutant, []mutant{
			{"no-api-version", []string{"embedder/identity"}},
			{"model-per-call", []string{"embedder/model-stable"}},
			{"empty-input-fails", []string{"embedder/empty-input"}},
			{"drops-duplicates", []string{"embedder/one-vector-per-value"}},
			{"words-only", []string{"embedder/finite-numbers"}},
			{"length-per-batch", []string{"embedder/dimensions-fixed"}},
			{"sorts-values", []string{"embedder/order-kept"}},
			{"rejects-any-signal", []string{"embedder/live-signal", "embedder/abort-while-embedding"}},
			{"ignores-signal", []string{"embedder/abort-before", "embedder/abort-while-embedding"}},
			{"abort-as-plain-error", []string{"embedder/abort-before", "embedder/abort-while-embedding"}},
			{"checks-signal-once", []string{"embedder/abort-while-embedding"}},
		}},
		{aitaskrunner.Suite.Name, aiTaskMutant, []mutant{
			{"no-api-version", []string{"ai-task-runner/identity"}},
			{"resolves-null", []string{"ai-task-runner/result-shape"}},
			{"sends-as-service", []string{"ai-task-runner/prompt-as-user"}},
			{"new-chat-each-run", []string{"ai-task-runner/task-chat-kept"}},
			{"returns-run-id", []string{"ai-task-runner/chat-returned"}},
			{"mutates-input", []string{"ai-task-runner/input-not-mutated"}},
			{"swallows-failure", []string{"ai-task-runner/failure-rejects", "ai-task-runner/abort-while-running"}},
			{"sends-then-checks", []string{"ai-task-runner/abort-before"}},
			{"ignores-signal", []string{"ai-task-runner/abort-before", "ai-task-runner/abort-while-running"}},
			{"checks-signal-once", []string{"ai-task-runner/abort-while-running"}},
		}},
	} {
		cases, err := conform.Select(suites.Cases(), conform.Options{Suites: []string{suite.name}})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range suite.mutants {
			t.Run(suite.name+"/"+m.mutation, func(t *testing.T) {
				t.Parallel()
				ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
				defer cancel()
				rep := conform.Run(ctx, suite.store(m.mutation), cases, conform.Options{Parallel: 8})
				if got := rep.Failed(); !slices.Equal(got, m.caught) {
					t.Errorf("mutant %s: failed cases %v, want exactly %v\n%s", m.mutation, got, m.caught, conformtest.Failures(rep))
				}
				if n := rep.Count(conform.Skipped); n != 0 {
					t.Errorf("mutant %s: %d cases skipped on the memory store", m.mutation, n)
				}
			})
		}
	}
}

// mutate returns open, the reference's opener, with every subject it
// gives passed through mutant. err is the error that came with open.
func mutate[S any](open conform.Opener[S], err error, mutant func(S) S) (conform.Opener[S], error) {
	if err != nil {
		return nil, err
	}
	return func(t *conform.T) (S, error) {
		s, err := open(t)
		if err != nil {
			return s, err
		}
		return mutant(s), nil
	}, nil
}
