package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/suites/aicache"
	"github.com/bsadapter/bsadapter/internal/conform/suites/knowledge"
	"github.com/bsadapter/bsadapter/internal/conform/suites/memory"
	"github.com/jackc/pgx/v5"
)

// The ai-cache, knowledge and memory suites work in the run's shared
// clone: every case has keys, tenants and users of its own.

// Cache gives each ai-cache case the ai-cache module.
func (p *pgStore) Cache(context.Context) (conform.Opener[aicache.Cache], error) {
	if err := p.missing[aicache.Suite.Name]; err != nil {
		return nil, err
	}
	return func(t *conform.T) (aicache.Cache, error) {
		t.SetPrefix(p.prefix())
		return pgCache{db: p.shared}, nil
	}, nil
}

// Knowledge gives each knowledge case the knowledge module.
func (p *pgStore) Knowledge(context.Context) (conform.Opener[knowledge.Knowledge], error) {
	if err := p.missing[knowledge.Suite.Name]; err != nil {
		return nil, err
	}
	return func(t *conform.T) (knowledge.Knowledge, error) {
		t.SetPrefix(p.prefix())
		return pgKnowledge{db: p.shared}, nil
	}, nil
}

// Memory gives each memory case the memory module.
func (p *pgStore) Memory(context.Context) (conform.Opener[memory.Memory], error) {
	if err := p.missing[memory.Suite.Name]; err != nil {
		return nil, err
	}
	return func(t *conform.T) (memory.Memory, error) {
		t.SetPrefix(p.prefix())
		return pgMemory{db: p.shared}, nil
	}, nil
}

// by runs fn as caller c: the service role (the zero Caller) on a pooled
// connection, anyone else in a transaction that takes their claims.
func (d *pgDB) by(ctx context.Context, c conform.Caller, fn func(queryer) error) error {
	if c.Role == "" || c.Role == conform.RoleService {
		return d.with(ctx, func(conn *pgx.Conn) error { return fn(conn) })
	}
	return d.as(ctx, c, func(tx pgx.Tx) error { return fn(tx) })
}

// member makes a user (Supabase's auth keeps users) holding permissions
// in tenant, through the access module's table.
func (d *pgDB) member(ctx context.Context, tenant string, permissions []string) (string, error) {
	user := conform.NewUUID()
	err := d.admin(ctx, func(c *pgx.Conn) error {
		if _, err := c.Exec(ctx, "insert into auth.users (id) values ($1)", user); err != nil {
			return pgErr(err)
		}
		for _, perm := range permissions {
			if _, err := c.Exec(ctx, `insert into better_supabase.tenant_permissions (tenant_id, user_id, permission)
				values ($1, $2, $3) on conflict do nothing`, tenant, user, perm); err != nil {
				return pgErr(err)
			}
		}
		return nil
	})
	return user, err
}

// vectorDims is the length of the knowledge and memory blocks' vectors.
const vectorDims = 1536

// vectorText is v padded with zeros to the blocks' length, as pgvector
// reads it ("[1,0,...]").
func vectorText(v []float32) any {
	if v == nil {
		return nil
	}
	var b strings.Builder
	b.WriteByte('[')
	for i := range vectorDims {
		if i > 0 {
			b.WriteByte(',')
		}
		x := float32(0)
		if i < len(v) {
			x = v[i]
		}
		b.WriteString(strconv.FormatFloat(float64(x), 'g', -1, 32))
	}
	b.WriteByte(']')
	return b.String()
}

func jsonValue(v any) any {
	if v == nil {
		return nil
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// pgCache is the ai-cache module's functions, as the service role calls
// them.
type pgCache struct{ db *pgDB }

func (c pgCache) Set(ctx context.Context, key string, value json.RawMessage, p aicache.Put) (aicache.Entry, error) {
	var e aicache.Entry
	err := c.db.with(ctx, func(conn *pgx.Conn) error {
		_, err := jsonInto(ctx, conn, &e, "select better_supabase.ai_cache_set($1, $2::jsonb, $3, $4::uuid, 'generate', $5)",
			key, string(value), p.TTL, nullable(p.Tenant), nullable(p.Model))
		return err
	})
	return e, err
}

func (c pgCache) Get(ctx context.Context, key string) (*aicache.Entry, error) {
	var e aicache.Entry
	var found bool
	err := c.db.with(ctx, func(conn *pgx.Conn) error {
		var err error
		found, err = jsonInto(ctx, conn, &e, "select better_supabase.ai_cache_get($1)", key)
		return err
	})
	if err != nil || !found {
		return nil, err
	}
	return &e, nil
}

func (c pgCache) Delete(ctx context.Context, key, tenant, model string) (int, error) {
	var n int
	err := c.db.with(ctx, func(conn *pgx.Conn) error {
		return scalar(ctx, conn, &n, "select better_supabase.ai_cache_delete($1, $2::uuid, $3)", nullable(key), nullable(tenant), nullable(model))
	})
	return n, err
}

// Expire moves the entry's timestamps back until it expired a second ago.
func (c pgCache) Expire(ctx context.Context, key string) error {
	return c.db.admin(ctx, func(conn *pgx.Conn) error {
		tag, err := conn.Exec(ctx, `update better_supabase.ai_cache_entries c
			set created_at = c.created_at - s.by, last_hit_at = c.last_hit_at - s.by, expires_at = c.expires_at - s.by
			from (select x.key, x.expires_at - now() + interval '1 second' as by from better_supabase.ai_cache_entries x where x.key = $1) s
			where c.key = s.key`, key)
		if err != nil {
			return pgErr(err)
		}
		if tag.RowsAffected() != 1 {
			return errors.New("no cache entry " + key + " to expire")
		}
		return nil
	})
}

func (c pgCache) GetAs(ctx context.Context, who conform.Caller, key string) error {
	return c.db.as(ctx, who, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, "select better_supabase.ai_cache_get($1)", key)
		return pgErr(err)
	})
}

