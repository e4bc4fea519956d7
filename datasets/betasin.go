package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// Defaults of the Beta+Sin substitute for Du et al.'s "sinusoidal noise
// superimposed on Beta(2,5)", whose parameters were never published.
const (
	BetaSinA         = 2.0  // Beta shape a of the base density
	BetaSinB         = 5.0  // Beta shape b of the base density
	BetaSinAmplitude = 0.5  // amplitude A of the sinusoidal factor
	BetaSinFrequency = 10.0 // frequency F (periods on [0, 1])
)

// BetaSin returns n samples on [0, 1] from the density
//
//	f(u) = Beta(a,b).pdf(u) · (1 + A·sin(2π·F·u)) / Z,   Z = 1 + A·E[sin(2π·F·U)], U ~ Beta(a,b),
//
// drawn exactly by rejection: propose u ~ Beta(a, b) and accept it with
// probability (1 + A·sin(2π·F·u)) / (1 + |A|). The defaults (BetaSinA,
// BetaSinB, BetaSinAmplitude, BetaSinFrequency) give
// Beta(2,5).pdf(u)·(1 + 0.5·sin(2π·10·u)). a and b must be finite and > 0,
// A finite with |A| ≤ 1 (so that f ≥ 0), F finite and ≥ 0. The expected
// number of proposals per sample is (1 + |A|)/Z ≤ (1 + |A|)/(1 − |A|); with the
// defaults Z ≈ 1 and it is about 1.5.
func BetaSin(n int, a, b, amplitude, frequency float64, rng *rand.Rand) ([]float64, error) {
	if err := checkN(n, rng); err != nil {
		return nil, err
	}
	if err := checkShape(a, b); err != nil {
		return nil, err
	}
	if err := checkSin(amplitude, frequency); err != nil {
		return nil, err
	}
	out := make([]float64, n)
	d := distuv.Beta{Alpha: a, Beta: b, Src: rng}
	bound := 1 + math.Abs(amplitude)
	w := 2 * math.Pi * frequency
	for i := range out {
		for {
			u, err := betaDraw(d)
			if err != nil {
				return nil, err
			}
			if rng.Float64()*bound < 1+amplitude*math.Sin(w*u) {
				out[i] = u
				break
			}
		}
	}
	return out, nil
}

func checkSin(amplitude, frequency float64) error {
	if !finite(amplitude) || math.Abs(amplitude) > 1 {
		return fmt.Errorf("beta-sin: amplitude must be finite with |amplitude| <= 1, got %v", amplitude)
	}
	if !finite(frequency) || frequency < 0 {
		return fmt.Errorf("beta-sin: frequency must be finite and >= 0, got %v", frequency)
	}
	return nil
}
