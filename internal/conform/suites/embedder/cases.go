package embedder

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/bsadapter/bsadapter/internal/conform"
)

// The Embedder and the kit the cases stand for are read from
// ScaleDockHQ/better-supabase: the interface in
// packages/better-supabase/src/blocks/knowledge/knowledge.ts (commit
// 19b97f9cec5e), testEmbedder in src/testing/injectables.ts (commit
// ccf3b5780aa3); docs/upstream-interfaces.md has the whole record.
var cases = []conform.CaseOf[Embedder]{
	{ID: "embedder/identity", Rule: "the embedder carries apiVersion 1 and names its model with a non-empty string", Run: identity},
	{ID: "embedder/model-stable", Rule: "the model's name is the same on every read, before and after embedding and after an aborted call", Run: modelStable},
	{ID: "embedder/empty-input", Rule: "embedding no values resolves with no vectors", Run: emptyInput},
	{ID: "embedder/one-vector-per-value", Rule: "embedding n values resolves with n non-empty vectors, a value given twice counting twice", Run: oneVectorPerValue},
	{ID: "embedder/finite-numbers", Rule: "every number of every vector is finite, for short, long, non-Latin and punctuation-only texts", Run: finiteNumbers},
	{ID: "embedder/dimensions-fixed", Rule: "every vector has the same length, within a call and across calls of 1, 2 and 5 values", Run: dimensionsFixed},
	{ID: "embedder/order-kept", Rule: "the i-th vector is the i-th value's: embedding the values reversed gives the vectors reversed, each nearest (by cosine) to its own value's vector of the first call", Run: orderKept},
	{ID: "embedder/live-signal", Rule: "a call given a signal that never aborts resolves as one without a signal does", Run: liveSignal},
	{ID: "embedder/abort-before", Rule: "a call given a signal aborted before it rejects with an AbortError and resolves no vectors", Run: abortBefore},
	{ID: "embedder/abort-while-embedding", Timeout: 3 * conform.DefaultTimeout, Rule: "a call whose signal aborts while its model works rejects with an AbortError, without waiting for the model's answer", Run: abortWhileEmbedding},
}

// values are the texts most cases embed: distinct in their words, so
// that any embedder's vectors for them differ.
var values = []string{
	"The first text.",
	"A second text, about the weather in the mountains.",
	"Invoices are due on the first day of each month.",
}

// embed embeds vs without a signal; a failure stops the case.
func embed(t *conform.T, e Embedder, what string, vs []string) [][]float64 {
	got, err := e.Embed(t.Context(), vs, Call{})
	t.Must(what, err)
	return got
}

// signal returns a fresh signal id.
func signal() string { return "signal-" + conform.NewUUID() }

// count records a mismatch unless there is one vector per value, and
// says whether there is.
func count(t *conform.T, what string, vectors [][]float64, n int) bool {
	return t.That(len(vectors) == n, what, fmt.Sprintf("%d vectors", n), fmt.Sprintf("%d vectors", len(vectors)))
}

func identity(t *conform.T, e Embedder) {
	id, err := e.Identity(t.Context())
	t.Must("identity", err)
	t.Eq("apiVersion", id.APIVersion, 1)
	t.That(id.Model != "", "model", "a non-empty string", id.Model)
}

func modelStable(t *conform.T, e Embedder) {
	read := func() string {
		id, err := e.Identity(t.Context())
		t.Must("identity", err)
		return id.Model
	}
	first := read()
	embed(t, e, "embed", values)
	afterEmbed := read()
	id := signal()
	t.Must("abort the signal", e.Abort(t.Context(), id))
	_, _ = e.Embed(t.Context(), values[:1], Call{Signal: id})
	afterAbort := read()
	t.Eq("the model after an embed", afterEmbed, first)
	t.Eq("the model after an aborted embed", afterAbort, first)
}

func emptyInput(t *conform.T, e Embedder) {
	got := embed(t, e, "embed of no values", []string{})
	t.That(len(got) == 0, "embed of no values", "no vectors", got)
}

func oneVectorPerValue(t *conform.T, e Embedder) {
	vs := []string{"alpha beta", "gamma delta", "alpha beta", "epsilon zeta eta"}
	got := embed(t, e, "embed", vs)
	if !count(t, "embed of four values, one of them twice", got, len(vs)) {
		return
	}
	for i, v := range got {
		t.That(len(v) > 0, fmt.Sprintf("vector %d", i), "a non-empty vector", v)
	}
}

