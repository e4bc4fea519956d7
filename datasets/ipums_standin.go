package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// DefaultStandinRows is the size of the IPUMS stand-ins that LoadTable
// builds: 100,000 rows, not the paper's 4,000,000 (a stand-in's
// conclusions do not improve with size, and 4M rows × 90 columns would take
// 2.9 GB).
const DefaultStandinRows = 100_000

// ipumsShape is the published shape of a census extract of Zhao et al.
// (Section VII and VII-B): numeric regressors, the categorical attributes'
// numbers of levels, and the numeric response "total income".
type ipumsShape struct {
	numeric int   // numeric regressors (the response is one more numeric attribute)
	levels  []int // levels of each categorical attribute
}

// BR: 6 numeric (5 regressors + income) and 10 categorical attributes,
// 6 + Σ(k − 1) = 90 dimensions; MX: 5 numeric (4 + income) and 14
// categorical, 94 dimensions. The levels are an ldpbench choice: the paper
// gives only the totals.
var ipumsShapes = map[string]ipumsShape{
	"br": {numeric: 5, levels: []int{2, 3, 5, 6, 8, 9, 10, 12, 14, 25}},
	"mx": {numeric: 4, levels: []int{2, 2, 3, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 20}},
}

// IPUMSStandin builds a synthetic stand-in for Zhao et al.'s IPUMS
// International census extract of Brazil (country "br": 90 dimensions
// after binarisation) or Mexico ("mx": 94), which cannot be redistributed
// (the IPUMS user agreement forbids it; docs/data.md). It is NOT census
// data: rows of numeric regressors and categorical attributes with the
// extract's dimensions, and an income-like response, skewed and dependent
// on both, from a fixed model:
//
//	u ~ N(0, 1)                         a latent socio-economic status
//	z_j = a_j·u + √(1 − a_j²)·N(0, 1)    numeric regressors, a_j = 0.7 − 0.1·j
//	level of attribute c ~ P[l] ∝ exp(0.5·u·(2l/(k−1) − 1))/(l + 1)
//	log income = 0.6·u + Σ_j 0.2·z_j + Σ_c e_{c,level} + 0.5·N(0, 1)
//
// with category effects e_{c,l} ~ N(0, 0.3²) drawn once from seed. X holds
// the regressors (numeric first, then the categoricals binarised); Y the
// income, raw. Paper 003 regresses income on every other attribute and,
// presumably, classifies it binarised (Fig. 8); the kind fl does that.
func IPUMSStandin(country string, rows int, seed uint64) (*Table, error) {
	shape, ok := ipumsShapes[country]
	if !ok {
		return nil, fmt.Errorf("IPUMS stand-in: country %q (valid: br, mx)", country)
	}
	if rows < 1 {
		return nil, fmt.Errorf("IPUMS stand-in: %d rows", rows)
	}
	p := shape.numeric
	for _, k := range shape.levels {
		p += k - 1
	}
	design := rand.New(rand.NewPCG(seed, 0x1b5))
	effects := make([][]float64, len(shape.levels))
	for c, k := range shape.levels {
		effects[c] = make([]float64, k)
		for l := range effects[c] {
			effects[c][l] = 0.3 * design.NormFloat64()
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x2c6))
	t := &Table{
		Name: "ipums-" + country + "-standin", P: p, Numeric: shape.numeric, Categorical: len(shape.levels),
		X: make([]float64, rows*p), Y: make([]float64, rows), Substitute: true,
	}
	var w [32]float64
	for i := range rows {
		row := t.X[i*p : (i+1)*p]
		u := rng.NormFloat64()
		li := 0.6 * u
		for j := range shape.numeric {
			a := 0.7 - 0.1*float64(j)
			z := a*u + math.Sqrt(1-a*a)*rng.NormFloat64()
			row[j] = z
			li += 0.2 * z
		}
		col := shape.numeric
		for c, k := range shape.levels {
			var tot float64
			for l := range k {
				w[l] = math.Exp(0.5*u*(2*float64(l)/float64(k-1)-1)) / float64(l+1)
				tot += w[l]
			}
			r, l := rng.Float64()*tot, 0
			for ; l < k-1 && r >= w[l]; l++ {
				r -= w[l]
			}
			Binarise(row[col:col+k-1], l, k)
			col += k - 1
			li += effects[c][l]
		}
		t.Y[i] = math.Exp(li + 0.5*rng.NormFloat64())
	}
	t.Source = fmt.Sprintf("synthetic stand-in for IPUMS International %s (NOT census data): %d rows, %d numeric regressors + income, %d categorical attributes, %d dimensions with income, seed %d",
		country, rows, shape.numeric, len(shape.levels), p+1, seed)
	return t, nil
}
