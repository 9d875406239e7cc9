package memstore

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/builderrecords"
)

// BuilderRecords gives each builder-records case records of its own.
func (m *memoryStore) BuilderRecords(context.Context) (conform.Opener[builderrecords.Records], error) {
	return func(t *conform.T) (builderrecords.Records, error) {
		t.SetPrefix(m.prefix())
		return newBuilderRecords(), nil
	}, nil
}

// refBuilderRecords keeps the workflow-builder block's rules in Go:
// versions (one draft and one published per definition, a published
// version never edited), triggers with their tokens kept as SHA-256,
// node runs and alert fires (one per alert and run).
type refBuilderRecords struct {
	mu       sync.Mutex
	defs     map[string]bool
	versions map[string]*builderrecords.Version
	order    []string // version ids, oldest first
	triggers map[string]*builderTrigger
	tokens   map[string]string // hex SHA-256 -> trigger id
	runs     map[string]*builderRun
	nodes    map[string]map[string]*builderrecords.NodeRun // run -> node -> record
	alerts   map[string]*builderAlert
	fires    map[string]map[string]time.Time // alert -> run -> when
}

type builderTrigger struct {
	ID, Definition, Kind string
	Enabled              bool
}

type builderRun struct {
	definition, status string
	created            time.Time
}

type builderAlert struct {
	definition, onEvent string
	threshold           time.Duration
}

func newBuilderRecords() *refBuilderRecords {
	return &refBuilderRecords{defs: map[string]bool{}, versions: map[string]*builderrecords.Version{},
		triggers: map[string]*builderTrigger{}, tokens: map[string]string{}, runs: map[string]*builderRun{},
		nodes: map[string]map[string]*builderrecords.NodeRun{}, alerts: map[string]*builderAlert{}, fires: map[string]map[string]time.Time{}}
}

func builderErr(hint, format string, args ...any) error {
	return &conform.StoreError{Hint: hint, Message: fmt.Sprintf(format, args...) + " (" + hint + ")"}
}

func (r *refBuilderRecords) NewDefinition(context.Context) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	id := conform.NewUUID()
	r.defs[id] = true
	return id, nil
}

// statusOf is the definition's version with status, nil for none.
func (r *refBuilderRecords) statusOf(def, status string) *builderrecords.Version {
	for _, id := range r.order {
		if v := r.versions[id]; v.Definition == def && v.Status == status {
			return v
		}
	}
	return nil
}

func (r *refBuilderRecords) SaveDraft(_ context.Context, def string, graph json.RawMessage) (builderrecords.Version, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.defs[def] {
		return builderrecords.Version{}, builderErr("WORKFLOW_NOT_FOUND", "workflow %s does not exist", def)
	}
	if d := r.statusOf(def, "draft"); d != nil {
		d.Graph, d.Compiled = slices.Clone(graph), nil
		return *d, nil
	}
	n := 0
	for _, v := range r.versions {
		if v.Definition == def {
			n = max(n, v.Version)
		}
	}
	v := &builderrecords.Version{ID: conform.NewUUID(), Definition: def, Version: n + 1, Status: "draft", Graph: slices.Clone(graph)}
	r.versions[v.ID] = v
	r.order = append(r.order, v.ID)
	return *v, nil
}

func (r *refBuilderRecords) Publish(_ context.Context, id string, compiled json.RawMessage) (builderrecords.Version, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	v := r.versions[id]
	if v == nil {
		return builderrecords.Version{}, builderErr("WORKFLOW_NOT_FOUND", "workflow version %s does not exist", id)
	}
	if v.Status == "published" {
		if compiled != nil {
			v.Compiled = slices.Clone(compiled)
		}
		return *v, nil
	}
	if p := r.statusOf(v.Definition, "published"); p != nil {
		p.Status = "archived"
	}
	v.Status, v.Compiled = "published", slices.Clone(compiled)
	return *v, nil
}

func (r *refBuilderRecords) Version(_ context.Context, id string) (builderrecords.Version, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if v := r.versions[id]; v != nil {
		return *v, nil
	}
	return builderrecords.Version{}, fmt.Errorf("no workflow version %s", id)
}

func (r *refBuilderRecords) StartTarget(_ context.Context, def string) (builderrecords.Version, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.defs[def] {
		return builderrecords.Version{}, builderErr("WORKFLOW_NOT_FOUND", "workflow %s does not exist", def)
	}
	if p := r.statusOf(def, "published"); p != nil {
		return *p, nil
	}
	return builderrecords.Version{}, builderErr(builderrecords.HintNotPublished, "workflow %s has no published version", def)
}

func (r *refBuilderRecords) NewTrigger(_ context.Context, def, kind string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := &builderTrigger{ID: conform.NewUUID(), Definition: def, Kind: kind, Enabled: true}
	r.triggers[t.ID] = t
	return t.ID, nil
}

func (r *refBuilderRecords) EnableTrigger(_ context.Context, def, trigger string, on bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.triggers[trigger]
	if t == nil || t.Definition != def {
		return builderErr("WORKFLOW_NOT_FOUND", "workflow %s has no trigger %s", def, trigger)
	}
	t.Enabled = on
	return nil
}