func finiteNumbers(t *conform.T, e Embedder) {
	long := ""
	for len(long) < 2000 {
		long += "A long paragraph repeats itself so that the text is long. "
	}
	vs := []string{"short", long, "Größe, 日本語のテキスト, العربية, emoji 🙂", "... !!! ???", "42"}
	got := embed(t, e, "embed", vs)
	if !count(t, "embed", got, len(vs)) {
		return
	}
	for i, v := range got {
		bad := -1
		for j, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				bad = j
				break
			}
		}
		if bad >= 0 {
			t.Error(&conform.Mismatch{What: fmt.Sprintf("number %d of the vector of %s", bad, conform.Show(clip(vs[i]))), Expected: "a finite number", Actual: fmt.Sprint(v[bad])})
		}
	}
}

// clip shortens a text for a failure message.
func clip(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "..."
	}
	return s
}

func dimensionsFixed(t *conform.T, e Embedder) {
	batches := [][]string{
		{"one value alone"},
		{"the first of two", "the second of two"},
		{"one of five", "two of five", "three of five", "four of five", "five of five"},
	}
	size := -1
	for _, b := range batches {
		got := embed(t, e, fmt.Sprintf("embed of %d values", len(b)), b)
		if !count(t, fmt.Sprintf("embed of %d values", len(b)), got, len(b)) {
			return
		}
		for i, v := range got {
			if size < 0 {
				size = len(v)
			}
			t.That(len(v) == size, fmt.Sprintf("vector %d of the call with %d values", i, len(b)), fmt.Sprintf("length %d, as the first vector", size), fmt.Sprintf("length %d", len(v)))
		}
	}
}

// cosine is the cosine similarity of a and b (0 when either is all
// zeros or they differ in length).
func cosine(a, b []float64) float64 {
	if len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += a[i] * b[i]
		na += a[i] * a[i]
		nb += b[i] * b[i]
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

func orderKept(t *conform.T, e Embedder) {
	forward := embed(t, e, "embed", values)
	reversed := make([]string, len(values))
	for i, v := range values {
		reversed[len(values)-1-i] = v
	}
	backward := embed(t, e, "embed of the values reversed", reversed)
	if !count(t, "embed", forward, len(values)) || !count(t, "embed of the values reversed", backward, len(values)) {
		return
	}
	for i, v := range values {
		mine := backward[len(values)-1-i]
		best, nearest := math.Inf(-1), -1
		for j := range forward {
			s := cosine(mine, forward[j])
			if s > best {
				best, nearest = s, j
			} else if s == best {
				nearest = -1 // a tie names no value
			}
		}
		if nearest != i {
			got := "no single vector (a tie)"
			if nearest >= 0 {
				got = "the vector of " + conform.Show(values[nearest])
			}
			t.Error(&conform.Mismatch{What: "the reversed call's vector for " + conform.Show(v), Expected: "nearest to the first call's vector of the same value", Actual: "nearest to " + got})
		}
	}
}

func liveSignal(t *conform.T, e Embedder) {
	plain := embed(t, e, "embed", values)
	got, err := e.Embed(t.Context(), values, Call{Signal: signal()})
	t.Must("embed with a signal that never aborts", err)
	if !count(t, "embed with a signal", got, len(values)) || len(plain) == 0 {
		return
	}
	for i, v := range got {
		t.That(len(v) == len(plain[0]), fmt.Sprintf("vector %d with a signal", i), fmt.Sprintf("length %d, as without one", len(plain[0])), fmt.Sprintf("length %d", len(v)))
	}
}

func abortBefore(t *conform.T, e Embedder) {
	id := signal()
	t.Must("abort the signal", e.Abort(t.Context(), id))
	got, err := e.Embed(t.Context(), values, Call{Signal: id})
	conform.WantAbortError(t, "embed with a signal aborted before the call", conform.Settled{Err: err})
	t.That(got == nil, "embed with a signal aborted before the call", "no vectors", got)
}

func abortWhileEmbedding(t *conform.T, e Embedder) {
	id := signal()
	s := conform.AbortWhileHeld(t, e, id, func(ctx context.Context) error {
		_, err := e.Embed(ctx, values, Call{Signal: id, Hold: true})
		return err
	})
	if s.Err != nil && !s.Released {
		var r *conform.Rejection
		if !errors.As(s.Err, &r) {
			t.Must("embed", s.Err)
		}
	}
	conform.WantAbortError(t, "embed whose signal aborted while the model worked", s)
}
