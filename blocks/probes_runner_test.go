package blocks_test

import (
	"context"
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

// The runner finds a broken implementation: over streams whose
// stream_close never closes, the close probes disagree, and the others of
// the module still agree.
func TestProbeRunnerCatchesABrokenModule(t *testing.T) {
	probes := readProbes(t, testenv.Probes(t))
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
