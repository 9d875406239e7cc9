package bridgestore

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"

	"github.com/bsadapter/bsadapter/internal/bridge"
	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/world"
)

// World drives the bridge's world methods: a Workflow SDK World over JSON.
func (b *Store) World(context.Context) (conform.Opener[world.World], error) {
	return group[world.World](b, bridge.GroupWorld, bridgeWorld{b})
}

// bridgeWorld drives a World over the world methods. Payloads are JSON;
// stream chunks travel as base64 ("bytes") or as text ("text").
type bridgeWorld struct{ b *Store }

// resolved adds resolveData to p when it is set.
func resolved(p map[string]any, resolve string) map[string]any {
	if resolve != "" {
		p["resolveData"] = resolve
	}
	return p
}

// paged adds pagination to p when it asks for anything.
func paged(p map[string]any, pg world.Pagination) map[string]any {
	if pg != (world.Pagination{}) {
		p["pagination"] = pg
	}
	return p
}

func (w bridgeWorld) identity(ctx context.Context) (int, string, error) {
	var res struct {
		SpecVersion  int    `json:"specVersion"`
		DeploymentID string `json:"deploymentId"`
	}
	err := w.b.call(ctx, bridge.MethodWorldIdentity, map[string]any{}, &res)
	return res.SpecVersion, res.DeploymentID, err
}

func (w bridgeWorld) SpecVersion(ctx context.Context) (int, error) {
	v, _, err := w.identity(ctx)
	return v, err
}

func (w bridgeWorld) DeploymentID(ctx context.Context) (string, error) {
	_, d, err := w.identity(ctx)
	return d, err
}

func (w bridgeWorld) CreateEvent(ctx context.Context, runID string, req world.EventRequest, resolve string) (world.EventResult, error) {
	var run any
	if runID != "" {
		run = runID
	}
	var res world.EventResult
	err := w.b.call(ctx, bridge.MethodWorldCreateEvent, resolved(map[string]any{"runId": run, "event": req}, resolve), &res)
	return res, err
}

func (w bridgeWorld) GetEvent(ctx context.Context, runID, eventID, resolve string) (world.Event, error) {
	var res struct {
		Event world.Event `json:"event"`
	}
	err := w.b.call(ctx, bridge.MethodWorldGetEvent, resolved(map[string]any{"runId": runID, "eventId": eventID}, resolve), &res)
	return res.Event, err
}

func (w bridgeWorld) ListEvents(ctx context.Context, runID string, p world.Pagination, resolve string) (world.Page[world.Event], error) {
	var res world.Page[world.Event]
	err := w.b.call(ctx, bridge.MethodWorldListEvents, resolved(paged(map[string]any{"runId": runID}, p), resolve), &res)
	return res, err
}

func (w bridgeWorld) ListEventsByCorrelation(ctx context.Context, corr string, p world.Pagination, resolve string) (world.Page[world.Event], error) {
	var res world.Page[world.Event]
	err := w.b.call(ctx, bridge.MethodWorldListByCorrelation, resolved(paged(map[string]any{"correlationId": corr}, p), resolve), &res)
	return res, err
}

func (w bridgeWorld) GetRun(ctx context.Context, runID, resolve string) (world.Run, error) {
	var res struct {
		Run world.Run `json:"run"`
	}
	err := w.b.call(ctx, bridge.MethodWorldGetRun, resolved(map[string]any{"runId": runID}, resolve), &res)
	return res.Run, err
}

func (w bridgeWorld) ListRuns(ctx context.Context, f world.RunFilter, p world.Pagination, resolve string) (world.Page[world.Run], error) {
	params := map[string]any{}
	if f.WorkflowName != "" {
		params["workflowName"] = f.WorkflowName
	}
	if f.Status != "" {
		params["status"] = f.Status
	}
	var res world.Page[world.Run]
	err := w.b.call(ctx, bridge.MethodWorldListRuns, resolved(paged(params, p), resolve), &res)
	return res, err
}

func (w bridgeWorld) GetStep(ctx context.Context, runID, stepID, resolve string) (world.Step, error) {
	var res struct {
		Step world.Step `json:"step"`
	}
	err := w.b.call(ctx, bridge.MethodWorldGetStep, resolved(map[string]any{"runId": runID, "stepId": stepID}, resolve), &res)
	return res.Step, err
}

func (w bridgeWorld) ListSteps(ctx context.Context, runID string, p world.Pagination, resolve string) (world.Page[world.Step], error) {
	var res world.Page[world.Step]
	err := w.b.call(ctx, bridge.MethodWorldListSteps, resolved(paged(map[string]any{"runId": runID}, p), resolve), &res)
	return res, err
}

func (w bridgeWorld) GetHook(ctx context.Context, hookID string) (world.Hook, error) {
	var res struct {
		Hook world.Hook `json:"hook"`
	}
	err := w.b.call(ctx, bridge.MethodWorldGetHook, map[string]any{"hookId": hookID}, &res)
	return res.Hook, err
}

