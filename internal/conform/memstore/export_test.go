package memstore

import "github.com/bsadapter/bsadapter/internal/conform"

// NewChatStateMutant returns the reference store with its chat state
// departing from the contract as mutation names.
func NewChatStateMutant(mutation string) conform.Store {
	return &memoryStore{chatMut: chatMutation(mutation)}
}

// NewCredentialsMutant returns the reference store with its credential
// provider departing from the contract as mutation names.
func NewCredentialsMutant(mutation string) conform.Store {
	return &memoryStore{credMut: credMutation(mutation)}
}

// NewGraphMutant returns the reference store with its graph compiler
// departing from the contract as mutation names.
func NewGraphMutant(mutation string) conform.Store {
	return &memoryStore{graphMut: graphMutation(mutation)}
}

// NewEngineMutant returns the reference store with its engine adapter
// departing from the contract as mutation names.
func NewEngineMutant(mutation string) conform.Store {
	return &memoryStore{engineMut: engineMutation(mutation)}
}

// NewBuilderMutant returns the reference store with its builder runtime
// departing from the contract as mutation names.
func NewBuilderMutant(mutation string) conform.Store {
	return &memoryStore{builderMut: builderMutation(mutation)}
}
