package pgserver

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// dockerPingTimeout bounds the ping of the Docker endpoint: an endpoint
// that accepts connections and never answers must not hang a run.
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

// startDocker runs PostgreSQL in a container, talking to the Docker
// engine's HTTP API itself (as pingEndpoint does): pull the image when the
// engine does not have it, then use the kept container of that image and
// template (startKept), which holds the template prepared and outlives the
// run. Close drops the run's databases; the container stays.
func startDocker(ctx context.Context, opts Options) (*Server, error) {
	if err := pingDocker(ctx, dockerPingTimeout); err != nil {
		return nil, fmt.Errorf("pgserver: docker: %v (start Docker or set DOCKER_HOST; or use --pg local or --dsn URL)", err)
	}
	image := opts.Image
	if image == "" {
		image = DefaultImage
	}
	host, _ := dockerEndpoint()
	d, err := newDockerClient(host)
	if err != nil {
		return nil, fmt.Errorf("pgserver: docker: %w", err)
	}
	begin := time.Now()
	if swept := d.sweepContainers(ctx); len(swept) > 0 && opts.Log != nil {
		fmt.Fprintf(opts.Log, "pgserver: docker: removed %s, left by a bsadapter run that was killed\n", strings.Join(swept, ", "))
	}
	img, err := d.ensureImage(ctx, image, opts.Log)
	if err != nil {
		return nil, fmt.Errorf("pgserver: docker: %w", err)
	}
	s, err := d.startKept(ctx, opts, image, img, begin)
	if err != nil && ctx.Err() != nil {
		return nil, fmt.Errorf("pgserver: docker: start interrupted: %w", ctx.Err())
	}
	return s, err
}

// removeContainer removes a container and its volumes. The run's context
// may be cancelled by now; removing must not be.
func (d *dockerClient) removeContainer(ctx context.Context, id string) error {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	err := d.do(rctx, http.MethodDelete, "/containers/"+id, url.Values{"force": {"1"}, "v": {"1"}}, nil, nil)
	var apiErr *dockerAPIError
	if errors.As(err, &apiErr) && apiErr.Status == http.StatusNotFound {
		return nil
	}
	if err != nil {
		return fmt.Errorf("pgserver: docker: remove the container %.12s: %w", id, err)
	}
	return nil
}

// dockerStartTimeout bounds the wait for PostgreSQL in a new container:
// the image runs initdb on first start, which takes a few seconds. Tests
// shorten it.
var dockerStartTimeout = 2 * time.Minute

// dockerClient speaks the few calls of the Docker engine API the docker
// strategy needs.
type dockerClient struct {
	http *http.Client
	// portHost is where the engine's published ports are reached: the
	// loopback address for a local socket, the engine's host for tcp://.
	portHost string
	// bindIP is the host address ports are published on.
	bindIP string
}

func newDockerClient(endpoint string) (*dockerClient, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil, fmt.Errorf("DOCKER_HOST %q is not a URL: %v", endpoint, err)
	}
	d := &dockerClient{portHost: "127.0.0.1", bindIP: "127.0.0.1"}
	var network, addr string
	switch u.Scheme {
	case "unix":
		network, addr = "unix", u.Path
	case "tcp", "http":
		network, addr = "tcp", u.Host
		// The engine runs elsewhere: its published ports are on its host,
		// reachable from here only if bound beyond its loopback.
		if h := u.Hostname(); h != "" && h != "localhost" && !net.ParseIP(h).IsLoopback() {
			d.portHost, d.bindIP = h, ""
		}
	default:
		return nil, fmt.Errorf("docker endpoint %s: scheme %q is not supported (use unix:// or tcp://)", endpoint, u.Scheme)
	}
	d.http = &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var dl net.Dialer
			return dl.DialContext(ctx, network, addr)
		},
	}}
	return d, nil
}

// dockerAPIError is the engine's answer to a call it refused.
type dockerAPIError struct {
	Status  int
	Message string
}

func (e *dockerAPIError) Error() string {
	return fmt.Sprintf("the Docker engine answered %d: %s", e.Status, e.Message)
}

// do makes one call. body, when not nil, is sent as JSON; out, when not
// nil, receives the JSON answer. A status of 300 or more is an error
// carrying the engine's message.
func (d *dockerClient) do(ctx context.Context, method, path string, query url.Values, body, out any) error {
	resp, err := d.send(ctx, method, path, query, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("%s %s: the Docker engine's answer does not decode: %w", method, path, err)
	}
	return nil
}

