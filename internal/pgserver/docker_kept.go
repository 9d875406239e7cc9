package pgserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The docker strategy keeps one container per image and template: the
// first run creates it and prepares the template in it, every later run
// finds it running and only clones a database of its own from the
// template (CREATE DATABASE ... TEMPLATE), dropped by Close. Starting a
// container and running initdb in it takes seconds; a clone takes tens of
// milliseconds.
//
// The container's name is derived from its key, so two runs that start at
// once create it once (the engine refuses the second name); an advisory
// lock in the server makes them prepare the template once. A kept
// container that is stopped is started again; one that does not answer,
// or that is not what its name says, is removed and created again. The
// run that creates a kept container removes the image's others (another
// key: older blocks or an older image of the name) that no run uses; a
// kept container otherwise stays until removed with
//
//	docker rm -f $(docker ps -aq --filter label=org.bsadapter.kept)

// keptLabel marks a kept container; its value is the container's key.
const keptLabel = "org.bsadapter.kept"

// keptImageLabel names the image a kept container runs, for people
// reading `docker ps`.
const keptImageLabel = "org.bsadapter.image"

// keptFormat is part of every key: changing how a kept container is set
// up must not find containers set up the old way.
const keptFormat = "1"

// keptLockID is the advisory lock (in the kept container's server) that
// runs hold while they sweep and prepare the template. A run that is
// killed holding it loses it with its session.
const keptLockID = 0x6273616461707472 // "bsadaptr"

// keptReadyTimeout bounds the wait for PostgreSQL in a kept container that
// has been up for a while: it answers at once when it is well, so a
// longer wait means it is broken. Tests shorten it.
var keptReadyTimeout = 15 * time.Second

// keptKey identifies a kept container by what is in it: the image (by id,
// so that a new image under the same name gets a new container) and the
// template's key.
func keptKey(imageID string, t Template) string {
	key := ""
	if t != nil {
		key = t.Key()
	}
	h := sha256.Sum256([]byte(keptFormat + "\x00" + imageID + "\x00" + key))
	return hex.EncodeToString(h[:])[:16]
}

// keptName is the name of the kept container of key.
func keptName(key string) string { return "bsadapter-pg-" + key }

// kept is a kept container found or created by keptContainer.
type kept struct {
	id, password string
	// created or started: this run made it or started it, so its server
	// may still be running initdb; young: another run did, a moment ago.
	created, started, young bool
}

// keptYoung is how long after its start a kept container may still be
// initialising, for runs that find it: they wait as long as for a new one.
// Tests shorten it.
var keptYoung = dockerStartTimeout

// startKept gets the kept container of image and opts.Template ready and
// returns a server on it. A kept container whose server does not answer
// is replaced once; a new one that does not is removed, and the error
// gives its last log lines.
func (d *dockerClient) startKept(ctx context.Context, opts Options, image string, img imageInfo, begin time.Time) (*Server, error) {
	key := keptKey(img.ID, opts.Template)
	name := keptName(key)
	for attempt := 0; ; attempt++ {
		c, err := d.keptContainer(ctx, name, image, img, key, opts)
		if err != nil {
			return nil, fmt.Errorf("pgserver: docker: %s: %w", image, err)
		}
		timeout := keptReadyTimeout
		if c.created || c.started || c.young {
			timeout = dockerStartTimeout
			if opts.StartTimeout > 0 {
				timeout = opts.StartTimeout
			}
		}
		base, err := d.keptBase(ctx, c)
		if err == nil {
			err = d.waitReady(ctx, c.id, base, timeout)
		}
		if err == nil {
			// The server answers: what fails from here on is not the
			// container's fault, and other runs may be using it.
			s, how, err := openKept(ctx, c, base, opts)
			if err != nil {
				if c.created {
					_ = d.removeContainer(ctx, c.id)
				}
				return nil, err
			}
			s.startedIn = time.Since(begin)
			s.logf("pgserver: PostgreSQL container %s ready in %v (%s %s; remove it with docker rm -f %s)", image, s.startedIn.Round(time.Millisecond), how, name, name)
			if c.created {
				// The first run of changed blocks, or of a changed image
				// under the same name, supersedes that image's other kept
				// containers.
				for _, gone := range d.removeSuperseded(ctx, image, key) {
					s.logf("pgserver: docker: removed the kept container %s, superseded by %s (no run was using it)", gone, name)
				}
			}
			return s, nil
		}
		if ctx.Err() != nil {
			return nil, err
		}
		if c.created || attempt > 0 {
			_ = d.removeContainer(ctx, c.id)
			var te *TimeoutError
			if errors.As(err, &te) {
				te.What = "PostgreSQL in a new container of " + image + " did not accept connections"
				return nil, te
			}
			return nil, fmt.Errorf("pgserver: docker: %s: %w", image, err)
		}
		if opts.Log != nil {
			fmt.Fprintf(opts.Log, "pgserver: docker: the kept container %s is broken (%s); replacing it\n", name, headline(err))
		}
		if err := d.removeContainer(ctx, c.id); err != nil {
			return nil, err
		}
	}
}

