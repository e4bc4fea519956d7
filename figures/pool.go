package figures

import (
	"fmt"
	"math"
	"slices"

	"github.com/ldpbench/ldpbench/results"
)

// PooledValue is the value a pooled field takes in a pooled summary.
const PooledValue = "pooled"

// pool merges, for the spec's metric (and its SDFrom companion), the
// summaries that differ only in the fields of spec.Pool, as a paper pools
// its errors over datasets (Raab et al. pool over datasets × runs × groups):
//
//   - the mean is the count-weighted mean of the means, which is the mean of
//     every trial value behind them;
//   - the SD is that of all those trial values, within and between cells:
//     √((Σ(nᵢ−1)sdᵢ² + Σnᵢ(mᵢ−m)²)/(Σnᵢ−1)); with spec.SDFrom it is instead
//     √(E[x²] − E[x]²) from the pooled mean of the companion metric, the
//     per-trial mean of x² over what one trial averages (the groups of a
//     group-means trial), so that the spread between groups is in it too;
//   - the 95% CI is that of a weighted mean of independent means,
//     m ± 1.96·√(Σwᵢ²seᵢ²), wᵢ = nᵢ/Σnᵢ (the cells are independent;
//     normal, since Σnᵢ is large wherever a figure pools);
//   - the theory is the count-weighted mean of the theories when every
//     cell has one (an expectation pools as the data do), else unknown.
//
// Summaries of other metrics pass unchanged. The pooled fields take the
// value PooledValue.
func pool(summaries []results.Summary, spec Spec) ([]results.Summary, error) {
	if len(spec.Pool) == 0 && spec.SDFrom == "" {
		return summaries, nil
	}
	type group struct {
		first   int
		members []*results.Summary
	}
	groups := map[string]*group{}
	var order []string
	companion := map[string]float64{} // pooled key → Σ nᵢ·mean of the SDFrom metric
	companionN := map[string]int{}
	var out []results.Summary
	for i := range summaries {
		s := &summaries[i]
		if s.Metric != spec.Metric && (spec.SDFrom == "" || s.Metric != spec.SDFrom) {
			out = append(out, *s)
			continue
		}
		if !keep(s, spec.Filter) {
			continue
		}
		p, err := pooledCell(s, spec.Pool)
		if err != nil {
			return nil, fmt.Errorf("figure %q: key \"pool\": %w", spec.Name, err)
		}
		key := p.Cell().Key()
		if s.Metric == spec.SDFrom {
			companion[key] += float64(s.Count) * float64(s.Mean)
			companionN[key] += s.Count
			continue
		}
		g, ok := groups[key]
		if !ok {
			g = &group{first: len(out)}
			groups[key] = g
			order = append(order, key)
			out = append(out, p)
		}
		g.members = append(g.members, s)
	}
	for _, key := range order {
		g := groups[key]
		p := &out[g.first]
		var n, sum, theory float64
		theoryKnown := true
		for _, s := range g.members {
			c := float64(s.Count)
			n += c
			sum += c * float64(s.Mean)
			theory += c * float64(s.Theory)
			theoryKnown = theoryKnown && s.Theory.Known()
			p.Quick = p.Quick || s.Quick
		}
		mean := sum / n
		var within, between, se2 float64
		for _, s := range g.members {
			c := float64(s.Count)
			if s.Count > 1 {
				within += (c - 1) * float64(s.SD) * float64(s.SD)
			}
			d := float64(s.Mean) - mean
			between += c * d * d
			w := c / n
			se2 += w * w * float64(s.SE) * float64(s.SE)
		}
		sd := math.Sqrt((within + between) / (n - 1))
		if spec.SDFrom != "" {
			m2n, ok := companion[key]
			if !ok || companionN[key] != int(n) {
				return nil, fmt.Errorf("figure %q: key \"sd_from\": metric %q is missing from the cells pooled into %s (or counts differ)", spec.Name, spec.SDFrom, key)
			}
			sd = math.Sqrt(max(0, m2n/n-mean*mean))
		}
		se := math.Sqrt(se2)
		p.Count = int(n)
		p.Mean = results.Float(mean)
		p.SD = results.Float(sd)
		p.SE = results.Float(se)
		p.CILo = results.Float(mean - 1.96*se)
		p.CIHi = results.Float(mean + 1.96*se)
		p.CIMethod = "normal (pooled)"
		p.Theory = results.Float(math.NaN())
		if theoryKnown {
			p.Theory = results.Float(theory / n)
		}
		if len(g.members) == 1 || n < 2 {
			p.SD, p.CILo, p.CIHi = g.members[0].SD, g.members[0].CILo, g.members[0].CIHi
		}
	}
	return out, nil
}

// pooledCell returns a copy of s with every field of fields set to
// PooledValue; the fields are dataset, n or params keys.
func pooledCell(s *results.Summary, fields []string) (results.Summary, error) {
	p := *s
	params := results.ParseParams(s.Params)
	for _, f := range fields {
		switch f {
		case "dataset":
			p.Dataset = PooledValue
		case "n":
			p.N = 0
		default:
			if _, ok := params[f]; !ok {
				return p, fmt.Errorf("summary %s has no field %q to pool (pool takes dataset, n or a params key)", s.Cell().Key(), f)
			}
			params[f] = PooledValue
		}
	}
	p.Params = results.FormatParams(params)
	return p, nil
}

// validPoolField reports whether f can be pooled.
func validPoolField(f string) bool {
	return f != "" && !slices.Contains([]string{"experiment", "method", "eps", "metric", "normalisation"}, f)
}
