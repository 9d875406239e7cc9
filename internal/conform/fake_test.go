package conform

import "context"

// bare is the subject of the tests' fake suites: nothing at all, for
// cases that drive only the runner and the gate.
type bare struct{}

// fakeStore offers every fake suite, sharing its subjects among the cases
// as a bridge does, except those refuse names: for these its provider
// answers the error.
type fakeStore struct{ refuse map[string]error }

func (*fakeStore) Name() string { return "bare" }
func (*fakeStore) Close() error { return nil }

func (f *fakeStore) open(name string) (Opener[bare], error) {
	if err := f.refuse[name]; err != nil {
		return nil, err
	}
	return func(t *T) (bare, error) {
		t.SetShared()
		return bare{}, nil
	}, nil
}

// fakeSuite returns a suite called name with cases, which a *fakeStore
// offers.
func fakeSuite(name string, cases ...CaseOf[bare]) *Suite {
	return NewSuite(Info{Name: name}, func(f *fakeStore, _ context.Context) (Opener[bare], error) { return f.open(name) }, cases)
}
