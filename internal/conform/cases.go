package conform

import "sync"

var table = sync.OnceValue(func() []Case {
	var all []Case
	all = append(all, registryCases()...)
	all = append(all, chatStateCases()...)
	all = append(all, credentialCases()...)
	all = append(all, engineCases()...)
	return all
})

// Cases returns the whole table, every suite, in run order. The slice is
// a copy: callers may filter it.
func Cases() []Case { return append([]Case(nil), table()...) }
