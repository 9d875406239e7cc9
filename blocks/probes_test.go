package blocks_test

// The probe runner: better-supabase's SQL behaviour, measured on upstream's
// own modules (the corpora in shared/spec/probes, one file per module or
// group of modules, each probe naming its module), replayed against the
// embedded blocks. Each probe gets a fresh database cloned from a template
// that holds the probe's module and what it requires; the set-up steps and
// the checked statement run as the identities the corpus names, and the
// outcome (a value, or a SQLSTATE with a code-like hint) must be the one
// upstream gave, or, for a probe that shows an upstream bug, the one the
// contract intends (probeBugs). The probes of a module bsadapter does not
// embed are reported as such, one skipped subtest per module.
//
// Probes that do not agree yet are listed, per module, in
// testdata/probes/<module>.disagree; the test enforces the lists exactly:
// an unlisted probe that disagrees fails, and so does a listed one that now
// agrees (run with -probes.shrink to drop those from the lists).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/internal/pgserver"
	"github.com/bsadapter/bsadapter/internal/pgserver/pgtest"
	"github.com/bsadapter/bsadapter/internal/testenv"
	"github.com/jackc/pgx/v5/pgconn"
)

var (
	probesShrink  = flag.Bool("probes.shrink", false, "remove the probes that agree now from testdata/probes/<module>.disagree")
	probesWorkers = flag.Int("probes.workers", 6, "how many probes run at once")
)

// probe is one line of a corpus.
type probe struct {
	ID       string          `json:"id"`
	Module   string          `json:"module"`
	Function string          `json:"function"`
	Rule     string          `json:"rule"`
	Setup    []probeStep     `json:"setup"`
	As       json.RawMessage `json:"as"`
	SQL      string          `json:"sql"`
	Expect   json.RawMessage `json:"expect"`
	Note     string          `json:"note"`
	// Needs names stand-ins of other modules the checked statement reads
	// ("jobs"); an implementation without them cannot take the probe.
	Needs []string `json:"needs"`
}

// probeStep is one set-up step: exactly one of User, Grant, SQL, Platform
// and File.
type probeStep struct {
	User  string `json:"user"`
	Grant *struct {
		User       string `json:"user"`
		Tenant     string `json:"tenant"`
		Permission string `json:"permission"`
	} `json:"grant"`
	SQL string          `json:"sql"`
	As  json.RawMessage `json:"as"`
	// Platform is a step of the database platform, the same SQL for every
	// implementation, run as the superuser: "vault-secret" (Vault holds
	// Secret under Name) or "no-pg-net".
	Platform string `json:"platform"`
	Name     string `json:"name"`
	Secret   string `json:"secret"`
	// File is a row of the ai-files module's table.
	File *struct {
		ID     string `json:"id"`
		Tenant string `json:"tenant"`
		Owner  string `json:"owner"`
		Status string `json:"status"`
	} `json:"file"`
}

// probeBug is the contract's expectation for a probe whose measured outcome
// is an upstream defect: the blocks do what the contract intends instead.
// Every entry is listed in docs/blocks.md.
type probeBug struct {
	// Expect has the corpus's expect shape: {"value": ...} or {"error": ...}.
	Expect string
	// Reason says why upstream's outcome is a defect.
	Reason string
}

// probeBugs holds the contract's expectations by probe id; each module's
// entries are added by an init function of its own file.
var probeBugs = map[string]probeBug{}

func addProbeBugs(m map[string]probeBug) {
	for id, b := range m {
		if _, dup := probeBugs[id]; dup {
			panic("probe bug listed twice: " + id)
		}
		probeBugs[id] = b
	}
}

// Verdicts of a probe.
const (
	verdictAgree       = "agree"
	verdictDisagree    = "disagree"
	verdictSetupFailed = "setup failed"
	verdictUnsupported = "unsupported"
)

type probeResult struct {
	verdict string
	actual  string // the normalised outcome, or what went wrong
	expect  string // the expectation compared against
	bug     bool   // the expectation is the contract's, not the measured one
}

