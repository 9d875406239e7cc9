package blocks_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/internal/pgserver/pgtest"
	"github.com/bsadapter/bsadapter/internal/testenv"
	"github.com/jackc/pgx/v5/pgconn"
)

// The runner's normalisation: values by type, errors by SQLSTATE and a
// code-like hint only.
func TestProbeOutcomeNormalisation(t *testing.T) {
	field := func(oid uint32) []pgconn.FieldDescription {
		return []pgconn.FieldDescription{{Name: "v", DataTypeOID: oid}}
	}
	row := func(oid uint32, v []byte) []*pgconn.Result {
		return []*pgconn.Result{{FieldDescriptions: field(oid), Rows: [][][]byte{{v}}}}
	}
	for _, c := range []struct {
		name string
		res  []*pgconn.Result
		err  error
		want string
	}{
		{"boolean", row(16, []byte("t")), nil, `{"value":true}`},
		{"bigint", row(20, []byte("42")), nil, `{"value":42}`},
		{"numeric", row(1700, []byte("60")), nil, `{"value":60}`},
		{"jsonb", row(3802, []byte(`{"a": [1, null]}`)), nil, `{"value":{"a":[1,null]}}`},
		{"null", row(25, nil), nil, `{"value":null}`},
		{"text", row(25, []byte("42")), nil, `{"value":"42"}`},
		{"timestamptz", row(1184, []byte("2000-01-01 00:00:00+00")), nil, `{"value":"2000-01-01 00:00:00+00"}`},
		{"code-like hint", nil, &pgconn.PgError{Code: "P0001", Hint: "STREAM_GAP", Message: "gap"}, `{"error":{"hint":"STREAM_GAP","sqlstate":"P0001"}}`},
		{"explanatory hint", nil, &pgconn.PgError{Code: "42883", Hint: "No function matches the given name."}, `{"error":{"hint":null,"sqlstate":"42883"}}`},
		{"two rows", []*pgconn.Result{{FieldDescriptions: field(23), Rows: [][][]byte{{[]byte("1")}, {[]byte("2")}}}}, nil, "2 rows of 1 columns, not one row of one column"},
	} {
		if got := outcome(c.res, c.err); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	if !sameJSON(`{"value":{"a":1,"b":[true]}}`, `{"value": {"b": [true], "a": 1.0}}`) || sameJSON(`{"value":1}`, `{"value":"1"}`) {
		t.Error("sameJSON compares by value, and keeps types apart")
	}
}

// The identities of the corpus, as the session takes them.
func TestProbeIdentities(t *testing.T) {
	for _, c := range []struct{ as, want string }{
		{`"service"`, `reset role; set request.jwt.claims = '{"role":"service_role"}'; set role service_role`},
		{`"anon"`, `reset role; set request.jwt.claims = '{"role":"anon"}'; set role anon`},
		{`{"user": "11111111-1111-4111-8111-111111111111"}`, `reset role; set request.jwt.claims = '{"role":"authenticated","sub":"11111111-1111-4111-8111-111111111111"}'; set role authenticated`},
		{`"superuser"`, `reset role; reset request.jwt.claims`},
		{`{"claims": {"role": "authenticated", "sub": "u'1"}, "role": "service_role"}`, `reset role; set request.jwt.claims = '{"role":"authenticated","sub":"u''1"}'; set role service_role`},
		{`{"claims": null, "role": "service_role"}`, `reset role; reset request.jwt.claims; set role service_role`},
		{`{"claims": {"role": "authenticated"}, "role": null}`, `reset role; set request.jwt.claims = '{"role":"authenticated"}'`},
	} {
		got, err := identitySQL(json.RawMessage(c.as))
		if err != nil || got != c.want {
			t.Errorf("%s: %q (%v), want %q", c.as, got, err, c.want)
		}
	}
	for _, bad := range []string{`"root"`, `{"user": ""}`, `{"claims": {}}`, `{"claims": [1], "role": null}`, `{"claims": null, "role": "x; drop table t"}`, `{"claims": null, "role": null, "sub": "u"}`} {
		if got, err := identitySQL(json.RawMessage(bad)); err == nil {
			t.Errorf("%s: %q, want an error", bad, got)
		}
	}
}

// The runner finds a broken implementation: over streams whose
// stream_close never closes, the close probes disagree, and the others of
// the module still agree.
func TestProbeRunnerCatchesABrokenModule(t *testing.T) {
	probes := readProbes(t, testenv.Probes(t)...)
	s := pgtest.Server(t)
	ctx := context.Background()
	tpl, err := s.CreateDatabase(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := s.Connect(ctx, tpl)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := blocks.Install(ctx, conn, "streams"); err == nil {
		_, err = conn.Exec(ctx, `create or replace function better_supabase.stream_close(stream_id text)
			returns boolean language sql security invoker set search_path = '' as $$ select true $$`)
	}
	conn.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r := &probeRun{srv: s, results: map[string]probeResult{}}
	tp := &probeTemplate{name: tpl}
	tp.once.Do(func() {})
	r.templates = map[string]*probeTemplate{"streams": tp}
	var closeDisagree, closeTotal, others int
	for _, p := range probes {
		if p.Module != "streams" || !strings.HasPrefix(p.ID, "streams/stream-close/") && !strings.HasPrefix(p.ID, "streams/stream-open/") {
			continue
		}
		res := r.runOne(p)
		switch {
		case strings.HasPrefix(p.ID, "streams/stream-close/"):
			closeTotal++
			if res.verdict != verdictAgree {
				closeDisagree++
			}
		case res.verdict != verdictAgree:
			t.Errorf("%s: %s (%s), want it to agree: stream_open is untouched", p.ID, res.verdict, res.actual)
		default:
			others++
		}
	}
	if closeTotal == 0 || others == 0 {
		t.Fatal(errors.New("the corpus has no stream_close or stream_open probes"))
	}
	// A close that only says true cannot give a second close's false or a
	// missing stream's.
	t.Logf("%d of %d stream_close probes disagree, %d stream_open probes agree", closeDisagree, closeTotal, others)
	if closeDisagree < 2 {
		t.Errorf("%d of %d stream_close probes disagree over a stream_close that never closes; want the runner to see it", closeDisagree, closeTotal)
	}
}

// A retried timed probe stretches every TTL and sleep alike, and nothing
// else: queue sizes, batch sizes and hour-long intervals stay.
func TestScaleTime(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"select pg_sleep(0.2)", "select pg_sleep(2)"},
		{"select pg_sleep(1.1)", "select pg_sleep(11)"},
		{"select better_supabase.chat_state_append_to_list('p', 'l1', '\"a\"'::jsonb, ttl_ms => 50)",
			"select better_supabase.chat_state_append_to_list('p', 'l1', '\"a\"'::jsonb, ttl_ms => 500)"},
		{"select better_supabase.chat_state_acquire_lock('p', 't1', 'tok1', 50)", "select better_supabase.chat_state_acquire_lock('p', 't1', 'tok1', 500)"},
		{"select better_supabase.chat_state_set('p', 'k1', '\"a\"'::jsonb, 50)", "select better_supabase.chat_state_set('p', 'k1', '\"a\"'::jsonb, 500)"},
		{"select better_supabase.chat_state_enqueue('p', 't1', '{\"id\":\"m1\"}'::jsonb, clock_timestamp() + interval '50 milliseconds', 2)",
			"select better_supabase.chat_state_enqueue('p', 't1', '{\"id\":\"m1\"}'::jsonb, clock_timestamp() + interval '500 milliseconds', 2)"},
		{"select better_supabase.purge_chat_state(batch => 2)", "select better_supabase.purge_chat_state(batch => 2)"},
		{"select now() + interval '1 hour'", "select now() + interval '1 hour'"},
		{"select better_supabase.chat_state_acquire_lock('p', 't1', 'tok1', null)", "select better_supabase.chat_state_acquire_lock('p', 't1', 'tok1', null)"},
	} {
		if got := scaleTime(c.in, 10); got != c.want {
			t.Errorf("scaleTime(%q)\n got  %q\n want %q", c.in, got, c.want)
		}
	}
	p := probe{Module: "chat-sdk-state", Setup: []probeStep{{SQL: "select pg_sleep(0.2)"}}, SQL: "select 1"}
	q, scaled := scaledProbe(p, 10)
	if !scaled || q.Setup[0].SQL != "select pg_sleep(2)" || p.Setup[0].SQL != "select pg_sleep(0.2)" {
		t.Errorf("scaledProbe: %v %q, and the original %q", scaled, q.Setup[0].SQL, p.Setup[0].SQL)
	}
	if _, scaled := scaledProbe(probe{Module: "streams", Setup: p.Setup}, 10); scaled {
		t.Error("a streams probe was scaled: only chat-sdk-state's follow the short-TTL convention")
	}
}

// Long TTLs, which probes read back as the expiry, are not stretched.
func TestScaleTimeKeepsLongTTLs(t *testing.T) {
	in := "select better_supabase.chat_state_acquire_lock('p', 't1', 'tok2', 60000), better_supabase.chat_state_extend_lock('p', 't1', 'tok1', 1000)"
	want := "select better_supabase.chat_state_acquire_lock('p', 't1', 'tok2', 60000), better_supabase.chat_state_extend_lock('p', 't1', 'tok1', 10000)"
	if got := scaleTime(in, 10); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
