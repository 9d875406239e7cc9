package conform

// The error kinds of better-supabase's Result errors that the suites of
// an adapter's own code expect (a credential provider, a graph compiler,
// a builder runtime), carried as a StoreError's Hint.
const (
	KindInvalidInput = "invalid_input"
	KindNotFound     = "not_found"
)
