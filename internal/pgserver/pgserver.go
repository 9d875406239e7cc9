// Package pgserver gets a PostgreSQL server for one bsadapter run: the
// user's own (a DSN), a throwaway local server started from cached initdb
// output, or a container. Whatever it starts or creates, Close removes.
package pgserver

import (
	"context"
	"errors"
	"io"
)

// Options selects how to get a server. Strategy: "auto" (default), "dsn",
// "local", "docker".
type Options struct {
	Strategy string
	DSN      string    // for "dsn"; BSADAPTER_DSN is read by the CLI layer, not here
	Image    string    // for "docker"
	CacheDir string    // where the initdb template lives; default os.UserCacheDir()/bsadapter/pg-<major>
	Log      io.Writer // progress notes, may be nil
}

// Server is a PostgreSQL server obtained by Start.
type Server struct {
	strategy string
}

// Start gets a server. Its error says what was tried and how to fix it.
func Start(ctx context.Context, opts Options) (*Server, error) {
	return nil, errors.New("pgserver: not implemented yet")
}

// Strategy says which strategy was used: "dsn", "local" or "docker".
func (s *Server) Strategy() string { return s.strategy }

// ConnString returns a pgx connection string for database db, as a
// superuser (or the DSN's role).
func (s *Server) ConnString(db string) string { return "" }

// CreateDatabase creates a database named bsadapter_<random>, cloned from
// template when template is not empty. Close drops it.
func (s *Server) CreateDatabase(ctx context.Context, template string) (string, error) {
	return "", errors.New("pgserver: not implemented yet")
}

// DropDatabase drops a database.
func (s *Server) DropDatabase(ctx context.Context, name string) error {
	return errors.New("pgserver: not implemented yet")
}

// BlocksTemplate returns the name of a database with every embedded block
// installed, for CreateDatabase to clone. Do not connect to it: a template
// with open connections cannot be cloned.
func (s *Server) BlocksTemplate(ctx context.Context) (string, error) {
	return "", errors.New("pgserver: not implemented yet")
}

// Close drops every database the server created, stops what it started and
// removes its folders. It is safe to call more than once.
func (s *Server) Close() error { return nil }