func TestProbes(t *testing.T) {
	files := testenv.Probes(t)
	probes := readProbes(t, files...)
	known := readKnownDisagreements(t, probes)
	inCorpus := map[string]int{}
	for _, p := range probes {
		inCorpus[p.Module]++
	}

	docs, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "docs", "blocks.md"))
	if err != nil {
		t.Fatal(err)
	}
	for id := range probeBugs {
		if !bytes.Contains(docs, []byte("`"+id+"`")) {
			t.Errorf("probeBugs: docs/blocks.md does not list the deviation %s", id)
		}
		p, ok := probeByID(probes, id)
		switch {
		case !ok && inCorpus[strings.SplitN(id, "/", 2)[0]] > 0:
			t.Errorf("probeBugs: %s is not a probe of the corpus", id)
		case !ok:
			// A corpus of other modules only (BSADAPTER_PROBES names one file).
		case !strings.HasPrefix(p.Note, "upstream-bug"):
			t.Errorf("probeBugs: %s is not marked upstream-bug in the corpus; the measured outcome is the specification", id)
		}
	}

	// The corpora of modules bsadapter does not embed yet are reported,
	// one skipped subtest a module, and never run.
	embedded := map[string]bool{}
	for _, m := range blocks.Names() {
		embedded[m] = true
	}
	var notEmbedded []string
	for m := range inCorpus {
		if !embedded[m] {
			notEmbedded = append(notEmbedded, m)
		}
	}
	sort.Strings(notEmbedded)
	for _, m := range notEmbedded {
		t.Run(m+" (not embedded)", func(t *testing.T) {
			t.Skipf("%d probes of module %s not run: bsadapter does not embed the module", inCorpus[m], m)
		})
	}

	// The modules that need pgvector (knowledge and memory) run only on a
	// server with it: without it their probes are one skipped subtest a
	// module, or a failure under CI=true.
	needsVector := map[string]bool{}
	if !pgtest.HasVector(t) {
		for m := range inCorpus {
			mods, err := blocks.Embedded().Resolve(m)
			if err != nil {
				continue
			}
			for _, d := range mods {
				if d.Name == blocks.VectorSearchModule {
					needsVector[m] = true
				}
			}
		}
		for _, m := range slices.Sorted(maps.Keys(needsVector)) {
			t.Run(m+" (needs pgvector)", func(t *testing.T) {
				pgtest.NeedVector(t)
			})
		}
	}

	s := pgtest.Server(t)
	r := &probeRun{srv: s, results: map[string]probeResult{}, done: map[string]chan struct{}{}}
	var selected []probe
	for _, p := range probes {
		if !embedded[p.Module] || needsVector[p.Module] {
			continue
		}
		p := p
		t.Run(p.ID, func(t *testing.T) {
			done := make(chan struct{})
			r.done[p.ID] = done
			selected = append(selected, p)
			t.Parallel()
			<-done
			res := r.result(p.ID)
			_, listed := known[p.ID]
			switch {
			case res.verdict == verdictAgree && listed:
				t.Errorf("agrees now, but testdata/probes/%s.disagree lists it: remove the line (or run with -probes.shrink)", p.Module)
			case res.verdict == verdictAgree:
			case listed:
				t.Logf("known %s (testdata/probes/%s.disagree)\n%s", res.verdict, p.Module, describe(p, res))
			default:
				t.Errorf("%s\n%s", res.verdict, describe(p, res))
			}
		})
	}
	// The subtests are waiting for their results; run the probes in a
	// pool of connections of our own, so that a probe sleeping out a lease
	// does not hold up the others.
	go r.runAll(selected, *probesWorkers)
	t.Cleanup(func() {
		report(t, selected, r.results, known, notEmbedded, inCorpus)
		if *probesShrink {
			shrinkKnown(t, selected, r.results)
		}
	})
}

func describe(p probe, res probeResult) string {
	exp := "expected"
	if res.bug {
		exp = "expected (the contract's, upstream-bug)"
	}
	return fmt.Sprintf("  rule:     %s\n  as:       %s\n  sql:      %s\n  %s: %s\n  actual:   %s",
		p.Rule, string(p.As), p.SQL, exp, res.expect, res.actual)
}

