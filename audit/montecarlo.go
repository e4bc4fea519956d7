package audit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// MCConfig configures a black-box Monte Carlo audit. Zero fields take the
// defaults.
type MCConfig struct {
	// N is the number of reports drawn at each of the two inputs to count
	// the events (default 200,000).
	N int
	// Pilot is the number of reports drawn at each input, before and
	// independently of the N, to choose the events (default N/10): events
	// chosen on the counted reports themselves would void the confidence
	// level.
	Pilot int
	// Alpha is the probability that the reported lower bound exceeds the
	// true ε (default 1e-3).
	Alpha float64
	// Buckets is the number of quantile buckets of the pilot's reports per
	// output group when the report is continuous (default 16).
	Buckets int
	// MaxCategories: a report with at most this many distinct values in
	// the pilot (per output group) is treated as discrete, each value an
	// event (default 256).
	MaxCategories int
}

func (c MCConfig) withDefaults() MCConfig {
	if c.N <= 0 {
		c.N = 200_000
	}
	if c.Pilot <= 0 {
		c.Pilot = max(c.N/10, 1000)
	}
	if c.Alpha <= 0 {
		c.Alpha = 1e-3
	}
	if c.Buckets <= 0 {
		c.Buckets = 16
	}
	if c.MaxCategories <= 0 {
		c.MaxCategories = 256
	}
	return c
}

// sampler draws one report (g′, y) of an input; g′ is -1 for a
// one-dimensional mechanism.
type sampler func(in Input, rng *rand.Rand) (int, float64)

// MonteCarlo returns a lower bound on the privacy loss of m between the
// inputs x0 and x1 from its reports alone (Perturb), in the manner of
// StatDP and LDP-Auditor:
//
//  1. a pilot of cfg.Pilot reports per input chooses the output events:
//     every value when the report takes few values (at most
//     cfg.MaxCategories), else cfg.Buckets buckets between the pilot's
//     quantiles and the thresholds {Y ≤ e}, {Y > e} at their edges;
//  2. cfg.N fresh reports per input count every event E;
//  3. for each E and each direction, ln(L(E|x)/U(E|x′)) with L and U
//     one-sided Clopper–Pearson bounds at level alpha/(4m), m the number of
//     events (Bonferroni over the 4m bounds).
//
// With probability at least 1 - alpha every bound holds at once, so the
// largest of these logs (reported as Epsilon, at least 0) is at most the
// true ε: a value above the claimed ε proves a violation at confidence
// 1 - alpha. A value below it proves nothing.
func MonteCarlo(m mechanisms.Mechanism, x0, x1 float64, cfg MCConfig, rng *rand.Rand) (Finding, error) {
	lo, hi := m.Domain()
	for _, x := range []float64{x0, x1} {
		if !(x >= lo && x <= hi) {
			return Finding{}, fmt.Errorf("%s: Monte Carlo input %v outside the domain [%v, %v]", m.Name(), x, lo, hi)
		}
	}
	draw := func(in Input, rng *rand.Rand) (int, float64) { return -1, m.Perturb(in.V, rng) }
	return monteCarlo(draw, Input{-1, x0}, Input{-1, x1}, cfg, rng)
}

// MonteCarloJoint is [MonteCarlo] for a group mechanism over (g, v): the
// events are also split by the reported group g′, and {g′ = h} is an
// event of its own.
func MonteCarloJoint(m Joint, in0, in1 Input, cfg MCConfig, rng *rand.Rand) (Finding, error) {
	lo, hi := jointDomain(m)
	for _, in := range []Input{in0, in1} {
		if in.G < 0 || in.G >= m.D() || !(in.V >= lo && in.V <= hi) {
			return Finding{}, fmt.Errorf("%s: Monte Carlo input %v outside {0..%d} × [%v, %v]", m.Name(), in, m.D()-1, lo, hi)
		}
	}
	draw := func(in Input, rng *rand.Rand) (int, float64) { return m.Perturb(in.G, in.V, rng) }
	return monteCarlo(draw, in0, in1, cfg, rng)
}

