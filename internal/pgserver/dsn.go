package pgserver

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// startDSN uses the user's server. Nothing in it is touched: the run
// creates databases of its own and drops them on Close.
func startDSN(ctx context.Context, opts Options) (*Server, error) {
	cfg, err := pgx.ParseConfig(opts.DSN)
	if err != nil {
		return nil, fmt.Errorf("pgserver: dsn: cannot parse the connection string: %w (use postgres://user:password@host:port/database or host=... user=... keywords)", err)
	}
	admin := cfg.Database
	if admin == "" {
		admin = cfg.User
	}
	begin := time.Now()
	cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(cctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgserver: dsn: cannot connect to %s:%d as %s: %w (check the connection string and that the server is running)", cfg.Host, cfg.Port, cfg.User, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var role string
	var mayCreate bool
	if err := conn.QueryRow(cctx, "SELECT current_user, rolcreatedb OR rolsuper FROM pg_roles WHERE rolname = current_user").Scan(&role, &mayCreate); err != nil {
		return nil, fmt.Errorf("pgserver: dsn: cannot read the role's rights: %w", err)
	}
	if !mayCreate {
		return nil, fmt.Errorf("pgserver: dsn: role %q may not create databases, and bsadapter works only in a database of its own, which it drops at the end (run 'ALTER ROLE %s CREATEDB' as a superuser, or pass the DSN of a role that has CREATEDB)", role, pgx.Identifier{role}.Sanitize())
	}
	if dropped := sweepDatabases(cctx, conn); len(dropped) > 0 && opts.Log != nil {
		fmt.Fprintf(opts.Log, "pgserver: dropped %s, left by a bsadapter run that was killed\n", strings.Join(dropped, ", "))
	}
	s := &Server{
		strategy:    "dsn",
		base:        opts.DSN,
		adminDB:     admin,
		log:         opts.Log,
		dropOnClose: true,
		startedIn:   time.Since(begin),
	}
	s.configure(opts)
	if opts.Template != nil {
		if err := s.noteMissingRolesOn(cctx, conn, opts.Template.Roles()); err != nil {
			return nil, err
		}
	}
	s.logf("pgserver: using the server of the DSN as role %s; bsadapter works in databases of its own and drops them at the end", role)
	return s, nil
}