// keptBase returns the connection string to the postgres database of the
// kept container c.
func (d *dockerClient) keptBase(ctx context.Context, c kept) (string, error) {
	port, err := d.publishedPort(ctx, c.id)
	if err != nil {
		return "", err
	}
	return (&url.URL{Scheme: "postgres", User: url.UserPassword("postgres", c.password),
		Host: net.JoinHostPort(d.portHost, port), Path: "/postgres", RawQuery: "sslmode=disable"}).String(), nil
}

// keptContainer finds the kept container called name and starts it if it
// is stopped, or creates and starts it. One that is not what its name
// promises (another key, no password) or does not start is removed and
// created again.
func (d *dockerClient) keptContainer(ctx context.Context, name, image string, img imageInfo, key string, opts Options) (kept, error) {
	note := func(format string, args ...any) {
		if opts.Log != nil {
			fmt.Fprintf(opts.Log, "pgserver: docker: "+format+"\n", args...)
		}
	}
	var last error
	for range 40 {
		if last != nil {
			// Another run is creating or replacing it: give it a moment.
			select {
			case <-ctx.Done():
				return kept{}, ctx.Err()
			case <-time.After(50 * time.Millisecond):
			}
		}
		st, err := d.inspect(ctx, name)
		var apiErr *dockerAPIError
		if errors.As(err, &apiErr) && apiErr.Status == http.StatusNotFound {
			id, password, err := d.createKept(ctx, name, image, img, key)
			if errors.As(err, &apiErr) && apiErr.Status == http.StatusConflict {
				last = err // another run created it first: use theirs
				continue
			}
			if err != nil {
				return kept{}, fmt.Errorf("create a container: %w", err)
			}
			note("created the container %s, kept for later runs", name)
			return kept{id: id, password: password, created: true}, nil
		}
		if err != nil {
			return kept{}, err
		}
		password, _ := envValue(st.Config.Env, "POSTGRES_PASSWORD")
		if st.Config.Labels[keptLabel] != key || password == "" {
			note("the container %s is not one bsadapter keeps; replacing it", name)
			if err := d.removeContainer(ctx, st.ID); err != nil {
				return kept{}, err
			}
			last = errors.New("replaced a container of the same name")
			continue
		}
		c := kept{id: st.ID, password: password, young: time.Since(st.State.StartedAt) < keptYoung}
		if !st.State.Running {
			err := d.do(ctx, http.MethodPost, "/containers/"+st.ID+"/start", nil, nil, nil)
			if errors.As(err, &apiErr) && apiErr.Status == http.StatusNotModified {
				err = nil // started by another run meanwhile
			}
			if err != nil {
				note("the kept container %s does not start (%s); replacing it", name, headline(err))
				if err := d.removeContainer(ctx, st.ID); err != nil {
					return kept{}, err
				}
				last = err
				continue
			}
			c.started = true
		}
		return c, nil
	}
	return kept{}, fmt.Errorf("the container %s keeps being replaced by another run (%v); try again", name, last)
}

