package mechanisms

// WordCounter is implemented by mechanisms that state how many 64-bit
// words of the generator one report takes, read from their samplers. The
// registry-wide suite (package mechanisms/mechtest) then checks the count
// exactly, report by report, in Perturb and in PerturbBatch; a mechanism
// without it has its count measured and its batch compared with Perturb's,
// not checked against a stated law. A word is one call of the source's
// Uint64: rng.Float64, rng.Uint64 and rng.Int64 take one each (math/rand/v2,
// rand.go); rng.ExpFloat64 and rng.NormFloat64 take a random number (their
// ziggurats' slow steps), which has no closed form here, so a mechanism
// that draws them (Laplace) does not implement this.
type WordCounter interface {
	// WordsPerReport returns the law of the number K of words one Perturb
	// takes: K = counts[i] with probability probs[i], the counts distinct,
	// the probabilities positive and summing to 1. A count that is always
	// the same is ([]int{c}, []float64{1}). For a mixture whose coin takes
	// c0 words and chooses the continuous component (c_c words) with
	// probability p, else the discrete one (c_d),
	//
	//	K = c0 + c_d + B·(c_c - c_d),  B ~ Bernoulli(p),
	//	E[K] = c0 + p·c_c + (1-p)·c_d,  Var[K] = p(1-p)(c_c - c_d)²,
	//
	// which [MixtureWords] returns.
	WordsPerReport() (counts []int, probs []float64)
}

// BatchOrder is implemented by a mechanism that says whether its
// PerturbBatch makes the reports of the same sequence of Perturb calls from
// the same words. A mechanism without it promises that it does:
// PerturbBatch(dst, xs, rng) writes what Perturb(xs[0], rng),
// Perturb(xs[1], rng), … would return and leaves rng where they would,
// which the suite checks. One whose batch spends the words otherwise
// (Laplace: one word for the signs of 64 reports) returns false; the suite
// then checks only that a batch of one input is a Perturb call, and the
// batch's law through the fit of its reports.
type BatchOrder interface {
	SequentialBatch() bool
}

// MixtureWords returns the law of the words of a mixture's report
// ([WordCounter]): its coin takes coin words and chooses cont with
// probability p, else disc. ok is false if a component does not state its
// count or states a random one (then the mixture's law is not this
// two-point law).
func MixtureWords(coin int, cont, disc Mechanism, p float64) (counts []int, probs []float64, ok bool) {
	wc, ok1 := cont.(WordCounter)
	wd, ok2 := disc.(WordCounter)
	if !ok1 || !ok2 {
		return nil, nil, false
	}
	cc, _ := wc.WordsPerReport()
	cd, _ := wd.WordsPerReport()
	if len(cc) != 1 || len(cd) != 1 {
		return nil, nil, false
	}
	switch {
	case p >= 1:
		return []int{coin + cc[0]}, []float64{1}, true
	case p <= 0:
		return []int{coin + cd[0]}, []float64{1}, true
	case cc[0] == cd[0]:
		return []int{coin + cc[0]}, []float64{1}, true
	}
	return []int{coin + cd[0], coin + cc[0]}, []float64{1 - p, p}, true
}

// oneWord and twoWords are the laws of a count that is always 1 or 2.
func oneWord() ([]int, []float64)  { return []int{1}, []float64{1} }
func twoWords() ([]int, []float64) { return []int{2}, []float64{1} }

// WordsPerReport: one rng.Float64 in Duchi.report(x, u), by inversion.
func (m *Duchi) WordsPerReport() (counts []int, probs []float64) { return oneWord() }

// WordsPerReport: one rng.Float64 in SquareWave.report(s, u), by inversion
// of the CDF.
func (m *SquareWave) WordsPerReport() (counts []int, probs []float64) { return oneWord() }

// WordsPerReport: one rng.Float64 in pick(x, u, cuts(|x|)).
func (m *ThreeOutputs) WordsPerReport() (counts []int, probs []float64) { return oneWord() }

// WordsPerReport: one rng.Float64 in outs[index(x, u)].
func (m *NOutput) WordsPerReport() (counts []int, probs []float64) { return oneWord() }

// WordsPerReport: two rng.Float64, u choosing the window and w = 2·v
// placing the report in it (the piecewise family of Zhao et al., eqs. (26)–(29)).
func (m *Piecewise) WordsPerReport() (counts []int, probs []float64) { return twoWords() }

// WordsPerReport: one rng.Float64 in report(x, u), ±1 by inversion.
func (m *Bernoulli) WordsPerReport() (counts []int, probs []float64) { return oneWord() }

// WordsPerReport: two rng.Float64, one for the stochastic rounding
// (RoundIndex) and one for GRR (ReportIndex).
func (m *NPRR) WordsPerReport() (counts []int, probs []float64) { return twoWords() }

// WordsPerReport: one rng.Float64 for the coin, then the chosen
// component's words: PM or PM-SUB (2) with probability w (α for HM, β for
// HM-TP), else Duchi or Three-Outputs (1), so 2 + w on average (HM and HM-TP
// are their discrete component alone below ε ≈ 0.61: w = 0, always 2).
func (m *Hybrid) WordsPerReport() (counts []int, probs []float64) {
	c, p, _ := MixtureWords(1, m.pw, m.disc, m.w)
	return c, p
}

// WordsPerReport: one rng.Float64 for the coin, then PM-SUB (2) with
// probability 1-α, else N-output (1): 3 - α on average (α = 1 at small ε:
// always 2).
func (m *HMNP) WordsPerReport() (counts []int, probs []float64) {
	c, p, _ := MixtureWords(1, m.pm, m.no, m.alphaC)
	return c, p
}

// SequentialBatch returns false: PerturbBatch takes the signs of up to 64
// reports from one word (see [Laplace.PerturbBatch]).
func (m *Laplace) SequentialBatch() bool { return false }
