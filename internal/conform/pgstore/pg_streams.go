package pgstore

import (
	"context"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/streams"
)

// Streams gives each streams case the streams block in the run's
// database (in a database of its own when the case purges), its streams
// aged by shifting their timestamps; a database without the block cannot
// run the suite.
func (p *pgStore) Streams(context.Context) (conform.Opener[streams.Subject], error) {
	if err := p.missing[streams.Suite.Name]; err != nil {
		return nil, err
	}
	return func(t *conform.T) (streams.Subject, error) {
		db, err := p.caseDB(t)
		if err != nil {
			return streams.Subject{}, err
		}
		t.SetPrefix(p.prefix())
		st := pgStreams{db: db}
		return streams.Subject{Store: st, Age: st.AgeStream}, nil
	}, nil
}
