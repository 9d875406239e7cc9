package conform

import (
	"context"
	"errors"
	"testing"
)

// A borrowed subject is made by the suite's opener, with the case's ids,
// and released when the borrower is done; its errors come back.
func TestBorrow(t *testing.T) {
	released := false
	open := func(t *T) (string, error) {
		t.SetPrefix("b")
		t.Cleanup(func() { released = true })
		return "subject", nil
	}
	var got, id string
	err := Borrow(t.Context(), &Case{ID: "bench"}, open, func(ct *T, s string) error {
		got, id = s, ct.ID("x")
		if released {
			return errors.New("released before the borrower was done")
		}
		return nil
	})
	if err != nil || got != "subject" || id != "b-x-1" || !released {
		t.Errorf("Borrow: err %v, subject %q, id %q, released %v", err, got, id, released)
	}
	boom := errors.New("boom")
	if err := Borrow(t.Context(), &Case{ID: "bench"}, func(*T) (int, error) { return 0, boom }, func(*T, int) error { return nil }); err != boom {
		t.Errorf("an opener's error: got %v", err)
	}
	if err := Borrow(context.Background(), &Case{ID: "bench"}, open, func(*T, string) error { return boom }); err != boom {
		t.Errorf("the borrower's error: got %v", err)
	}
}
