package group_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/mechanisms/group"
)

// alpha is the false-failure probability of each statistical check.
const alpha = 1e-6

// zAlpha is the two-sided normal critical value at alpha, 4.8916.
var zAlpha = distuv.UnitNormal.Quantile(1 - alpha/2)

func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 11)) }

// simConfigs are the configurations the Simulate tests run, at d = 3:
// every method, and for NPRR odd and even k with both neutral reports.
func simConfigs(eps float64) []group.Config {
	cfgs := []group.Config{
		{Method: "bernoulli"},
		{Method: "nprr", K: 2},
		{Method: "nprr", K: 3},
		{Method: "nprr", K: 8, Neutral: group.NeutralUniformGrid},
		{Method: "laplace"},
		{Method: "pw"},
		{Method: "pw", Split: "ratio:0.2"},
		{Method: "value", Value: "pm-sub"},
		{Method: "value", Value: "three-outputs"},
	}
	for i := range cfgs {
		cfgs[i].Eps, cfgs[i].D = eps, 3
	}
	return cfgs
}

// reporter makes one tally of a population: Simulate, or one Perturb per
// user (perturbTally), which is what Simulate's law must equal.
type reporter func(m *group.Mechanism, t *group.Tally, groups []int32, values []float64, rng *rand.Rand) error

func simulate(m *group.Mechanism, t *group.Tally, groups []int32, values []float64, rng *rand.Rand) error {
	return m.Simulate(t, groups, values, rng)
}

func perturbTally(m *group.Mechanism, t *group.Tally, groups []int32, values []float64, rng *rand.Rand) error {
	t.N, t.Moved = len(groups), 0
	t.Count = make([]float64, m.D())
	t.Sum = make([]float64, m.D())
	for i, g := range groups {
		h, y := m.Perturb(int(g), values[i], rng)
		t.Count[h]++
		t.Sum[h] += y
		if h != int(g) {
			t.Moved++
		}
	}
	return nil
}

var reporters = []struct {
	name string
	f    reporter
}{{"Simulate", simulate}, {"Perturb", perturbTally}}

// pearson returns Pearson's statistic of counts against probabilities ps
// (n draws) and its p-value; cells of expected count below 5 are pooled
// into one cell (with its own expected count), and a cell of probability 0
// must be empty.
func pearson(counts, ps []float64, n int) (stat, pv float64, err error) {
	var po, pe float64
	cells := 0
	for i, p := range ps {
		e := p * float64(n)
		switch {
		case p == 0 && counts[i] > 0:
			return 0, 0, fmt.Errorf("%v draws in cell %d of probability 0", counts[i], i)
		case e < 5:
			po += counts[i]
			pe += e
		default:
			stat += (counts[i] - e) * (counts[i] - e) / e
			cells++
		}
	}
	if pe > 0 {
		stat += (po - pe) * (po - pe) / pe
		cells++
	}
	return stat, distuv.ChiSquared{K: float64(cells - 1)}.Survival(stat), nil
}

// oneUser returns the single report in a tally of one user: its group and
// value, and checks that Count and Moved say the same.
func oneUser(t *testing.T, tl *group.Tally, g int) (int, float64) {
	t.Helper()
	h := slices.Index(tl.Count, 1)
	if h < 0 || tl.N != 1 || slices.Max(tl.Count) != 1 || sum(tl.Count) != 1 {
		t.Fatalf("tally of one user: N %d, Count %v", tl.N, tl.Count)
	}
	if moved := tl.Moved == 1; moved != (h != g) || (tl.Moved != 0 && tl.Moved != 1) {
		t.Fatalf("one user of group %d reported %d, Moved %v", g, h, tl.Moved)
	}
	for j, s := range tl.Sum {
		if j != h && s != 0 {
			t.Fatalf("Sum %v without a report at group %d", tl.Sum, j)
		}
	}
	return h, tl.Sum[h]
}

func sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}

// bucketLaw returns the probabilities of the buckets (edges[b], edges[b+1]]
// of v′ jointly with each group h, h·B + b, for the input (g, v): a times
// the value mechanism's bucket probability at v for h = g, q times that at
// the neutral 0 otherwise. The value mechanism is built independently of
// the group package, from the registry at ε2.
func bucketLaw(t *testing.T, m *group.Mechanism, g int, v float64, edges []float64) []float64 {
	t.Helper()
	name := map[string]string{"laplace": "laplace", "pw": "pm", "value": m.Config().Value}[m.Config().Method]
	vm, err := mechanisms.New(name, m.Eps2())
	if err != nil {
		t.Fatal(err)
	}
	c := vm.(mechanisms.Continuous)
	a, q := m.Keep()
	B := len(edges) - 1
	ps := make([]float64, m.D()*B)
	for h := range m.D() {
		w, x := q, 0.0
		if h == g {
			w, x = a, v
		}
		for b := range B {
			ps[h*B+b] = w * c.BucketGivenBin(edges[b], edges[b+1], x, x)
		}
	}
	return ps
}

