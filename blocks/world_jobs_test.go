package blocks_test

import (
	"context"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/internal/pgserver/pgtest"
	"github.com/jackc/pgx/v5"
)

// The jobs stand-in where the World's probes are silent: deduplication,
// delays, the attempt count and removal past max_attempts.
func TestJobsStandIn(t *testing.T) {
	s, db := pgtest.EmptyDB(t)
	conn := pgtest.Conn(t, s, db)
	ctx := context.Background()
	if _, err := blocks.Install(ctx, conn, blocks.JobsModule); err != nil {
		t.Fatal(err)
	}
	one := func(t *testing.T, query string, args ...any) int64 {
		t.Helper()
		var n int64
		if err := conn.QueryRow(ctx, query, args...).Scan(&n); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		return n
	}
	type claim struct {
		ID       int64
		Attempts int
		Message  map[string]any
	}
	claimJobs := func(t *testing.T, queue string, lease, batch int) []claim {
		t.Helper()
		rows, err := conn.Query(ctx, "select id, attempts, message from better_supabase.claim_jobs($1, $2, $3)", queue, lease, batch)
		if err != nil {
			t.Fatal(err)
		}
		got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[claim])
		if err != nil {
			t.Fatal(err)
		}
		return got
	}

	t.Run("dedupe while waiting or running", func(t *testing.T) {
		a := one(t, "select better_supabase.enqueue_job('q_dedupe', '{\"v\": 1}', dedupe_key => 'k')")
		b := one(t, "select better_supabase.enqueue_job('q_dedupe', '{\"v\": 2}', dedupe_key => 'k')")
		other := one(t, "select better_supabase.enqueue_job('q_other', '{\"v\": 3}', dedupe_key => 'k')")
		if a != b || other == a {
			t.Errorf("ids %d, %d (same key), %d (another queue); want the first two equal, the third new", a, b, other)
		}
		got := claimJobs(t, "q_dedupe", 60, 10)
		if len(got) != 1 || got[0].ID != a || got[0].Message["dedupe_key"] != "k" || got[0].Message["payload"].(map[string]any)["v"] != float64(1) {
			t.Fatalf("claimed %+v, want job %d with its first payload and the key", got, a)
		}
		// Claimed (running): dedupe_running true still finds it; false
		// queues a follow-up, once.
		if c := one(t, "select better_supabase.enqueue_job('q_dedupe', '{}', dedupe_key => 'k')"); c != a {
			t.Errorf("a running job's key: got %d, want %d", c, a)
		}
		f1 := one(t, "select better_supabase.enqueue_job('q_dedupe', '{}', dedupe_key => 'k', dedupe_running => false)")
		f2 := one(t, "select better_supabase.enqueue_job('q_dedupe', '{}', dedupe_key => 'k', dedupe_running => false)")
		if f1 == a || f2 != f1 {
			t.Errorf("follow-ups %d, %d; want one new job besides %d", f1, f2, a)
		}
	})

	t.Run("delay", func(t *testing.T) {
		one(t, "select better_supabase.enqueue_job('q_delay', '{}', delay => 3600)")
		now := one(t, "select better_supabase.enqueue_job('q_delay', '{}', delay => -5)")
		got := claimJobs(t, "q_delay", 60, 10)
		if len(got) != 1 || got[0].ID != now {
			t.Errorf("claimed %+v, want only job %d (the other is an hour away)", got, now)
		}
	})

	t.Run("attempts and removal past max_attempts", func(t *testing.T) {
		id := one(t, "select better_supabase.enqueue_job('q_retry', '{}', max_attempts => 2)")
		for attempt := 1; attempt <= 2; attempt++ {
			// A lease of 0 seconds: visible again at once.
			got := claimJobs(t, "q_retry", 0, 1)
			if len(got) != 1 || got[0].ID != id || got[0].Attempts != attempt || got[0].Message["max_attempts"] != float64(2) {
				t.Fatalf("claim %d: %+v, want job %d at attempt %d", attempt, got, id, attempt)
			}
		}
		if got := claimJobs(t, "q_retry", 0, 1); len(got) != 0 {
			t.Errorf("third claim of a job with max_attempts 2: %+v, want none", got)
		}
		if n := one(t, "select count(*) from better_supabase._standin_jobs where id = $1", id); n != 0 {
			t.Error("the job claimed past max_attempts is still there")
		}
	})

	t.Run("lease hides, batch and order", func(t *testing.T) {
		var ids []int64
		for i := 0; i < 3; i++ {
			ids = append(ids, one(t, "select better_supabase.enqueue_job('q_batch', '{}')"))
		}
		got := claimJobs(t, "q_batch", 3600, 2)
		if len(got) != 2 || got[0].ID != ids[0] || got[1].ID != ids[1] {
			t.Fatalf("claimed %+v, want jobs %v in id order", got, ids[:2])
		}
		got = claimJobs(t, "q_batch", 3600, 5)
		if len(got) != 1 || got[0].ID != ids[2] {
			t.Errorf("claimed %+v, want only job %d (the others are leased)", got, ids[2])
		}
		var until time.Time
		if err := conn.QueryRow(ctx, "select vt from better_supabase._standin_jobs where id = $1", ids[2]).Scan(&until); err != nil {
			t.Fatal(err)
		}
		if d := time.Until(until); d < 50*time.Minute {
			t.Errorf("leased for an hour, visible again in %v", d)
		}
	})

	t.Run("bad queue name", func(t *testing.T) {
		_, err := conn.Exec(ctx, "select better_supabase.enqueue_job('', '{}')")
		if pgCode(err) != "22023" {
			t.Errorf("an empty queue name: %v, want 22023", err)
		}
	})
}
