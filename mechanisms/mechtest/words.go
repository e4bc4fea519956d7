package mechtest

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// countingSource counts the 64-bit draws of a generator; rng.Float64 is one
// draw.
type countingSource struct {
	src rand.Source
	n   int
}

func (c *countingSource) Uint64() uint64 { c.n++; return c.src.Uint64() }

// PerturbWords returns the words (Uint64 calls of the source) each
// Perturb of xs[i] takes, in order, from a PCG seeded with seed.
func PerturbWords(m mechanisms.Mechanism, xs []float64, seed uint64) []int {
	src := &countingSource{src: rand.NewPCG(seed, 11)}
	rng := rand.New(src)
	ws := make([]int, len(xs))
	for i, x := range xs {
		n := src.n
		m.Perturb(x, rng)
		ws[i] = src.n - n
	}
	return ws
}

// BatchWords returns the words one PerturbBatch of xs takes from a PCG
// seeded with seed.
func BatchWords(m mechanisms.Mechanism, xs []float64, seed uint64) (int, error) {
	src := &countingSource{src: rand.NewPCG(seed, 11)}
	dst := make([]float64, len(xs))
	if err := m.PerturbBatch(dst, xs, rand.New(src)); err != nil {
		return 0, err
	}
	return src.n, nil
}

// sequentialBatch reports whether m's batch promises to be its Perturb
// calls ([mechanisms.BatchOrder]).
func sequentialBatch(m mechanisms.Mechanism) bool {
	b, ok := m.(mechanisms.BatchOrder)
	return !ok || b.SequentialBatch()
}

// ZMax bounds the z-score of a measured mean word count that is random: a
// standard normal exceeds it in absolute value with probability
// 2Φ(-4.9) = 9.6e-7, the false-failure probability of each such check
// (the measured means are sums of thousands of independent bounded counts,
// well within the normal approximation's reach at this level).
const ZMax = 4.9

// checkZ returns an error unless got, a mean word count whose sampling
// variance is v, is want within ZMax standard errors; v = 0, a count that
// is not random, requires got == want exactly.
func checkZ(what string, got, want, v float64) error {
	if v == 0 {
		if got != want {
			return fmt.Errorf("%s: %v words per report, want exactly %v", what, got, want)
		}
		return nil
	}
	if z := (got - want) / math.Sqrt(v); !(math.Abs(z) < ZMax) {
		return fmt.Errorf("%s: %v words per report, want %v: z = %.2f (se %.3g), beyond ±%v",
			what, got, want, z, math.Sqrt(v), ZMax)
	}
	return nil
}

// WordsLaw returns the law m states ([mechanisms.WordCounter]) with its
// mean and variance, or an error if the law is malformed. ok is false if m
// states none.
func WordsLaw(m mechanisms.Mechanism) (counts []int, mean, variance float64, ok bool, err error) {
	wc, ok := m.(mechanisms.WordCounter)
	if !ok {
		return nil, 0, 0, false, nil
	}
	counts, probs := wc.WordsPerReport()
	if len(counts) == 0 || len(counts) != len(probs) {
		return nil, 0, 0, true, fmt.Errorf("%s: WordsPerReport gives %d counts and %d probabilities", m.Name(), len(counts), len(probs))
	}
	sum := 0.0
	for i, c := range counts {
		if c < 0 || !(probs[i] > 0) || slices.Index(counts, c) != i {
			return nil, 0, 0, true, fmt.Errorf("%s: WordsPerReport = %v, %v: want distinct counts ≥ 0 of positive probability", m.Name(), counts, probs)
		}
		sum += probs[i]
		mean += probs[i] * float64(c)
	}
	if !(math.Abs(sum-1) <= 1e-12) {
		return nil, 0, 0, true, fmt.Errorf("%s: WordsPerReport's probabilities %v sum to 1%+.3g", m.Name(), probs, sum-1)
	}
	for i, c := range counts {
		variance += probs[i] * (float64(c) - mean) * (float64(c) - mean)
	}
	if len(counts) == 1 {
		variance = 0
	}
	return counts, mean, variance, true, nil
}

// batchLengths are the batch lengths of the words and batch checks; they
// straddle the built-in samplers' smallBatch, batchBlock and mixBlock.
var batchLengths = []int{1, 2, 3, 4, 5, 31, 32, 33, 47, 48, 49, 95, 96, 97, 1000}

