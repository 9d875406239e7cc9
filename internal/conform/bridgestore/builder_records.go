package bridgestore

import (
	"context"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/builderrecords"
)

// BuilderRecords says that a bridge cannot run the builder-records suite:
// the protocol has no methods for a workflow builder's records, which are
// the workflow-builder block's.
func (b *Store) BuilderRecords(context.Context) (conform.Opener[builderrecords.Records], error) {
	return nil, conform.NotImplemented("the bridge protocol has no workflow-builder record methods; the block's records are checked with --store=pg or --store=memory")
}
