// Package world is the world suite: the Workflow SDK's World (npm
// @workflow/world), the storage, queue and streams a workflow runtime
// runs on. Its cases drive every required member of the interface, each
// event type events.create takes, ordering, idempotency, hooks, waits,
// stream chunks, the list methods' pagination, correlation ids, errors
// and close, judged by the interface's types and documentation (and by
// @workflow/world-local's behaviour where the documentation is silent).
package world

import (
	"context"
	"encoding/json"
	"time"

	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/conform"
)

// Suite is the world suite.
var Suite = conform.NewSuite(conform.Info{
	Name:        "world",
	Contract:    "world",
	BridgeGroup: bridge.GroupWorld,
	Intro: "The Workflow SDK's `World` (npm `@workflow/world` " + InterfaceVersion + "; `@workflow/world-local` " + LocalVersion + " is the reference it is checked against): " +
		"its storage (`events.create` with each of the sixteen event types a caller may create, and the run, step, hook and wait entities they materialize), " +
		"the list methods and their cursors, correlation ids, the streamer (chunks written as text and bytes, live and paged reads, start indexes, stream info), " +
		"the queue (a message reaches the handler `createQueueHandler` made for its prefix), the errors a caller relies on (`EntityConflictError`, " +
		"`WorkflowRunNotFoundError`, `HookNotFoundError`, the `hook_conflict` event) and `close`. " +
		"Rules come from the interface's types and documentation, and from world-local's behaviour only where the documentation is silent (each such case says so). " +
		"`@workflow/world-testing` " + KitVersion + ", the SDK's own end-to-end kit, runs 12 workflows on a World and reaches 11 of its members; " +
		"which of its tests each case covers is in [upstream-interfaces.md](upstream-interfaces.md). " +
		"Over the bridge this suite needs the `world` capability; `testdata/bridges/world.mjs` wraps any World object.",
}, Provider.World, withTimeout(cases))

// caseTimeout bounds each case: a World on files (world-local) takes a
// lock and writes a file per event, and a case makes dozens of events.
const caseTimeout = time.Minute

// withTimeout gives every case caseTimeout.
func withTimeout(cs []conform.CaseOf[World]) []conform.CaseOf[World] {
	for i := range cs {
		cs[i].Timeout = caseTimeout
	}
	return cs
}

// The versions of the Workflow SDK packages the suite was written
// against: @workflow/world-testing KitVersion pins the other two.
const (
	InterfaceVersion = "5.0.0-beta.21"
	LocalVersion     = "5.0.0-beta.29"
	KitVersion       = "5.0.0-beta.35"
)

// Provider is implemented by a store that offers a World.
type Provider interface {
	// World prepares the suite for a run: what gives each case the World,
	// or why the store cannot run the suite.
	World(ctx context.Context) (conform.Opener[World], error)
}

// The error names a World's callers tell apart, as @workflow/errors names
// them (the error's name; over the bridge its data.hint).
const (
	ErrEntityConflict = "EntityConflictError"
	ErrRunNotFound    = "WorkflowRunNotFoundError"
	ErrHookNotFound   = "HookNotFoundError"
	ErrRunExpired     = "RunExpiredError"
)

// EventRequest is what events.create takes: an event type, the
// correlation id of the step, hook or wait it concerns, and its data.
type EventRequest struct {
	EventType     string         `json:"eventType"`
	CorrelationID string         `json:"correlationId,omitempty"`
	SpecVersion   int            `json:"specVersion,omitempty"`
	EventData     map[string]any `json:"eventData,omitempty"`
}

// Event is a stored event. EventData keeps each field as the World gave
// it.
type Event struct {
	EventID       string                     `json:"eventId"`
	RunID         string                     `json:"runId"`
	EventType     string                     `json:"eventType"`
	CorrelationID string                     `json:"correlationId,omitempty"`
	EventData     map[string]json.RawMessage `json:"eventData,omitempty"`
	CreatedAt     time.Time                  `json:"createdAt"`
}

