package bridgestore

import (
	"context"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/chat"
)

// Chat says that a bridge cannot run the chat suite: the protocol has no
// chat methods.
func (b *Store) Chat(context.Context) (conform.Opener[chat.Store], error) {
	return nil, conform.NotImplemented("the bridge protocol has no chat methods; chat storage is checked with --store=pg or --store=memory")
}
