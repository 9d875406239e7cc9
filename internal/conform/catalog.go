package conform

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/bsadapter/bsadapter/internal/bridge"
)

// WriteCatalog writes docs/conformance.md: every case ID with its rule,
// by suite, generated from the suites.
func WriteCatalog(w io.Writer, suites []*Suite) error {
	var b strings.Builder
	b.WriteString(`# Conformance catalog

<!-- Generated from the suites under internal/conform/suites by
     go test ./internal/conform -run Catalog -update; do not edit. -->

` + "`bsadapter conform`" + ` runs these cases. Each has a stable ID, the one rule it
checks, a fresh subject (fresh ids, and a database no other running case
uses when it purges) and a timeout. A failure names the rule and shows the expected and
the actual values. Select cases with ` + "`--suite`, `--run REGEX` and `--skip REGEX`" + `
(a case matched by both ` + "`--run` and `--skip`" + ` is an error); ` + "`bsadapter conform --list`" + `
prints this table. Which of better-supabase's own kit checks each case holds,
and where the suites ask for more or other than upstream's interfaces, is in
[upstream-interfaces.md](upstream-interfaces.md).

How each store is driven:

- ` + "`--store pg`" + ` (the default): the embedded blocks, installed once into a
  template database; the run works in a clone of it, and every case that
  purges gets a database no case running beside it uses (a clone, kept
  for the next such case once it ends; a case that counts what its purge
  removes never gets one a case of its suite has used). Every call goes through the blocks' SQL
  functions with a real caller's rights: the service role for writes, an
  authenticated user (` + "`request.jwt.claims`" + ` with a ` + "`sub`" + `) for owner reads and
  cancels, anon for the negative cases. Time is moved by shifting the
  rows' timestamps, never by waiting.
- ` + "`--store memory`" + `: the in-process reference implementation of the same
  contracts. Every case passes against it, but for the two of the
  credentials block's rules, which do not apply to it (below).
- ` + "`--store bridge`" + `: your StreamStore, run registry, Chat SDK state
  adapter, credential provider, engine adapter, graph compiler, builder
  runtime, Workflow SDK World, embedder and AI task runner over the bridge protocol. A run that names no suite leaves out the suites the bridge
  does not declare in its capabilities, and says which; a suite named with ` + "`--suite`" + ` is then
  reported as skipped, with that reason. Each case whose optional capability the bridge does not
  declare is skipped, and the reason names the capability ([bridge-protocol.md](bridge-protocol.md)).

Time: TTL and purge cases run on every store. Where rows can be aged (pg,
memory) or the store's clock moved (a bridge with the ` + "`clock`" + ` capability),
the cases move time by hours and days; on any other store they use real TTLs
and windows of a second and wait for them, side by side with the
rest of the run. Every case that purges runs its purge alone: no other case
of the store is in flight. A slow store gets more room as the run sees its
purges take longer, and a case whose wait another case's purge may have
spoiled, or whose set-up took longer than the TTL it set (a store that
expires by itself may then have removed what the case had just made),
runs again, on a fresh subject, up to three times before its failure
stands; a store that breaks the rule fails every time.

Each case checks one of two kinds of rule, which the table's column "of"
names. A rule of the **interface** is what the interface promises (the
StreamStore of better-supabase, the Chat SDK's StateAdapter, ...): every
store is held to it. A rule of the **block** is what the SQL block does
beyond that promise (its name follows, and the list under each suite's
table says what it is): pg keeps every one, memory every one but the
credentials block's (the memory reference is a provider of an adapter's
own kind, with no SQL callers and no audit log), and so does every store
that does not declare otherwise. A store that declares it does not
keep one (a bridge whose store expires streams by itself, see
` + "`" + bridge.CapStreamExpiry + "`" + ` in [bridge-protocol.md](bridge-protocol.md)) is not held to
its cases: the report lists them apart, with the reason, as not applying
to the store, and ` + "`--format json`" + ` puts them in ` + "`notApplicable`" + `. The
cases that need a feature below are block rules too where the interface
has no such feature (the bounded read, status details, owners); a store
offers them by declaring the feature.

Some cases need a feature not every store has; they are reported as
skipped, with the reason, where it is missing:

| feature | pg | memory | bridge capability |
| --- | --- | --- | --- |
| store identity (apiVersion and name) | yes | yes | ` + "`" + bridge.CapStreamIdentity + "`" + ` |
| bounded read (` + "`stream_read` with `max`" + `) | yes | yes | ` + "`" + bridge.CapStreamReadPage + "`" + ` |
| incremental live read (chunks as they come, abort) | yes: ` + "`stream_read`" + ` pages, polled | yes | ` + "`" + bridge.CapStreamLiveRead + "`" + ` |
| status kind and expiry | yes | yes | ` + "`" + bridge.CapStreamStatus + "`" + ` |
| caller identity (owner, another user, anon) | yes: ` + "`SET ROLE` and `request.jwt.claims`" + ` | yes | ` + "`" + bridge.CapStreamCallers + "`" + ` |
| tenant permissions (registry visibility by tenant) | yes | yes | ` + "`" + bridge.CapRunCallers + "`" + ` |
| movable clock (the chat suite's stale-run and harness-lock cases) | yes: timestamps are shifted through SQL | yes | none: the chat suite has no bridge methods |

A bridge with ` + "`" + bridge.CapStreamCallers + "`" + ` receives
` + "`\"caller\": {\"role\": \"authenticated\", \"sub\": \"<uuid>\"}`" + ` or
` + "`{\"role\": \"anon\"}`" + ` in the params of ` + "`streamStore.read`, `readLive`, `status`, `cancel` and `append`" + `,
and must answer as row-level security would for that caller. A bridge with
` + "`" + bridge.CapRunCallers + "`" + ` receives the same in the params of
` + "`runRegistry.get`, `list` and `requestCancel`" + `, answered as the
workflows block's rules would, and gives members their permissions through
` + "`" + bridge.MethodRunGrant + "`" + `. A run without callers says in its
summary how many owner rules did not run.
`)
	for _, suite := range suites {
		fmt.Fprintf(&b, "\n## %s (%d cases)\n\n%s\n\n| ID | rule | of | needs |\n| --- | --- | --- | --- |\n", suite.Name, len(suite.Cases), suite.Intro)
		var rules []BlockRule
		for _, c := range suite.Cases {
			need := string(c.Needs)
			if need == "" {
				need = "-"
			}
			of := string(SourceInterface)
			if !c.Block.IsZero() {
				of = fmt.Sprintf("%s: %s", SourceBlock, c.Block.Name)
				if !slices.Contains(rules, c.Block) {
					rules = append(rules, c.Block)
				}
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", c.ID, strings.ReplaceAll(c.Rule, "|", `\|`), of, need)
		}
		if len(rules) > 0 {
			b.WriteString("\nThe block rules of this suite, beyond the interface:\n\n")
			for _, r := range rules {
				fmt.Fprintf(&b, "- **%s**: %s\n", r.Name, r.Text)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