// Run is a workflow run entity.
type Run struct {
	RunID        string            `json:"runId"`
	Status       string            `json:"status"`
	DeploymentID string            `json:"deploymentId"`
	WorkflowName string            `json:"workflowName"`
	Input        json.RawMessage   `json:"input,omitempty"`
	Output       json.RawMessage   `json:"output,omitempty"`
	Error        json.RawMessage   `json:"error,omitempty"`
	ErrorCode    string            `json:"errorCode,omitempty"`
	Attributes   map[string]string `json:"attributes,omitempty"`
	StartedAt    *time.Time        `json:"startedAt,omitempty"`
	CompletedAt  *time.Time        `json:"completedAt,omitempty"`
	CreatedAt    time.Time         `json:"createdAt"`
	UpdatedAt    time.Time         `json:"updatedAt"`
}

// Step is a step entity.
type Step struct {
	RunID       string          `json:"runId"`
	StepID      string          `json:"stepId"`
	StepName    string          `json:"stepName"`
	Status      string          `json:"status"`
	Input       json.RawMessage `json:"input,omitempty"`
	Output      json.RawMessage `json:"output,omitempty"`
	Error       json.RawMessage `json:"error,omitempty"`
	Attempt     int             `json:"attempt"`
	StartedAt   *time.Time      `json:"startedAt,omitempty"`
	CompletedAt *time.Time      `json:"completedAt,omitempty"`
	CreatedAt   time.Time       `json:"createdAt"`
	UpdatedAt   time.Time       `json:"updatedAt"`
}