// createKept creates and starts the kept container of key: durability
// off like the local strategy, 5432 published on a port the engine picks,
// on the loopback address unless the engine is on another host. The data
// folder is a tmpfs, as the local strategy's is in memory: on the
// container's own file system a clone takes several times longer. A
// stopped container loses its data with it; started again, the image
// initialises a new cluster and the next run prepares the template again.
func (d *dockerClient) createKept(ctx context.Context, name, image string, img imageInfo, key string) (id, password string, err error) {
	pgdata, ok := envValue(img.Config.Env, "PGDATA")
	if !ok || !strings.HasPrefix(pgdata, "/") {
		pgdata = "/var/lib/postgresql/data" // the official image's
	}
	password = randomHex(12)
	type portBinding struct {
		HostIP   string `json:"HostIp"`
		HostPort string `json:"HostPort"`
	}
	body := map[string]any{
		"Image":        image,
		"Cmd":          []string{"postgres", "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"},
		"Env":          []string{"POSTGRES_USER=postgres", "POSTGRES_DB=postgres", "POSTGRES_PASSWORD=" + password},
		"Labels":       map[string]string{keptLabel: key, keptImageLabel: image},
		"ExposedPorts": map[string]any{"5432/tcp": map[string]any{}},
		"HostConfig": map[string]any{
			"PortBindings": map[string][]portBinding{"5432/tcp": {{HostIP: d.bindIP}}},
			"Tmpfs":        map[string]string{pgdata: "rw,nosuid,nodev"},
		},
	}
	var created struct {
		ID string `json:"Id"`
	}
	if err := d.do(ctx, http.MethodPost, "/containers/create", url.Values{"name": {name}}, body, &created); err != nil {
		return "", "", err
	}
	if created.ID == "" {
		return "", "", errors.New("the Docker engine created a container without an id")
	}
	// A run that finds it created and not yet started starts it too: the
	// engine answers it, or this start, with 304.
	err = d.do(ctx, http.MethodPost, "/containers/"+created.ID+"/start", nil, nil, nil)
	var apiErr *dockerAPIError
	if errors.As(err, &apiErr) && apiErr.Status == http.StatusNotModified {
		err = nil
	}
	if err != nil {
		_ = d.removeContainer(ctx, created.ID)
		return "", "", fmt.Errorf("start it: %w", err)
	}
	return created.ID, password, nil
}

