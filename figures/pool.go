package figures

import (
	"fmt"

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

// validPoolField reports whether f can be pooled.
func validPoolField(f string) bool { return results.CanPool(f) }
