package bridgestore_test

import (
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/conformtest"
	"github.com/bsadapter/bsadapter/internal/conform/suites/aitaskrunner"
	"github.com/bsadapter/bsadapter/internal/conform/suites/embedder"
)

// A mutant that never settles after an abort is released after this long
// instead of the run's own wait: the correct bridge settles at once.
func init() { conform.SettleWait = 5 * time.Second }

// A correct Embedder and AiTaskRunner in Node.js pass every case of their
// suites over the bridge, the abort cases through the signal methods; each
// broken one is caught by its rule's cases alone.
func TestBridgeAISuites(t *testing.T) {
	for _, s := range []struct {
		suite   string
		mutants []mutant
	}{
		{embedder.Suite.Name, []mutant{
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
		{aitaskrunner.Suite.Name, []mutant{
			{"runner-no-api-version", []string{"ai-task-runner/identity"}},
			{"resolves-null", []string{"ai-task-runner/result-shape"}},
			{"sends-as-service", []string{"ai-task-runner/prompt-as-user"}},
			{"new-chat-each-run", []string{"ai-task-runner/task-chat-kept"}},
			{"returns-run-id", []string{"ai-task-runner/chat-returned"}},
			{"mutates-input", []string{"ai-task-runner/input-not-mutated"}},
			{"swallows-failure", []string{"ai-task-runner/failure-rejects", "ai-task-runner/abort-while-running"}},
			{"sends-then-checks", []string{"ai-task-runner/abort-before"}},
			{"runner-ignores-signal", []string{"ai-task-runner/abort-before", "ai-task-runner/abort-while-running"}},
			{"runner-checks-once", []string{"ai-task-runner/abort-while-running"}},
		}},
	} {
		t.Run(s.suite, func(t *testing.T) {
			rep := runSuite(t, nodeBridge(t, "ai.mjs", "the node AI bridge"), s.suite)
			if f := conformtest.Failures(rep); f != "" {
				t.Errorf("the node AI bridge's failed cases:\n%s", f)
			}
			if n := rep.Count(conform.Pass); n != len(rep.Results) || n == 0 {
				t.Errorf("%d of %d %s cases passed", n, len(rep.Results), s.suite)
			}
			checkMutants(t, "ai.mjs", "the node AI bridge", s.suite, 8, s.mutants)
		})
	}
}