// TestOneUserLaw: the report of one user, by Simulate (n = 1) and by
// Perturb, has the exact law: a chi-square test (alpha 1e-6) of 40,000
// reports of each of four inputs (v on and off NPRR's grid, at both ends)
// against JointProbabilities over every (g′, v′) for discrete reports, and
// against buckets of the value mechanism's exact law (BucketGivenBin, a
// for the own group, q at the neutral 0 for the others) for continuous
// ones. This is Simulate's whole per-user law, kept and moved, including
// the neutral report. Catches movers sent to their own group, a neutral
// report drawn at the wrong index (odd k: k/2 instead of k/2 ± ½), GRR's
// "keep with c" mistaken for "keep with p", and a PM outer side chosen
// with equal probabilities instead of by length.
func TestOneUserLaw(t *testing.T) {
	const runs = 40_000
	inputs := []struct {
		g int
		v float64
	}{{0, -1}, {1, 1.0 / 3}, {2, 0.7}, {1, 1}}
	seed := uint64(100)
	for _, eps := range []float64{1, 4} {
		for _, cfg := range simConfigs(eps) {
			for _, rep := range reporters {
				seed++
				rng := newRNG(seed)
				m := mustNew(t, cfg)
				t.Run(fmt.Sprintf("%s/%s/eps=%v", m.Name(), rep.name, eps), func(t *testing.T) {
					t.Parallel()
					var tl group.Tally
					for _, in := range inputs {
						outs := m.ValueOutputs()
						var ps []float64
						var edges []float64
						if outs != nil {
							ps = make([]float64, m.D()*len(outs))
							m.JointProbabilities(in.g, in.v, ps)
						} else {
							edges = bucketEdges(m)
							ps = bucketLaw(t, m, in.g, in.v, edges)
						}
						counts := make([]float64, len(ps))
						for range runs {
							if err := rep.f(m, &tl, []int32{int32(in.g)}, []float64{in.v}, rng); err != nil {
								t.Fatal(err)
							}
							h, y := oneUser(t, &tl, in.g)
							var j int
							if outs != nil {
								j = slices.Index(outs, y)
								if j < 0 {
									t.Fatalf("report %v is not an output %v", y, outs)
								}
							} else {
								j = bucketOf(edges, y)
							}
							counts[h*len(ps)/m.D()+j]++
						}
						stat, pv, err := pearson(counts, ps, runs)
						if err != nil || pv < alpha {
							t.Errorf("input (%d, %v): chi-square %.4g, p-value %.3g, %v", in.g, in.v, stat, pv, err)
						}
					}
				})
			}
		}
	}
}

// bucketEdges returns 12 buckets over the value report's range, or for
// Laplace over ±(1 + 3λ) with two infinite tails.
func bucketEdges(m *group.Mechanism) []float64 {
	if m.Config().Method == "laplace" {
		w := 1 + 3*2/m.Eps2()
		e := make([]float64, 0, 14)
		e = append(e, math.Inf(-1))
		for i := range 11 {
			e = append(e, -w+2*w*float64(i)/10)
		}
		return append(e, math.Inf(1))
	}
	name := map[string]string{"pw": "pm", "value": m.Config().Value}[m.Config().Method]
	vm, _ := mechanisms.New(name, m.Eps2())
	lo, hi := vm.(mechanisms.Continuous).OutputRange()
	e := make([]float64, 13)
	for i := range e {
		e[i] = lo + (hi-lo)*float64(i)/12
	}
	e[0], e[12] = lo-1e-9, hi+1e-9
	return e
}

func bucketOf(edges []float64, y float64) int {
	for b := 1; b < len(edges); b++ {
		if y <= edges[b] {
			return b - 1
		}
	}
	return len(edges) - 2
}

// population returns a small population over d = 3 groups of unequal
// sizes, with values on and off NPRR's grids, both ends and 0, in a
// shuffled order.
func population(sizes []int) ([]int32, []float64) {
	vals := []float64{-1, -0.6, -1.0 / 3, 0, 0.25, 1.0 / 3, 0.8, 1, 0.5, -0.9}
	var groups []int32
	var values []float64
	for g, n := range sizes {
		for i := range n {
			groups = append(groups, int32(g))
			values = append(values, vals[(i*7+g)%len(vals)])
		}
	}
	r := rand.New(rand.NewPCG(99, 98))
	r.Shuffle(len(groups), func(i, j int) {
		groups[i], groups[j] = groups[j], groups[i]
		values[i], values[j] = values[j], values[i]
	})
	return groups, values
}

