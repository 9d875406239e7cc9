package aicache

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/bsadapter/bsadapter/internal/conform"
)

var cases = []conform.CaseOf[Cache]{
	{ID: "ai-cache/hit-counted", Rule: "a read of a live entry returns its value and counts a hit, and a write to the key starts the count again", Run: hitCounted},
	{ID: "ai-cache/expired-reads-absent", Rule: "an entry past its TTL reads as absent, until a write makes it live again with the new value", Run: expiredReadsAbsent},
	{ID: "ai-cache/ttl-bounds", Rule: "a TTL is whole seconds: under one is refused with " + HintInvalid + " and stores nothing, over a week is cut to a week", Run: ttlBounds},
	{ID: "ai-cache/delete-by-criteria", Rule: "a delete removes the entries matching every key, tenant and model it names and no other, and naming none is refused with " + HintInvalid, Run: deleteByCriteria},
	{ID: "ai-cache/service-role-only", Rule: "anon and a signed-in user may neither read nor write the cache (42501), and their write stores nothing", Run: serviceRoleOnly},
}

// value is a cached result, as a model middleware stores it.
func value(tag string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"text": "answer %s", "usage": {"inputTokens": 3, "outputTokens": 2}}`, tag))
}

// get reads key, stopping the case on an error.
func get(t *conform.T, c Cache, key string) *Entry {
	e, err := c.Get(t.Context(), key)
	t.Must("get", err)
	return e
}

func hits(e *Entry) any {
	if e == nil {
		return "no entry"
	}
	return e.Hits
}

func hitCounted(t *conform.T, c Cache) {
	key := t.ID("hit")
	v := value(key)
	_, err := c.Set(t.Context(), key, v, Put{TTL: 3600})
	t.Must("set", err)
	first := get(t, c, key)
	second := get(t, c, key)
	_, err = c.Set(t.Context(), key, value("again"), Put{TTL: 3600})
	t.Must("set again", err)
	third := get(t, c, key)
	if !t.That(first != nil && second != nil && third != nil, "reads of a live entry", "an entry each time", []any{hits(first), hits(second), hits(third)}) {
		return
	}
	t.That(conform.SameJSON(first.Value, v), "the value read", string(v), string(first.Value))
	t.Eq("hits after the first read", first.Hits, 1)
	t.Eq("hits after the second read", second.Hits, 2)
	t.Eq("hits after a write and one read", third.Hits, 1)
	t.That(conform.SameJSON(third.Value, value("again")), "the value read after a write", string(value("again")), string(third.Value))
}

func expiredReadsAbsent(t *conform.T, c Cache) {
	key := t.ID("expired")
	_, err := c.Set(t.Context(), key, value(key), Put{TTL: 60})
	t.Must("set", err)
	t.Must("expire", c.Expire(t.Context(), key))
	gone := get(t, c, key)
	_, err = c.Set(t.Context(), key, value("fresh"), Put{TTL: 60})
	t.Must("set again", err)
	back := get(t, c, key)
	t.That(gone == nil, "a read past the TTL", "no entry", gone)
	if t.That(back != nil, "a read after a new write", "the live entry", back) {
		t.That(conform.SameJSON(back.Value, value("fresh")), "the value read after a new write", string(value("fresh")), string(back.Value))
	}
}

func ttlBounds(t *conform.T, c Cache) {
	short, long := t.ID("short"), t.ID("long")
	_, zeroErr := c.Set(t.Context(), short, value(short), Put{TTL: 0})
	absent := get(t, c, short)
	e, err := c.Set(t.Context(), long, value(long), Put{TTL: 30 * 24 * 3600})
	t.Must("set for thirty days", err)
	if err := conform.WantHint("set with a TTL of 0 seconds", zeroErr, HintInvalid); err != nil {
		t.Error(err)
	}
	t.That(absent == nil, "the key of a refused write", "no entry", absent)
	week := 7 * 24 * time.Hour
	t.Eq("a thirty-day TTL, as expires_at minus created_at", e.ExpiresAt.Sub(e.CreatedAt).String(), week.String())
}

func deleteByCriteria(t *conform.T, c Cache) {
	ctx := t.Context()
	tenantA, tenantB := t.UUID(), t.UUID()
	model := "model-" + t.UUID()
	a1, a2, b1, b2 := t.ID("a1"), t.ID("a2"), t.ID("b1"), t.ID("b2")
	keys := map[string]Put{
		a1: {TTL: 3600, Tenant: tenantA, Model: model},
		a2: {TTL: 3600, Tenant: tenantA},
		b1: {TTL: 3600, Tenant: tenantB, Model: model},
		b2: {TTL: 3600, Tenant: tenantB},
	}
	for _, k := range conform.SortedKeys(keys) {
		_, err := c.Set(ctx, k, value(k), keys[k])
		t.Must("set", err)
	}
	_, noneErr := c.Delete(ctx, "", "", "")
	both, err := c.Delete(ctx, "", tenantA, model)
	t.Must("delete by tenant and model", err)
	byTenant, err := c.Delete(ctx, "", tenantB, "")
	t.Must("delete by tenant", err)
	var left []string
	for _, k := range conform.SortedKeys(keys) {
		if get(t, c, k) != nil {
			left = append(left, k)
		}
	}
	if err := conform.WantHint("a delete naming nothing", noneErr, HintInvalid); err != nil {
		t.Error(err)
	}
	t.Eq("deleted by tenant A and the model", both, 1)
	t.Eq("deleted by tenant B", byTenant, 2)
	t.Eq("the keys left", left, []string{a2})
}

func serviceRoleOnly(t *conform.T, c Cache) {
	key := t.ID("guarded")
	_, err := c.Set(t.Context(), key, value(key), Put{TTL: 3600})
	t.Must("set", err)
	other := t.ID("unwritten")
	for _, who := range []conform.Caller{conform.Anon, conform.User(t.UUID())} {
		if err := c.GetAs(t.Context(), who, key); !conform.Refused(err) {
			t.Error(&conform.Mismatch{What: "a read as " + who.Role, Expected: "refused (42501)", Actual: refusal(err)})
		}
		if err := c.SetAs(t.Context(), who, other, value(other)); !conform.Refused(err) {
			t.Error(&conform.Mismatch{What: "a write as " + who.Role, Expected: "refused (42501)", Actual: refusal(err)})
		}
	}
	t.That(get(t, c, other) == nil, "the key the refused writes named", "no entry", "an entry")
}

func refusal(err error) string {
	if err == nil {
		return "let through"
	}
	var se *conform.StoreError
	if errors.As(err, &se) {
		return se.Error()
	}
	return err.Error()
}
