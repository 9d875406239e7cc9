// Package registry is the registry suite: the workflows block's run
// registry, where every workflow engine records its runs, keyed by
// (engine, external id), and where apps list, read and cancel them; and
// who may see and cancel which run.
package registry

import (
	"context"
	"time"

	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/conform"
)

// name is the suite's name; the gate also knows a purge of its runs by it
// (conform.PurgeOf), apart from the other suites' purges.
const name = "registry"

// Suite is the registry suite.
var Suite = conform.NewSuite(conform.Info{
	Name:        name,
	Contract:    "workflows",
	BridgeGroup: bridge.GroupRunRegistry,
	Module:      "workflows",
	Intro: "The workflows block's run registry (contracts.md section 5). Upstream has no kit for it; " +
		"these cases are built from the registry's semantics.",
}, Provider.RunRegistry, cases)

// The workflows block's rules beyond the registry's TypeScript interface
// (Workflows.runs in upstream's
// packages/better-supabase/src/blocks/workflows/workflows.ts, read at
// commits 2c37bf2096b9d60735abd77d54600453d72c0f74 and
// 1346fc7639849aebc57d2d21630547251af907f9), which some cases check. The
// interface says that record creates or updates a run, get finds one by
// its id or its engine's id, list is newest first with a limit of at most
// 500, requestCancel marks a run for cancellation by its actor, a
// workflow.admin of its tenant or the service role, and purge deletes
// finished runs older than its window; the block's SQL (contracts.md
// section 5) says more, and these name what.
var (
	// RecordRules is record_workflow_run's upsert.
	RecordRules = conform.BlockRule{
		Name: "record's upsert rules",
		Text: "`record_workflow_run` overwrites definition and status with no transition rules, keeps the first tenant, " +
			"actor and started_at, merges attributes, never clears an error and cuts it at 4000 characters, keeps " +
			"completed_at unless a new one comes, and refuses a status outside the six. The interface says only that " +
			"record creates or updates a run. No store declares otherwise yet: every store is held to them.",
	}
	// CancelRequestRules is what request_workflow_cancel does beyond
	// marking the run.
	CancelRequestRules = conform.BlockRule{
		Name: "cancel request details",
		Text: "`request_workflow_cancel` keeps the first request's time and returns a finished run unchanged; the " +
			"interface says only that it marks the run for cancellation. No store declares otherwise yet.",
	}
	// IDMatchFirst is workflow_run_get's precedence.
	IDMatchFirst = conform.BlockRule{
		Name: "id match first",
		Text: "`workflow_run_get` prefers a run whose registry id matches over one whose external id does; the " +
			"interface finds a run by either and says nothing of a tie. No store declares otherwise yet.",
	}
	// ReadRules is the block's row-level security of runs.
	ReadRules = conform.BlockRule{
		Name: "who reads which run",
		Text: "a user reads the runs it is the actor of and those of tenants where it holds `workflow.read`, anon none; " +
			"the interface lists \"the runs the caller may read\" and leaves which to the store. A store offers these " +
			"rules with the feature (bridge capability `" + bridge.CapRunCallers + "`). (Who may ask for a cancel is the " +
			"interface's own rule.)",
	}
)

// Provider is implemented by a store that offers a run registry.
type Provider interface {
	// RunRegistry prepares the suite for a run: what gives each case a
	// registry (and, where the store can, a way to age its runs), or why
	// the store cannot run the suite.
	RunRegistry(ctx context.Context) (conform.Opener[Subject], error)
}

// Subject is what a registry case runs against.
type Subject struct {
	Registry
	// Age shifts every timestamp of a run back, as if time had passed for
	// it; nil when the store cannot, and its time then passes by its
	// clock (conform.T.Clock) or in real time.
	Age conform.Ager
}

// Statuses are the six run statuses of the registry.
var Statuses = []string{"queued", "running", "waiting", "completed", "failed", "cancelled"}

// HintWorkflowForbidden refuses a cancel to a caller who may not.
const HintWorkflowForbidden = "WORKFLOW_FORBIDDEN"

// Record is the argument of Registry.Record. Empty strings and nil
// pointers mean SQL null.
type Record struct {
	Engine      string         `json:"engine"`
	ExternalID  string         `json:"externalId"`
	Definition  string         `json:"definition"`
	Status      string         `json:"status"`
	Tenant      string         `json:"tenant,omitempty"`
	Actor       string         `json:"actor,omitempty"`
	Attributes  map[string]any `json:"attributes,omitempty"`
	Error       *string        `json:"error,omitempty"`
	StartedAt   *time.Time     `json:"startedAt,omitempty"`
	CompletedAt *time.Time     `json:"completedAt,omitempty"`
}

// Run is a row of the registry in its camelCase JSON form.
type Run struct {
	ID                string         `json:"id"`
	Engine            string         `json:"engine"`
	ExternalID        string         `json:"externalId"`
	Definition        string         `json:"definition"`
	Tenant            *string        `json:"tenant"`
	Actor             *string        `json:"actor"`
	Status            string         `json:"status"`
	Attributes        map[string]any `json:"attributes"`
	Error             *string        `json:"error"`
	CreatedAt         *time.Time     `json:"createdAt"`
	UpdatedAt         *time.Time     `json:"updatedAt"`
	StartedAt         *time.Time     `json:"startedAt"`
	CompletedAt       *time.Time     `json:"completedAt"`
	CancelRequestedAt *time.Time     `json:"cancelRequestedAt"`
}

// Filter selects runs for Registry.List. Max zero means the contract's
// default of 50.
type Filter struct {
	Tenant     string     `json:"tenant,omitempty"`
	Definition string     `json:"definition,omitempty"`
	Status     string     `json:"status,omitempty"`
	Max        int        `json:"limit,omitempty"`
	Before     *time.Time `json:"before,omitempty"`
}

// Registry is the workflows block's run registry (contracts.md, section
// 5), as the service role calls it.
type Registry interface {
	Record(ctx context.Context, r Record) (string, error)
	Get(ctx context.Context, ref string) (*Run, error)
	List(ctx context.Context, f Filter) ([]Run, error)
	RequestCancel(ctx context.Context, ref string) (*Run, error)
	Purge(ctx context.Context, olderThan time.Duration, batch int) (int, error)
}

// View is the part of the run registry a caller other than the service
// role reaches: reading runs and asking for a cancel.
type View interface {
	Get(ctx context.Context, ref string) (*Run, error)
	List(ctx context.Context, f Filter) ([]Run, error)
	RequestCancel(ctx context.Context, ref string) (*Run, error)
}

// Callers is implemented by registries that know who is calling and
// where members hold permissions: the visibility cases need it. Grant
// gives user permission in tenant (such as workflow.read); it fails with
// conform.ErrNoGrants where the store cannot say who holds what.
type Callers interface {
	As(c conform.Caller) View
	Grant(ctx context.Context, user, tenant, permission string) error
}