// theory holds the derived closed forms (the paper has none) for one
// population.
type theory struct {
	meanC, varC, meanS, varS, covCS []float64
	covC01, meanMoved, varMoved     float64
}

func newTheory(m *group.Mechanism, groups []int32, values []float64) theory {
	d, n := m.D(), len(groups)
	a, q := m.Keep()
	c := m.Scale()
	th := theory{
		meanC: make([]float64, d), varC: make([]float64, d),
		meanS: make([]float64, d), varS: make([]float64, d), covCS: make([]float64, d),
	}
	ng := make([]float64, d)
	for i, g := range groups {
		v := values[i]
		ng[g]++
		th.meanS[g] += a * c * v
		th.varS[g] += a*m.SecondMoment(v) - a*a*c*c*v*v
		th.covCS[g] += (1 - a) * a * c * v
	}
	for g := range d {
		th.meanC[g] = ng[g]*a + (float64(n)-ng[g])*q
		th.varC[g] = ng[g]*a*(1-a) + (float64(n)-ng[g])*q*(1-q)
		th.varS[g] += (float64(n) - ng[g]) * q * m.NeutralSecondMoment()
	}
	th.covC01 = -(ng[0]+ng[1])*a*q - (float64(n)-ng[0]-ng[1])*q*q
	th.meanMoved = float64(n) * (1 - a)
	th.varMoved = float64(n) * a * (1 - a)
	return th
}

// runs holds the tallies of many runs.
type runs struct {
	count, sum [][]float64 // [g][run]
	moved      []float64
}

func collect(t *testing.T, m *group.Mechanism, rep reporter, groups []int32, values []float64, nRuns int, rng *rand.Rand) runs {
	t.Helper()
	d := m.D()
	r := runs{count: make([][]float64, d), sum: make([][]float64, d), moved: make([]float64, nRuns)}
	for g := range d {
		r.count[g] = make([]float64, nRuns)
		r.sum[g] = make([]float64, nRuns)
	}
	var tl group.Tally
	for k := range nRuns {
		if err := rep(m, &tl, groups, values, rng); err != nil {
			t.Fatal(err)
		}
		if tl.N != len(groups) || sum(tl.Count) != float64(len(groups)) {
			t.Fatalf("tally N %d, counts %v for %d users", tl.N, tl.Count, len(groups))
		}
		for g := range d {
			r.count[g][k], r.sum[g][k] = tl.Count[g], tl.Sum[g]
		}
		r.moved[k] = tl.Moved
	}
	return r
}

// checkMean: the mean of xs is mu within z·√(v/len(xs)).
func checkMean(t *testing.T, what string, xs []float64, mu, v float64) {
	t.Helper()
	mean := sum(xs) / float64(len(xs))
	se := math.Sqrt(v / float64(len(xs)))
	if math.Abs(mean-mu) > zAlpha*se+1e-9*max(1, math.Abs(mu)) {
		t.Errorf("%s: mean %.6g, want %.6g: %.2f standard errors", what, mean, mu, (mean-mu)/se)
	}
}

// checkCov: the mean of (x - mux)(y - muy), centred at the true means,
// estimates Cov(x, y) without bias; its standard error is estimated from
// the sample variance of the products (normal approximation; with ≥ 3000
// runs of sums of hundreds of reports the products' skewness leaves the
// true false-failure probability within a small factor of alpha).
func checkCov(t *testing.T, what string, xs, ys []float64, mux, muy, cov float64) {
	t.Helper()
	n := float64(len(xs))
	p := make([]float64, len(xs))
	for i := range xs {
		p[i] = (xs[i] - mux) * (ys[i] - muy)
	}
	mean := sum(p) / n
	v := 0.0
	for _, x := range p {
		v += (x - mean) * (x - mean)
	}
	se := math.Sqrt(v / (n - 1) / n)
	if math.Abs(mean-cov) > zAlpha*se+1e-9*max(1, math.Abs(cov)) {
		t.Errorf("%s: %.6g, want %.6g: %.2f standard errors", what, mean, cov, (mean-cov)/se)
	}
}

