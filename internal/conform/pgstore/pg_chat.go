package pgstore

import (
	"context"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/chat"
)

// Chat gives each chat case the ai-chat block in the run's database, with
// the streams block its answers are written to; a database without the
// block cannot run the suite.
func (p *pgStore) Chat(context.Context) (conform.Opener[chat.Store], error) {
	if err := p.missing[chat.Suite.Name]; err != nil {
		return nil, err
	}
	return func(t *conform.T) (chat.Store, error) {
		db, err := p.caseDB(t)
		if err != nil {
			return nil, err
		}
		t.SetPrefix(p.prefix())
		return pgChat{db: db, streams: pgStreams{db: db}}, nil
	}, nil
}
