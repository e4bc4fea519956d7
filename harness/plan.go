package harness

import (
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"
	"strconv"

	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/results"
)

// planCell is one cell of the plan.
type planCell struct {
	cell    results.Cell
	dataset int // index into Spec.Datasets
	params  map[string]string
}

// expand lists the cells in plan order: dataset, n, method, ε, then the free
// parameters in sorted key order, those of the axes' cross product that the
// spec keeps (its cells and exclude lists). The order fixes the layout of
// rows.csv; a cell's seed is its key's, so a cell kept is the same cell as
// in the whole cross product.
func expand(s *Spec, kind experiment.Kind) []planCell {
	var cells []planCell
	for _, g := range s.grid(experiment.Methods(kind, s.Axes.Method)) {
		if !s.keeps(g) {
			continue
		}
		cells = append(cells, planCell{
			cell: results.Cell{
				Experiment: s.Name, Dataset: g.dataset, Method: g.method,
				Eps: results.Float(g.eps), N: g.n, Params: results.FormatParams(g.params),
			},
			dataset: g.di,
			params:  g.params,
		})
	}
	return cells
}

// pairedSeeding tags the rows of a kind that is an experiment.TrialKeyer
// (metadataLine); change it whenever a TrialKey changes, so that older rows
// are refused.
const pairedSeeding = "paired-v1"

// TrialKey is the key a trial's generator is seeded from: the kind's
// TrialKey when it is an experiment.TrialKeyer, else the cell's key.
func TrialKey(k experiment.Kind, c *experiment.CellSpec, cellKey string) string {
	if tk, ok := k.(experiment.TrialKeyer); ok {
		return tk.TrialKey(c)
	}
	return cellKey
}

// TrialRand returns the generator of one trial, seeded from
// SHA-256(master seed, experiment, trial key, trial): independent of the
// worker that runs it and of every other trial. A kind's test uses it to
// draw what the runner's trial draws.
func TrialRand(seed uint64, experiment, trialKey string, trial int) *rand.Rand {
	return rand.New(seedSource(seed, experiment, "trial", trialKey, strconv.Itoa(trial)))
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
