package results

import (
	"fmt"
	"math"
	"slices"
)

// PooledValue is the value a pooled field takes in a pooled summary.
const PooledValue = "pooled"

// CanPool reports whether a field can be pooled (Pool): dataset, n or a
// params key, not the fields that name what is compared (experiment,
// method, eps) nor metric and normalisation.
func CanPool(field string) bool {
	return field != "" && !slices.Contains([]string{"experiment", "method", "eps", "metric", "normalisation"}, field)
}

// Pool merges the summaries of metric (kept by keep; nil keeps all) that
// differ only in the given fields, as a paper pools its errors over
// datasets (Raab et al. pool over datasets × runs × groups), for figures
// and tables alike:
//
//   - the mean is the count-weighted mean of the means, which is the mean of
//     every trial value behind them;
//   - the SD is that of all those trial values, within and between cells:
//     √((Σ(nᵢ−1)sdᵢ² + Σnᵢ(mᵢ−m)²)/(Σnᵢ−1)); with sdFrom it is instead
//     √(E[x²] − E[x]²) from the pooled mean of the companion metric sdFrom,
//     the per-trial mean of x² over what one trial averages (the groups of
//     a group-means trial), so that the spread between groups is in it too
//     (also for a single cell: sdFrom with no fields gives that SD per
//     cell);
//   - the 95% CI is that of a weighted mean of independent means,
//     m ± 1.96·√(Σwᵢ²seᵢ²), wᵢ = nᵢ/Σnᵢ (the cells are independent;
//     normal, since Σnᵢ is large wherever one pools), CIMethod "normal
//     (pooled)";
//   - the theory is the count-weighted mean of the theories when every
//     cell has one (an expectation pools as the data do), else unknown;
//   - min and max are the least min and the greatest max; the quartiles
//     and median of the pooled values are not known from the cells' (NaN),
//     nor their Tukey whiskers and outliers (NaN, none);
//   - Quick is set if any cell's is.
//
// A group of one cell keeps its own CI, CIMethod, quantiles and Tukey
// statistics (and its SD unless sdFrom says otherwise). Summaries of other
// metrics pass unchanged; those of sdFrom are consumed. The pooled fields
// take the value PooledValue. Errors start with the key they concern
// ("pool" or "sd_from"), for the caller to prefix with the figure or table.
func Pool(summaries []Summary, metric, sdFrom string, fields []string, keep func(*Summary) bool) ([]Summary, error) {
	if len(fields) == 0 && sdFrom == "" {
		return summaries, nil
	}
	type group struct {
		first   int
		members []*Summary
	}
	groups := map[string]*group{}
	var order []string
	companion := map[string]float64{} // pooled key → Σ nᵢ·mean of the sdFrom metric
	companionN := map[string]int{}
	var out []Summary
	for i := range summaries {
		s := &summaries[i]
		if s.Metric != metric && (sdFrom == "" || s.Metric != sdFrom) {
			out = append(out, *s)
			continue
		}
		if keep != nil && !keep(s) {
			continue
		}
		p, err := pooledCell(s, fields)
		if err != nil {
			return nil, fmt.Errorf("key \"pool\": %w", err)
		}
		key := p.Cell().Key()
		if s.Metric == sdFrom {
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
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, s := range g.members {
			c := float64(s.Count)
			n += c
			sum += c * float64(s.Mean)
			theory += c * float64(s.Theory)
			theoryKnown = theoryKnown && s.Theory.Known()
			p.Quick = p.Quick || s.Quick
			// NaN (unknown) in any cell makes the pooled extreme unknown.
			if !s.Min.Known() || !s.Max.Known() {
				lo, hi = math.NaN(), math.NaN()
			} else if !math.IsNaN(lo) {
				lo, hi = math.Min(lo, float64(s.Min)), math.Max(hi, float64(s.Max))
			}
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
		if sdFrom != "" {
			m2n, ok := companion[key]
			if !ok || companionN[key] != int(n) {
				return nil, fmt.Errorf("key \"sd_from\": metric %q is missing from the cells pooled into %s (or counts differ)", sdFrom, key)
			}
			sd = math.Sqrt(max(0, m2n/n-mean*mean))
		}
		se := math.Sqrt(se2)
		nan := Float(math.NaN())
		p.Count = int(n)
		p.Mean = Float(mean)
		p.SD = Float(sd)
		p.SE = Float(se)
		p.CILo = Float(mean - 1.96*se)
		p.CIHi = Float(mean + 1.96*se)
		p.CIMethod = "normal (pooled)"
		p.Min, p.Q25, p.Median, p.Q75, p.Max = Float(lo), nan, nan, nan, Float(hi)
		p.WhiskerLo, p.WhiskerHi, p.Outliers = nan, nan, nil
		p.Theory = nan
		if theoryKnown {
			p.Theory = Float(theory / n)
		}
		if len(g.members) == 1 || n < 2 {
			m := g.members[0]
			p.CILo, p.CIHi, p.CIMethod = m.CILo, m.CIHi, m.CIMethod
			p.Min, p.Q25, p.Median, p.Q75, p.Max = m.Min, m.Q25, m.Median, m.Q75, m.Max
			p.WhiskerLo, p.WhiskerHi, p.Outliers = m.WhiskerLo, m.WhiskerHi, m.Outliers
			if sdFrom == "" {
				p.SD = m.SD
			}
		}
	}
	return out, nil
}

// pooledCell returns a copy of s with every field of fields set to
// PooledValue; the fields are dataset, n or params keys.
func pooledCell(s *Summary, fields []string) (Summary, error) {
	p := *s
	params := ParseParams(s.Params)
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
	p.Params = FormatParams(params)
	return p, nil
}
