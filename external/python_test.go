//go:build unix

package external_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ldpbench/ldpbench/estimators"
	"github.com/ldpbench/ldpbench/external"
	"github.com/ldpbench/ldpbench/harness"
	"github.com/ldpbench/ldpbench/mechanisms"
)

const pyExample = "../examples/python/piecewise.py"

// numpyPython returns a Python that imports numpy: python3 on $PATH, else
// Debian's /usr/bin/python3 (a pyenv or virtualenv python3 may come first
// on $PATH without numpy, while apt installs numpy for the system's), or
// skips the test.
func numpyPython(t testing.TB) string {
	t.Helper()
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(py, "-c", "import numpy").Run() == nil {
			return py
		}
	}
	t.Skip("no python3 with numpy: apt-get install python3-numpy")
	return ""
}

func startPython(t testing.TB, name string) *external.Program {
	t.Helper()
	py := numpyPython(t)
	abs, err := filepath.Abs(pyExample)
	if err != nil {
		t.Fatal(err)
	}
	p, err := external.Start(context.Background(), external.Config{Name: name, Command: []string{py, abs}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// TestPythonLaw: examples/python/piecewise.py has the law of the built-in
// pm: its variance, worst case, output range, density, CDF and bucket
// probabilities to 1e-12, and its reports at x = 0.3 and -1 fit pm's exact
// bucket probabilities (χ² over 20 buckets, false failure 1e-6).
func TestPythonLaw(t *testing.T) {
	p := startPython(t, "pm-py-law")
	for _, eps := range []float64{0.5, 2, 4} {
		m, err := p.Mechanism(eps)
		if err != nil {
			t.Fatal(err)
		}
		ref, _ := mechanisms.NewPM(eps)
		c, ok := m.(interface {
			mechanisms.Continuous
			mechanisms.Estimate
		})
		if !ok {
			t.Fatalf("%T: not Continuous and an Estimate", m)
		}
		near := func(what string, got, want float64) {
			if math.Abs(got-want) > 1e-12*max(1, math.Abs(want)) {
				t.Errorf("ε = %v: %s = %v, pm's %v", eps, what, got, want)
			}
		}
		lo, hi := c.OutputRange()
		rlo, rhi := ref.OutputRange()
		near("out_lo", lo, rlo)
		near("out_hi", hi, rhi)
		near("worst-case variance", c.WorstCaseVariance(), ref.WorstCaseVariance())
		for _, x := range []float64{-1, -0.4, 0, 0.3, 1} {
			near(fmt.Sprintf("Variance(%v)", x), c.Variance(x), ref.Variance(x))
			for _, y := range []float64{-rhi - 1, -rhi, -1.1, 0, 0.35, 2, rhi} {
				near(fmt.Sprintf("CDF(%v | %v)", y, x), c.CDF(y, x), ref.CDF(y, x))
				if l, r := ref.Window(x); y > -rhi && y < rhi && math.Abs(y-l) > 1e-9 && math.Abs(y-r) > 1e-9 {
					near(fmt.Sprintf("Density(%v | %v)", y, x), c.Density(y, x), ref.Density(y, x))
				}
			}
		}
		for _, q := range [][4]float64{{-1, 0.5, -0.2, 0.7}, {-rhi, rhi, -1, 1}, {0.1, 0.2, 0.3, 0.3}, {-3, -2.5, -1, -0.5}} {
			near(fmt.Sprintf("BucketGivenBin%v", q), c.BucketGivenBin(q[0], q[1], q[2], q[3]), ref.BucketGivenBin(q[0], q[1], q[2], q[3]))
		}
		const n, k = 100000, 20
		crit := distuv.ChiSquared{K: k - 1}.Quantile(1 - 1e-6)
		rng := rand.New(rand.NewPCG(uint64(eps*10), 7))
		for _, x := range []float64{0.3, -1} {
			xs, ys := make([]float64, n), make([]float64, n)
			for i := range xs {
				xs[i] = x
			}
			if err := c.PerturbBatch(ys, xs, rng); err != nil {
				t.Fatal(err)
			}
			var counts [k]float64
			for _, y := range ys {
				counts[min(int((y-rlo)/(rhi-rlo)*k), k-1)]++
			}
			var chi2 float64
			for b := range k {
				e := n * ref.BucketGivenBin(rlo+(rhi-rlo)*float64(b)/k, rlo+(rhi-rlo)*float64(b+1)/k, x, x)
				chi2 += (counts[b] - e) * (counts[b] - e) / e
			}
			if chi2 > crit {
				t.Errorf("ε = %v, x = %v: χ² = %.1f over %d buckets, above %.1f", eps, x, chi2, k, crit)
			}
		}
	}
}

// TestPythonExample runs examples/python/pm-external.toml at quick scale
// (its command's python3 replaced by one with numpy, its path made
// absolute): the Python mechanism's MSE is pm's within the CI at every ε,
// and its theory is pm's.
func TestPythonExample(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Python example spec (about 2 s)")
	}
	py := numpyPython(t)
	s, err := harness.LoadSpec("../examples/python/pm-external.toml")
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(pyExample)
	s.Mechanisms[0].Command = []string{py, abs}
	res, err := harness.Run(context.Background(), meanKinds, s, harness.Options{OutDir: t.TempDir(), Quick: true, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]float64{}
	se := map[string]float64{}
	theory := map[string]float64{}
	for _, sm := range res.Summaries {
		if sm.Metric == "mse" {
			k := fmt.Sprint(sm.Method, " ", sm.Eps, " ", sm.N)
			by[k], se[k], theory[k] = float64(sm.Mean), float64(sm.SE), float64(sm.Theory)
		}
	}
	for _, eps := range s.Axes.Eps {
		for _, n := range s.Quick.N {
			a, b := fmt.Sprint("pm ", eps, " ", n), fmt.Sprint("pm-py ", eps, " ", n)
			if _, ok := by[b]; !ok {
				t.Fatalf("no summary of %s", b)
			}
			z := (by[b] - by[a]) / math.Hypot(se[a], se[b])
			t.Logf("ε = %v n = %d: MSE pm-py %.4g ± %.2g, pm %.4g ± %.2g, theory %.4g / %.4g (z = %.2f)", eps, n, by[b], se[b], by[a], se[a], theory[b], theory[a], z)
			if math.Abs(z) > 5 {
				t.Errorf("ε = %v: z = %.2f between pm-py and pm", eps, z)
			}
			if math.Abs(theory[b]-theory[a]) > 1e-12*theory[a] {
				t.Errorf("ε = %v: theory %v, pm's %v", eps, theory[b], theory[a])
			}
		}
	}
}

// BenchmarkPipe is the cost of the pipe: one kind-mean trial at n = 10^6
// (estimators.MeanOfReports in batches of 4096, as the kind runs it)
// through the protocol with the numpy piecewise mechanism, against that
// program's own time to draw the 10^6 reports in-process, in the same
// batches (x-chunked) and in one call (x-whole).
//
//	go test -run '^$' -bench Pipe ./external/
func BenchmarkPipe(b *testing.B) {
	p := startPython(b, "pm-py-bench")
	m, err := p.Mechanism(1)
	if err != nil {
		b.Fatal(err)
	}
	est, err := mechanisms.Unbiased(m)
	if err != nil {
		b.Fatal(err)
	}
	const n = 1000000
	rng := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = 2*rng.Float64() - 1
	}
	buf := make([]float64, estimators.ChunkSize)
	if _, err := estimators.MeanOfReports(est, xs, rng, buf); err != nil { // warm up
		b.Fatal(err)
	}
	best := math.Inf(1)
	for b.Loop() {
		t0 := time.Now()
		if _, err := estimators.MeanOfReports(est, xs, rng, buf); err != nil {
			b.Fatal(err)
		}
		best = min(best, time.Since(t0).Seconds())
	}
	b.StopTimer()
	out, err := exec.Command(p.Config().Command[0], p.Config().Command[1], "--time", fmt.Sprint(n), "1").Output()
	if err != nil {
		b.Fatal(err)
	}
	var self struct {
		Chunked float64 `json:"chunked_seconds"`
		Whole   float64 `json:"whole_seconds"`
	}
	if err := json.Unmarshal(out, &self); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(best, "s-trial-best")
	b.ReportMetric(self.Chunked, "s-self-chunked")
	b.ReportMetric(self.Whole, "s-self-whole")
	b.ReportMetric(best/self.Chunked, "x-chunked")
	b.ReportMetric(best/self.Whole, "x-whole")
}
