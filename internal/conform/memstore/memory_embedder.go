package memstore

import (
	"context"
	"hash/fnv"
	"math"
	"strings"
	"unicode"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/embedder"
)

// embedderMutation names a deliberate fault of the reference embedder,
// which only the mutant tests set; the zero value is the reference. The
// faults here lie in how the embedder treats its signal or builds a
// vector, which a wrapper of the Embedder interface cannot reach; the
// other mutants wrap the interface in the tests.
type embedderMutation string

// embedDims is the length of the reference embedder's vectors.
const embedDims = 32

// refEmbedder is the reference Embedder: a hashing embedder that needs no
// model, whose vectors are the words of a text and the whole text hashed
// into embedDims signed buckets, scaled to length 1. Its harness holds the
// "model" (the hashing) when a call asks for it.
type refEmbedder struct {
	*memSignals
	// mut is a mutant's fault, set only by the mutant tests.
	mut embedderMutation
}

func (r *refEmbedder) Identity(context.Context) (embedder.Identity, error) {
	return embedder.Identity{APIVersion: 1, Model: "memory/hash-32"}, nil
}

// Embed is the harness's call: the signal c names, and a model that the
// harness holds when c asks it to.
func (r *refEmbedder) Embed(ctx context.Context, values []string, c embedder.Call) ([][]float64, error) {
	var s *memSignal
	if c.Signal != "" {
		s = r.get(c.Signal)
	}
	model := func(values []string, handed *memSignal) ([][]float64, error) {
		if c.Hold {
			if err := r.hold(ctx, c.Signal, handed); err != nil {
				return nil, err
			}
		}
		out := make([][]float64, len(values))
		for i, v := range values {
			out[i] = r.vector(v)
		}
		return out, nil
	}
	return r.embed(values, s, model)
}

// embed is the embedder proper: it refuses an aborted signal, embeds
// nothing to nothing, and hands the signal to the model.
func (r *refEmbedder) embed(values []string, s *memSignal, model func([]string, *memSignal) ([][]float64, error)) ([][]float64, error) {
	out, err := r.embedCore(values, s, model)
	if err != nil && r.mut == "abort-as-plain-error" {
		// A wrapper of every failure loses the AbortError's name.
		return nil, &conform.Rejection{Name: "Error", Message: "embedding failed: " + err.Error()}
	}
	return out, err
}

func (r *refEmbedder) embedCore(values []string, s *memSignal, model func([]string, *memSignal) ([][]float64, error)) ([][]float64, error) {
	switch r.mut {
	case "ignores-signal":
		s = nil
	case "rejects-any-signal":
		if s != nil {
			return nil, abortError()
		}
	}
	if s.isAborted() {
		return nil, abortError()
	}
	if len(values) == 0 {
		return [][]float64{}, nil
	}
	if r.mut == "checks-signal-once" {
		s = nil
	}
	return model(values, s)
}

// vector hashes text's words and the whole text into a vector of length 1.
func (r *refEmbedder) vector(text string) []float64 {
	v := make([]float64, embedDims)
	add := func(feature string, weight float64) {
		h := fnv.New64a()
		_, _ = h.Write([]byte(feature))
		n := h.Sum64()
		sign := 1.0
		if n&(1<<63) != 0 {
			sign = -1
		}
		v[n%embedDims] += sign * weight
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) }) {
		add("w:"+w, 1)
	}
	if r.mut != "words-only" {
		// The whole text keeps a text without words (punctuation) from
		// the zero vector, which has no direction to scale.
		add("t:"+text, 0.5)
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	norm = math.Sqrt(norm)
	for i := range v {
		v[i] /= norm
	}
	return v
}

// Embedder gives each case a reference embedder with signals of its own.
func (m *memoryStore) Embedder(context.Context) (conform.Opener[embedder.Embedder], error) {
	return func(t *conform.T) (embedder.Embedder, error) {
		t.SetPrefix(m.prefix())
		return &refEmbedder{memSignals: &memSignals{}}, nil
	}, nil
}
