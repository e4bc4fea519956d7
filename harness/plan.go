package harness

import (
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"
	"sort"
	"strconv"

	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/results"
)

// planCell is one cell of the plan.
type planCell struct {
	cell    results.Cell
	dataset int // index into Spec.Datasets
	params  map[string]string
}

// methodLister is implemented by kinds that can expand the method "*".
type methodLister interface {
	AllMethods() []string
}

// expand lists the cells in plan order: dataset, n, method, ε, then the free
// parameters in sorted key order. The order fixes the layout of rows.csv.
func expand(s *Spec, kind Kind) []planCell {
	methods := s.Axes.Method
	if len(methods) == 1 && methods[0] == "*" {
		if l, ok := kind.(methodLister); ok {
			methods = l.AllMethods()
		}
	}
	params := []map[string]string{{}}
	keys := make([]string, 0, len(s.Axes.Params))
	for k := range s.Axes.Params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		var next []map[string]string
		for _, p := range params {
			for _, v := range s.Axes.Params[k] {
				q := make(map[string]string, len(p)+1)
				for pk, pv := range p {
					q[pk] = pv
				}
				q[k] = v
				next = append(next, q)
			}
		}
		params = next
	}
	var cells []planCell
	for di, d := range s.Datasets {
		for _, n := range s.Axes.N {
			for _, m := range methods {
				for _, eps := range s.Axes.Eps {
					for _, p := range params {
						cells = append(cells, planCell{
							cell: results.Cell{
								Experiment: s.Name, Dataset: d.Name, Method: m,
								Eps: results.Float(eps), N: n, Params: results.FormatParams(p),
							},
							dataset: di,
							params:  p,
						})
					}
				}
			}
		}
	}
	return cells
}

// trialRand returns the generator of one trial, seeded from
// SHA-256(master seed, experiment, cell key, trial): independent of the
// worker that runs it and of every other trial.
func trialRand(seed uint64, experiment, cellKey string, trial int) *rand.Rand {
	return rand.New(seedSource(seed, experiment, "trial", cellKey, strconv.Itoa(trial)))
}

// datasetRand returns the generator of a synthetic dataset: seeded from the
// master seed and the dataset's definition alone, so that every cell and
// every spec with the same seed sees the same data (common random numbers
// across methods, budgets and sizes).
func datasetRand(seed uint64, d *datasets.Spec) *rand.Rand {
	return rand.New(seedSource(seed, "dataset", d.Key()))
}

func seedSource(seed uint64, parts ...string) *rand.PCG {
	h := sha256.New()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h.Write(b[:])
	for _, p := range parts {
		// Length-prefix each part so that ("ab","c") and ("a","bc") differ.
		binary.LittleEndian.PutUint64(b[:], uint64(len(p)))
		h.Write(b[:])
		h.Write([]byte(p))
	}
	sum := h.Sum(nil)
	return rand.NewPCG(binary.LittleEndian.Uint64(sum[0:8]), binary.LittleEndian.Uint64(sum[8:16]))
}
