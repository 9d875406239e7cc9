package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// Shard says which part of a run a report holds: the K-th (Index) of N
// (Total) disjoint parts, and what the whole run is made of, so that the
// reports of all N parts can be joined into the report of the whole run
// (merge-reports) and a part of another run can be refused.
type Shard struct {
	// Command is the command that ran: "conform" or "check-fixtures".
	Command string `json:"command"`
	Index   int    `json:"index"`
	Total   int    `json:"total"`
	// Run identifies the whole run: a hash of the command, what it ran
	// against and every unit of it. The N reports of one run carry the
	// same value.
	Run string `json:"run"`
	// Unit names what the run was divided into: "case" (conform),
	// "file" (check-fixtures) or "message" (check-fixtures --generate).
	Unit string `json:"unit"`
	// Units lists the whole run's cases or files in the run's order
	// (absent for generated messages, numbered 0 to Count-1).
	Units []string `json:"units,omitempty"`
	// Count is how many units the whole run has.
	Count int `json:"count"`
	// From and To bound the generated messages this part ran, by index:
	// From <= index < To (a generated run only).
	From int `json:"from,omitempty"`
	To   int `json:"to,omitempty"`
}

// ParseShard reads a --shard value "K/N": the K-th of N parts, 1 <= K <= N.
func ParseShard(v string) (k, n int, err error) {
	a, b, ok := strings.Cut(strings.TrimSpace(v), "/")
	if !ok {
		return 0, 0, fmt.Errorf("--shard %q is not K/N (e.g. --shard 2/4, the second of four parts)", v)
	}
	k, errK := strconv.Atoi(strings.TrimSpace(a))
	n, errN := strconv.Atoi(strings.TrimSpace(b))
	switch {
	case errK != nil || errN != nil:
		return 0, 0, fmt.Errorf("--shard %q is not K/N with whole numbers K and N (e.g. --shard 2/4, the second of four parts)", v)
	case n < 1:
		return 0, 0, fmt.Errorf("--shard %q: N, the number of parts, must be at least 1", v)
	case k < 1 || k > n:
		return 0, 0, fmt.Errorf("--shard %q: K must be between 1 and N (%d), e.g. --shard 1/%d to --shard %d/%d", v, n, n, n, n)
	}
	return k, n, nil
}

// RunID hashes what identifies a whole run into Shard.Run.
func RunID(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s\n", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Label is "shard 2/4", for text reports.
func (s *Shard) Label() string { return fmt.Sprintf("shard %d/%d", s.Index, s.Total) }
