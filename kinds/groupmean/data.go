package groupmean

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/experiment"
)

// data is one cell's users: groups, values on [−1, 1] (T of App. C) and the
// truth in original units.
type data struct {
	d      int
	groups []int32
	unit   []float64   // T(x_i), clipped to [−1, 1]
	member [][]float64 // the unit values of each group, for the theory
	sizes  []int       // n_g
	means  []float64   // m_g on the raw values, original units (NaN if empty)
	lo, hi float64
	// fingerprint identifies groups and unit bit for bit (tallies' key).
	fingerprint uint64
}

// dataSource says how many groups a cell's data have and builds them.
type dataSource struct {
	groups int
	build  func() (*data, error)
}

// source returns the cell's data source. With params.shape (uniform,
// normal, constant or extremum: Section 5.1.1) the kind draws synthetic
// grouped data itself, n users per group, params.groups groups,
// params.imbalance and params.range (default −1:1), once per configuration
// from the master seed, the shape and the group sizes (so that every
// method, ε and range of a configuration sees the same users, the ranges as
// affine images of one another); the spec's dataset then only names the
// data (a small synthetic source such as uniform). Without it the dataset
// must have a group column (a file's group_column, a stand-in), with its
// declared fixed range, of which the cell uses the first n rows.
func source(c *experiment.CellSpec) (dataSource, error) {
	ds := c.Dataset
	p := c.Params
	if p.Has("shape") {
		if ds.Groups != nil {
			return dataSource{}, params.Errorf("shape", "draws synthetic groups, but dataset %s has its own (drop shape, or use a dataset without group_column)", ds.Name)
		}
		shape := p.String("shape", "")
		lo, hi := -1.0, 1.0
		if p.Has("range") {
			var err error
			if lo, hi, err = experiment.ParseRange(p.String("range", "")); err != nil {
				return dataSource{}, params.Errorf("range", "%v", err)
			}
		}
		d := p.Int("groups", 2)
		imb := p.Float("imbalance", 1)
		var sizes []int
		switch {
		case imb != 1 && d != 2:
			return dataSource{}, params.Errorf("imbalance", "= %v needs groups = 2 (the paper's E4), got %d", imb, d)
		case imb != 1:
			sizes = datasets.ImbalancedSizes(c.N, imb)
		default:
			sizes = make([]int, d)
			for g := range sizes {
				sizes[g] = c.N
			}
		}
		return dataSource{groups: d, build: func() (*data, error) {
			// Drawn on [−1, 1], where the mechanisms work, and mapped
			// affinely onto [lo, hi] for the truth: the values the
			// mechanisms see are then the same bits for every range, so
			// that the cells of E3's three ranges draw the same reports
			// (and share them, see tallies).
			g, err := datasets.SyntheticGrouped(shape, sizes, -1, 1, dataRand(c.Seed, shape, sizes))
			if err != nil {
				return nil, err
			}
			unit := g.Values
			raw := make([]float64, len(unit))
			for i, v := range unit {
				raw[i] = lo + (hi-lo)*(v+1)/2
			}
			g.Values, g.Lo, g.Hi = raw, lo, hi
			return newDataUnit(g, unit)
		}}, nil
	}
	for _, k := range []string{"groups", "imbalance", "range"} {
		if p.Has(k) {
			return dataSource{}, params.Errorf(k, "shapes synthetic data (with params.shape) only; dataset %s has its own groups and range", ds.Name)
		}
	}
	if ds.Groups == nil {
		return dataSource{}, fmt.Errorf("dataset %s has no group column: kind groupmean needs params.shape (synthetic groups) or a dataset with group_column or source = \"standin\"", ds.Name)
	}
	if c.N > len(ds.Groups) {
		return dataSource{}, fmt.Errorf("dataset %s has %d rows, fewer than n = %d", ds.Name, len(ds.Groups), c.N)
	}
	return dataSource{groups: len(ds.GroupLabels), build: func() (*data, error) {
		g, err := ds.Grouped(ds.Normalisation.Lo, ds.Normalisation.Hi)
		if err != nil {
			return nil, err
		}
		g.Groups, g.Values = g.Groups[:c.N], g.Values[:c.N]
		return newData(g)
	}}, nil
}

// dataRand seeds a configuration's synthetic data from the master seed, the
// shape and the group sizes (not the range, nor the method or ε).
func dataRand(seed uint64, shape string, sizes []int) *rand.Rand {
	h := sha256.New()
	fmt.Fprintf(h, "groupmean data;seed=%d;shape=%s;sizes=%v", seed, shape, sizes)
	sum := h.Sum(nil)
	return rand.New(rand.NewPCG(binary.LittleEndian.Uint64(sum[:8]), binary.LittleEndian.Uint64(sum[8:16])))
}

// newData maps a grouped dataset onto [−1, 1] with its fixed range.
func newData(g *datasets.Grouped) (*data, error) {
	unit := make([]float64, len(g.Values))
	g.Scaled(unit)
	return newDataUnit(g, unit)
}

// newDataUnit is newData with the values on [−1, 1] given.
func newDataUnit(g *datasets.Grouped, unit []float64) (*data, error) {
	d := &data{d: g.D, groups: g.Groups, lo: g.Lo, hi: g.Hi, unit: unit}
	d.sizes = g.Sizes()
	d.means = g.Means()
	d.member = make([][]float64, g.D)
	for g := range d.member {
		d.member[g] = make([]float64, 0, d.sizes[g])
	}
	for i, gi := range d.groups {
		d.member[gi] = append(d.member[gi], d.unit[i])
	}
	for g, m := range d.means {
		if d.sizes[g] > 0 && math.IsNaN(m) {
			return nil, fmt.Errorf("group %d has no finite mean", g)
		}
	}
	d.fingerprint = fingerprint(d.groups, d.unit)
	return d, nil
}

// fingerprint hashes the users' groups and values on [−1, 1] (FNV-1a over
// their bits): two cells' tallies may be shared only when these are equal.
func fingerprint(groups []int32, unit []float64) uint64 {
	h := uint64(14695981039346656037)
	for i, g := range groups {
		h = (h ^ uint64(uint32(g))) * 1099511628211
		h = (h ^ math.Float64bits(unit[i])) * 1099511628211
	}
	return h
}
