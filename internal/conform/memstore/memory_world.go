package memstore

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/world"
)

// worldMutation names a deliberate fault of the reference World, which
// only the mutant tests set; the zero value is the reference.
type worldMutation string

// refWorld is the reference Workflow SDK World: an event log in memory,
// with the run, step, hook and wait entities it materializes, streams and
// a queue whose handlers record what they are handed. One mutex guards it
// all, so that each events.create is one atomic step.
type refWorld struct {
	mut worldMutation

	mu       sync.Mutex
	seq      int
	runs     map[string]*world.Run
	runOrder []string
	events   []world.Event
	steps    map[string]*world.Step // by runId/stepId
	stepList []string
	hooks    map[string]*world.Hook // live hooks by hookId
	hookList []string
	tokens   map[string]string // token -> hookId of its live hook
	waits    map[string]*world.Wait
	streams  map[string]*refStream // by runId/name
	queued   map[string][]world.Delivery
	keys     map[string]string // idempotency key -> messageId
	// changed is closed (and replaced) whenever a stream or a queue
	// changes, waking the reads and the deliveries that wait.
	changed chan struct{}
}

// refStream is one stream's chunks and whether it is closed.
type refStream struct {
	run, name string
	chunks    [][]byte
	closed    bool
}

func newWorld() *refWorld {
	return &refWorld{
		runs: map[string]*world.Run{}, steps: map[string]*world.Step{}, hooks: map[string]*world.Hook{},
		tokens: map[string]string{}, waits: map[string]*world.Wait{}, streams: map[string]*refStream{},
		queued: map[string][]world.Delivery{}, keys: map[string]string{}, changed: make(chan struct{}),
	}
}

// refSpecVersion is the spec version the reference implements: the
// current one of @workflow/world.
const refSpecVersion = 5

func (m *refWorld) SpecVersion(context.Context) (int, error) { return refSpecVersion, nil }

func (m *refWorld) DeploymentID(context.Context) (string, error) { return "dpl_memory", nil }

// failure is an error of the World's, named as @workflow/errors names it
// ("" for a plain Error).
func failure(name, format string, args ...any) error {
	return &conform.StoreError{Hint: name, Message: fmt.Sprintf(format, args...)}
}

// wake tells every waiting read and delivery that something changed.
func (m *refWorld) wakeLocked() {
	close(m.changed)
	m.changed = make(chan struct{})
}

// nextID returns a new id with prefix: a ULID-shaped, increasing text.
func (m *refWorld) nextIDLocked(prefix string) string {
	m.seq++
	return fmt.Sprintf("%s%026d", prefix, m.seq)
}

func terminalRun(status string) bool {
	return status == "completed" || status == "failed" || status == "cancelled"
}

func terminalStep(status string) bool {
	return status == "completed" || status == "failed" || status == "cancelled"
}

