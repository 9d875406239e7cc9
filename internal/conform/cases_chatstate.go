package conform

import "encoding/json"

// The chat-state cases live in suites/chatstate. What stays here is what
// the rest of the case table still uses, and goes with it: writers, which
// the catalog's text about the suite counts, and two helpers of the
// table's cases.

// writers is how many callers race in the chat-state concurrency cases.
const writers = 16

// raw encodes v as JSON for a store.
func raw(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