func (w bridgeWorld) GetHookByToken(ctx context.Context, token string) (world.Hook, error) {
	var res struct {
		Hook world.Hook `json:"hook"`
	}
	err := w.b.call(ctx, bridge.MethodWorldGetHookByToken, map[string]any{"token": token}, &res)
	return res.Hook, err
}

func (w bridgeWorld) ListHooks(ctx context.Context, runID string, p world.Pagination) (world.Page[world.Hook], error) {
	var res world.Page[world.Hook]
	err := w.b.call(ctx, bridge.MethodWorldListHooks, paged(map[string]any{"runId": runID}, p), &res)
	return res, err
}

// wireChunk is a chunk to write: {"text"} for a string, {"bytes"} (base64)
// for a Uint8Array.
type wireChunk struct {
	Text  *string `json:"text,omitempty"`
	Bytes *string `json:"bytes,omitempty"`
}

func (w bridgeWorld) StreamWrite(ctx context.Context, runID, name string, chunks []world.Chunk, multi bool) error {
	wire := make([]wireChunk, len(chunks))
	for i, c := range chunks {
		if c.IsText {
			s := c.Text
			wire[i].Text = &s
		} else {
			s := base64.StdEncoding.EncodeToString(c.Bytes)
			wire[i].Bytes = &s
		}
	}
	return w.b.call(ctx, bridge.MethodWorldStreamWrite, map[string]any{"runId": runID, "name": name, "chunks": wire, "multi": multi}, nil)
}

func (w bridgeWorld) StreamClose(ctx context.Context, runID, name string) error {
	return w.b.call(ctx, bridge.MethodWorldStreamClose, map[string]any{"runId": runID, "name": name}, nil)
}

func (w bridgeWorld) StreamRead(ctx context.Context, runID, name string, start *int, wait time.Duration) (world.StreamRead, error) {
	p := map[string]any{"runId": runID, "name": name, "timeoutMs": wait.Milliseconds()}
	if start != nil {
		p["startIndex"] = *start
	}
	var res struct {
		Chunks [][]byte `json:"chunks"`
		Ended  bool     `json:"ended"`
	}
	err := w.b.callTimeout(ctx, wait+10*time.Second, bridge.MethodWorldStreamRead, p, &res)
	return world.StreamRead{Chunks: res.Chunks, Ended: res.Ended}, err
}

func (w bridgeWorld) StreamList(ctx context.Context, runID string) ([]string, error) {
	var res struct {
		Names []string `json:"names"`
	}
	err := w.b.call(ctx, bridge.MethodWorldStreamList, map[string]any{"runId": runID}, &res)
	if res.Names == nil {
		res.Names = []string{}
	}
	return res.Names, err
}

func (w bridgeWorld) StreamChunks(ctx context.Context, runID, name string, limit int, cursor string) (world.ChunkPage, error) {
	p := map[string]any{"runId": runID, "name": name}
	if limit > 0 {
		p["limit"] = limit
	}
	if cursor != "" {
		p["cursor"] = cursor
	}
	var res world.ChunkPage
	err := w.b.call(ctx, bridge.MethodWorldStreamChunks, p, &res)
	return res, err
}

func (w bridgeWorld) StreamInfo(ctx context.Context, runID, name string) (world.StreamInfo, error) {
	var res *world.StreamInfo
	if err := w.b.call(ctx, bridge.MethodWorldStreamInfo, map[string]any{"runId": runID, "name": name}, &res); err != nil {
		return world.StreamInfo{}, err
	}
	if res == nil {
		return world.StreamInfo{}, fmt.Errorf("%s answered null", bridge.MethodWorldStreamInfo)
	}
	return *res, nil
}

func (w bridgeWorld) Queue(ctx context.Context, name string, msg json.RawMessage, o world.QueueOptions) (string, error) {
	p := map[string]any{"queueName": name, "message": msg}
	if o != (world.QueueOptions{}) {
		p["options"] = o
	}
	var res struct {
		MessageID string `json:"messageId"`
	}
	err := w.b.call(ctx, bridge.MethodWorldQueue, p, &res)
	return res.MessageID, err
}

func (w bridgeWorld) Deliveries(ctx context.Context, name string, n int, wait time.Duration) ([]world.Delivery, error) {
	var res struct {
		Deliveries []world.Delivery `json:"deliveries"`
	}
	err := w.b.callTimeout(ctx, wait+10*time.Second, bridge.MethodWorldDeliveries, map[string]any{"queueName": name, "min": n, "timeoutMs": wait.Milliseconds()}, &res)
	return res.Deliveries, err
}

func (w bridgeWorld) CloseFresh(ctx context.Context) error {
	return w.b.callTimeout(ctx, 30*time.Second, bridge.MethodWorldCloseFresh, map[string]any{}, nil)
}
