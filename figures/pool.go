package figures

import (
	"fmt"
	"maps"

	"github.com/ldpbench/ldpbench/results"
)

// PooledValue is the value a pooled field takes in a pooled summary.
const PooledValue = results.PooledValue

// pool merges, for the spec's metric (and its SDFrom companion), the
// summaries that differ only in the fields of spec.Pool, as results.Pool
// says (the mean and SD of every trial value behind the merged cells, the
// CI of the weighted mean, the pooled theory), keeping only those that
// pass the spec's filter. Summaries of other metrics pass unchanged.
func pool(summaries []results.Summary, spec Spec) ([]results.Summary, error) {
	out, err := results.Pool(summaries, spec.Metric, spec.SDFrom, spec.Pool, func(s *results.Summary) bool { return keep(s, spec.Filter) })
	if err != nil {
		return nil, fmt.Errorf("figure %q: %w", spec.Name, err)
	}
	return out, nil
}

// unpooledFilter is the spec's filter without the pooled fields: pool
// applied it, and a pooled field now reads PooledValue, which a filter on
// it would drop.
func unpooledFilter(spec Spec) map[string][]string {
	if len(spec.Pool) == 0 {
		return spec.Filter
	}
	out := maps.Clone(spec.Filter)
	for _, f := range spec.Pool {
		delete(out, f)
	}
	return out
}

// validPoolField reports whether f can be pooled.
func validPoolField(f string) bool { return results.CanPool(f) }