// outGroup holds the cells of the reports in one output group g′: the
// distinct pilot values (categorical) or the inner bucket edges.
type outGroup struct {
	h           int
	categorical bool
	values      []float64
}

// cells is the number of count cells of the group: one per value (plus
// one for values the pilot never saw), or one per bucket.
func (o *outGroup) cells() int { return len(o.values) + 1 }

// cell returns the count cell of y: a value's index, or len(values) for an
// unseen value; the bucket (e[i-1], e[i]] of y. For up to 32 values it
// counts the values below y in a loop without data-dependent branches,
// which on random reports is several times faster than a binary search
// (whose branches a CPU cannot predict).
func (o *outGroup) cell(y float64) int {
	var i int
	if len(o.values) <= 32 {
		for _, v := range o.values {
			i += b2i(v < y)
		}
	} else {
		i = sort.SearchFloat64s(o.values, y)
	}
	if o.categorical && (i == len(o.values) || o.values[i] != y) {
		return len(o.values)
	}
	return i
}

// b2i returns 1 if c and 0 otherwise, without a branch (SETcc).
func b2i(c bool) int {
	var i int
	if c {
		i = 1
	}
	return i
}

func monteCarlo(draw sampler, in0, in1 Input, cfg MCConfig, rng *rand.Rand) (Finding, error) {
	cfg = cfg.withDefaults()
	if !(cfg.Alpha > 0 && cfg.Alpha < 1) {
		return Finding{}, fmt.Errorf("monte carlo: alpha = %v: must be in (0, 1)", cfg.Alpha)
	}
	// 1. Pilot: the events.
	groups, index, err := pilotGroups(draw, in0, in1, cfg, rng)
	if err != nil {
		return Finding{}, err
	}
	// 2. Counts of fresh reports.
	c0 := countReports(draw, in0, groups, index, cfg.N, rng)
	c1 := countReports(draw, in1, groups, index, cfg.N, rng)
	events := mcEvents(groups, c0, c1, in0.G >= 0)
	// 3. Bounds.
	f := Finding{Method: MethodMonteCarlo, X0: in0, X1: in1, Samples: cfg.N, Events: len(events), Alpha: cfg.Alpha}
	if len(events) == 0 {
		f.Note = "no output event"
		return f, nil
	}
	if err := mcBound(&f, events, in0, in1, cfg); err != nil {
		return Finding{}, err
	}
	return f, nil
}

// pilotGroups draws the pilot, cfg.Pilot reports per input, and chooses
// the events from it: the output groups g′ it saw, in order, each with
// its distinct values (categorical, when there are at most
// cfg.MaxCategories) or its inner bucket edges at the pilot's quantiles.
// index[h+1] is the position of output group h in groups (h ≥ -1), or -1:
// a slice, not a map, as it is looked up once per report.
func pilotGroups(draw sampler, in0, in1 Input, cfg MCConfig, rng *rand.Rand) (groups []*outGroup, index []int, err error) {
	pilot := make(map[int][]float64)
	for _, in := range []Input{in0, in1} {
		for range cfg.Pilot {
			h, y := draw(in, rng)
			if h < -1 {
				return nil, nil, fmt.Errorf("monte carlo: a report of %v has group %d", in, h)
			}
			if math.IsNaN(y) {
				return nil, nil, fmt.Errorf("monte carlo: a report of %v is NaN", in)
			}
			pilot[h] = append(pilot[h], y)
		}
	}
	hs := make([]int, 0, len(pilot))
	for h := range pilot {
		hs = append(hs, h)
	}
	slices.Sort(hs)
	index = make([]int, hs[len(hs)-1]+2)
	for i := range index {
		index[i] = -1
	}
	for _, h := range hs {
		ys := pilot[h]
		slices.Sort(ys)
		distinct := slices.Compact(slices.Clone(ys))
		o := &outGroup{h: h}
		if len(distinct) <= cfg.MaxCategories {
			o.categorical, o.values = true, distinct
		} else {
			for b := 1; b < cfg.Buckets; b++ {
				o.values = append(o.values, ys[b*len(ys)/cfg.Buckets])
			}
			o.values = slices.Compact(o.values)
		}
		index[h+1] = len(groups)
		groups = append(groups, o)
	}
	return groups, index, nil
}