func probeByID(probes []probe, id string) (probe, bool) {
	i := sort.Search(len(probes), func(i int) bool { return probes[i].ID >= id })
	if i < len(probes) && probes[i].ID == id {
		return probes[i], true
	}
	return probe{}, false
}

// readProbes reads the corpora, sorted by id; an id may appear once in
// all of them.
func readProbes(t *testing.T, files ...string) []probe {
	t.Helper()
	var probes []probe
	from := map[string]string{}
	for _, file := range files {
		for _, p := range readCorpus(t, file) {
			if f, dup := from[p.ID]; dup {
				t.Fatalf("probe %s appears twice (%s, %s)", p.ID, f, file)
			}
			from[p.ID] = file
			probes = append(probes, p)
		}
	}
	sort.Slice(probes, func(i, j int) bool { return probes[i].ID < probes[j].ID })
	return probes
}

func readCorpus(t *testing.T, file string) []probe {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var probes []probe
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var p probe
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("%s:%d: %v", file, line, err)
		}
		if p.ID == "" || p.Module == "" || p.SQL == "" || len(p.Expect) == 0 || len(p.As) == 0 {
			t.Fatalf("%s:%d: a probe needs id, module, as, sql and expect", file, line)
		}
		if !strings.HasPrefix(p.ID, p.Module+"/") {
			t.Fatalf("%s:%d: probe %s is not named after its module %s", file, line, p.ID, p.Module)
		}
		probes = append(probes, p)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return probes
}

// knownDir holds one file per module listing the probes that do not agree
// yet, one id a line ("#" starts a comment).
const knownDir = "testdata/probes"

func readKnownDisagreements(t *testing.T, probes []probe) map[string]string {
	t.Helper()
	known := map[string]string{}
	inCorpus := map[string]bool{}
	for _, p := range probes {
		inCorpus[p.Module] = true
	}
	paths, _ := filepath.Glob(filepath.Join(knownDir, "*.disagree"))
	for _, path := range paths {
		module := strings.TrimSuffix(filepath.Base(path), ".disagree")
		if !inCorpus[module] {
			// A corpus of other modules only.
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			id := strings.TrimSpace(strings.SplitN(line, "#", 2)[0])
			if id == "" {
				continue
			}
			p, ok := probeByID(probes, id)
			switch {
			case !ok:
				t.Errorf("%s:%d: %s is not a probe of the corpus: remove the line", path, i+1, id)
			case p.Module != module:
				t.Errorf("%s:%d: %s belongs to module %s: move it to %s.disagree", path, i+1, id, p.Module, p.Module)
			case known[id] != "":
				t.Errorf("%s:%d: %s is listed twice", path, i+1, id)
			}
			known[id] = module
		}
	}
	return known
}