func (c pgCache) SetAs(ctx context.Context, who conform.Caller, key string, value json.RawMessage) error {
	return c.db.as(ctx, who, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, "select better_supabase.ai_cache_set($1, $2::jsonb, 3600)", key, string(value))
		return pgErr(err)
	})
}

// pgKnowledge is the knowledge module's functions, as the service role
// and signed-in members call them; the server (the service role) stores
// the embeddings as the embed worker does.
type pgKnowledge struct{ db *pgDB }

func (k pgKnowledge) Member(ctx context.Context, tenant string, permissions ...string) (string, error) {
	return k.db.member(ctx, tenant, permissions)
}

func (k pgKnowledge) Add(ctx context.Context, c conform.Caller, d knowledge.Doc) (string, error) {
	meta := d.Metadata
	if meta == nil {
		meta = map[string]any{}
	}
	var id string
	err := k.db.by(ctx, c, func(q queryer) error {
		if err := scalar(ctx, q, &id, "select better_supabase.create_knowledge_document($1::uuid, $2, $3, $4::uuid, null, null, $5::jsonb, $6::uuid) ->> 'id'",
			d.Tenant, d.Title, d.Scope, nullable(d.ScopeID), jsonValue(meta), nullable(d.Owner)); err != nil {
			return err
		}
		var doc []byte
		return scalar(ctx, q, &doc, "select better_supabase.write_knowledge_chunks($1::uuid, $2::jsonb)", id, chunksArg(d.Chunks))
	})
	if err != nil || d.Vectors == nil {
		return id, err
	}
	// The embed worker: the chunks that wait, each with its text's md5,
	// handed back with their vectors.
	err = k.db.with(ctx, func(conn *pgx.Conn) error {
		var pending []struct {
			Idx  int    `json:"idx"`
			Hash string `json:"hash"`
		}
		if _, err := jsonInto(ctx, conn, &pending, "select better_supabase.pending_knowledge_chunks($1::uuid, 2048)", id); err != nil {
			return err
		}
		var items []map[string]any
		for _, p := range pending {
			if p.Idx < len(d.Vectors) {
				items = append(items, map[string]any{"idx": p.Idx, "hash": p.Hash, "embedding": vectorText(d.Vectors[p.Idx])})
			}
		}
		var waiting int
		return scalar(ctx, conn, &waiting, "select better_supabase.set_knowledge_embeddings($1::uuid, $2::jsonb, 'conformance-model')", id, jsonValue(items))
	})
	return id, err
}

func chunksArg(chunks []string) any {
	items := make([]map[string]any, len(chunks))
	for i, c := range chunks {
		items[i] = map[string]any{"content": c}
	}
	return jsonValue(items)
}

func (k pgKnowledge) Search(ctx context.Context, c conform.Caller, tenant string, q knowledge.Query) ([]knowledge.Hit, error) {
	kk := q.K
	if kk == 0 {
		kk = 8
	}
	var scopes, filter any
	if q.Scopes != nil {
		scopes = jsonValue(q.Scopes)
	}
	if q.Filter != nil {
		filter = jsonValue(q.Filter)
	}
	hits := []knowledge.Hit{}
	err := k.db.by(ctx, c, func(tx queryer) error {
		_, err := jsonInto(ctx, tx, &hits, "select better_supabase.knowledge_search($1::uuid, $2::extensions.vector, $3, $4::jsonb, $5, $6::jsonb)",
			tenant, vectorText(q.Vector), nullable(q.Text), scopes, kk, filter)
		return err
	})
	return hits, err
}

