//go:build linux

package pgserver

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// listen serves each connection to a loopback port with serve, until the
// test ends, and returns the port.
func listen(t *testing.T, serve func(net.Conn)) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				serve(c)
			}()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port
}

// ProbeDSN connects, and its error says what failed: nothing listening,
// a server that says nothing, a server that refuses the password, a
// service that is not PostgreSQL.
func TestProbeDSN(t *testing.T) {
	closed := func() int {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		return ln.Addr().(*net.TCPAddr).Port
	}()
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	silent := listen(t, func(net.Conn) { <-hold })
	refusing := listen(t, func(c net.Conn) {
		be := pgproto3.NewBackend(c, c)
		if _, err := be.ReceiveStartupMessage(); err != nil {
			return
		}
		be.Send(&pgproto3.ErrorResponse{Severity: "FATAL", Code: "28P01", Message: `password authentication failed for user "u"`})
		be.Flush()
	})
	web := listen(t, func(c net.Conn) {
		c.Write([]byte("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"))
	})
	for _, c := range []struct {
		name string
		port int
		want string
	}{
		{"closed port", closed, "nothing listens at 127.0.0.1:%d (connection refused)"},
		{"silent server", silent, "no answer from 127.0.0.1:%d within 1s"},
		{"wrong password", refusing, `the server at 127.0.0.1:%d refused the connection as role u: password authentication failed for user "u" (SQLSTATE 28P01)`},
		{"not PostgreSQL", web, "127.0.0.1:%d answered, but not in PostgreSQL's protocol"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dsn := fmt.Sprintf("postgres://u:wrong@127.0.0.1:%d/db?sslmode=disable", c.port)
			_, err := ProbeDSN(context.Background(), dsn, time.Second)
			if want := fmt.Sprintf(c.want, c.port); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("error %v, want it to say %q", err, want)
			}
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Errorf("error of several lines: %q", err)
			}
		})
	}

	needLocal(t)
	s, err := Start(context.Background(), Options{Strategy: "local"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p, err := ProbeDSN(context.Background(), s.ConnString("postgres"), time.Minute)
	if err != nil || p.Version == "" || p.Role != "postgres" || !p.MayCreate || p.Took <= 0 {
		t.Errorf("a running server: %+v, %v", p, err)
	}
}
