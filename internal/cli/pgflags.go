package cli

import (
	"context"
	"errors"
	"strings"

	"github.com/bsadapter/bsadapter/internal/pgserver"
	"github.com/spf13/cobra"
)

// pgFlags are the flags of every command that needs a PostgreSQL server:
// --pg, --dsn and --pg-image.
type pgFlags struct {
	strategy string
	dsn      string
	image    string
}

// addPGFlags adds --pg, --dsn and --pg-image to cmd.
func addPGFlags(cmd *cobra.Command, f *pgFlags) {
	cmd.Flags().StringVar(&f.strategy, "pg", "auto", "how to get PostgreSQL: auto, dsn, local or docker")
	cmd.Flags().StringVar(&f.dsn, "dsn", "", "connection string of your server (default $BSADAPTER_DSN); bsadapter works in a database of its own there and drops it")
	cmd.Flags().StringVar(&f.image, "pg-image", pgserver.DefaultImage, "container image for --pg docker")
}

// options checks the flags and turns them into pgserver options; the DSN
// comes from --dsn, else BSADAPTER_DSN.
func (f *pgFlags) options(app *App) (pgserver.Options, error) {
	valid := false
	for _, s := range pgserver.Strategies {
		valid = valid || f.strategy == s
	}
	if !valid {
		return pgserver.Options{}, usageErr("", "--pg %q is not one of %s", f.strategy, strings.Join(pgserver.Strategies, ", "))
	}
	dsn := f.dsn
	if dsn == "" {
		dsn = app.getenv("BSADAPTER_DSN")
	}
	if f.strategy == "dsn" && dsn == "" {
		return pgserver.Options{}, usageErr("pass --dsn postgres://user@host/db or set BSADAPTER_DSN", "--pg dsn needs a connection string")
	}
	if dsn != "" && f.strategy != "auto" && f.strategy != "dsn" {
		return pgserver.Options{}, usageErr("drop --dsn (and unset BSADAPTER_DSN) to use --pg "+f.strategy+", or use --pg dsn", "--pg %s and a DSN do not go together", f.strategy)
	}
	return pgserver.Options{Strategy: f.strategy, DSN: dsn, Image: f.image, Log: app.Err}, nil
}

// startPG gets the server the flags ask for. The caller must Close it.
func (f *pgFlags) startPG(ctx context.Context, app *App) (*pgserver.Server, error) {
	opts, err := f.options(app)
	if err != nil {
		return nil, err
	}
	s, err := pgserver.Start(ctx, opts)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		hint := "install PostgreSQL, start Docker, or pass --dsn URL"
		var none *pgserver.NoServerError
		switch {
		case errors.As(err, &none):
			hint = "install PostgreSQL (apt-get install postgresql, brew install postgresql@15), start Docker, or pass --dsn URL"
		case opts.DSN != "" && opts.Strategy != "local" && opts.Strategy != "docker":
			// The error names the server and the role; the fix is theirs.
			hint = "check the --dsn URL (or BSADAPTER_DSN) and that its server answers; or drop it to let bsadapter start a server"
		}
		return nil, envErr(err, hint)
	}
	return s, nil
}
