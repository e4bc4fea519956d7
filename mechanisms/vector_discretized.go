package mechanisms

import (
	"fmt"
	"strings"
)

// NewVectorDiscretized is [NewVector] with Zhao et al.'s Algorithm 5 on
// the 1-D reports: Algorithm 6 ([NewSampleKofD]) over the registered
// mechanism method wrapped in [NewDiscretized] with grid parameter m (2m+1
// output levels), so that each sampled coordinate is rounded before the
// d/k scaling, on the inner mechanism's own grid (E3.19). m = 0 is
// NewVector itself. Duchi's multi-dimensional mechanism and the Laplace
// split have no bounded continuous 1-D report to discretise and are
// refused, as is any method NewDiscretized refuses.
func NewVectorDiscretized(method string, d int, eps float64, m int) (Vector, error) {
	if m == 0 {
		return NewVector(method, d, eps)
	}
	if method == "duchi" || method == "laplace" {
		return nil, fmt.Errorf("method %s with discretisation: Algorithm 5 discretises the 1-D reports of Algorithm 6 over a bounded continuous mechanism (pm, pm-sub, pm-opt, hm, hm-tp)", method)
	}
	info, ok := Lookup(method)
	if !ok {
		return nil, fmt.Errorf("unknown mechanism %q (valid: %s)", method, strings.Join(Names(), ", "))
	}
	inner := func(eps float64) (Mechanism, error) {
		m1, err := info.New(eps)
		if err != nil {
			return nil, err
		}
		return NewDiscretized(m1, m)
	}
	return NewSampleKofD(method, inner, d, eps)
}