// shrinkKnown removes from the lists every probe that ran and agrees.
func shrinkKnown(t *testing.T, ran []probe, results map[string]probeResult) {
	agrees := map[string]bool{}
	for _, p := range ran {
		if results[p.ID].verdict == verdictAgree {
			agrees[p.ID] = true
		}
	}
	paths, _ := filepath.Glob(filepath.Join(knownDir, "*.disagree"))
	for _, path := range paths {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
			if agrees[strings.TrimSpace(strings.SplitN(line, "#", 2)[0])] {
				continue
			}
			out = append(out, line)
		}
		if err := os.WriteFile(path, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// report prints agreement per module and per function, then every probe
// that does not agree.
func report(t *testing.T, ran []probe, results map[string]probeResult, known map[string]string, notEmbedded []string, inCorpus map[string]int) {
	if len(ran) == 0 && len(notEmbedded) == 0 {
		return
	}
	type counts struct{ agree, disagree, setup, unsupported int }
	add := func(c *counts, v string) {
		switch v {
		case verdictAgree:
			c.agree++
		case verdictDisagree:
			c.disagree++
		case verdictSetupFailed:
			c.setup++
		default:
			c.unsupported++
		}
	}
	byModule := map[string]*counts{}
	byFunc := map[string]*counts{}
	var keys []string
	for _, p := range ran {
		v := results[p.ID].verdict
		if byModule[p.Module] == nil {
			byModule[p.Module] = &counts{}
		}
		add(byModule[p.Module], v)
		k := p.Module + "\t" + p.Function
		if byFunc[k] == nil {
			byFunc[k] = &counts{}
			keys = append(keys, k)
		}
		add(byFunc[k], v)
	}
	sort.Strings(keys)
	var b strings.Builder
	row := func(name string, c *counts) {
		total := c.agree + c.disagree + c.setup + c.unsupported
		fmt.Fprintf(&b, "  %-52s %4d/%-4d agree  %3d disagree  %3d setup failed  %3d unsupported\n",
			name, c.agree, total, c.disagree, c.setup, c.unsupported)
	}
	b.WriteString("probes per module:\n")
	var mods []string
	for m := range byModule {
		mods = append(mods, m)
	}
	sort.Strings(mods)
	for _, m := range mods {
		row(m, byModule[m])
	}
	for _, m := range notEmbedded {
		fmt.Fprintf(&b, "  %-52s %4d probes not run: the module is not embedded\n", m, inCorpus[m])
	}
	b.WriteString("probes per function:\n")
	for _, k := range keys {
		row(strings.Replace(k, "\t", " ", 1), byFunc[k])
	}
	var bad []string
	for _, p := range ran {
		res := results[p.ID]
		if res.verdict != verdictAgree {
			mark := ""
			if known[p.ID] != "" {
				mark = " (listed)"
			}
			bad = append(bad, fmt.Sprintf("%s: %s%s\n    expected %s\n    actual   %s", p.ID, res.verdict, mark, res.expect, res.actual))
		}
	}
	if len(bad) > 0 {
		fmt.Fprintf(&b, "not agreeing (%d):\n  %s\n", len(bad), strings.Join(bad, "\n  "))
	}
	t.Log("\n" + b.String())
}

// probeRun runs probes against one server.
type probeRun struct {
	srv *pgserver.Server

	mu        sync.Mutex
	results   map[string]probeResult
	done      map[string]chan struct{}
	templates map[string]*probeTemplate
}

type probeTemplate struct {
	once sync.Once
	name string
	err  error
}

func (r *probeRun) result(id string) probeResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.results[id]
}

func (r *probeRun) runAll(probes []probe, workers int) {
	if workers < 1 {
		workers = 1
	}
	jobs := make(chan probe)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range jobs {
				res := r.runOne(p)
				for try := 2; try <= timedTries && res.verdict != verdictAgree && waitsOutTTL(p); try++ {
					// A busy machine can let more than a 50 ms TTL pass
					// between two steps; a retry runs the probe with its
					// time scaled (every TTL and every sleep alike), so
					// what expires before what stays as measured.
					q, scaled := scaledProbe(p, timeScale)
					res = r.runOne(q)
					how := ""
					if scaled {
						how = fmt.Sprintf(", TTLs and sleeps ×%d", timeScale)
					}
					res.actual += fmt.Sprintf(" (try %d of %d%s)", try, timedTries, how)
				}
				r.mu.Lock()
				r.results[p.ID] = res
				done := r.done[p.ID]
				r.mu.Unlock()
				close(done)
			}
		}()
	}
	for _, p := range probes {
		jobs <- p
	}
	close(jobs)
	wg.Wait()
}

// probeAuditView shows the access module's audit log as the table of the
// audit stand-in the corpus reads (better_supabase._standin_audit_events:
// the arguments of each audit_event call in order, with the caller's
// role).
const probeAuditView = `create view better_supabase._standin_audit_events as
	select e.id as seq, e.event_type, e.category, e.target_type, e.record_id, e.target_label,
	       e.organization_id as tenant, e.metadata, e.idempotency_key, e.actor_role as role
	from better_supabase.audit_events e;
	revoke all on better_supabase._standin_audit_events from public, anon, authenticated, service_role`

// timedTries is how often a probe that waits out a short TTL runs before
// its disagreement counts. Such a probe's steps must follow one another
// within the TTL (50 ms in the corpus) for its state to be the one
// upstream was measured in; on a busy machine they sometimes do not. A
// probe whose outcome is wrong for any other reason is wrong every time.
const timedTries = 3