// countReports draws n fresh reports of in and counts them in the cells
// of their output group; reports in a group the pilot never saw fall in
// no event.
func countReports(draw sampler, in Input, groups []*outGroup, index []int, n int, rng *rand.Rand) [][]int {
	c := make([][]int, len(groups))
	for i, o := range groups {
		c[i] = make([]int, o.cells())
	}
	for range n {
		h, y := draw(in, rng)
		if h+1 < 0 || h+1 >= len(index) || index[h+1] < 0 {
			continue
		}
		i := index[h+1]
		c[i][groups[i].cell(y)]++
	}
	return c
}

// An mcEvent is an output event and its counts at the two inputs.
type mcEvent struct {
	what   string
	k0, k1 int
}

// mcEvents lists the events and their counts (c0, c1 by group and cell):
// for a group mechanism each reported group g′ (when there are several);
// in each group each value, or each bucket, and the thresholds {Y ≤ e},
// {Y > e} at every value or bucket edge.
func mcEvents(groups []*outGroup, c0, c1 [][]int, joint bool) []mcEvent {
	var events []mcEvent
	for i, o := range groups {
		where := ""
		if joint {
			where = fmt.Sprintf("g'=%d, ", o.h)
		}
		total0, total1 := 0, 0
		for j := range c0[i] {
			total0 += c0[i][j]
			total1 += c1[i][j]
		}
		if joint && len(groups) > 1 {
			events = append(events, mcEvent{fmt.Sprintf("g'=%d", o.h), total0, total1})
		}
		if o.categorical {
			for j, v := range o.values {
				events = append(events, mcEvent{where + "y=" + num(v), c0[i][j], c1[i][j]})
			}
			continue
		}
		for j := range o.cells() {
			lo, hi := "-Inf", "+Inf"
			if j > 0 {
				lo = num(o.values[j-1])
			}
			if j < len(o.values) {
				hi = num(o.values[j])
			}
			events = append(events, mcEvent{where + "y ∈ (" + lo + ", " + hi + "]", c0[i][j], c1[i][j]})
		}
		below0, below1 := 0, 0
		for j, e := range o.values {
			below0 += c0[i][j]
			below1 += c1[i][j]
			events = append(events,
				mcEvent{where + "y ≤ " + num(e), below0, below1},
				mcEvent{where + "y > " + num(e), total0 - below0, total1 - below1})
		}
	}
	return events
}

// mcBound sets f's Epsilon to the largest ln(L(E|x)/U(E|x′)) over the
// events and both directions, at least 0, with the event and inputs that
// give it: each bound one-sided Clopper–Pearson at alpha/(4m), so that all
// 4m hold at once with probability 1 - alpha (Bonferroni).
func mcBound(f *Finding, events []mcEvent, in0, in1 Input, cfg MCConfig) error {
	level := cfg.Alpha / float64(4*len(events))
	best := math.Inf(-1)
	for _, e := range events {
		for _, dir := range [2]bool{false, true} {
			ka, kb, a, b := e.k0, e.k1, in0, in1
			if dir {
				ka, kb, a, b = e.k1, e.k0, in1, in0
			}
			l, err := ClopperPearsonLower(ka, cfg.N, level)
			if err != nil {
				return err
			}
			u, err := ClopperPearsonUpper(kb, cfg.N, level)
			if err != nil {
				return err
			}
			if !(l > 0) {
				continue
			}
			if r := math.Log(l / u); r > best {
				best = r
				f.X0, f.X1, f.Output = a, b, e.what
			}
		}
	}
	f.Epsilon = max(best, 0)
	f.Note = fmt.Sprintf("lower bound at confidence %g: one-sided Clopper–Pearson at %.3g each (Bonferroni over %d events × 4 bounds); events from a separate pilot of %d reports per input",
		1-cfg.Alpha, level, len(events), cfg.Pilot)
	return nil
}