func webhookTokenHash(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

func (r *refBuilderRecords) RotateToken(_ context.Context, trigger string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.triggers[trigger]
	if t == nil {
		return "", builderErr("WORKFLOW_NOT_FOUND", "workflow trigger %s does not exist", trigger)
	}
	if t.Kind != "webhook" {
		return "", builderErr("WORKFLOW_TRIGGER_KIND", "a %s trigger has no webhook token", t.Kind)
	}
	for h, id := range r.tokens {
		if id == trigger {
			delete(r.tokens, h)
		}
	}
	b := make([]byte, 24)
	rand.Read(b)
	token := "wfh_" + hex.EncodeToString(b)
	r.tokens[webhookTokenHash(token)] = trigger
	return token, nil
}

func (r *refBuilderRecords) WebhookTarget(_ context.Context, token string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t := r.triggers[r.tokens[webhookTokenHash(token)]]; t != nil && t.Enabled {
		return t.ID, nil
	}
	return "", nil
}

func (r *refBuilderRecords) AtRest(context.Context) (json.RawMessage, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return json.Marshal(map[string]any{"triggers": r.triggers, "tokens": r.tokens})
}

func (r *refBuilderRecords) NewRun(_ context.Context, def string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	id := conform.NewUUID()
	r.runs[id] = &builderRun{definition: def, status: "running", created: time.Now()}
	return id, nil
}

// FailRun fails the run; a run that becomes failed fires its
// definition's failed alerts, once each.
func (r *refBuilderRecords) FailRun(_ context.Context, run string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	rn := r.runs[run]
	if rn == nil {
		return fmt.Errorf("no run %s", run)
	}
	was := rn.status
	rn.status = "failed"
	if was == "failed" {
		return nil
	}
	for id, a := range r.alerts {
		if a.onEvent == "failed" && a.definition == rn.definition {
			r.fire(id, run)
		}
	}
	return nil
}

// fire records that alert fired for run, unless it did; it reports
// whether it fired now.
func (r *refBuilderRecords) fire(alert, run string) bool {
	if r.fires[alert] == nil {
		r.fires[alert] = map[string]time.Time{}
	}
	if _, ok := r.fires[alert][run]; ok {
		return false
	}
	r.fires[alert][run] = time.Now()
	return true
}

func (r *refBuilderRecords) AgeRun(_ context.Context, run string, d time.Duration) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	rn := r.runs[run]
	if rn == nil {
		return fmt.Errorf("no run %s", run)
	}
	rn.created = rn.created.Add(-d)
	return nil
}

func (r *refBuilderRecords) RecordNode(_ context.Context, run, node, status string, attempt int) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.runs[run] == nil {
		return false, nil
	}
	now := time.Now()
	var ended *time.Time
	if status == "completed" || status == "failed" || status == "skipped" {
		ended = &now
	}
	if r.nodes[run] == nil {
		r.nodes[run] = map[string]*builderrecords.NodeRun{}
	}
	n := r.nodes[run][node]
	if n == nil {
		n = &builderrecords.NodeRun{Node: node, StartedAt: &now}
		r.nodes[run][node] = n
	}
	n.Status, n.Attempts, n.EndedAt = status, max(n.Attempts, attempt), ended
	return true, nil
}

func (r *refBuilderRecords) NodeRuns(_ context.Context, run string) ([]builderrecords.NodeRun, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := []builderrecords.NodeRun{}
	for _, n := range r.nodes[run] {
		out = append(out, *n)
	}
	slices.SortFunc(out, func(a, b builderrecords.NodeRun) int { return a.StartedAt.Compare(*b.StartedAt) })
	return out, nil
}

func (r *refBuilderRecords) NewAlert(_ context.Context, def, onEvent string, threshold time.Duration) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if onEvent == "slow" && threshold <= 0 {
		return "", builderErr("WORKFLOW_ALERT_INVALID", "a slow alert needs a positive threshold")
	}
	id := conform.NewUUID()
	r.alerts[id] = &builderAlert{definition: def, onEvent: onEvent, threshold: threshold}
	return id, nil
}

// CheckAlerts fires each slow alert for each unfinished run of its
// definition created longer than its threshold ago, once per run.
func (r *refBuilderRecords) CheckAlerts(context.Context) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for id, a := range r.alerts {
		if a.onEvent != "slow" {
			continue
		}
		for runID, rn := range r.runs {
			if rn.definition == a.definition && rn.status != "failed" && time.Since(rn.created) > a.threshold && r.fire(id, runID) {
				n++
			}
		}
	}
	return n, nil
}

func (r *refBuilderRecords) Fires(_ context.Context, alert string) ([]time.Time, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []time.Time
	for _, at := range r.fires[alert] {
		out = append(out, at)
	}
	slices.SortFunc(out, time.Time.Compare)
	return out, nil
}

// PublishAsMember makes a draft and publishes it as a member: a member
// may publish, but only the server stores a compiled form.
func (r *refBuilderRecords) PublishAsMember(ctx context.Context, compiled json.RawMessage) (string, error) {
	def, _ := r.NewDefinition(ctx)
	v, err := r.SaveDraft(ctx, def, json.RawMessage(`{"nodes": [{"id": "start", "kind": "trigger"}], "edges": []}`))
	if err != nil {
		return "", err
	}
	if compiled != nil {
		return v.ID, builderErr(builderrecords.HintCompiledForbidden, "only the server stores the compiled form of a workflow")
	}
	_, err = r.Publish(ctx, v.ID, nil)
	return v.ID, err
}
