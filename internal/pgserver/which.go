package pgserver

import (
	"context"
	"net/url"
	"os/exec"
	"strings"
)

// Choice says which PostgreSQL a run would use and where it comes from,
// found without starting, fetching or building anything.
type Choice struct {
	// Strategy is what Start would use: "dsn", "local", "npm" or
	// "docker"; "" when nothing is available.
	Strategy string `json:"strategy"`
	// Version is the server's version when it is known beforehand.
	Version string `json:"version,omitempty"`
	// Source says where the server comes from: a folder of binaries, an
	// npm package, an image, a host.
	Source string `json:"source"`
	// Ready is false when the run first fetches something (npm binaries,
	// an image) before it can start a server.
	Ready bool `json:"ready"`
	// Tried lists the ways passed over, and why.
	Tried []string `json:"tried,omitempty"`
}

// Which says which PostgreSQL Start with opts would use, following the
// same order as the auto strategy. It may ping Docker (2 s at most).
func Which(ctx context.Context, opts Options) Choice {
	var c Choice
	try := func(strategy string) bool {
		switch strategy {
		case "dsn":
			if opts.DSN == "" {
				c.Tried = append(c.Tried, "dsn: no --dsn given and BSADAPTER_DSN is not set")
				return false
			}
			c.Strategy, c.Source, c.Ready = "dsn", redactDSN(opts.DSN), true
		case "local":
			bin, where := findBinaries()
			if bin == "" {
				c.Tried = append(c.Tried, "local: no PostgreSQL binaries in "+strings.Join(where, ", "))
				return false
			}
			c.Strategy, c.Source, c.Ready = "local", bin+" (system binaries)", true
			c.Version = localVersion(bin, opts.CacheDir)
		case "npm":
			spec := NPMPackage()
			if spec == "" {
				c.Tried = append(c.Tried, "npm: no pinned package for this platform")
				return false
			}
			// 15.18.0-beta.17 holds PostgreSQL 15.18.
			c.Version = strings.Join(strings.SplitN(strings.SplitN(NPMVersion, "-", 2)[0], ".", 3)[:2], ".")
			if bin := npmCached(opts); bin != "" {
				c.Strategy, c.Source, c.Ready = "npm", bin+" (npm package "+spec+", cached)", true
				return true
			}
			if _, err := exec.LookPath("npm"); err != nil {
				c.Version = ""
				c.Tried = append(c.Tried, "npm: "+spec+" is not cached and npm is not on PATH")
				return false
			}
			c.Strategy, c.Source = "npm", "npm package "+spec+" (fetched with npm pack on first use)"
		case "docker":
			if err := pingDocker(ctx, dockerPingTimeout); err != nil {
				c.Tried = append(c.Tried, "docker: "+err.Error())
				return false
			}
			image := opts.Image
			if image == "" {
				image = DefaultImage
			}
			host, _ := dockerEndpoint()
			c.Strategy = "docker"
			c.Source, c.Ready = whichDocker(ctx, host, image)
		}
		return true
	}
	switch opts.Strategy {
	case "", "auto":
		for _, s := range []string{"dsn", "local", "npm", "docker"} {
			if try(s) {
				break
			}
		}
		if c.Strategy == "" {
			c.Version = ""
		}
	default:
		try(opts.Strategy)
	}
	return c
}

// redactDSN shows a connection string's host, port and database, without
// its password.
func redactDSN(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		if u.User != nil {
			u.User = url.User(u.User.Username())
		}
		u.RawQuery = ""
		return u.String()
	}
	var kept []string
	for _, f := range strings.Fields(dsn) {
		if k, _, _ := strings.Cut(f, "="); k == "host" || k == "port" || k == "dbname" || k == "user" {
			kept = append(kept, f)
		}
	}
	return strings.Join(kept, " ")
}
