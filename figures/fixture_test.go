package figures

import (
	"math"

	"github.com/ldpbench/ldpbench/results"
)

// nan is an unknown value.
var nan = results.Float(math.NaN())

// sum is a summary of one cell and metric, with a CI of mean ± se·2.
func sum(dataset, method string, eps float64, metric string, mean, theory float64) results.Summary {
	se := mean / 10
	return results.Summary{
		Experiment: "demo", Dataset: dataset, Method: method, Eps: results.Float(eps), N: 1000,
		Params: "m=4", Normalisation: "minmax[0,1]", Metric: metric, Count: 50,
		Mean: results.Float(mean), SD: results.Float(se * math.Sqrt(50)), SE: results.Float(se),
		CILo: results.Float(mean - 2*se), CIHi: results.Float(mean + 2*se), Theory: results.Float(theory),
	}
}

// sweep is an eps sweep of two datasets and three methods with a known
// theory curve and measurements that wobble around it.
func sweep() []results.Summary {
	var out []results.Summary
	k := 0
	for _, d := range []string{"uniform", "adult"} {
		for _, m := range []struct {
			name string
			c    float64
		}{{"duchi", 4}, {"pm", 2.5}, {"hm", 1.8}} {
			for _, eps := range []float64{0.5, 1, 2, 4, 8} {
				th := m.c * (math.Exp(eps) + 1) / math.Pow(math.Exp(eps)-1, 2) / 1000
				if d == "adult" {
					th *= 0.7
				}
				k++
				wobble := 1 + 0.08*math.Sin(float64(k))
				out = append(out, sum(d, m.name, eps, "mse", th*wobble, th))
				out = append(out, sum(d, m.name, eps, "abs", math.Sqrt(th)*wobble, math.NaN()))
			}
		}
	}
	return out
}

// grid has five panels, one of them missing a series, and a series
// whose theory is known at one point only.
func grid() []results.Summary {
	var s []results.Summary
	for _, d := range []string{"a", "b", "c", "d", "e"} {
		for i, m := range []string{"pm", "duchi", "hm"} {
			if d == "c" && m == "pm" {
				continue
			}
			for _, eps := range []float64{1, 2, 3} {
				mse := float64(i+2) / eps
				s = append(s, sum(d, m, eps, "mse", mse, mse*1.05))
			}
		}
	}
	s[0].Theory, s[1].Theory = nan, nan
	return s
}
