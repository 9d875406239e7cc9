package pgserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// This file holds what the command tree needs from pgx, so that it does
// not import the driver itself: reading a connection string, connecting
// to the database it names, and telling a server that does not speak
// PostgreSQL's protocol from one that is down.

// Target is a connection string that parsed: the database, host and port
// it names, for messages, and the parsed configuration to connect with.
type Target struct {
	Database string
	Host     string
	Port     uint16
	cfg      *pgx.ConnConfig
}

// ParseDSN reads a connection string (a postgres:// URL or host=...
// keywords) without connecting.
func ParseDSN(dsn string) (*Target, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	return &Target{Database: cfg.Database, Host: cfg.Host, Port: cfg.Port, cfg: cfg}, nil
}

// Connect opens a connection to the target's database. The caller closes
// it.
func (t *Target) Connect(ctx context.Context) (*pgx.Conn, error) {
	return pgx.ConnectConfig(ctx, t.cfg)
}

// NotPostgres says whether a connection failed because what answered at
// the address does not speak PostgreSQL's protocol: pgx then reads the
// other side's first bytes ("HTTP/1.1 ...") as a message length.
func NotPostgres(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "invalid body length") || strings.Contains(msg, "unexpected message type") ||
		strings.Contains(msg, "received unexpected message")
}

// SpeaksPostgres asks the DSN's server the first question of PostgreSQL's
// protocol (may we use TLS?), to which a PostgreSQL server answers with
// one byte, S or N. Anything else, or the connection closed without an
// answer, is another service (a web server answers "HTTP/1.1 400"). It
// says true when it cannot tell (no host, nothing listening), leaving the
// connection error as it is.
func SpeaksPostgres(ctx context.Context, dsn string) bool {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil || cfg.Host == "" || strings.HasPrefix(cfg.Host, "/") {
		return true
	}
	d := net.Dialer{Timeout: 3 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))))
	if err != nil {
		return true
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(3 * time.Second))
	// SSLRequest: length 8, code 80877103.
	if _, err := conn.Write([]byte{0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f}); err != nil {
		return true
	}
	var b [1]byte
	n, err := conn.Read(b[:])
	if n == 1 {
		return b[0] == 'S' || b[0] == 'N'
	}
	// Closed without a word: not what PostgreSQL does; a timeout says
	// nothing.
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// Probe is what ProbeDSN found at a DSN's server.
type Probe struct {
	// Version is the server's version (server_version).
	Version string
	// Role is the role the DSN logs in as.
	Role string
	// MayCreate says whether the role may create databases (CREATEDB or
	// superuser), which bsadapter needs: it works in a database of its
	// own.
	MayCreate bool
	// Took is how long connecting took.
	Took time.Duration
}

// ProbeDSN connects to the DSN's server, waiting timeout at most, and
// reads its version and the role's right to create databases. Its error
// says what failed: nothing listening, no answer within timeout, another
// service at the address, or the server's refusal (a wrong password, an
// unknown database or role).
func ProbeDSN(ctx context.Context, dsn string, timeout time.Duration) (Probe, error) {
	var p Probe
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return p, fmt.Errorf("cannot parse the connection string: %w", err)
	}
	where := fmt.Sprintf("%s:%d", cfg.Host, cfg.Port)
	if strings.HasPrefix(cfg.Host, "/") {
		where = fmt.Sprintf("the socket in %s (port %d)", cfg.Host, cfg.Port)
	}
	begin := time.Now()
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := pgx.ConnectConfig(cctx, cfg)
	if err != nil {
		var pgErr *pgconn.PgError
		switch {
		case ctx.Err() != nil:
			return p, ctx.Err()
		case errors.As(err, &pgErr):
			return p, fmt.Errorf("the server at %s refused the connection as role %s: %s (SQLSTATE %s)", where, cfg.User, pgErr.Message, pgErr.Code)
		case cctx.Err() != nil:
			return p, fmt.Errorf("no answer from %s within %s: something there takes connections but says nothing (a server stopped in a debugger or overloaded, a proxy without its backend, a firewall)", where, timeout)
		case NotPostgres(err) || !SpeaksPostgres(ctx, dsn):
			return p, fmt.Errorf("%s answered, but not in PostgreSQL's protocol: another service listens there: %w", where, err)
		case errors.Is(err, syscall.ECONNREFUSED):
			return p, fmt.Errorf("nothing listens at %s (connection refused): is the server running, on that port?", where)
		}
		return p, fmt.Errorf("cannot connect to %s as %s: %w", where, cfg.User, err)
	}
	p.Took = time.Since(begin)
	defer conn.Close(context.WithoutCancel(ctx))
	p.Version = conn.PgConn().ParameterStatus("server_version")
	if err := conn.QueryRow(cctx, "SELECT current_user, rolcreatedb OR rolsuper FROM pg_roles WHERE rolname = current_user").Scan(&p.Role, &p.MayCreate); err != nil {
		if cctx.Err() != nil && ctx.Err() == nil {
			return p, fmt.Errorf("the server at %s took the connection but did not answer a query within %s", where, timeout)
		}
		return p, fmt.Errorf("the server at %s took the connection but cannot say the role's rights: %w", where, err)
	}
	return p, nil
}
