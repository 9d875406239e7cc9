package pgserver

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
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
