package harness

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ldpbench/ldpbench/experiment"
)

// Shard names one of Count shares of a spec's cells (--shard Index/Count,
// Index from 0 as Slurm's SLURM_ARRAY_TASK_ID and Kubernetes'
// JOB_COMPLETION_INDEX count). The zero value is no sharding.
type Shard struct {
	Index, Count int
}

// Active reports whether s names a shard (Count ≥ 1).
func (s Shard) Active() bool { return s.Count > 0 }

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// ParseShard parses "i/N" with 0 ≤ i < N.
func ParseShard(v string) (Shard, error) {
	a, b, ok := strings.Cut(v, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("--shard %q: want i/N, e.g. 0/4 (i counts from 0)", v)
	}
	if n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("--shard %q: want 0 ≤ i < N and N ≥ 1", v)
	}
	return Shard{i, n}, nil
}

// shardSuffix is appended to the first line of a shard's rows.csv: merge
// strips it to recover the line of the single run.
var shardSuffix = regexp.MustCompile(` shard=([0-9]+)/([0-9]+)$`)

func (s Shard) suffix() string { return " shard=" + s.String() }

// splitShardLine returns the first line without its shard suffix and the
// shard it names (ok false: not a shard's line).
func splitShardLine(line string) (base string, sh Shard, ok bool) {
	m := shardSuffix.FindStringSubmatchIndex(line)
	if m == nil {
		return line, Shard{}, false
	}
	i, _ := strconv.Atoi(line[m[2]:m[3]])
	n, _ := strconv.Atoi(line[m[4]:m[5]])
	return line[:m[0]], Shard{i, n}, n >= 1 && i < n
}

// AssignShards gives every cell, by its estimated cost (costs[i], any
// positive unit), to one of n shards: greedy longest processing time first,
// the costliest cell to the least loaded shard (ties: the cell earlier in
// the plan, the shard of lower index). Its makespan is at most 4/3 of the
// best possible (Graham 1969), and it depends only on the costs and their
// order, so every shard computes the same assignment on its own machine.
// Round-robin by index would not do: a ULE cell at n = 10⁷ costs as much as
// 10⁴ mean cells.
func AssignShards(costs []float64, n int) []int {
	order := make([]int, len(costs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(costs[b], costs[a]) })
	load := make([]float64, n)
	out := make([]int, len(costs))
	for _, c := range order {
		best := 0
		for s := 1; s < n; s++ {
			if load[s] < load[best] {
				best = s
			}
		}
		out[c] = best
		load[best] += costs[c]
	}
	return out
}

// cellCosts returns the estimated cost of every cell: trials × the kind's
// experiment.TrialCost.
func cellCosts(kind experiment.Kind, specs []*experiment.CellSpec, trials int) []float64 {
	costs := make([]float64, len(specs))
	for i, c := range specs {
		costs[i] = float64(trials) * experiment.TrialCost(kind, c)
	}
	return costs
}