// checkWords: the mechanism takes from the generator the words it states
// ([mechanisms.WordCounter]), in Perturb and in PerturbBatch.
//
//   - Each of 4,096 Perturb calls over the domain takes one of the stated
//     counts, and their mean is the stated mean: exactly when the count is
//     fixed, else within ZMax standard errors √(Var[K]/4096) (a mixture's
//     at a budget where its coin is not sure).
//   - A batch whose reports are the same Perturb calls (no
//     mechanisms.BatchOrder saying otherwise) takes exactly as many words
//     from the same seed, at every length of batchLengths, and for a fixed
//     count n·c.
//   - Otherwise a batch of one input takes the words of one Perturb.
//
// A mechanism that states no count is checked on the last two points only.
// Catches a sampler that draws a uniform it does not use (or reuses one),
// and a batch kernel that spends words differently from Perturb past its
// first block, which desynchronises every later report of a trial.
func checkWords(info mechanisms.Info, eps float64, rng *rand.Rand) error {
	m, err := build(info, eps)
	if err != nil {
		return err
	}
	what := fmt.Sprintf("%s (ε = %v)", info.Name, eps)
	counts, mean, v, stated, err := WordsLaw(m)
	if err != nil {
		return err
	}
	lo, hi := m.Domain()
	xs := Grid(lo, hi, 4095) // 4096 reports
	seed := rng.Uint64()
	ws := PerturbWords(m, xs, seed)
	total := 0
	var errs []error
	for _, w := range ws {
		total += w
	}
	if stated {
		if i := slices.IndexFunc(ws, func(w int) bool { return !slices.Contains(counts, w) }); i >= 0 {
			errs = append(errs, fmt.Errorf("%s: Perturb(%v) took %d words, want one of %v (WordsPerReport)", what, xs[i], ws[i], counts))
		}
		errs = append(errs, checkZ(what+" Perturb", float64(total)/float64(len(xs)), mean, v/float64(len(xs))))
	}
	if !sequentialBatch(m) {
		for s := range uint64(8) {
			x := xs[s*511]
			p := PerturbWords(m, []float64{x}, seed+s)[0]
			b, err := BatchWords(m, []float64{x}, seed+s)
			if err != nil {
				return err
			}
			if p != b {
				errs = append(errs, fmt.Errorf("%s: a batch of one took %d words, Perturb %d", what, b, p))
			}
		}
		return errors.Join(errs...)
	}
	if b, err := BatchWords(m, xs, seed); err != nil {
		return err
	} else if b != total {
		errs = append(errs, fmt.Errorf("%s: a batch of %d took %d words, the same Perturb calls %d", what, len(xs), b, total))
	}
	for _, n := range batchLengths {
		ys := make([]float64, n)
		for i := range ys {
			ys[i] = xs[(i*997+n)%len(xs)]
		}
		seed := seed<<16 | uint64(n)
		want := 0
		for _, w := range PerturbWords(m, ys, seed) {
			want += w
		}
		b, err := BatchWords(m, ys, seed)
		if err != nil {
			return err
		}
		if b != want || (stated && v == 0 && float64(b) != mean*float64(n)) {
			errs = append(errs, fmt.Errorf("%s: a batch of %d took %d words, the same Perturb calls %d (stated: %v a report)", what, n, b, want, mean))
		}
	}
	return errors.Join(errs...)
}

// checkBatch: PerturbBatch against Perturb. A sequential batch (no
// mechanisms.BatchOrder saying otherwise) writes the reports of the same
// Perturb calls and leaves the generator where they would, at every length
// of batchLengths, separately or in place; any batch gives, in place, the
// reports it gives into another slice, and a batch of one input is a
// Perturb call. A NaN or out-of-domain input gives an *InputError with its
// index and the domain before any draw; a short dst panics. Catches a
// batch kernel whose reports differ from Perturb's past its first block,
// an in-place batch that reads an input after writing its report, and a
// rejected batch that consumed randomness.
func checkBatch(info mechanisms.Info, eps float64, rng *rand.Rand) error {
	m, err := build(info, eps)
	if err != nil {
		return err
	}
	lo, hi := m.Domain()
	grid := Grid(lo, hi, 999)
	seq := sequentialBatch(m)
	var errs []error
	for _, n := range batchLengths {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = grid[(i*997+n)%len(grid)]
		}
		if n == 5 {
			xs = domainGrid(m)
		}
		seed := rng.Uint64()
		got := make([]float64, n)
		r1 := rand.New(rand.NewPCG(seed, 3))
		if err := m.PerturbBatch(got, xs, r1); err != nil {
			return fmt.Errorf("%s: PerturbBatch of valid inputs: %w", info.Name, err)
		}
		inPlace := slices.Clone(xs)
		r3 := rand.New(rand.NewPCG(seed, 3))
		if err := m.PerturbBatch(inPlace, inPlace, r3); err != nil {
			return err
		}
		if !slices.Equal(inPlace, got) || r1.Uint64() != r3.Uint64() {
			errs = append(errs, fmt.Errorf("%s: a batch of %d in place gives other reports (or words) than into another slice", info.Name, n))
		}
		if !seq && n > 1 {
			continue
		}
		r2 := rand.New(rand.NewPCG(seed, 3))
		want := make([]float64, n)
		for i, x := range xs {
			want[i] = m.Perturb(x, r2)
		}
		r1 = rand.New(rand.NewPCG(seed, 3))
		_ = m.PerturbBatch(got, xs, r1)
		if !slices.Equal(got, want) {
			errs = append(errs, fmt.Errorf("%s: a batch of %d differs from the same Perturb calls (first reports %v, Perturb %v)", info.Name, n, got[:min(n, 5)], want[:min(n, 5)]))
		} else if r1.Uint64() != r2.Uint64() {
			errs = append(errs, fmt.Errorf("%s: a batch of %d leaves the generator elsewhere than the same Perturb calls", info.Name, n))
		}
	}
	xs := domainGrid(m)
	for _, bad := range []float64{math.NaN(), lo - 1e-9, hi + 1e-9, math.Inf(1)} {
		in := slices.Clone(xs)
		in[2] = bad
		r1, r2 := rand.New(rand.NewPCG(5, 5)), rand.New(rand.NewPCG(5, 5))
		err := m.PerturbBatch(make([]float64, len(in)), in, r1)
		var ie *mechanisms.InputError
		if !errors.As(err, &ie) || ie.Index != 2 || ie.Lo != lo || ie.Hi != hi {
			errs = append(errs, fmt.Errorf("%s: input %v gives error %v, want *InputError at index 2", info.Name, bad, err))
		}
		if r1.Uint64() != r2.Uint64() {
			errs = append(errs, fmt.Errorf("%s: a rejected batch drew from the generator", info.Name))
		}
	}
	func() {
		defer func() {
			if recover() == nil {
				errs = append(errs, fmt.Errorf("%s: PerturbBatch with a short dst did not panic", info.Name))
			}
		}()
		_ = m.PerturbBatch(make([]float64, len(xs)-1), xs, rand.New(rand.NewPCG(1, 1)))
	}()
	return errors.Join(errs...)
}