// TestMoments: over 4,000 runs on a population of 175 users in 3 groups
// of unequal sizes, Simulate's and per-user Perturb's tallies have the
// derived closed-form means, variances and covariances (the paper has
// none): E[C_g] = n_g·a + (n-n_g)·q, E[Sum_g] = a·c·s_g, E[Moved] = n(1-a);
// Var(C_g) = n_g·a(1-a) + (n-n_g)·q(1-q),
// Var(Sum_g) = Σ_{i∈g}(a·M2(v_i) - a²c²v_i²) + (n-n_g)·q·M2₀,
// Cov(C_g, Sum_g) = (1-a)·a·c·s_g, Cov(C_0, C_1) = -(n_0+n_1)aq - n_2·q²,
// Cov(Sum_0, Sum_1) = 0, Var(Moved) = n·a(1-a); each within z·SE at alpha
// 1e-6. Catches a bias of a few percent in any count or sum (the SEs are
// about 1 % of the means), the neutral report's second moment of the wrong
// neutral (nprr0 vs uniform-grid differ by 10-40 % in M2₀), kept users'
// values counted at the wrong group, and destinations that are not
// independent across movers.
func TestMoments(t *testing.T) {
	const nRuns = 4000
	groups, values := population([]int{40, 75, 60})
	seed := uint64(200)
	for _, eps := range []float64{1, 4} {
		for _, cfg := range simConfigs(eps) {
			for _, rep := range reporters {
				seed++
				rng := newRNG(seed)
				m := mustNew(t, cfg)
				t.Run(fmt.Sprintf("%s/%s/eps=%v", m.Name(), rep.name, eps), func(t *testing.T) {
					t.Parallel()
					th := newTheory(m, groups, values)
					r := collect(t, m, rep.f, groups, values, nRuns, rng)
					checkMoments(t, r, th)
				})
			}
		}
	}
}

func checkMoments(t *testing.T, r runs, th theory) {
	t.Helper()
	for g := range r.count {
		checkMean(t, fmt.Sprintf("C_%d", g), r.count[g], th.meanC[g], th.varC[g])
		checkMean(t, fmt.Sprintf("Sum_%d", g), r.sum[g], th.meanS[g], th.varS[g])
		checkCov(t, fmt.Sprintf("Var(C_%d)", g), r.count[g], r.count[g], th.meanC[g], th.meanC[g], th.varC[g])
		checkCov(t, fmt.Sprintf("Var(Sum_%d)", g), r.sum[g], r.sum[g], th.meanS[g], th.meanS[g], th.varS[g])
		checkCov(t, fmt.Sprintf("Cov(C_%d, Sum_%d)", g, g), r.count[g], r.sum[g], th.meanC[g], th.meanS[g], th.covCS[g])
	}
	checkCov(t, "Cov(C_0, C_1)", r.count[0], r.count[1], th.meanC[0], th.meanC[1], th.covC01)
	checkCov(t, "Cov(Sum_0, Sum_1)", r.sum[0], r.sum[1], th.meanS[0], th.meanS[1], 0)
	checkMean(t, "Moved", r.moved, th.meanMoved, th.varMoved)
	checkCov(t, "Var(Moved)", r.moved, r.moved, th.meanMoved, th.meanMoved, th.varMoved)
}

// TestMomentsLarge: the same closed forms at the paper's scale, 10,000
// users per group, d = 2, where every count is large and Simulate's
// binomials run on BTRS (and Laplace's Gamma draws have shape ~10⁴): 1,000
// runs of Simulate for each method at ε = 0.5 and 4. The counts and sums
// are then near normal, so the variances are checked against chi-square
// bounds on 999 degrees of freedom (two-sided, alpha 1e-6) instead of the
// normal approximation. Catches a binomial sampler whose variance is off
// by a few percent (a Poisson or normal shortcut).
func TestMomentsLarge(t *testing.T) {
	const nRuns = 1000
	groups, values := population([]int{10_000, 10_000})
	lo := distuv.ChiSquared{K: nRuns - 1}.Quantile(alpha / 2)
	hi := distuv.ChiSquared{K: nRuns - 1}.Quantile(1 - alpha/2)
	seed := uint64(300)
	for _, eps := range []float64{0.5, 4} {
		for _, cfg := range []group.Config{
			{Method: "bernoulli"}, {Method: "nprr", K: 8}, {Method: "nprr", K: 3, Neutral: group.NeutralUniformGrid},
			{Method: "laplace"}, {Method: "pw"},
		} {
			cfg.Eps, cfg.D = eps, 2
			seed++
			rng := newRNG(seed)
			m := mustNew(t, cfg)
			t.Run(fmt.Sprintf("%s/eps=%v", m.Name(), eps), func(t *testing.T) {
				t.Parallel()
				th := newTheory(m, groups, values)
				r := collect(t, m, simulate, groups, values, nRuns, rng)
				checkVar := func(what string, xs []float64, want float64) {
					mean := sum(xs) / nRuns
					ss := 0.0
					for _, x := range xs {
						ss += (x - mean) * (x - mean)
					}
					if stat := ss / want; stat < lo || stat > hi {
						t.Errorf("%s: sample variance %.6g, want %.6g (statistic %.1f outside [%.1f, %.1f])", what, ss/(nRuns-1), want, stat, lo, hi)
					}
				}
				for g := range 2 {
					checkMean(t, fmt.Sprintf("C_%d", g), r.count[g], th.meanC[g], th.varC[g])
					checkMean(t, fmt.Sprintf("Sum_%d", g), r.sum[g], th.meanS[g], th.varS[g])
					checkVar(fmt.Sprintf("Var(C_%d)", g), r.count[g], th.varC[g])
					checkVar(fmt.Sprintf("Var(Sum_%d)", g), r.sum[g], th.varS[g])
				}
				checkMean(t, "Moved", r.moved, th.meanMoved, th.varMoved)
				checkVar("Var(Moved)", r.moved, th.varMoved)
			})
		}
	}
}

