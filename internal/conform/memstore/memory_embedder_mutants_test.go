package memstore

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/embedder"
)

// embedderStore is the reference store whose embedders pass through
// mutant.
type embedderStore struct {
	*memoryStore
	mutant func(embedder.Embedder) embedder.Embedder
}

// Embedder gives each case a reference embedder made the mutant.
func (m embedderStore) Embedder(ctx context.Context) (conform.Opener[embedder.Embedder], error) {
	open, err := m.memoryStore.Embedder(ctx)
	return mutate(open, err, m.mutant)
}

// embedderMutant returns the reference store with its embedder made the
// mutant name.
func embedderMutant(name string) conform.Store {
	return embedderStore{&memoryStore{}, func(e embedder.Embedder) embedder.Embedder {
		switch name {
		case "no-api-version":
			return noAPIVersion{e}
		case "model-per-call":
			return &modelPerCall{Embedder: e}
		case "empty-input-fails":
			return emptyInputFails{e}
		case "drops-duplicates":
			return dropsDuplicates{e}
		case "length-per-batch":
			return lengthPerBatch{e}
		case "sorts-values":
			return sortsValues{e}
		case "words-only", "ignores-signal", "checks-signal-once", "rejects-any-signal", "abort-as-plain-error":
			e.(*refEmbedder).mut = embedderMutation(name)
			return e
		}
		panic("no embedder mutant is named " + name)
	}}
}

// noAPIVersion leaves apiVersion out, as an embedder written before the
// contract had one does.
type noAPIVersion struct{ embedder.Embedder }

func (e noAPIVersion) Identity(ctx context.Context) (embedder.Identity, error) {
	id, err := e.Embedder.Identity(ctx)
	id.APIVersion = 0
	return id, err
}

// modelPerCall names its model with the number of calls made so far, as
// one that puts a request id into the name would.
type modelPerCall struct {
	embedder.Embedder
	calls atomic.Int64
}

func (e *modelPerCall) Identity(ctx context.Context) (embedder.Identity, error) {
	id, err := e.Embedder.Identity(ctx)
	id.Model = fmt.Sprintf("%s#%d", id.Model, e.calls.Load())
	return id, err
}

func (e *modelPerCall) Embed(ctx context.Context, values []string, c embedder.Call) ([][]float64, error) {
	e.calls.Add(1)
	return e.Embedder.Embed(ctx, values, c)
}

// emptyInputFails sends an empty list to its model, which refuses it.
type emptyInputFails struct{ embedder.Embedder }

func (e emptyInputFails) Embed(ctx context.Context, values []string, c embedder.Call) ([][]float64, error) {
	if len(values) == 0 {
		return nil, &conform.Rejection{Name: "Error", Message: "input must not be empty"}
	}
	return e.Embedder.Embed(ctx, values, c)
}

// dropsDuplicates embeds each distinct value once and answers only those.
type dropsDuplicates struct{ embedder.Embedder }

func (e dropsDuplicates) Embed(ctx context.Context, values []string, c embedder.Call) ([][]float64, error) {
	var distinct []string
	for _, v := range values {
		if !slices.Contains(distinct, v) {
			distinct = append(distinct, v)
		}
	}
	if values != nil && distinct == nil {
		distinct = []string{}
	}
	return e.Embedder.Embed(ctx, distinct, c)
}

// lengthPerBatch pads the vectors of a call of several values with zeros
// to twice their length, as a batch endpoint with another dimensions
// setting might.
type lengthPerBatch struct{ embedder.Embedder }

func (e lengthPerBatch) Embed(ctx context.Context, values []string, c embedder.Call) ([][]float64, error) {
	out, err := e.Embedder.Embed(ctx, values, c)
	if len(values) > 1 {
		for i := range out {
			out[i] = append(out[i], make([]float64, len(out[i]))...)
		}
	}
	return out, err
}

// sortsValues embeds the values in sorted order and answers the vectors
// in that order.
type sortsValues struct{ embedder.Embedder }

func (e sortsValues) Embed(ctx context.Context, values []string, c embedder.Call) ([][]float64, error) {
	return e.Embedder.Embed(ctx, slices.Sorted(slices.Values(values)), c)
}

// The mutants that never settle after an abort are released sooner than
// a real run waits: the reference settles at once.
func init() { conform.SettleWait = 2 * time.Second }