// timeScale is how much a retried timed probe stretches its TTLs and
// sleeps.
const timeScale = 10

// The time literals of a probe's SQL that scaledProbe stretches: a sleep,
// a TTL given by name or as an interval in milliseconds, and the TTL that
// chat-state's lock and cache calls take as their last argument. Other
// numbers (queue sizes, batch sizes) are left alone.
var (
	sleepRe      = regexp.MustCompile(`pg_sleep\(([0-9]+(?:\.[0-9]+)?)\)`)
	ttlNamedRe   = regexp.MustCompile(`(ttl_ms\s*=>\s*)([0-9]+)`)
	msIntervalRe = regexp.MustCompile(`interval '([0-9]+) milliseconds'`)
	ttlLastArgRe = regexp.MustCompile(`(chat_state_(?:acquire_lock|extend_lock|set|set_if_not_exists)\((?:[^()]|\([^()]*\))*,\s*)([0-9]+)\)`)
)

// longTTL is where a TTL stops being short: the corpus's long TTLs (a
// minute, 60000 ms) are what probes read back as the expiry ("ttl_s":
// 60), so they stay; no scaled sleep comes near them.
const longTTL = 10000

// scaleTime stretches the short TTLs and the sleeps of sql by k.
func scaleTime(sql string, k int) string {
	sql = sleepRe.ReplaceAllStringFunc(sql, func(m string) string {
		v, _ := strconv.ParseFloat(sleepRe.FindStringSubmatch(m)[1], 64)
		return "pg_sleep(" + strconv.FormatFloat(v*float64(k), 'f', -1, 64) + ")"
	})
	times := func(re *regexp.Regexp, prefix, digits, suffix func([]string) string) func(string) string {
		return func(m string) string {
			sm := re.FindStringSubmatch(m)
			n, _ := strconv.Atoi(digits(sm))
			if n >= longTTL {
				return m
			}
			return prefix(sm) + strconv.Itoa(n*k) + suffix(sm)
		}
	}
	sql = ttlNamedRe.ReplaceAllStringFunc(sql, times(ttlNamedRe,
		func(sm []string) string { return sm[1] }, func(sm []string) string { return sm[2] }, func([]string) string { return "" }))
	sql = msIntervalRe.ReplaceAllStringFunc(sql, times(msIntervalRe,
		func([]string) string { return "interval '" }, func(sm []string) string { return sm[1] }, func([]string) string { return " milliseconds'" }))
	sql = ttlLastArgRe.ReplaceAllStringFunc(sql, times(ttlLastArgRe,
		func(sm []string) string { return sm[1] }, func(sm []string) string { return sm[2] }, func([]string) string { return ")" }))
	return sql
}

// scaledProbe is p with the time of its steps and statement stretched by
// k, for the modules whose timed probes follow the corpus's short-TTL
// convention (a TTL of tens of milliseconds, then a sleep past it); it
// reports whether anything changed.
func scaledProbe(p probe, k int) (probe, bool) {
	if p.Module != "chat-sdk-state" {
		return p, false
	}
	q := p
	q.Setup = append([]probeStep(nil), p.Setup...)
	changed := false
	for i := range q.Setup {
		if q.Setup[i].SQL != "" {
			q.Setup[i].SQL = scaleTime(q.Setup[i].SQL, k)
			changed = changed || q.Setup[i].SQL != p.Setup[i].SQL
		}
	}
	q.SQL = scaleTime(p.SQL, k)
	return q, changed || q.SQL != p.SQL
}

// waitsOutTTL says whether a probe's set-up sleeps (pg_sleep) to let a
// short TTL or lease run out.
func waitsOutTTL(p probe) bool {
	for _, st := range p.Setup {
		if strings.Contains(st.SQL, "pg_sleep(") {
			return true
		}
	}
	return false
}

// measuredBeside names, by module, the other modules its corpus was
// measured with (the probes README): the builder's corpus ran on top of
// the World's tables, and two of its probes insert World runs.
var measuredBeside = map[string][]string{
	"workflow-builder": {"workflow-sdk-world"},
}

