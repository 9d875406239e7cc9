package docgen

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/internal/cli"
)

// bridgeFault finds a sentence about a bridge that fails during a run.
var bridgeFault = regexp.MustCompile(`(?i)transport fault|bridge that (dies|died|breaks)|bridge dies`)

// sentenceEnd splits a page into sentences (roughly: a period or a blank
// line).
var sentenceEnd = regexp.MustCompile(`\.\s+|\n\s*\n`)

// exitClaim finds what a sentence says the exit code is: "exit code 2",
// "exits with 1", "the run exits `2`", "is also `2`".
var exitClaim = regexp.MustCompile("(?i)\\b(?:exits?(?: code| with| status)?|is also) `?(\\d+)`?")

// TestBridgeFaultExitCodeAgrees: every page that says what a bridge that
// dies or breaks the protocol mid-run exits with says the code the
// binary uses (exit-codes.md's environment error), and exit-codes.md's
// row of that code names the case.
func TestBridgeFaultExitCodeAgrees(t *testing.T) {
	want := fmt.Sprint(cli.ExitUsage)
	claims := 0
	for _, name := range []string{"bridge-protocol.md", "exit-codes.md"} {
		for _, sentence := range sentenceEnd.Split(string(readDoc(t, name)), -1) {
			if !bridgeFault.MatchString(sentence) {
				continue
			}
			for _, m := range exitClaim.FindAllStringSubmatch(sentence, -1) {
				claims++
				if m[1] != want {
					t.Errorf("docs/%s says %q of a bridge that fails mid-run; the binary exits %s then (docs/exit-codes.md):\n%s", name, m[0], want, sentence)
				}
			}
		}
	}
	if claims < 3 {
		t.Errorf("found %d statements of the exit code of a bridge that fails mid-run; the pages changed, update this test", claims)
	}
	row := regexp.MustCompile("(?m)^\\| `" + want + "` \\|.*$").FindString(string(readDoc(t, "exit-codes.md")))
	if !strings.Contains(row, "breaks the protocol or dies mid-run") {
		t.Errorf("docs/exit-codes.md: the row of code %s does not name a bridge that breaks the protocol or dies mid-run:\n%s", want, row)
	}
}
