package conform

import "context"

// Borrow makes a fresh subject with open for code that is not a case of
// a run (the store benchmark), as for an ordinary case c, and hands it
// with its T to fn; what the opener registered with T.Cleanup releases it
// when fn returns. It returns why the subject could not be made, fn's
// error, or a failure fn recorded on its T.
func Borrow[S any](ctx context.Context, c *Case, open Opener[S], fn func(t *T, s S) error) error {
	var err error
	failed := newT(ctx, c, &caseState{}).run(func(t *T) {
		s, oerr := open(t)
		if oerr != nil {
			err = oerr
			return
		}
		err = fn(t, s)
	})
	if err != nil {
		return err
	}
	return failed
}