// TestSimulateErrors: mismatched lengths, a group outside [0, d) and a
// value outside [-1, 1] (or NaN) are refused with an error naming the
// user, before anything is drawn.
func TestSimulateErrors(t *testing.T) {
	groups, values := population([]int{5, 5, 5})
	for _, cfg := range simConfigs(1) {
		m := mustNew(t, cfg)
		for _, c := range []struct {
			g    int32
			v    float64
			want string
		}{
			{3, 0, "group: user 7: group 3 outside [0, 3)"},
			{-1, 0, "group: user 7: group -1 outside [0, 3)"},
			{0, 1 + 1e-12, "group: user 7: value 1.000000000001 outside [-1, 1]"},
			{0, math.NaN(), "group: user 7: value NaN outside [-1, 1]"},
			{0, math.Inf(-1), "group: user 7: value -Inf outside [-1, 1]"},
		} {
			gs, vs := slices.Clone(groups), slices.Clone(values)
			gs[7], vs[7] = c.g, c.v
			r1, r2 := newRNG(1), newRNG(1)
			var tl group.Tally
			err := m.Simulate(&tl, gs, vs, r1)
			if err == nil || err.Error() != c.want {
				t.Errorf("%s: error %v, want %q", m.Name(), err, c.want)
			}
			if r1.Uint64() != r2.Uint64() {
				t.Errorf("%s: a refused Simulate drew from the generator", m.Name())
			}
		}
		var tl group.Tally
		if err := m.Simulate(&tl, groups[:3], values, newRNG(1)); err == nil || !strings.Contains(err.Error(), "3 groups but 15 values") {
			t.Errorf("%s: mismatched lengths: %v", m.Name(), err)
		}
	}
}

// TestSimulateReuse: a tally reused across mechanisms with other d is
// resized and reset, Simulate of no users gives zeros, a warm tally makes
// Simulate allocate nothing, and Perturb allocates nothing.
func TestSimulateReuse(t *testing.T) {
	groups, values := population([]int{50, 50, 50})
	var tl group.Tally
	for _, cfg := range slices.Concat(simConfigs(1), []group.Config{{Method: "nprr", Eps: 1, D: 2, K: 32}}) {
		m := mustNew(t, cfg)
		gs := groups
		if m.D() == 2 {
			gs = slices.Clone(groups)
			for i := range gs {
				gs[i] %= 2
			}
		}
		if err := m.Simulate(&tl, gs, values, newRNG(2)); err != nil {
			t.Fatal(err)
		}
		if len(tl.Count) != m.D() || len(tl.Sum) != m.D() || sum(tl.Count) != float64(len(gs)) {
			t.Errorf("%s: Count %v, Sum %v", m.Name(), tl.Count, tl.Sum)
		}
		rng := newRNG(3)
		if a := testing.AllocsPerRun(20, func() { _ = m.Simulate(&tl, gs, values, rng) }); a != 0 {
			t.Errorf("%s: Simulate allocates %v times a run", m.Name(), a)
		}
		if a := testing.AllocsPerRun(100, func() { m.Perturb(1, 0.3, rng) }); a != 0 {
			t.Errorf("%s: Perturb allocates %v times", m.Name(), a)
		}
		if err := m.Simulate(&tl, nil, nil, rng); err != nil || tl.N != 0 || tl.Moved != 0 || sum(tl.Count) != 0 || slices.ContainsFunc(tl.Sum, func(s float64) bool { return s != 0 }) {
			t.Errorf("%s: empty population: %v, %+v", m.Name(), err, tl)
		}
	}
}
