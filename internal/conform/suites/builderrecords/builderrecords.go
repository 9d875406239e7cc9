// Package builderrecords is the builder-records suite: what
// better-supabase's workflow-builder block keeps for a visual workflow
// builder (its definitions' versions and compiled forms, its triggers and
// webhook tokens, the nodes of its runs and its alerts), driven through
// the block's functions.
package builderrecords

import (
	"context"
	"encoding/json"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform"
)

// Suite is the builder-records suite.
var Suite = conform.NewSuite(conform.Info{
	Name:   "builder-records",
	Module: "workflow-builder",
	Intro: "What the `workflow-builder` block records for a visual workflow builder, one rule a case: " +
		"a published version keeps the compiled form it was published with and is what a run starts from, " +
		"versions once published are never edited (a save opens a new draft), a draft is never a start target, " +
		"a webhook token resolves only while its trigger is enabled and only until it is rotated, and only its hash is kept, " +
		"node runs keep the highest attempt, the first start and an end only for a finished node, " +
		"and an alert fires once per run. `pg` drives the block's functions as the service role " +
		"(`save_workflow_draft`, `publish_workflow_version`, `workflow_start_target`, `rotate_workflow_webhook_token`, " +
		"`workflow_webhook_target`, `record_workflow_node_run`, `workflow_node_runs_list`, `save_workflow_alert`, " +
		"`check_workflow_alerts`), and as a signed-in member where a rule is about members; " +
		"runs are recorded through the workflows block's `record_workflow_run`, their `bs.definition` attribute naming the definition. " +
		"The memory reference keeps the same rules in Go.",
}, Provider.BuilderRecords, cases)

// Provider is implemented by a store that keeps a workflow builder's
// records.
type Provider interface {
	// BuilderRecords prepares the suite for a run: what gives each case
	// its records, or why the store cannot run the suite.
	BuilderRecords(ctx context.Context) (conform.Opener[Records], error)
}

// The block's hints the cases look for.
const (
	HintNotPublished      = "WORKFLOW_NOT_PUBLISHED"
	HintCompiledForbidden = "WORKFLOW_COMPILED_FORBIDDEN"
)

// Version is a version of a definition, whole.
type Version struct {
	ID         string          `json:"id"`
	Definition string          `json:"definition"`
	Version    int             `json:"version"`
	Status     string          `json:"status"`
	Graph      json.RawMessage `json:"graph"`
	Compiled   json.RawMessage `json:"compiled"`
}

// NodeRun is a node's record in a run.
type NodeRun struct {
	Node      string     `json:"node"`
	Status    string     `json:"status"`
	Attempts  int        `json:"attempts"`
	StartedAt *time.Time `json:"startedAt"`
	EndedAt   *time.Time `json:"endedAt"`
}

// Records is a workflow builder's records, as the cases drive them.
// Failures the block names are *conform.StoreError values whose Hint is
// the block's hint (HintNotPublished, ...).
type Records interface {
	// NewDefinition creates a definition of the case's own and returns
	// its id.
	NewDefinition(ctx context.Context) (string, error)
	// SaveDraft saves graph as the definition's draft.
	SaveDraft(ctx context.Context, definition string, graph json.RawMessage) (Version, error)
	// Publish publishes the version with the compiled form (nil: none),
	// as the server.
	Publish(ctx context.Context, version string, compiled json.RawMessage) (Version, error)
	// Version reads a version whole.
	Version(ctx context.Context, id string) (Version, error)
	// StartTarget is the version a run of the definition starts from.
	StartTarget(ctx context.Context, definition string) (Version, error)
	// NewTrigger creates an enabled trigger of kind on the definition.
	NewTrigger(ctx context.Context, definition, kind string) (string, error)
	// EnableTrigger turns the definition's webhook trigger on or off.
	EnableTrigger(ctx context.Context, definition, trigger string, on bool) error
	// RotateToken gives a webhook trigger a new token and returns it.
	RotateToken(ctx context.Context, trigger string) (string, error)
	// WebhookTarget is the id of the trigger token resolves to, "" for
	// none.
	WebhookTarget(ctx context.Context, token string) (string, error)
	// AtRest is every row the store keeps of triggers and their tokens.
	AtRest(ctx context.Context) (json.RawMessage, error)
	// NewRun records a running run of the definition and returns its id.
	NewRun(ctx context.Context, definition string) (string, error)
	// FailRun reports the run failed (again, when it is already).
	FailRun(ctx context.Context, run string) error
	// AgeRun moves the run's timestamps back by d.
	AgeRun(ctx context.Context, run string, d time.Duration) error
	// RecordNode reports a node's status and attempt in the run; false
	// when there is no such run.
	RecordNode(ctx context.Context, run, node, status string, attempt int) (bool, error)
	// NodeRuns lists the nodes of the run.
	NodeRuns(ctx context.Context, run string) ([]NodeRun, error)
	// NewAlert creates an alert on the definition (onEvent "failed" or
	// "slow", threshold for a slow one) and returns its id.
	NewAlert(ctx context.Context, definition, onEvent string, threshold time.Duration) (string, error)
	// CheckAlerts fires the slow alerts that are due.
	CheckAlerts(ctx context.Context) (int, error)
	// Fires are the times the alert fired, one a run it fired for.
	Fires(ctx context.Context, alert string) ([]time.Time, error)
}

// Member is implemented by records whose block tells the server from a
// signed-in member of the definition's tenant.
type Member interface {
	// PublishAsMember makes a draft of a definition of a tenant in which
	// a member has workflow.publish and publishes it as that member, with
	// the compiled form: the draft's id and the error the block answered.
	PublishAsMember(ctx context.Context, compiled json.RawMessage) (string, error)
}