func (k pgKnowledge) Rewrite(ctx context.Context, c conform.Caller, id string, chunks []string) error {
	return k.db.by(ctx, c, func(q queryer) error {
		var doc []byte
		return scalar(ctx, q, &doc, "select better_supabase.write_knowledge_chunks($1::uuid, $2::jsonb)", id, chunksArg(chunks))
	})
}

func (k pgKnowledge) Delete(ctx context.Context, c conform.Caller, id string) (bool, error) {
	var ok bool
	err := k.db.by(ctx, c, func(q queryer) error {
		return scalar(ctx, q, &ok, "select better_supabase.delete_knowledge_document($1::uuid)", id)
	})
	return ok, err
}

func (k pgKnowledge) Chunks(ctx context.Context, id string) ([]string, error) {
	out := []string{}
	err := k.db.admin(ctx, func(c *pgx.Conn) error {
		rows, err := c.Query(ctx, "select content from better_supabase.knowledge_chunks where document_id = $1::uuid order by idx", id)
		if err != nil {
			return pgErr(err)
		}
		got, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err == nil {
			out = append(out, got...)
		}
		return pgErr(err)
	})
	return out, err
}

// pgMemory is the memory module's functions, as signed-in members call
// them.
type pgMemory struct{ db *pgDB }

func (m pgMemory) Member(ctx context.Context, tenant string, permissions ...string) (string, error) {
	return m.db.member(ctx, tenant, permissions)
}

func nsArg(ns memory.Namespace) any {
	if ns == nil {
		return "{}"
	}
	return jsonValue(ns)
}

func (m pgMemory) Run(ctx context.Context, c conform.Caller, tenant string, cmd memory.Command) (json.RawMessage, error) {
	var sql string
	var args []any
	switch cmd.Command {
	case "view":
		sql, args = "select better_supabase.memory_view($1::uuid, $2, $3::jsonb)", []any{tenant, cmd.Path, nsArg(cmd.NS)}
	case "create":
		var expected any
		if cmd.ExpectedVersion != nil {
			expected = *cmd.ExpectedVersion
		}
		sql, args = "select better_supabase.memory_create($1::uuid, $2, $3, $4::jsonb, $5)", []any{tenant, cmd.Path, cmd.Content, nsArg(cmd.NS), expected}
	case "str_replace":
		sql, args = "select better_supabase.memory_str_replace($1::uuid, $2, $3, $4, $5::jsonb)", []any{tenant, cmd.Path, cmd.OldText, cmd.NewText, nsArg(cmd.NS)}
	case "insert":
		sql, args = "select better_supabase.memory_insert($1::uuid, $2, $3, $4, $5::jsonb)", []any{tenant, cmd.Path, cmd.InsertLine, cmd.InsertText, nsArg(cmd.NS)}
	case "delete":
		sql, args = "select to_jsonb(better_supabase.memory_delete($1::uuid, $2, $3::jsonb))", []any{tenant, cmd.Path, nsArg(cmd.NS)}
	case "rename":
		sql, args = "select to_jsonb(better_supabase.memory_rename($1::uuid, $2, $3, $4::jsonb))", []any{tenant, cmd.Path, cmd.NewPath, nsArg(cmd.NS)}
	default:
		return nil, errors.New("memory: no command " + strconv.Quote(cmd.Command))
	}
	var raw []byte
	err := m.db.by(ctx, c, func(q queryer) error { return scalar(ctx, q, &raw, sql, args...) })
	if err != nil {
		return nil, err
	}
	if raw == nil {
		return json.RawMessage("null"), nil
	}
	return raw, nil
}

func (m pgMemory) Save(ctx context.Context, c conform.Caller, tenant, content string, ns memory.Namespace) (string, error) {
	var id string
	err := m.db.by(ctx, c, func(q queryer) error {
		return scalar(ctx, q, &id, "select better_supabase.memory_save($1::uuid, $2, $3::jsonb) ->> 'id'", tenant, content, nsArg(ns))
	})
	return id, err
}

func (m pgMemory) Search(ctx context.Context, c conform.Caller, tenant, text string, ns memory.Namespace) ([]memory.Fact, error) {
	out := []memory.Fact{}
	err := m.db.by(ctx, c, func(q queryer) error {
		_, err := jsonInto(ctx, q, &out, "select better_supabase.memory_search($1::uuid, null, $2, $3::jsonb, 20)", tenant, text, nsArg(ns))
		return err
	})
	return out, err
}

func (m pgMemory) Forget(ctx context.Context, c conform.Caller, id, supersededBy string) (bool, error) {
	var ok *bool
	err := m.db.by(ctx, c, func(q queryer) error {
		return scalar(ctx, q, &ok, "select better_supabase.memory_forget($1::uuid, $2::uuid)", id, nullable(supersededBy))
	})
	return ok != nil && *ok, err
}