// template returns a database with the module and what it requires, made
// once per module.
func (r *probeRun) template(module string) (string, error) {
	r.mu.Lock()
	if r.templates == nil {
		r.templates = map[string]*probeTemplate{}
	}
	tp := r.templates[module]
	if tp == nil {
		tp = &probeTemplate{}
		r.templates[module] = tp
	}
	r.mu.Unlock()
	tp.once.Do(func() {
		ctx := context.Background()
		name, err := r.srv.CreateDatabase(ctx, "")
		if err != nil {
			tp.err = err
			return
		}
		conn, err := r.srv.Connect(ctx, name)
		if err != nil {
			tp.err = err
			return
		}
		// The corpus was measured with the access stand-in beside every
		// module (its grant steps need the access module's table).
		mods := append([]string{module, blocks.AccessModule}, measuredBeside[module]...)
		_, tp.err = blocks.Install(ctx, conn, mods...)
		if tp.err == nil {
			_, tp.err = conn.Exec(ctx, probeAuditView)
		}
		conn.Close(ctx)
		tp.name = name
	})
	return tp.name, tp.err
}

func (r *probeRun) runOne(p probe) (res probeResult) {
	res.expect = compactJSON(p.Expect)
	if b, ok := probeBugs[p.ID]; ok {
		res.expect, res.bug = compactJSON(json.RawMessage(b.Expect)), true
	} else if strings.HasPrefix(p.Note, "upstream-bug") {
		// Without the contract's expectation the measured defect would be
		// the target; such a probe cannot agree until one is recorded.
		return probeResult{verdict: verdictUnsupported, expect: res.expect,
			actual: "marked upstream-bug, and probeBugs holds no contract expectation for it"}
	}
	for _, n := range p.Needs {
		if _, ok := probeNeeds[n]; !ok {
			return probeResult{verdict: verdictUnsupported, expect: res.expect,
				actual: fmt.Sprintf("needs the stand-in of %s, which the runner does not know", n)}
		}
	}
	tpl, err := r.template(p.Module)
	if err != nil {
		res.verdict, res.actual = verdictSetupFailed, "install the module: "+err.Error()
		return res
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db, err := r.srv.CreateDatabase(ctx, tpl)
	if err != nil {
		res.verdict, res.actual = verdictSetupFailed, err.Error()
		return res
	}
	defer func() {
		if err := r.srv.DropDatabase(context.Background(), db); err != nil && res.verdict == verdictAgree {
			res.verdict, res.actual = verdictSetupFailed, err.Error()
		}
	}()
	conn, err := r.srv.Connect(ctx, db)
	if err != nil {
		res.verdict, res.actual = verdictSetupFailed, err.Error()
		return res
	}
	defer conn.Close(context.Background())
	pc := conn.PgConn()
	exec := func(sql string) ([]*pgconn.Result, error) { return pc.Exec(ctx, sql).ReadAll() }
	if _, err := exec("set timezone = 'UTC'; set client_min_messages = warning; set statement_timeout = '60s'"); err != nil {
		res.verdict, res.actual = verdictSetupFailed, err.Error()
		return res
	}
	for _, n := range p.Needs {
		// The checked statement reads the stand-in's table: where the
		// implementation has none (a jobs module of its own), the probe
		// does not apply.
		var has bool
		err := conn.QueryRow(ctx, "select pg_catalog.to_regclass($1) is not null", probeNeeds[n]).Scan(&has)
		if err != nil {
			res.verdict, res.actual = verdictSetupFailed, err.Error()
			return res
		}
		if !has {
			res.verdict, res.actual = verdictUnsupported, fmt.Sprintf("not applicable: reads %s, the %s stand-in's table, which the implementation lacks", probeNeeds[n], n)
			return res
		}
	}
	for i, st := range p.Setup {
		var err error
		switch {
		case st.User != "":
			_, err = exec("reset role; insert into auth.users (id) values (" + quoteLit(st.User) + ") on conflict do nothing")
		case st.Grant != nil:
			_, err = exec("reset role; " + probeGrantSQL(st.Grant.Tenant, st.Grant.User, st.Grant.Permission))
			var pgErr *pgconn.PgError
			if errors.As(err, &pgErr) && (pgErr.Code == "42P01" || pgErr.Code == "3F000") {
				res.verdict, res.actual = verdictUnsupported, fmt.Sprintf("step %d: no access table to grant a permission in: %v", i+1, err)
				return res
			}
		case st.SQL != "":
			if err = takeIdentity(exec, st.As); err == nil {
				_, err = exec(st.SQL)
			}
		case st.Platform != "":
			var sql string
			sql, err = platformSQL(st)
			if err == nil {
				_, err = exec("reset role; reset request.jwt.claims; " + sql)
			}
		case st.File != nil:
			_, err = exec("reset role; reset request.jwt.claims; " + probeFileSQL(st.File.ID, st.File.Tenant, st.File.Owner, st.File.Status))
			var pgErr *pgconn.PgError
			if errors.As(err, &pgErr) && pgErr.Code == "42P01" {
				res.verdict, res.actual = verdictUnsupported, fmt.Sprintf("step %d: no ai_files table for a file row: %v", i+1, err)
				return res
			}
		default:
			err = errors.New("a step names no user, grant, sql, platform or file")
		}
		if err != nil {
			res.verdict, res.actual = verdictSetupFailed, fmt.Sprintf("step %d: %v", i+1, err)
			return res
		}
	}
	if err := takeIdentity(exec, p.As); err != nil {
		res.verdict, res.actual = verdictSetupFailed, "take the identity: "+err.Error()
		return res
	}
	results, err := exec(p.SQL)
	res.actual = outcome(results, err)
	if sameJSON(res.actual, res.expect) {
		res.verdict = verdictAgree
	} else {
		res.verdict = verdictDisagree
	}
	return res
}

// probeGrantSQL is the statement that gives user a permission in tenant: a
// row of the access module's table. Some probes grant the same permission
// twice (one grant per set-up block); holding it already is no error.
func probeGrantSQL(tenant, user, permission string) string {
	return fmt.Sprintf("insert into better_supabase.tenant_permissions (tenant_id, user_id, permission) values (%s, %s, %s) on conflict do nothing",
		quoteLit(tenant), quoteLit(user), quoteLit(permission))
}

// probeNeeds names, for each stand-in a probe may need, the table its
// checked statement reads.
var probeNeeds = map[string]string{
	"jobs": "better_supabase._standin_jobs",
}

// probeFileSQL is the statement that makes a row of the ai-files module's
// table (the four columns the blocks read).
func probeFileSQL(id, tenant, owner, status string) string {
	lit := func(s string) string {
		if s == "" {
			return "null"
		}
		return quoteLit(s)
	}
	return fmt.Sprintf("insert into better_supabase.ai_files (id, organization_id, owner_id, status) values (%s, %s, %s, %s)",
		lit(id), lit(tenant), lit(owner), lit(status))
}

// platformSQL is the SQL of a platform step, as the corpus gives it.
func platformSQL(st probeStep) (string, error) {
	switch st.Platform {
	case "vault-secret":
		return "select vault.create_secret(" + quoteLit(st.Secret) + ", " + quoteLit(st.Name) + ")", nil
	case "no-pg-net":
		return "drop function if exists net.http_post(text, jsonb, jsonb, jsonb, integer)", nil
	}
	return "", fmt.Errorf("unknown platform step %q", st.Platform)
}

// takeIdentity switches the session to the identity the way the corpus
// does (and PostgREST on Supabase): claims, then the role.
func takeIdentity(exec func(string) ([]*pgconn.Result, error), as json.RawMessage) error {
	sql, err := identitySQL(as)
	if err == nil {
		_, err = exec(sql)
	}
	return err
}

// identitySQL is what takes the identity: "service", "anon", {"user": U},
// "superuser" (the login role without claims), or {"claims": OBJ, "role":
// R}, where a null OBJ resets the claims and a null R stays the login
// role.
func identitySQL(as json.RawMessage) (string, error) {
	var name string
	var user struct {
		User string `json:"user"`
	}
	var explicit map[string]json.RawMessage
	switch {
	case json.Unmarshal(as, &name) == nil && name == "service":
		return `reset role; set request.jwt.claims = '{"role":"service_role"}'; set role service_role`, nil
	case json.Unmarshal(as, &name) == nil && name == "anon":
		return `reset role; set request.jwt.claims = '{"role":"anon"}'; set role anon`, nil
	case json.Unmarshal(as, &name) == nil && name == "superuser":
		return "reset role; reset request.jwt.claims", nil
	case json.Unmarshal(as, &user) == nil && user.User != "":
		return "reset role; set request.jwt.claims = " + quoteLit(fmt.Sprintf(`{"role":"authenticated","sub":%q}`, user.User)) + "; set role authenticated", nil
	case json.Unmarshal(as, &explicit) == nil && explicit["claims"] != nil && explicit["role"] != nil && len(explicit) == 2:
		sql := "reset role; reset request.jwt.claims"
		if c := explicit["claims"]; string(c) != "null" {
			var obj map[string]any
			if err := json.Unmarshal(c, &obj); err != nil {
				return "", fmt.Errorf("identity %s: the claims are not an object", as)
			}
			sql = "reset role; set request.jwt.claims = " + quoteLit(compactJSON(c))
		}
		if r := explicit["role"]; string(r) != "null" {
			var role string
			if err := json.Unmarshal(r, &role); err != nil || !codeLikeRole.MatchString(role) {
				return "", fmt.Errorf("identity %s: the role is not a role name", as)
			}
			sql += "; set role " + role
		}
		return sql, nil
	}
	return "", fmt.Errorf("unknown identity %s", as)
}

var codeLikeRole = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

var codeLike = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)