// raw renders an event data value as JSON.
func raw(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

// field reads one eventData field as JSON (nil when absent).
func field(data map[string]any, k string) json.RawMessage {
	v, ok := data[k]
	if !ok {
		return nil
	}
	return raw(v)
}

// str reads one eventData field as a string.
func str(data map[string]any, k string) string {
	s, _ := data[k].(string)
	return s
}

func (m *refWorld) CreateEvent(_ context.Context, runID string, req world.EventRequest, resolve string) (world.EventResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now().UTC()
	data := req.EventData
	if data == nil {
		data = map[string]any{}
	}
	logEvent := func(typ string, d map[string]any) *world.Event {
		e := world.Event{EventID: m.nextIDLocked("evnt_"), RunID: runID, EventType: typ, CorrelationID: req.CorrelationID, CreatedAt: now}
		if len(d) > 0 {
			e.EventData = map[string]json.RawMessage{}
			for k, v := range d {
				e.EventData[k] = raw(v)
			}
		}
		m.events = append(m.events, e)
		out := stripEvent(e, resolve)
		return &out
	}
	if req.EventType == "run_created" {
		if runID == "" {
			runID = world.NewRunID()
		}
		if _, ok := m.runs[runID]; ok && m.mut != "run-created-overwrites" {
			return world.EventResult{}, failure(world.ErrEntityConflict, "workflow run %q already exists", runID)
		}
		if str(data, "workflowName") == "" || str(data, "deploymentId") == "" {
			return world.EventResult{}, failure("", "run_created needs eventData.deploymentId and eventData.workflowName")
		}
		attrs := map[string]string{}
		if a, ok := data["attributes"].(map[string]string); ok {
			maps.Copy(attrs, a)
		} else if a, ok := data["attributes"].(map[string]any); ok {
			for k, v := range a {
				attrs[k], _ = v.(string)
			}
		}
		if err := m.reservedLocked(attrs, data); err != nil {
			return world.EventResult{}, err
		}
		r := &world.Run{RunID: runID, Status: "pending", DeploymentID: str(data, "deploymentId"), WorkflowName: str(data, "workflowName"),
			Input: field(data, "input"), Attributes: attrs, CreatedAt: now, UpdatedAt: now}
		if _, ok := m.runs[runID]; !ok {
			m.runOrder = append(m.runOrder, runID)
		}
		m.runs[runID] = r
		e := logEvent(req.EventType, data)
		return world.EventResult{Event: e, Run: m.runOut(r, resolve)}, nil
	}
	run, ok := m.runs[runID]
	if !ok {
		return world.EventResult{}, failure(world.ErrRunNotFound, "workflow run %q not found", runID)
	}
	switch req.EventType {
	case "step_created", "hook_created", "wait_created":
		if terminalRun(run.Status) {
			return world.EventResult{}, failure(world.ErrEntityConflict, "cannot create new entities on run in terminal state %q", run.Status)
		}
	}
	switch req.EventType {
	case "run_started", "run_completed", "run_failed", "run_cancelled":
		if run.Status == "cancelled" && req.EventType == "run_cancelled" && m.mut != "cancel-not-idempotent" {
			e := logEvent(req.EventType, data)
			return world.EventResult{Event: e, Run: m.runOut(run, resolve)}, nil
		}
		if terminalRun(run.Status) && req.EventType == "run_started" && m.mut != "terminal-run-reopens" {
			return world.EventResult{}, failure(world.ErrRunExpired, "workflow run %q is already in terminal state %q", runID, run.Status)
		}
		if terminalRun(run.Status) && m.mut != "terminal-run-reopens" {
			return world.EventResult{}, failure(world.ErrEntityConflict, "cannot transition run from terminal state %q", run.Status)
		}
		switch req.EventType {
		case "run_started":
			if run.Status == "running" {
				// The resilient start sends run_started again: the run stays
				// as it is, and no second event is logged.
				return world.EventResult{Run: m.runOut(run, resolve)}, nil
			}
			run.Status = "running"
			if run.StartedAt == nil {
				run.StartedAt = &now
			}
		case "run_completed":
			run.Status, run.Output = "completed", field(data, "output")
		case "run_failed":
			run.Status, run.Error, run.ErrorCode = "failed", field(data, "error"), str(data, "errorCode")
		case "run_cancelled":
			run.Status = "cancelled"
		}
		run.UpdatedAt = now
		if terminalRun(run.Status) {
			run.CompletedAt = &now
			if m.mut != "hooks-kept-at-end" {
				m.disposeHooksLocked(runID)
			}
		}
		e := logEvent(req.EventType, data)
		return world.EventResult{Event: e, Run: m.runOut(run, resolve)}, nil

	case "attr_set":
		var changes []struct {
			Key   string  `json:"key"`
			Value *string `json:"value"`
		}
		if err := json.Unmarshal(field(data, "changes"), &changes); err != nil {
			return world.EventResult{}, failure("", "attr_set: eventData.changes is not a list of {key, value}: %v", err)
		}
		keys := map[string]string{}
		for _, c := range changes {
			keys[c.Key] = ""
		}
		if err := m.reservedLocked(keys, data); err != nil {
			return world.EventResult{}, err
		}
		for _, c := range changes {
			if c.Value != nil {
				run.Attributes[c.Key] = *c.Value
			} else {
				delete(run.Attributes, c.Key)
			}
		}
		run.UpdatedAt = now
		e := logEvent(req.EventType, data)
		return world.EventResult{Event: e, Run: m.runOut(run, resolve)}, nil

	case "step_created", "step_started", "step_completed", "step_failed", "step_retrying":
		key := runID + "/" + req.CorrelationID
		st, ok := m.steps[key]
		if req.EventType == "step_created" {
			if ok {
				return world.EventResult{}, failure(world.ErrEntityConflict, "step %q already created", req.CorrelationID)
			}
			st = &world.Step{RunID: runID, StepID: req.CorrelationID, StepName: str(data, "stepName"), Status: "pending",
				Input: field(data, "input"), CreatedAt: now, UpdatedAt: now}
			m.steps[key] = st
			m.stepList = append(m.stepList, key)
			e := logEvent(req.EventType, data)
			return world.EventResult{Event: e, Step: stepOut(st, resolve)}, nil
		}
		if !ok {
			if req.EventType != "step_started" || str(data, "stepName") == "" || data["input"] == nil {
				return world.EventResult{}, failure("", "step %q not found", req.CorrelationID)
			}
			if terminalRun(run.Status) {
				return world.EventResult{}, failure(world.ErrEntityConflict, "cannot create new entities on run in terminal state %q", run.Status)
			}
			// The lazy start: step_started with the step's name and input
			// creates the step first.
			st = &world.Step{RunID: runID, StepID: req.CorrelationID, StepName: str(data, "stepName"), Status: "pending",
				Input: field(data, "input"), CreatedAt: now, UpdatedAt: now}
			m.steps[key] = st
			m.stepList = append(m.stepList, key)
			logEvent("step_created", map[string]any{"stepName": st.StepName, "input": data["input"]})
		}
		if terminalStep(st.Status) {
			return world.EventResult{}, failure(world.ErrEntityConflict, "cannot modify step in terminal state %q", st.Status)
		}
		switch req.EventType {
		case "step_started":
			st.Status = "running"
			st.Attempt++
			if m.mut == "step-attempt-resets" {
				st.Attempt = 1
			}
			if st.StartedAt == nil {
				st.StartedAt = &now
			}
		case "step_completed":
			st.Status, st.Output, st.CompletedAt = "completed", field(data, "result"), &now
		case "step_failed":
			st.Status, st.Error, st.CompletedAt = "failed", field(data, "error"), &now
		case "step_retrying":
			st.Status, st.Error = "pending", field(data, "error")
		}
		st.UpdatedAt = now
		e := logEvent(req.EventType, data)
		return world.EventResult{Event: e, Step: stepOut(st, resolve)}, nil

	case "hook_created":
		token := str(data, "token")
		if holder, ok := m.tokens[token]; ok && m.mut != "hook-token-not-unique" {
			e := logEvent("hook_conflict", map[string]any{"token": token, "conflictingRunId": m.hooks[holder].RunID})
			return world.EventResult{Event: e}, nil
		}
		if _, ok := m.hooks[req.CorrelationID]; ok {
			return world.EventResult{}, failure(world.ErrEntityConflict, "hook %q already created", req.CorrelationID)
		}
		h := &world.Hook{RunID: runID, HookID: req.CorrelationID, Token: token, Metadata: field(data, "metadata"),
			OwnerID: "memory-owner", ProjectID: "memory-project", CreatedAt: now}
		m.hooks[h.HookID] = h
		m.hookList = append(m.hookList, h.HookID)
		m.tokens[token] = h.HookID
		e := logEvent(req.EventType, data)
		return world.EventResult{Event: e, Hook: h}, nil

	case "hook_received", "hook_disposed":
		h, ok := m.hooks[req.CorrelationID]
		if !ok {
			return world.EventResult{}, failure(world.ErrHookNotFound, "hook %q not found", req.CorrelationID)
		}
		if req.EventType == "hook_disposed" {
			m.disposeHookLocked(h)
		}
		e := logEvent(req.EventType, data)
		return world.EventResult{Event: e}, nil

	case "wait_created", "wait_completed":
		key := runID + "/" + req.CorrelationID
		wt, ok := m.waits[key]
		if req.EventType == "wait_created" {
			if ok {
				return world.EventResult{}, failure(world.ErrEntityConflict, "wait %q already created", req.CorrelationID)
			}
			at, err := time.Parse(time.RFC3339Nano, str(data, "resumeAt"))
			if err != nil {
				return world.EventResult{}, failure("", "wait_created: eventData.resumeAt %q is not a date", str(data, "resumeAt"))
			}
			wt = &world.Wait{WaitID: runID + "-" + req.CorrelationID, RunID: runID, Status: "waiting", ResumeAt: &at}
			m.waits[key] = wt
		} else {
			if !ok {
				return world.EventResult{}, failure("", "wait %q not found", req.CorrelationID)
			}
			if wt.Status == "completed" {
				return world.EventResult{}, failure(world.ErrEntityConflict, "wait %q already completed", req.CorrelationID)
			}
			wt.Status, wt.CompletedAt = "completed", &now
		}
		e := logEvent(req.EventType, data)
		w := *wt
		return world.EventResult{Event: e, Wait: &w}, nil
	}
	return world.EventResult{}, failure("", "events.create: %q is not an event type a caller may create", req.EventType)
}

// reservedLocked refuses an attribute key with the reserved $ prefix
// unless data allows reserved attributes.
func (m *refWorld) reservedLocked(attrs map[string]string, data map[string]any) error {
	if data["allowReservedAttributes"] == true || m.mut == "reserved-allowed" {
		return nil
	}
	for k := range attrs {
		if strings.HasPrefix(k, "$") {
			return failure("AttributeValidationError", "attribute key %q starts with the reserved prefix $", k)
		}
	}
	return nil
}

// disposeHooksLocked disposes every live hook of run.
func (m *refWorld) disposeHooksLocked(run string) {
	for _, id := range m.hookList {
		if h, ok := m.hooks[id]; ok && h.RunID == run {
			m.disposeHookLocked(h)
		}
	}
}

func (m *refWorld) disposeHookLocked(h *world.Hook) {
	delete(m.hooks, h.HookID)
	if m.tokens[h.Token] == h.HookID {
		delete(m.tokens, h.Token)
	}
}

// payloadFields are the eventData fields resolveData none leaves out, by
// event type (@workflow/world's EVENT_DATA_PAYLOAD_FIELD_BY_EVENT_TYPE).
var payloadFields = map[string]string{
	"run_created": "input", "run_started": "input", "run_completed": "output", "run_failed": "error",
	"step_created": "input", "step_started": "input", "step_completed": "result", "step_failed": "error",
	"step_retrying": "error", "hook_created": "metadata", "hook_received": "payload",
}

// stripEvent is e as a read with resolveData resolve returns it.
func stripEvent(e world.Event, resolve string) world.Event {
	f, ok := payloadFields[e.EventType]
	if resolve != world.ResolveNone || !ok || e.EventData == nil {
		return e
	}
	d := map[string]json.RawMessage{}
	for k, v := range e.EventData {
		if k != f {
			d[k] = v
		}
	}
	e.EventData = d
	if len(d) == 0 {
		e.EventData = nil
	}
	return e
}

func (m *refWorld) runOut(r *world.Run, resolve string) *world.Run {
	c := *r
	c.Attributes = map[string]string{}
	for k, v := range r.Attributes {
		c.Attributes[k] = v
	}
	if resolve == world.ResolveNone && m.mut != "resolve-none-ignored" {
		c.Input, c.Output = nil, nil
	}
	return &c
}

func stepOut(s *world.Step, resolve string) *world.Step {
	c := *s
	if resolve == world.ResolveNone {
		c.Input, c.Output = nil, nil
	}
	return &c
}

func (m *refWorld) GetEvent(_ context.Context, runID, eventID, resolve string) (world.Event, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, e := range m.events {
		if e.RunID == runID && e.EventID == eventID {
			return stripEvent(e, resolve), nil
		}
	}
	return world.Event{}, failure("", "event %s in run %s not found", eventID, runID)
}

// page cuts one page out of items (in ascending order), keyed by key, as
// p asks: sorted, after the cursor (the key of the last item of the page
// before), at most p.Limit (100 when zero) long.
func page[T any](items []T, key func(T) string, p world.Pagination, defaultOrder string, ignoreCursor bool) world.Page[T] {
	items = slices.Clone(items)
	order := p.SortOrder
	if order == "" {
		order = defaultOrder
	}
	if order == "desc" {
		slices.Reverse(items)
	}
	if p.Cursor != "" && !ignoreCursor {
		for i, it := range items {
			if key(it) == p.Cursor {
				items = items[i+1:]
				break
			}
		}
	}
	limit := p.Limit
	if limit <= 0 {
		limit = 100
	}
	out := world.Page[T]{Data: items}
	if len(items) > limit {
		out.Data, out.HasMore = items[:limit], true
	}
	if len(out.Data) > 0 {
		c := key(out.Data[len(out.Data)-1])
		out.Cursor = &c
	}
	if out.Data == nil {
		out.Data = []T{}
	}
	return out
}

func (m *refWorld) listEvents(match func(world.Event) bool, p world.Pagination, resolve string) world.Page[world.Event] {
	var es []world.Event
	for _, e := range m.events {
		if match(e) {
			es = append(es, stripEvent(e, resolve))
		}
	}
	if m.mut == "events-desc-ignored" {
		p.SortOrder = "asc"
	}
	return page(es, func(e world.Event) string { return e.EventID }, p, "asc", m.mut == "cursor-ignored")
}

func (m *refWorld) ListEvents(_ context.Context, runID string, p world.Pagination, resolve string) (world.Page[world.Event], error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.listEvents(func(e world.Event) bool { return e.RunID == runID }, p, resolve), nil
}

func (m *refWorld) ListEventsByCorrelation(_ context.Context, corr string, p world.Pagination, resolve string) (world.Page[world.Event], error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	run := ""
	for _, e := range m.events {
		if e.CorrelationID == corr {
			run = e.RunID
			break
		}
	}
	return m.listEvents(func(e world.Event) bool {
		if m.mut == "correlation-leaks" {
			return e.RunID == run
		}
		return e.CorrelationID == corr
	}, p, resolve), nil
}

func (m *refWorld) GetRun(_ context.Context, runID, resolve string) (world.Run, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.runs[runID]
	if !ok {
		return world.Run{}, failure(world.ErrRunNotFound, "workflow run %q not found", runID)
	}
	return *m.runOut(r, resolve), nil
}

func (m *refWorld) ListRuns(_ context.Context, f world.RunFilter, p world.Pagination, resolve string) (world.Page[world.Run], error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var rs []world.Run
	for _, id := range m.runOrder {
		r := m.runs[id]
		if (f.WorkflowName == "" || r.WorkflowName == f.WorkflowName) && (f.Status == "" || r.Status == f.Status) {
			rs = append(rs, *m.runOut(r, resolve))
		}
	}
	return page(rs, func(r world.Run) string { return r.RunID }, p, "desc", m.mut == "cursor-ignored"), nil
}

func (m *refWorld) GetStep(_ context.Context, runID, stepID, resolve string) (world.Step, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.steps[runID+"/"+stepID]
	if !ok {
		return world.Step{}, failure("", "step %s in run %s not found", stepID, runID)
	}
	return *stepOut(s, resolve), nil
}

func (m *refWorld) ListSteps(_ context.Context, runID string, p world.Pagination, resolve string) (world.Page[world.Step], error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var ss []world.Step
	for _, k := range m.stepList {
		if s := m.steps[k]; s.RunID == runID {
			ss = append(ss, *stepOut(s, resolve))
		}
	}
	return page(ss, func(s world.Step) string { return s.StepID }, p, "asc", m.mut == "cursor-ignored"), nil
}

func (m *refWorld) GetHook(_ context.Context, hookID string) (world.Hook, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	h, ok := m.hooks[hookID]
	if !ok {
		return world.Hook{}, failure(world.ErrHookNotFound, "hook %q not found", hookID)
	}
	return *h, nil
}

func (m *refWorld) GetHookByToken(_ context.Context, token string) (world.Hook, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	id, ok := m.tokens[token]
	if !ok {
		return world.Hook{}, failure(world.ErrHookNotFound, "no hook holds the token")
	}
	return *m.hooks[id], nil
}

func (m *refWorld) ListHooks(_ context.Context, runID string, p world.Pagination) (world.Page[world.Hook], error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var hs []world.Hook
	for _, id := range m.hookList {
		if h, ok := m.hooks[id]; ok && h.RunID == runID {
			hs = append(hs, *h)
		}
	}
	return page(hs, func(h world.Hook) string { return h.HookID }, p, "asc", m.mut == "cursor-ignored"), nil
}

// streamLocked returns the stream name of run, made when missing.
func (m *refWorld) streamLocked(run, name string) *refStream {
	k := run + "/" + name
	s, ok := m.streams[k]
	if !ok {
		s = &refStream{run: run, name: name}
		m.streams[k] = s
	}
	return s
}

func (m *refWorld) StreamWrite(_ context.Context, runID, name string, chunks []world.Chunk, _ bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.streamLocked(runID, name)
	if s.closed {
		return failure("", "stream %q is closed", name)
	}
	for _, c := range chunks {
		s.chunks = append(s.chunks, slices.Clone(c.Data()))
	}
	m.wakeLocked()
	return nil
}

func (m *refWorld) StreamClose(_ context.Context, runID, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.streamLocked(runID, name).closed = true
	m.wakeLocked()
	return nil
}

func (m *refWorld) StreamRead(ctx context.Context, runID, name string, start *int, wait time.Duration) (world.StreamRead, error) {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	m.mu.Lock()
	s := m.streamLocked(runID, name)
	next := 0
	if start != nil {
		next = *start
		if next < 0 {
			next = len(s.chunks) + next
			if m.mut == "stream-negative-start-from-zero" {
				next = 0
			}
		}
		next = max(next, 0)
	}
	var out world.StreamRead
	for {
		for ; next < len(s.chunks); next++ {
			out.Chunks = append(out.Chunks, slices.Clone(s.chunks[next]))
		}
		if s.closed || m.mut == "live-read-snapshot" {
			out.Ended = true
			m.mu.Unlock()
			return out, nil
		}
		changed := m.changed
		m.mu.Unlock()
		select {
		case <-changed:
		case <-timer.C:
			return out, nil
		case <-ctx.Done():
			return out, ctx.Err()
		}
		m.mu.Lock()
	}
}

func (m *refWorld) StreamList(_ context.Context, runID string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	names := []string{}
	for _, s := range m.streams {
		if s.run == runID && (len(s.chunks) > 0 || s.closed) {
			names = append(names, s.name)
		}
	}
	slices.Sort(names)
	return names, nil
}

func (m *refWorld) StreamChunks(_ context.Context, runID, name string, limit int, cursor string) (world.ChunkPage, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.streamLocked(runID, name)
	from := 0
	if cursor != "" {
		n, err := strconv.Atoi(cursor)
		if err != nil || n < 0 {
			return world.ChunkPage{}, failure("", "getChunks: cursor %q is not one of this World's", cursor)
		}
		from = n
	}
	if limit <= 0 {
		limit = 100
	}
	out := world.ChunkPage{Data: []world.StreamChunk{}}
	end := min(from+limit, len(s.chunks))
	for i := from; i < end; i++ {
		out.Data = append(out.Data, world.StreamChunk{Index: i, Data: slices.Clone(s.chunks[i])})
	}
	if end < len(s.chunks) {
		c := strconv.Itoa(end)
		out.Cursor, out.HasMore = &c, true
	}
	out.Done = !out.HasMore && (s.closed || m.mut == "stream-done-early")
	return out, nil
}

func (m *refWorld) StreamInfo(_ context.Context, runID, name string) (world.StreamInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.streamLocked(runID, name)
	return world.StreamInfo{TailIndex: len(s.chunks) - 1, Done: s.closed}, nil
}

// queueName is @workflow/world's ValidQueueName.
var queueName = regexp.MustCompile(`^__(?:[a-z][a-z0-9]*_)?wkf_(?:workflow|step)_.+$`)

func (m *refWorld) Queue(_ context.Context, name string, msg json.RawMessage, o world.QueueOptions) (string, error) {
	if !queueName.MatchString(name) {
		return "", failure("", "queue: %q is not a valid queue name", name)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if o.IdempotencyKey != "" {
		if id, ok := m.keys[o.IdempotencyKey]; ok {
			return id, nil
		}
	}
	id := m.nextIDLocked("msg_")
	if o.IdempotencyKey != "" {
		m.keys[o.IdempotencyKey] = id
	}
	attempt := 1
	if m.mut == "queue-wrong-attempt" {
		attempt = 0
	}
	// The handlers of both default prefixes record every delivery, as
	// soon as it is queued (no delay is asked by the cases).
	if strings.HasPrefix(name, "__wkf_workflow_") || strings.HasPrefix(name, "__wkf_step_") {
		m.queued[name] = append(m.queued[name], world.Delivery{Message: slices.Clone(msg), QueueName: name, MessageID: id, Attempt: attempt})
		m.wakeLocked()
	}
	return id, nil
}

func (m *refWorld) Deliveries(ctx context.Context, name string, n int, wait time.Duration) ([]world.Delivery, error) {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		m.mu.Lock()
		ds := slices.Clone(m.queued[name])
		changed := m.changed
		m.mu.Unlock()
		if len(ds) >= n {
			return ds, nil
		}
		select {
		case <-changed:
		case <-timer.C:
			return ds, nil
		case <-ctx.Done():
			return ds, ctx.Err()
		}
	}
}

// CloseFresh uses a World of its own once and closes it: the reference
// holds nothing to release.
func (m *refWorld) CloseFresh(ctx context.Context) error {
	w := newWorld()
	r, err := w.CreateEvent(ctx, "", world.EventRequest{EventType: "run_created", SpecVersion: refSpecVersion,
		EventData: map[string]any{"deploymentId": "dpl_memory", "workflowName": "close", "input": []int{}}}, "")
	if err != nil {
		return err
	}
	_, err = w.GetRun(ctx, r.Run.RunID, "")
	return err
}

// World gives each world case a reference World of its own.
func (m *memoryStore) World(context.Context) (conform.Opener[world.World], error) {
	return func(t *conform.T) (world.World, error) {
		t.SetPrefix(m.prefix())
		return newWorld(), nil
	}, nil
}