// send makes one call and returns the answer for its caller to read; a
// status of 300 or more is returned as a *dockerAPIError instead.
func (d *dockerClient) send(ctx context.Context, method, path string, query url.Values, body any) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	u := "http://docker" + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := d.http.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 300 {
		defer resp.Body.Close()
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		var msg struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(raw, &msg) != nil || msg.Message == "" {
			msg.Message = strings.TrimSpace(string(raw))
		}
		return nil, &dockerAPIError{Status: resp.StatusCode, Message: msg.Message}
	}
	return resp, nil
}

// imageInfo is the part of an image's inspection the strategy reads.
type imageInfo struct {
	ID     string `json:"Id"`
	Config struct {
		Env []string `json:"Env"`
	} `json:"Config"`
}

// ensureImage pulls image unless the engine has it, and returns its
// inspection.
func (d *dockerClient) ensureImage(ctx context.Context, image string, log io.Writer) (imageInfo, error) {
	img, err := d.inspectImage(ctx, image)
	var apiErr *dockerAPIError
	if err == nil || !errors.As(err, &apiErr) || apiErr.Status != http.StatusNotFound {
		return img, err
	}
	if err := d.pull(ctx, image, log); err != nil {
		return imageInfo{}, err
	}
	return d.inspectImage(ctx, image)
}

func (d *dockerClient) inspectImage(ctx context.Context, image string) (imageInfo, error) {
	var img imageInfo
	err := d.do(ctx, http.MethodGet, "/images/"+image+"/json", nil, nil, &img)
	return img, err
}

// pull asks the engine to pull image.
func (d *dockerClient) pull(ctx context.Context, image string, log io.Writer) error {
	if log != nil {
		fmt.Fprintf(log, "pgserver: pulling %s\n", image)
	}
	repo, tag := splitImage(image)
	q := url.Values{"fromImage": {repo}}
	if tag != "" {
		q.Set("tag", tag)
	}
	resp, err := d.send(ctx, http.MethodPost, "/images/create", q, nil)
	if err != nil {
		return fmt.Errorf("the image %s is not on this engine and could not be pulled: %w (check the image's name; for one of a private registry, run 'docker pull %s' first; or pass another image with --pg-image, or use --pg local)", image, err, image)
	}
	defer resp.Body.Close()
	// The engine reports a failed pull inside the progress stream, with a
	// success status.
	dec := json.NewDecoder(resp.Body)
	for {
		var msg struct {
			Error string `json:"error"`
		}
		if err := dec.Decode(&msg); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("pull %s: %w", image, err)
		}
		if msg.Error != "" {
			return fmt.Errorf("the image %s is not on this engine and could not be pulled: %s (check the image's name; for one of a private registry, run 'docker pull %s' first; or pass another image with --pg-image, or use --pg local)", image, msg.Error, image)
		}
	}
}

// splitImage splits a reference into repository and tag (or digest); a
// colon before the last slash belongs to a registry's port.
func splitImage(ref string) (repo, tag string) {
	if i := strings.Index(ref, "@"); i >= 0 {
		return ref[:i], ref[i+1:]
	}
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		return ref[:i], ref[i+1:]
	}
	return ref, ""
}

// runLabel is the container label that names the run (host and pid) a
// container belongs to, for containers that must not outlive their run
// (bsadapter made one per run before it kept a container; the sweep still
// removes those left by killed runs). The kept container carries
// keptLabel instead, which the sweep leaves alone.
const runLabel = "org.bsadapter.run"

// sweepContainers removes the containers of runs on this host that were
// killed before they could remove them: their label names a process that
// no longer exists. Containers of live runs and of other hosts stay.
func (d *dockerClient) sweepContainers(ctx context.Context) []string {
	host, _ := os.Hostname()
	filters, _ := json.Marshal(map[string][]string{"label": {runLabel}})
	var list []struct {
		ID     string            `json:"Id"`
		Names  []string          `json:"Names"`
		Labels map[string]string `json:"Labels"`
	}
	if d.do(ctx, http.MethodGet, "/containers/json", url.Values{"all": {"1"}, "filters": {string(filters)}}, nil, &list) != nil {
		return nil
	}
	var swept []string
	for _, c := range list {
		rest, ok := strings.CutPrefix(c.Labels[runLabel], ownerPrefix+host+" ")
		pid, err := strconv.Atoi(rest)
		if !ok || err != nil || pid == os.Getpid() || processExists(pid) {
			continue
		}
		if d.do(ctx, http.MethodDelete, "/containers/"+c.ID, url.Values{"force": {"1"}, "v": {"1"}}, nil, nil) == nil {
			name := c.ID
			if len(c.Names) > 0 {
				name = strings.TrimPrefix(c.Names[0], "/")
			}
			swept = append(swept, name)
		}
	}
	return swept
}