// outcome normalises the checked statement's result as the corpus does: a
// value becomes JSON by its type (booleans, numbers, json and jsonb as
// themselves, anything else as its text); an error keeps its SQLSTATE and
// a code-like hint only.
func outcome(results []*pgconn.Result, err error) string {
	if err != nil {
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) {
			return fmt.Sprintf("not a server error: %v", err)
		}
		var hint any
		if codeLike.MatchString(pgErr.Hint) {
			hint = pgErr.Hint
		}
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"sqlstate": pgErr.Code, "hint": hint}})
		return string(b)
	}
	if len(results) != 1 {
		return fmt.Sprintf("%d results, not one", len(results))
	}
	res := results[0]
	if res.Err != nil {
		return outcome(nil, res.Err)
	}
	if len(res.FieldDescriptions) != 1 || len(res.Rows) != 1 {
		return fmt.Sprintf("%d rows of %d columns, not one row of one column", len(res.Rows), len(res.FieldDescriptions))
	}
	raw := res.Rows[0][0]
	var v any
	switch {
	case raw == nil:
		v = nil
	default:
		switch res.FieldDescriptions[0].DataTypeOID {
		case 16: // boolean
			v = string(raw) == "t"
		case 20, 21, 23: // integers
			n, err := strconv.ParseInt(string(raw), 10, 64)
			if err != nil {
				return fmt.Sprintf("an integer that does not parse: %q", raw)
			}
			v = n
		case 700, 701, 1700: // float4, float8, numeric: numbers too, as
			// measured (round(extract(epoch ...)) is numeric since
			// PostgreSQL 14, and the corpus has it as a number)
			if !json.Valid(raw) {
				return fmt.Sprintf("a number JSON cannot hold: %s", raw)
			}
			v = json.RawMessage(raw)
		case 114, 3802: // json, jsonb
			v = json.RawMessage(raw)
		default:
			v = string(raw)
		}
	}
	b, err := json.Marshal(map[string]any{"value": v})
	if err != nil {
		return fmt.Sprintf("a value that is not JSON: %v", err)
	}
	return string(b)
}

func compactJSON(raw json.RawMessage) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return string(raw)
	}
	return buf.String()
}

// sameJSON compares two JSON documents by value (key order and number
// spelling aside).
func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func quoteLit(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
