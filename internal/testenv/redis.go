package testenv

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Redis starts a throwaway Redis server (Debian's redis-server) on
// 127.0.0.1, with nothing saved to disk, and returns its URL. The server
// is stopped, and its folder removed, when the test ends.
func Redis(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		Missing(t, "redis-server is not on PATH (apt-get install redis-server; scripts/test does it on Debian)")
	}
	dir := t.TempDir()
	// A port the kernel just handed out and took back; another process
	// may take it meanwhile, so a server that cannot bind is tried again.
	var lastErr error
	for range 5 {
		port, err := freePort()
		if err != nil {
			t.Fatalf("redis: find a free port: %v", err)
		}
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		cmd := exec.Command(bin, "--bind", "127.0.0.1", "--port", fmt.Sprint(port), "--save", "", "--appendonly", "no",
			"--dir", dir, "--daemonize", "no", "--logfile", filepath.Join(dir, "redis.log"))
		if err := cmd.Start(); err != nil {
			t.Fatalf("redis: start %s: %v", bin, err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		var gone bool
		if gone, lastErr = waitPong(addr, exited); lastErr == nil {
			t.Cleanup(func() {
				_ = cmd.Process.Kill()
				<-exited
			})
			return "redis://" + addr
		}
		if !gone {
			_ = cmd.Process.Kill()
			<-exited
		}
	}
	log, _ := os.ReadFile(filepath.Join(dir, "redis.log"))
	t.Fatalf("redis: the server did not start: %v\n%s", lastErr, log)
	return ""
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitPong waits until the server at addr answers PING, or it exits
// (gone). The bound is a minute: a server that is up answers at once,
// however busy the machine is, so only a server that never comes up
// reaches it.
func waitPong(addr string, exited <-chan error) (gone bool, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		select {
		case err := <-exited:
			return true, fmt.Errorf("redis-server exited: %v", err)
		case <-ctx.Done():
			return false, fmt.Errorf("redis-server did not answer PING on %s within a minute", addr)
		case <-time.After(20 * time.Millisecond):
		}
		var d net.Dialer
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			continue
		}
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		_, err = conn.Write([]byte("PING\r\n"))
		var line string
		if err == nil {
			line, err = bufio.NewReader(conn).ReadString('\n')
		}
		conn.Close()
		if err == nil && strings.TrimSpace(line) == "+PONG" {
			return false, nil
		}
	}
}

// RedisKeys returns the keys matching pattern on the Redis server at url
// (as Redis returned it: "redis://host:port").
func RedisKeys(url, pattern string) ([]string, error) {
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(url, "redis://"), 10*time.Second)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := fmt.Fprintf(conn, "*2\r\n$4\r\nKEYS\r\n$%d\r\n%s\r\n", len(pattern), pattern); err != nil {
		return nil, err
	}
	r := bufio.NewReader(conn)
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	var n int
	if _, err := fmt.Sscanf(line, "*%d", &n); err != nil {
		return nil, fmt.Errorf("redis answered KEYS with %q", line)
	}
	keys := make([]string, 0, n)
	for range n {
		if _, err := r.ReadString('\n'); err != nil { // $<length>
			return nil, err
		}
		k, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		keys = append(keys, strings.TrimRight(k, "\r\n"))
	}
	return keys, nil
}