// containerState is the part of a container's inspection the strategy
// reads.
type containerState struct {
	ID    string `json:"Id"`
	State struct {
		Running   bool      `json:"Running"`
		Status    string    `json:"Status"`
		ExitCode  int       `json:"ExitCode"`
		StartedAt time.Time `json:"StartedAt"`
	} `json:"State"`
	Config struct {
		Env    []string          `json:"Env"`
		Labels map[string]string `json:"Labels"`
	} `json:"Config"`
	NetworkSettings struct {
		Ports map[string][]struct {
			HostIP   string `json:"HostIp"`
			HostPort string `json:"HostPort"`
		} `json:"Ports"`
	} `json:"NetworkSettings"`
}

func (d *dockerClient) inspect(ctx context.Context, id string) (containerState, error) {
	var st containerState
	err := d.do(ctx, http.MethodGet, "/containers/"+id+"/json", nil, nil, &st)
	return st, err
}

// publishedPort returns the host port the engine published 5432 on. The
// engine may fill it in a moment after the start.
func (d *dockerClient) publishedPort(ctx context.Context, id string) (string, error) {
	for range 50 {
		st, err := d.inspect(ctx, id)
		if err != nil {
			return "", err
		}
		for _, b := range st.NetworkSettings.Ports["5432/tcp"] {
			if b.HostPort != "" {
				return b.HostPort, nil
			}
		}
		if !st.State.Running {
			return "", fmt.Errorf("the container stopped (%s, exit code %d): %s", st.State.Status, st.State.ExitCode, d.logTail(ctx, id))
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return "", errors.New("the Docker engine published no port for 5432")
}

// waitReady polls until PostgreSQL accepts a connection on dsn. The image
// runs initdb with a server on a unix socket only, then restarts it on
// TCP, so the first TCP connection that succeeds is the real server's.
func (d *dockerClient) waitReady(ctx context.Context, id, dsn string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	for {
		cctx, ccancel := context.WithTimeout(ctx, 2*time.Second)
		conn, err := pgx.Connect(cctx, dsn)
		ccancel()
		if err == nil {
			conn.Close(context.WithoutCancel(ctx))
			return nil
		}
		last = err
		if st, err := d.inspect(ctx, id); err == nil && !st.State.Running {
			return fmt.Errorf("the container stopped (%s, exit code %d): %s", st.State.Status, st.State.ExitCode, d.logTail(ctx, id))
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return &TimeoutError{Strategy: "docker", Wait: "start", Limit: timeout, Err: last,
					What:   "PostgreSQL in the container did not accept connections",
					Detail: fmt.Sprintf("%v\n%s", last, d.logTail(context.WithoutCancel(ctx), id))}
			}
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// logTail returns the container's last log lines, for errors.
func (d *dockerClient) logTail(ctx context.Context, id string) string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	resp, err := d.send(ctx, http.MethodGet, "/containers/"+id+"/logs", url.Values{"stdout": {"1"}, "stderr": {"1"}, "tail": {"20"}}, nil)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	return strings.TrimSpace(string(demuxLogs(raw)))
}

// demuxLogs strips the frame headers of a log stream of a container
// without a terminal: each frame is a stream byte, three zero bytes, a
// big-endian length and that many bytes.
func demuxLogs(raw []byte) []byte {
	var out []byte
	for len(raw) >= 8 && raw[1] == 0 && raw[2] == 0 && raw[3] == 0 && raw[0] <= 2 {
		n := int(binary.BigEndian.Uint32(raw[4:8]))
		raw = raw[8:]
		n = min(n, len(raw))
		out = append(out, raw[:n]...)
		raw = raw[n:]
	}
	return append(out, raw...)
}
