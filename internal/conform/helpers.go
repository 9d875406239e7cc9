package conform

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
)

// SameJSON compares two JSON documents by value.
func SameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// JSON encodes v as JSON for a store; a value that cannot be encoded is
// a bug of the case, and panics.
func JSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// SortedKeys returns m's keys in order, so that cases report stably.
func SortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// WantHint checks that err is a store failure with the given contract
// hint (or Result error kind): nil when it is, a *Mismatch saying what came instead
// otherwise.
func WantHint(what string, err error, kind string) error {
	if err == nil {
		return &Mismatch{What: what, Expected: "a failure with hint " + kind, Actual: "success"}
	}
	if h := HintOf(err); h != kind {
		return &Mismatch{What: what, Expected: "a failure with hint " + kind, Actual: fmt.Sprintf("hint %q (%v)", h, err)}
	}
	return nil
}

// NewUUID returns a random version 4 UUID, for the ids a contract wants
// as UUIDs (a user, a tenant namespace) rather than the case's own ids.
func NewUUID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
