package bridgestore_test

import (
	"context"
	"encoding/json"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/conform/bridgestore"
	"github.com/bsadapter/bsadapter/internal/conform/conformtest"
	"github.com/bsadapter/bsadapter/internal/pgserver/pgtest"
	"github.com/bsadapter/bsadapter/internal/testenv"
	"github.com/jackc/pgx/v5"
)

// worldPostgresVersion is the @workflow/world-postgres the world suite is
// run on: the one that pairs with the World interface and world-local the
// suite was written against (it depends on exactly those).
const worldPostgresVersion = "5.0.0-beta.27"

// knownWorldPostgresBugs are the cases world-postgres fails, on the
// workflow-sdk-world block and on a database its own migrations made
// alike, each a departure from the World interface's rules reproduced
// without bsadapter (docs/upstream-interfaces.md, "World"):
//   - run-created-twice: a second run_created for an existing run id is
//     logged as another run_created event, where world-local refuses it
//     (EntityConflictError);
//   - run-not-found: events for a run id never created are logged (as
//     world-local does);
//   - hook-not-found, hook-conflict, hook-disposed: hooks.get of a hook id
//     that names no hook throws a TypeError (it reads a field of the row it
//     did not find) instead of HookNotFoundError.
var knownWorldPostgresBugs = []string{
	"world/run-created-twice", "world/run-not-found",
	"world/hook-not-found", "world/hook-conflict", "world/hook-disposed",
}

// The Workflow SDK's PostgreSQL World, on a database that has the embedded
// blocks (its tables are the workflow-sdk-world block's, not its own
// migrations'), passes the world suite but for its known departures; and
// every run it made shows in the engine-neutral run registry through the
// block's mirror, with the World's status.
func TestBridgeWorldPostgresOnTheBlock(t *testing.T) {
	modules := worldModules(t)
	raw, err := os.ReadFile(filepath.Join(modules, "@workflow", "world-postgres", "package.json"))
	if err != nil {
		testenv.Missing(t, "@workflow/world-postgres is not installed in %s: add \"@workflow/world-postgres\": %q to tools/node/package.json and run 'npm install --no-save --prefix tools/node'", modules, worldPostgresVersion)
	}
	var pkg struct{ Version string }
	if err := json.Unmarshal(raw, &pkg); err != nil || pkg.Version != worldPostgresVersion {
		testenv.Missing(t, "%s holds @workflow/world-postgres %q; the world suite is run on %s: pin that version in tools/node/package.json", modules, pkg.Version, worldPostgresVersion)
	}

	s, db := pgtest.EmptyDB(t)
	conn := pgtest.Conn(t, s, db)
	ctx := context.Background()
	if _, err := blocks.Install(ctx, conn, blocks.Names()...); err != nil {
		t.Fatalf("install the blocks: %v", err)
	}

	node := testenv.Node(t)
	script, err := filepath.Abs(filepath.Join("testdata", "bridges", "world.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	// node-postgres takes a URL; the test server's is in key=value form.
	pc, err := pgx.ParseConfig(s.ConnString(db))
	if err != nil {
		t.Fatal(err)
	}
	dsn := url.URL{Scheme: "postgres", User: url.UserPassword(pc.User, pc.Password),
		Host: net.JoinHostPort(pc.Host, strconv.Itoa(int(pc.Port))), Path: "/" + pc.Database}
	opts, err := json.Marshal(map[string]any{"connectionString": dsn.String()})
	if err != nil {
		t.Fatal(err)
	}
	cmd := []string{node, script, "--module=@workflow/world-postgres", "--from=" + filepath.Dir(modules),
		"--factory=createWorld", "--options=" + string(opts)}
	// Not t.Context(): it ends before the cleanup closes the bridge, which
	// would then be killed rather than shut down.
	st, err := bridgestore.New(context.WithoutCancel(t.Context()), bridge.Options{Command: cmd, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatalf("start the world bridge over world-postgres: %v", err)
	}
	closed := false
	closeBridge := func() {
		if closed {
			return
		}
		closed = true
		if err := st.Close(); err != nil {
			t.Errorf("close the world bridge: %v", err)
		}
	}
	t.Cleanup(closeBridge)

	rep := runWorld(t, st)
	if got := rep.Failed(); !sameSet(got, knownWorldPostgresBugs) {
		t.Errorf("failed cases: got %v, want exactly world-postgres's known departures %v\n%s", got, knownWorldPostgresBugs, conformtest.Failures(rep))
	}
	closeBridge()

	// The World wrote its own tables; the block's trigger mirrored each of
	// its runs into the registry, which workflow_run_get reads by the
	// World's run id.
	rows, err := conn.Query(ctx, `select id, status::text from workflow.workflow_runs order by id`)
	if err != nil {
		t.Fatal(err)
	}
	type worldRun struct{ id, status string }
	var runs []worldRun
	for rows.Next() {
		var r worldRun
		if err := rows.Scan(&r.id, &r.status); err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(runs) < 10 {
		t.Fatalf("the World holds %d runs after the suite; the suite makes dozens", len(runs))
	}
	want := map[string]string{"pending": "queued", "running": "running", "completed": "completed", "failed": "failed", "cancelled": "cancelled"}
	seen := map[string]bool{}
	for _, r := range runs {
		var mirrored []byte
		if err := conn.QueryRow(ctx, `select better_supabase.workflow_run_get($1)`, r.id).Scan(&mirrored); err != nil {
			t.Fatalf("workflow_run_get(%s): %v", r.id, err)
		}
		var got struct {
			Engine     string `json:"engine"`
			ExternalID string `json:"externalId"`
			Status     string `json:"status"`
		}
		if mirrored == nil || json.Unmarshal(mirrored, &got) != nil {
			t.Errorf("World run %s (%s) is not in the run registry: %s", r.id, r.status, mirrored)
			continue
		}
		if got.Engine != "workflow-sdk" || got.ExternalID != r.id || got.Status != want[r.status] {
			t.Errorf("World run %s (%s) mirrored as %s: want engine workflow-sdk, external id %s, status %s", r.id, r.status, mirrored, r.id, want[r.status])
		}
		seen[r.status] = true
	}
	for _, st := range []string{"completed", "failed", "cancelled"} {
		if !seen[st] {
			t.Errorf("no World run ended %s; the suite ends runs each way, so the mirror of that status went unchecked", st)
		}
	}
}
