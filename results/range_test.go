package results

import (
	"math"
	"testing"
)

// A fraction's interval is cut to [0, 1]; a metric without a range keeps
// its t interval, which for two trials 0.1 and 0.9 reaches far below 0
// (0.5 ± 12.7·0.4 = [−4.6, 5.6]).
func TestIntervalCutToRange(t *testing.T) {
	for _, c := range []struct {
		metric string
		lo, hi float64
	}{
		{"misclassification_rate", 0, 1},
		{"order_correct", 0, 1},
		{"mean_diff", 0.5 - 12.706204736174707*0.4, 0.5 + 12.706204736174707*0.4},
	} {
		var rows []Row
		for i, v := range []float64{0.1, 0.9} {
			rows = append(rows, Row{Experiment: "e", Dataset: "d", Method: "m", Eps: 1, N: 10, Trial: i, Metric: c.metric, Value: Float(v)})
		}
		s := Summarise(rows)[0]
		if math.Abs(float64(s.CILo)-c.lo) > 1e-9 || math.Abs(float64(s.CIHi)-c.hi) > 1e-9 {
			t.Errorf("%s: CI [%v, %v], want [%v, %v]", c.metric, s.CILo, s.CIHi, c.lo, c.hi)
		}
	}
}
