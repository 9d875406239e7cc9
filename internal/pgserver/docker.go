package pgserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/testcontainers/testcontainers-go"
	tcpostgres "github.com/testcontainers/testcontainers-go/modules/postgres"
)

// dockerPingTimeout bounds the ping of the Docker endpoint. testcontainers
// itself can wait for minutes, ignoring the context, on an endpoint that
// accepts connections and never answers.
const dockerPingTimeout = 2 * time.Second

// dockerEndpoint returns the Docker endpoint to use: DOCKER_HOST, else the
// first socket that exists among the usual places.
func dockerEndpoint() (string, []string) {
	if h := os.Getenv("DOCKER_HOST"); h != "" {
		return h, []string{"DOCKER_HOST=" + h}
	}
	candidates := []string{"/var/run/docker.sock"}
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		candidates = append(candidates, filepath.Join(d, "docker.sock"))
	}
	if home, err := os.UserHomeDir(); err == nil {
		candidates = append(candidates, filepath.Join(home, ".docker", "run", "docker.sock"), filepath.Join(home, ".colima", "default", "docker.sock"))
	}
	for _, c := range candidates {
		if _, err := os.Stat(c); err == nil {
			return "unix://" + c, candidates
		}
	}
	return "", candidates
}

// pingDocker asks the Docker engine for /_ping and fails within timeout
// when it does not answer.
func pingDocker(ctx context.Context, timeout time.Duration) error {
	host, looked := dockerEndpoint()
	if host == "" {
		return fmt.Errorf("no Docker engine (no DOCKER_HOST, no socket at %s)", strings.Join(looked, ", "))
	}
	return pingEndpoint(ctx, host, timeout)
}

func pingEndpoint(ctx context.Context, host string, timeout time.Duration) error {
	u, err := url.Parse(host)
	if err != nil {
		return fmt.Errorf("DOCKER_HOST %q is not a URL: %v", host, err)
	}
	var network, addr string
	switch u.Scheme {
	case "unix":
		network, addr = "unix", u.Path
	case "tcp", "http":
		network, addr = "tcp", u.Host
	default:
		return fmt.Errorf("docker endpoint %s: scheme %q is not supported (use unix:// or tcp://)", host, u.Scheme)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, addr)
		},
		DisableKeepAlives: true,
	}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://docker/_ping", nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("docker endpoint %s did not answer a ping within %v", host, timeout)
		}
		return fmt.Errorf("docker endpoint %s: %v", host, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("docker endpoint %s answered the ping with %s %q", host, resp.Status, strings.TrimSpace(string(body)))
	}
	return nil
}

// startDocker runs PostgreSQL in a container through testcontainers-go,
// after making sure Docker answers at all.
func startDocker(ctx context.Context, opts Options) (*Server, error) {
	if err := pingDocker(ctx, dockerPingTimeout); err != nil {
		return nil, fmt.Errorf("pgserver: docker: %v (start Docker or set DOCKER_HOST; or use --pg local or --dsn URL)", err)
	}
	image := opts.Image
	if image == "" {
		image = DefaultImage
	}
	begin := time.Now()
	c, err := tcpostgres.Run(ctx, image,
		tcpostgres.WithDatabase("postgres"),
		tcpostgres.WithUsername("postgres"),
		tcpostgres.WithPassword("postgres"),
		testcontainers.WithCmd("postgres", "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"),
		tcpostgres.BasicWaitStrategies(),
	)
	if err != nil {
		if c != nil {
			_ = testcontainers.TerminateContainer(c)
		}
		return nil, fmt.Errorf("pgserver: docker: start %s: %w", image, err)
	}
	dsn, err := c.ConnectionString(ctx, "sslmode=disable")
	if err != nil {
		_ = testcontainers.TerminateContainer(c)
		return nil, fmt.Errorf("pgserver: docker: %w", err)
	}
	s := &Server{
		strategy: "docker",
		base:     dsn,
		adminDB:  "postgres",
		log:      opts.Log,
		stop: func() error {
			if err := testcontainers.TerminateContainer(c); err != nil {
				return fmt.Errorf("pgserver: docker: remove the container: %w", err)
			}
			return nil
		},
	}
	s.logf("pgserver: PostgreSQL container %s ready in %v", image, time.Since(begin).Round(time.Millisecond))
	return s, nil
}