// openKept returns a server on the kept container c. Under the advisory
// lock it drops the databases of killed runs and prepares opts.Template
// unless a run did before: the template database is marked a template as
// the last step of preparing it, so one not marked was left half-made.
func openKept(ctx context.Context, c kept, base string, opts Options) (*Server, string, error) {
	s := &Server{
		strategy:    "docker",
		base:        base,
		adminDB:     "postgres",
		log:         opts.Log,
		dropOnClose: true,
	}
	s.configure(opts)
	conn, err := s.Connect(ctx, s.adminDB)
	if err != nil {
		return nil, "", err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	// A run that holds the lock prepares the template, which takes a
	// second or so; one stuck for minutes must not hold up the others
	// for ever.
	if _, err := conn.Exec(ctx, "set lock_timeout = '2min'"); err != nil {
		return nil, "", fmt.Errorf("pgserver: docker: %w", err)
	}
	if _, err := conn.Exec(ctx, "select pg_advisory_lock($1)", int64(keptLockID)); err != nil {
		return nil, "", fmt.Errorf("pgserver: docker: wait for the other runs on the kept container: %w", err)
	}
	// Unlocked by closing the session, whatever happens below.
	if dropped := sweepDatabases(ctx, conn); len(dropped) > 0 {
		s.logf("pgserver: docker: dropped %s, left by a bsadapter run that was killed", strings.Join(dropped, ", "))
	}
	how := "reused the kept container"
	switch {
	case c.created:
		how = "created the kept container"
	case c.started:
		how = "started the kept container"
	}
	if opts.Template != nil {
		var ready bool
		err := conn.QueryRow(ctx, "select coalesce((select datistemplate from pg_database where datname = $1), false)", TemplateName).Scan(&ready)
		if err != nil {
			return nil, "", fmt.Errorf("pgserver: docker: read the template's state: %w", err)
		}
		if !ready {
			if err := dropDatabase(ctx, conn, TemplateName); err != nil {
				return nil, "", err
			}
			if err := s.createNamed(ctx, TemplateName, "", false); err != nil {
				return nil, "", err
			}
			if err := s.prepare(ctx, TemplateName, opts.Template); err != nil {
				_ = dropDatabase(context.WithoutCancel(ctx), conn, TemplateName)
				return nil, "", err
			}
			how = "prepared the template in the kept container"
		}
		s.mu.Lock()
		s.created = nil // the template stays with the container
		s.setTemplate(opts.Template.Key(), TemplateName)
		s.mu.Unlock()
	}
	return s, how, nil
}

// envValue returns the value of name in a container's environment.
func envValue(env []string, name string) (string, bool) {
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// headline is the first line of err, for a log line (a container's log
// tail follows it in the full error).
func headline(err error) string {
	line, _, _ := strings.Cut(err.Error(), "\n")
	return line
}

// removeSuperseded removes the containers kept for image under a key other
// than key (other blocks, or an older image of that name) that no run is
// using, and returns their names. A stopped one holds nothing (its data
// was on a tmpfs). A running one is in use while a client other than this
// check is connected or a run's database is in it, after the databases of
// killed runs are dropped; under the advisory lock that runs take to
// prepare the template, so that no run is setting up in it meanwhile. One
// in use stays, for the next run that creates a kept container to try
// again; everything here is best effort and fails quietly.
func (d *dockerClient) removeSuperseded(ctx context.Context, image, key string) []string {
	filters, _ := json.Marshal(map[string][]string{"label": {keptImageLabel + "=" + image}})
	var list []struct {
		ID     string            `json:"Id"`
		Names  []string          `json:"Names"`
		State  string            `json:"State"`
		Labels map[string]string `json:"Labels"`
	}
	if d.do(ctx, http.MethodGet, "/containers/json", url.Values{"all": {"1"}, "filters": {string(filters)}}, nil, &list) != nil {
		return nil
	}
	var removed []string
	for _, c := range list {
		if c.Labels[keptLabel] == key || c.Labels[keptLabel] == "" || len(c.Names) == 0 {
			continue
		}
		if c.State == "running" && !d.keptIdle(ctx, c.ID) {
			continue
		}
		if d.removeContainer(ctx, c.ID) == nil {
			removed = append(removed, strings.TrimPrefix(c.Names[0], "/"))
		}
	}
	return removed
}

// keptIdle reports whether no run uses the running kept container id.
// It answers false whenever it cannot tell.
func (d *dockerClient) keptIdle(ctx context.Context, id string) bool {
	st, err := d.inspect(ctx, id)
	if err != nil || time.Since(st.State.StartedAt) < keptYoung {
		return false // a young container may be a run's, still starting
	}
	password, _ := envValue(st.Config.Env, "POSTGRES_PASSWORD")
	base, err := d.keptBase(ctx, kept{id: id, password: password})
	if err != nil {
		return false
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	conn, err := (&Server{base: base}).Connect(cctx, "postgres")
	if err != nil {
		return false
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var locked bool
	if conn.QueryRow(cctx, "select pg_try_advisory_lock($1)", int64(keptLockID)).Scan(&locked) != nil || !locked {
		return false
	}
	sweepDatabases(cctx, conn)
	var busy bool
	err = conn.QueryRow(cctx, `select exists (select from pg_stat_activity where backend_type = 'client backend' and pid <> pg_backend_pid())
		or exists (select from pg_database where datname like 'bsadapter\_%' and datname <> $1)`, TemplateName).Scan(&busy)
	return err == nil && !busy
}

// whichDocker describes, for Which, what a docker run would find on the
// engine at host: whether image is there (else the run pulls it first)
// and the containers kept for it.
func whichDocker(ctx context.Context, host, image string) (source string, ready bool) {
	source = "image " + image + " on " + host
	d, err := newDockerClient(host)
	if err != nil {
		return source, false
	}
	ctx, cancel := context.WithTimeout(ctx, dockerPingTimeout)
	defer cancel()
	if _, err := d.inspectImage(ctx, image); err != nil {
		return source, false
	}
	filters, _ := json.Marshal(map[string][]string{"label": {keptImageLabel + "=" + image}})
	var list []struct {
		Names []string `json:"Names"`
		State string   `json:"State"`
	}
	if d.do(ctx, http.MethodGet, "/containers/json", url.Values{"all": {"1"}, "filters": {string(filters)}}, nil, &list) == nil {
		var kept []string
		for _, c := range list {
			if len(c.Names) > 0 {
				kept = append(kept, strings.TrimPrefix(c.Names[0], "/")+" ("+c.State+")")
			}
		}
		if len(kept) > 0 {
			source += ", kept container " + strings.Join(kept, ", ")
		}
	}
	return source, true
}
