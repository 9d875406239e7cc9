package pgstore_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/blocks"
	"github.com/bsadapter/bsadapter/internal/conform"
	"github.com/bsadapter/bsadapter/internal/conform/conformtest"
	"github.com/bsadapter/bsadapter/internal/conform/pgstore"
	"github.com/bsadapter/bsadapter/internal/conform/suites"
	"github.com/bsadapter/bsadapter/internal/conform/suites/aicache"
	"github.com/bsadapter/bsadapter/internal/conform/suites/builderrecords"
	"github.com/bsadapter/bsadapter/internal/conform/suites/chat"
	"github.com/bsadapter/bsadapter/internal/conform/suites/chatstate"
	"github.com/bsadapter/bsadapter/internal/conform/suites/credentials"
	"github.com/bsadapter/bsadapter/internal/conform/suites/knowledge"
	"github.com/bsadapter/bsadapter/internal/conform/suites/memory"
	"github.com/bsadapter/bsadapter/internal/conform/suites/registry"
	"github.com/bsadapter/bsadapter/internal/conform/suites/streams"
	"github.com/bsadapter/bsadapter/internal/pgserver/pgtest"
)

// The embedded blocks in a real PostgreSQL pass every case of every
// suite, called with a real caller's rights.
// pgSuites are the suites whose contract the embedded blocks implement.
var pgSuites = []string{streams.Suite.Name, registry.Suite.Name, chat.Suite.Name, chatstate.Suite.Name, credentials.Suite.Name, builderrecords.Suite.Name,
	aicache.Suite.Name, knowledge.Suite.Name, memory.Suite.Name}

// vectorSuites are the suites whose modules need pgvector: a server
// without it leaves them out.
var vectorSuites = []string{knowledge.Suite.Name, memory.Suite.Name}

func TestPGStore(t *testing.T) {
	srv := pgtest.Server(t)
	st, err := pgstore.New(t.Context(), srv)
	if err != nil {
		t.Fatalf("prepare the pg store: %v", err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Errorf("close the pg store: %v", err)
		}
	})
	// pg runs exactly the suites whose interface a SQL module implements,
	// and points to the bridge for the others.
	// knowledge and memory are left out, saying how to get pgvector, on a
	// server without it.
	vector := pgtest.HasVector(t)
	var modules, run []string
	for _, s := range suites.All {
		err := s.Open(t.Context(), st)
		switch {
		case s.Module != "" && !vector && slices.Contains(vectorSuites, s.Name):
			modules = append(modules, s.Name)
			if !conform.IsNotImplemented(err) || !strings.Contains(err.Error(), "pgvector") {
				t.Errorf("opening %s on a server without pgvector: %v, want it left out with the way to get pgvector", s.Name, err)
			}
		case s.Module != "":
			modules = append(modules, s.Name)
			run = append(run, s.Name)
			if err != nil {
				t.Errorf("the pg store must run every suite with a SQL module, but %s (module %s): %v", s.Name, s.Module, err)
			}
		case !conform.IsNotImplemented(err) || !strings.Contains(err.Error(), "--store=bridge"):
			t.Errorf("opening %s, which no module implements: %v, want it not implemented, with the bridge named", s.Name, err)
		}
	}
	if !slices.Equal(modules, pgSuites) {
		t.Errorf("the suites with a SQL module are %v, want %v", modules, pgSuites)
	}
	conformtest.Run(t, st, run...)
	if !vector {
		pgtest.NeedVector(t)
	}
}

// Every chat-state case runs on pg, none skipped: the TTL cases move the
// subject's clock (conform.Clock) instead of waiting or giving up.
func TestPGChatStateRunsEveryCase(t *testing.T) {
	srv := pgtest.Server(t)
	st, err := pgstore.New(t.Context(), srv)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cases, err := conform.Select(suites.Cases(), conform.Options{Suites: []string{chatstate.Suite.Name}})
	if err != nil {
		t.Fatal(err)
	}
	rep := conform.Run(t.Context(), st, cases, conform.Options{Parallel: 4})
	if f := conformtest.Failures(rep); f != "" || rep.Count(conform.Pass) != len(cases) || len(cases) < 20 {
		t.Errorf("%d of %d chat-state cases passed (%d skipped):\n%s", rep.Count(conform.Pass), len(cases), rep.Count(conform.Skipped), f)
	}
}

// A run leaves no database behind: neither the shared clone nor the
// clones of the cases that purge, kept open for the next ones.
func TestPGStoreLeavesNothing(t *testing.T) {
	srv := pgtest.Server(t)
	if _, err := srv.Template(t.Context(), blocks.Template{}); err != nil {
		t.Fatal(err)
	}
	before := pgstore.Databases(t, srv)
	st, err := pgstore.New(t.Context(), srv)
	if err != nil {
		t.Fatal(err)
	}
	cases, err := conform.Select(suites.Cases(), conform.Options{Run: regexp.MustCompile(`purge|open-true`)})
	if err != nil {
		t.Fatal(err)
	}
	rep := conform.Run(t.Context(), st, cases, conform.Options{Parallel: 4})
	if f := conformtest.Failures(rep); f != "" || rep.Count(conform.Pass) != len(cases) {
		t.Errorf("%d of %d passed:\n%s", rep.Count(conform.Pass), len(cases), f)
	}
	// The shared clone, and the databases of the cases that purge, kept
	// for the next such case: one for each case of one suite that counts
	// what its purge removes, one at least, none more than such cases ran.
	counting, isolated := map[string]int{}, 0
	for _, c := range cases {
		if c.Isolated {
			isolated++
		}
		if c.Counts {
			counting[c.Suite]++
		}
	}
	least := 1
	for _, n := range counting {
		least = max(least, n)
	}
	during := pgstore.Databases(t, srv)
	if extra := len(during) - len(before); extra < 1+least || extra > 1+isolated {
		t.Errorf("while open the store should hold its shared clone and %d to %d kept for purging cases: before %v, during %v", least, isolated, before, during)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if after := pgstore.Databases(t, srv); !slices.Equal(after, before) {
		t.Errorf("databases left behind: before %v, after %v", before, after)
	}
}

// A case that purges sees no row another case of its suite left, whatever
// ran before it in the store: the cases that purge, run one at a time
// twice over on one store, in catalog order and then in reverse, all
// pass. A registry purge counts every old terminal run in the database,
// so one that found a run another registry case had aged would count it.
func TestIsolatedCasesSeeNoEarlierCase(t *testing.T) {
	srv := pgtest.Server(t)
	st, err := pgstore.New(t.Context(), srv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var isolated []conform.Case
	for _, c := range suites.Cases() {
		if c.Isolated {
			isolated = append(isolated, c)
		}
	}
	cases, notApplicable := conform.Applicable(st, isolated)
	if len(notApplicable) > 0 || !slices.ContainsFunc(cases, func(c conform.Case) bool { return c.Suite == registry.Suite.Name }) {
		t.Fatalf("want every Isolated case to apply to pg, registry's among them: %d apply, %d do not", len(cases), len(notApplicable))
	}
	reversed := slices.Clone(cases)
	slices.Reverse(reversed)
	for round, order := range [][]conform.Case{cases, reversed} {
		rep := conform.Run(t.Context(), st, order, conform.Options{Parallel: 1})
		if f := conformtest.Failures(rep); f != "" || rep.Count(conform.Pass) != len(order) {
			t.Errorf("round %d: %d of %d passed:\n%s", round+1, rep.Count(conform.Pass), len(order), f)
		}
	}
}
