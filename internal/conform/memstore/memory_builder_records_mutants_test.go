package memstore

import (
	"context"
	"encoding/json"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/builderrecords"
)

// builderRecordsStore is the reference store whose builder records are
// the mutant of its name: each breaks one of the workflow-builder block's
// rules by reaching into the reference's state.
type builderRecordsStore struct {
	*memoryStore
	mutation string
}

func builderRecordsMutant(name string) conform.Store {
	switch name {
	case "drops-compiled", "drafts-edit-published", "rotation-keeps-old-token", "disabled-resolve",
		"attempts-overwritten", "ended-kept", "alerts-fire-every-time":
		return builderRecordsStore{&memoryStore{}, name}
	}
	panic("no builder-records mutant is named " + name)
}

func (m builderRecordsStore) BuilderRecords(ctx context.Context) (conform.Opener[builderrecords.Records], error) {
	open, err := m.memoryStore.BuilderRecords(ctx)
	return mutate(open, err, func(r builderrecords.Records) builderrecords.Records {
		return &brokenRecords{refBuilderRecords: r.(*refBuilderRecords), mutation: m.mutation, old: map[string]string{}}
	})
}

type brokenRecords struct {
	*refBuilderRecords
	mutation string
	old      map[string]string // every token given -> its trigger
}

func (b *brokenRecords) Publish(ctx context.Context, id string, compiled json.RawMessage) (builderrecords.Version, error) {
	if b.mutation == "drops-compiled" {
		compiled = nil
	}
	return b.refBuilderRecords.Publish(ctx, id, compiled)
}

func (b *brokenRecords) SaveDraft(ctx context.Context, def string, graph json.RawMessage) (builderrecords.Version, error) {
	if b.mutation == "drafts-edit-published" {
		b.mu.Lock()
		p, d := b.statusOf(def, "published"), b.statusOf(def, "draft")
		if p != nil && d == nil {
			p.Graph, p.Compiled = graph, nil
			b.mu.Unlock()
			return *p, nil
		}
		b.mu.Unlock()
	}
	return b.refBuilderRecords.SaveDraft(ctx, def, graph)
}

func (b *brokenRecords) RotateToken(ctx context.Context, trigger string) (string, error) {
	tok, err := b.refBuilderRecords.RotateToken(ctx, trigger)
	if err == nil {
		b.mu.Lock()
		b.old[tok] = trigger
		b.mu.Unlock()
	}
	return tok, err
}

func (b *brokenRecords) WebhookTarget(ctx context.Context, token string) (string, error) {
	b.mu.Lock()
	trigger, given := b.old[token]
	t := b.triggers[trigger]
	b.mu.Unlock()
	switch {
	case b.mutation == "rotation-keeps-old-token" && given && t.Enabled:
		return trigger, nil
	case b.mutation == "disabled-resolve" && given && b.tokens[webhookTokenHash(token)] == trigger:
		return trigger, nil
	}
	return b.refBuilderRecords.WebhookTarget(ctx, token)
}

func (b *brokenRecords) RecordNode(ctx context.Context, run, node, status string, attempt int) (bool, error) {
	b.mu.Lock()
	var ended *time.Time
	if n := b.nodes[run][node]; n != nil {
		ended = n.EndedAt
	}
	b.mu.Unlock()
	ok, err := b.refBuilderRecords.RecordNode(ctx, run, node, status, attempt)
	b.mu.Lock()
	defer b.mu.Unlock()
	if n := b.nodes[run][node]; n != nil {
		switch b.mutation {
		case "attempts-overwritten":
			n.Attempts = attempt
		case "ended-kept":
			if n.EndedAt == nil {
				n.EndedAt = ended
			}
		}
	}
	return ok, err
}

// forget drops the fires of run (every run: "") so that they fire anew.
func (b *brokenRecords) forget(run string) {
	for _, fires := range b.fires {
		for r := range fires {
			if run == "" || r == run {
				delete(fires, r)
			}
		}
	}
}

func (b *brokenRecords) FailRun(ctx context.Context, run string) error {
	if b.mutation == "alerts-fire-every-time" {
		b.mu.Lock()
		if rn := b.runs[run]; rn != nil {
			rn.status = "running"
		}
		b.forget(run)
		b.mu.Unlock()
	}
	return b.refBuilderRecords.FailRun(ctx, run)
}

func (b *brokenRecords) CheckAlerts(ctx context.Context) (int, error) {
	if b.mutation == "alerts-fire-every-time" {
		b.mu.Lock()
		for id, a := range b.alerts {
			if a.onEvent == "slow" {
				delete(b.fires, id)
			}
		}
		b.mu.Unlock()
	}
	return b.refBuilderRecords.CheckAlerts(ctx)
}
