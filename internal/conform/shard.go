package conform

// WholeStore says whether the case needs the store to itself for some of
// its steps: it purges (Isolated) or moves the store's clock (MovesClock).
func (c *Case) WholeStore() bool { return c.Isolated || c.MovesClock }

// ShardOf returns the part of cases that shard k of n runs (1 <= k <= n),
// in the cases' order. The parts are disjoint and together are cases;
// each case runs whole in one part. The assignment depends only on the
// cases and their order (the table's, by suite and ID), so it is the same
// from run to run: the whole-store cases are dealt out first, one a part
// in turn, then the others, continuing the deal where it stopped, so that
// no part has more than one case more than another, and no more than one
// whole-store case more (those are the slow ones: they run alone).
func ShardOf(cases []Case, k, n int) []Case {
	var out []Case
	for i, whole := range ShardPlan(cases, n) {
		if whole == k {
			out = append(out, cases[i])
		}
	}
	return out
}

// ShardPlan returns, for each case, the part (1 to n) it belongs to.
func ShardPlan(cases []Case, n int) []int {
	part := make([]int, len(cases))
	deal := 0
	for pass := range 2 {
		for i := range cases {
			if cases[i].WholeStore() != (pass == 0) {
				continue
			}
			part[i] = deal%n + 1
			deal++
		}
	}
	return part
}
