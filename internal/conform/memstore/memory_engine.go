package memstore

import (
	"context"
	"sync"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/engine"
	"github.com/bsadapter/bsadapter/internal/conform/suites/registry"
)

// The statuses of the reference engine, named after Temporal's
// WorkflowExecutionStatus, and where the adapter maps them. A run that
// continued as new goes on under the same workflow id, so it is running.
var refEngineStatuses = []struct {
	engine.Status
	maps string
}{
	{engine.Status{Name: "RUNNING"}, "running"},
	{engine.Status{Name: "CONTINUED_AS_NEW"}, "running"},
	{engine.Status{Name: "COMPLETED", Terminal: true}, "completed"},
	{engine.Status{Name: "FAILED", Terminal: true}, "failed"},
	{engine.Status{Name: "TIMED_OUT", Terminal: true}, "failed"},
	{engine.Status{Name: "CANCELED", Terminal: true}, "cancelled"},
	{engine.Status{Name: "TERMINATED", Terminal: true}, "cancelled"},
}

// refEngine is the reference engine adapter over a fake engine: workflow
// ids are the idempotency keys, every change is recorded in the registry.
type refEngine struct {
	reg *refRegistry

	mu   sync.Mutex
	runs map[string]*engineRun // by registry id
	keys map[string]string     // idempotency key -> registry id
}

// engineRun is the fake engine's state of one workflow.
type engineRun struct {
	workflowID, definition, tenant, actor string
	cancelAsked                           bool
}

const refEngineName = "memory-engine"

func newEngine() *refEngine {
	return &refEngine{reg: newRegistry(), runs: map[string]*engineRun{}, keys: map[string]string{}}
}

func (e *refEngine) Identity(context.Context) (int, string, string, error) {
	return 1, "memory", refEngineName, nil
}

func (e *refEngine) Statuses(context.Context) ([]engine.Status, error) {
	out := make([]engine.Status, len(refEngineStatuses))
	for i, s := range refEngineStatuses {
		out[i] = s.Status
	}
	return out, nil
}

func (e *refEngine) MapStatus(_ context.Context, status string) (string, error) {
	for _, s := range refEngineStatuses {
		if s.Name == status {
			return s.maps, nil
		}
	}
	return "", &conform.StoreError{Hint: conform.KindInvalidInput, Message: "unknown engine status " + status}
}

func (e *refEngine) Registry() registry.Registry { return e.reg }

func (e *refEngine) Start(ctx context.Context, r engine.StartRequest) (string, error) {
	e.mu.Lock()
	key := r.IdempotencyKey
	if id, ok := e.keys[key]; ok {
		e.mu.Unlock()
		return id, nil
	}
	e.mu.Unlock()
	id, err := e.reg.Record(ctx, registry.Record{Engine: refEngineName, ExternalID: key, Definition: r.Definition, Status: "queued", Tenant: r.Tenant, Actor: r.Actor})
	if err != nil {
		return "", err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.keys[key] = id
	e.runs[id] = &engineRun{workflowID: key, definition: r.Definition, tenant: r.Tenant, actor: r.Actor}
	return id, nil
}

func (e *refEngine) run(id string) (*engineRun, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	r, ok := e.runs[id]
	if !ok {
		return nil, &conform.StoreError{Hint: conform.KindNotFound, Message: "no run " + id}
	}
	return r, nil
}

// Emit records the engine's change through the registry.
func (e *refEngine) Emit(ctx context.Context, id string, ev engine.Event) error {
	r, err := e.run(id)
	if err != nil {
		return err
	}
	status, err := e.MapStatus(ctx, ev.Status)
	if err != nil {
		return err
	}
	rec := registry.Record{Engine: refEngineName, ExternalID: r.workflowID, Definition: r.definition, Status: status, Tenant: r.tenant, Actor: r.actor, Attributes: ev.Attributes}
	if ev.Error != "" {
		rec.Error = &ev.Error
	}
	if status == "running" {
		rec.StartedAt = ev.At
	}
	if status == "completed" || status == "failed" || status == "cancelled" {
		rec.CompletedAt = ev.At
	}
	_, err = e.reg.Record(ctx, rec)
	return err
}

// Sync honours a cancel request: it cancels the engine's run, and the
// engine's CANCELED is recorded.
func (e *refEngine) Sync(ctx context.Context, id string) error {
	r, err := e.run(id)
	if err != nil {
		return err
	}
	run, err := e.reg.Get(ctx, id)
	if err != nil || run == nil || run.CancelRequestedAt == nil || terminal(run.Status) {
		return err
	}
	e.mu.Lock()
	r.cancelAsked = true
	e.mu.Unlock()
	return e.Emit(ctx, id, engine.Event{Status: "CANCELED"})
}

func (e *refEngine) EngineCancelled(_ context.Context, id string) (bool, error) {
	r, err := e.run(id)
	if err != nil {
		return false, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return r.cancelAsked, nil
}

// WorkflowEngine gives each engine case a reference adapter of its own,
// over a fake engine and a reference registry of their own.
func (m *memoryStore) WorkflowEngine(context.Context) (conform.Opener[engine.Engine], error) {
	return func(t *conform.T) (engine.Engine, error) {
		t.SetPrefix(m.prefix())
		return newEngine(), nil
	}, nil
}
