// Package embedder is the embedder suite: better-supabase's Embedder,
// which turns texts into vectors for the knowledge and memory blocks
// (`model`, `embed(values, {signal})`), driven through a harness that
// controls the AbortSignal each call gets.
package embedder

import (
	"context"

	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/conform"
)

// Suite is the embedder suite.
var Suite = conform.NewSuite(conform.Info{
	Name:        "embedder",
	Contract:    "embedder",
	BridgeGroup: bridge.GroupEmbedder,
	Intro: "An `Embedder` (better-supabase's, from the knowledge block: `{apiVersion?: 1, model: string, " +
		"embed(values: readonly string[], options?: {signal?: AbortSignal}): Promise<readonly (readonly number[])[]>}`), " +
		"which the knowledge and memory blocks embed chunks and queries with, storing `model` beside each embedding. " +
		"Upstream's kit is `testEmbedder(embedder, {values?})` (`src/testing/injectables.ts`); its checks map onto the cases: " +
		"\"has apiVersion 1\" and \"names its model\" are `embedder/identity`, \"embeds nothing to nothing\" is `embedder/empty-input`, " +
		"and \"returns one finite vector per value, of one length\" is `embedder/one-vector-per-value`, `embedder/finite-numbers` " +
		"and `embedder/dimensions-fixed`. bsadapter asks for more: the model's name does not change while the embedder lives, " +
		"the i-th vector is the i-th value's, and an AbortSignal is honoured, both one aborted before the call and one aborted " +
		"while the model works, by rejecting with an error named `AbortError` (which better-supabase reports as kind `aborted`, " +
		"and after which the knowledge block does not mark a document failed), while a signal that never aborts changes nothing. " +
		"The vectors' numbers are judged as the embedder made them: a `NaN` or an infinity travels as `null`. " +
		"Over the bridge this suite needs the `embedder` capability and the `signal.*` methods.",
}, Provider.Embedder, cases)

// Provider is implemented by a store that offers an embedder.
type Provider interface {
	// Embedder prepares the suite for a run: what gives each case the
	// embedder, or why the store cannot run the suite.
	Embedder(ctx context.Context) (conform.Opener[Embedder], error)
}

// Identity is what an embedder says of itself: its apiVersion (0 when it
// has none) and its model's name.
type Identity struct {
	APIVersion int    `json:"apiVersion"`
	Model      string `json:"model"`
}

// Call is how the harness makes one embed call: Signal names the
// AbortSignal passed as options.signal ("" for a call without options),
// and Hold makes the harness hold the model the embedder calls until the
// signal the model was handed aborts (the model then rejects with an
// AbortError, as a request cut short does) or the signal is released.
type Call struct {
	Signal string `json:"signal,omitempty"`
	Hold   bool   `json:"hold,omitempty"`
}

// Embedder is better-supabase's Embedder as the cases drive it: a
// rejected embed is a *conform.Rejection naming what it threw. A number
// that is not finite comes back as NaN.
type Embedder interface {
	Identity(ctx context.Context) (Identity, error)
	Embed(ctx context.Context, values []string, c Call) ([][]float64, error)
	conform.Signals
}