// Hook is a hook entity.
type Hook struct {
	RunID     string          `json:"runId"`
	HookID    string          `json:"hookId"`
	Token     string          `json:"token"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
	OwnerID   string          `json:"ownerId"`
	ProjectID string          `json:"projectId"`
	CreatedAt time.Time       `json:"createdAt"`
}

// Wait is a wait entity, as events.create returns it.
type Wait struct {
	WaitID      string     `json:"waitId"`
	RunID       string     `json:"runId"`
	Status      string     `json:"status"`
	ResumeAt    *time.Time `json:"resumeAt,omitempty"`
	CompletedAt *time.Time `json:"completedAt,omitempty"`
}

// EventResult is what events.create returns: the stored event and the
// entity it created or changed.
type EventResult struct {
	Event *Event `json:"event,omitempty"`
	Run   *Run   `json:"run,omitempty"`
	Step  *Step  `json:"step,omitempty"`
	Hook  *Hook  `json:"hook,omitempty"`
	Wait  *Wait  `json:"wait,omitempty"`
}

// Pagination is a list method's PaginationOptions; zero values are
// absent.
type Pagination struct {
	Limit     int    `json:"limit,omitempty"`
	Cursor    string `json:"cursor,omitempty"`
	SortOrder string `json:"sortOrder,omitempty"`
}

// Page is a PaginatedResponse.
type Page[T any] struct {
	Data    []T     `json:"data"`
	Cursor  *string `json:"cursor"`
	HasMore bool    `json:"hasMore"`
}

// RunFilter is what runs.list filters on.
type RunFilter struct {
	WorkflowName string `json:"workflowName,omitempty"`
	Status       string `json:"status,omitempty"`
}

// The values of a read's resolveData.
const (
	ResolveAll  = "all"
	ResolveNone = "none"
)

// Chunk is one chunk written to a stream: text (a JavaScript string) or
// bytes (a Uint8Array).
type Chunk struct {
	Text   string
	Bytes  []byte
	IsText bool
}

// Text is a chunk written as a string.
func Text(s string) Chunk { return Chunk{Text: s, IsText: true} }

// Bytes is a chunk written as bytes.
func Bytes(b []byte) Chunk { return Chunk{Bytes: b} }

// Data is the chunk's bytes as a reader gets them: a string in UTF-8.
func (c Chunk) Data() []byte {
	if c.IsText {
		return []byte(c.Text)
	}
	return c.Bytes
}

// StreamRead is what a live read (streams.get) delivered: the chunks in
// order, and whether the stream ended (the read's ReadableStream closed)
// before the wait was over.
type StreamRead struct {
	Chunks [][]byte
	Ended  bool
}

// StreamChunk is one chunk of a getChunks page.
type StreamChunk struct {
	Index int    `json:"index"`
	Data  []byte `json:"data"`
}

// ChunkPage is a getChunks page (StreamChunksResponse).
type ChunkPage struct {
	Data    []StreamChunk `json:"data"`
	Cursor  *string       `json:"cursor"`
	HasMore bool          `json:"hasMore"`
	Done    bool          `json:"done"`
}

// StreamInfo is getInfo's answer.
type StreamInfo struct {
	TailIndex int  `json:"tailIndex"`
	Done      bool `json:"done"`
}

// QueueOptions are the queue call's options the cases use.
type QueueOptions struct {
	IdempotencyKey string `json:"idempotencyKey,omitempty"`
	DelaySeconds   int    `json:"delaySeconds,omitempty"`
}

// Delivery is one call of a queue handler: the message as the handler
// got it and its meta.
type Delivery struct {
	Message   json.RawMessage `json:"message"`
	QueueName string          `json:"queueName"`
	MessageID string          `json:"messageId"`
	Attempt   int             `json:"attempt"`
}

// World is the Workflow SDK's World as the cases drive it. The subject
// has registered a queue handler (createQueueHandler) for each of the
// default prefixes, __wkf_workflow_ and __wkf_step_, that records what it
// is handed and returns; Deliveries reads that record. A run id of ""
// given to CreateEvent is JavaScript's null.
type World interface {
	// SpecVersion is the World's specVersion.
	SpecVersion(ctx context.Context) (int, error)
	// DeploymentID is getDeploymentId().
	DeploymentID(ctx context.Context) (string, error)

	// CreateEvent is events.create(runId, data, {resolveData}).
	CreateEvent(ctx context.Context, runID string, req EventRequest, resolve string) (EventResult, error)
	// GetEvent is events.get.
	GetEvent(ctx context.Context, runID, eventID, resolve string) (Event, error)
	// ListEvents is events.list.
	ListEvents(ctx context.Context, runID string, p Pagination, resolve string) (Page[Event], error)
	// ListEventsByCorrelation is events.listByCorrelationId.
	ListEventsByCorrelation(ctx context.Context, correlationID string, p Pagination, resolve string) (Page[Event], error)

	// GetRun is runs.get.
	GetRun(ctx context.Context, runID, resolve string) (Run, error)
	// ListRuns is runs.list.
	ListRuns(ctx context.Context, f RunFilter, p Pagination, resolve string) (Page[Run], error)
	// GetStep is steps.get.
	GetStep(ctx context.Context, runID, stepID, resolve string) (Step, error)
	// ListSteps is steps.list.
	ListSteps(ctx context.Context, runID string, p Pagination, resolve string) (Page[Step], error)
	// GetHook is hooks.get.
	GetHook(ctx context.Context, hookID string) (Hook, error)
	// GetHookByToken is hooks.getByToken.
	GetHookByToken(ctx context.Context, token string) (Hook, error)
	// ListHooks is hooks.list.
	ListHooks(ctx context.Context, runID string, p Pagination) (Page[Hook], error)

	// StreamWrite is streams.write of each chunk in turn, or one
	// streams.writeMulti when multi is set and the World has it.
	StreamWrite(ctx context.Context, runID, name string, chunks []Chunk, multi bool) error
	// StreamClose is streams.close.
	StreamClose(ctx context.Context, runID, name string) error
	// StreamRead is streams.get(runId, name, startIndex) read until its
	// ReadableStream ends or wait is over; start nil is no startIndex.
	StreamRead(ctx context.Context, runID, name string, start *int, wait time.Duration) (StreamRead, error)
	// StreamList is streams.list.
	StreamList(ctx context.Context, runID string) ([]string, error)
	// StreamChunks is streams.getChunks.
	StreamChunks(ctx context.Context, runID, name string, limit int, cursor string) (ChunkPage, error)
	// StreamInfo is streams.getInfo.
	StreamInfo(ctx context.Context, runID, name string) (StreamInfo, error)

	// Queue is queue(queueName, message, opts) and returns the messageId.
	Queue(ctx context.Context, queueName string, message json.RawMessage, o QueueOptions) (string, error)
	// Deliveries returns what the handlers were handed for queueName,
	// waiting up to wait for at least min deliveries.
	Deliveries(ctx context.Context, queueName string, min int, wait time.Duration) ([]Delivery, error)

	// CloseFresh makes a World of the same kind apart from the subject,
	// uses it once (a run created and read back) and closes it: close()
	// must resolve.
	CloseFresh(ctx context.Context) error
}
