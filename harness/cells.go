package harness

// The cells a spec runs: the cross product of its axes, cut down to the
// blocks its [[cells]] entries name and without those its [[exclude]]
// entries name. A paper's grid is often not a cross product (Du et al.'s
// Table 1 varies m at n = 1M and n at m = 3, 8 cells of the 20 that cross),
// and the cells beyond it may cost hours.

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// CellSet is one [[cells]] or [[exclude]] entry: a block of the grid, the
// cells whose value on every axis the entry lists is one of the listed
// values. An axis the entry leaves out is free (every value), so
//
//	[[cells]]
//	params = { m = ["3"] }   # every n at m = 3
//	[[cells]]
//	n = [1000000]            # every m at n = 1M
//
// keeps a row and a column of the (m, n) grid. Every listed value must be
// one of its axis (a dataset's name for dataset), so that a typo is an
// error and never silently nothing.
type CellSet struct {
	Dataset []string            `toml:"dataset" json:"dataset,omitempty"`
	Method  []string            `toml:"method" json:"method,omitempty"`
	Eps     []float64           `toml:"eps" json:"eps,omitempty"`
	N       []int               `toml:"n" json:"n,omitempty"`
	Params  map[string][]string `toml:"params" json:"params,omitempty"`
}

// gridCell is a cell of the axes' cross product, by its values.
type gridCell struct {
	di              int // index into Spec.Datasets
	dataset, method string
	eps             float64
	n               int
	params          map[string]string
}

// contains reports whether cell c is in the block.
func (e *CellSet) contains(c gridCell) bool {
	if e.Dataset != nil && !slices.Contains(e.Dataset, c.dataset) ||
		e.Method != nil && !slices.Contains(e.Method, c.method) ||
		e.Eps != nil && !slices.Contains(e.Eps, c.eps) ||
		e.N != nil && !slices.Contains(e.N, c.n) {
		return false
	}
	for k, vs := range e.Params {
		if !slices.Contains(vs, c.params[k]) {
			return false
		}
	}
	return true
}

// String writes the entry as its TOML keys, for errors: `n = [1000000],
// params.m = ["3"]`.
func (e *CellSet) String() string {
	var parts []string
	quoted := func(vs []string) string {
		q := make([]string, len(vs))
		for i, v := range vs {
			q[i] = strconv.Quote(v)
		}
		return "[" + strings.Join(q, ", ") + "]"
	}
	if e.Dataset != nil {
		parts = append(parts, "dataset = "+quoted(e.Dataset))
	}
	if e.Method != nil {
		parts = append(parts, "method = "+quoted(e.Method))
	}
	if e.Eps != nil {
		parts = append(parts, "eps = "+floats(e.Eps))
	}
	if e.N != nil {
		parts = append(parts, "n = "+ints(e.N))
	}
	for _, k := range slices.Sorted(maps.Keys(e.Params)) {
		parts = append(parts, "params."+k+" = "+quoted(e.Params[k]))
	}
	return strings.Join(parts, ", ")
}

func floats(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

func ints(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// keeps reports whether the spec runs cell c: in a [[cells]] block (when
// there is one) and in no [[exclude]] block.
func (s *Spec) keeps(c gridCell) bool {
	if len(s.Cells) > 0 && !slices.ContainsFunc(s.Cells, func(e CellSet) bool { return e.contains(c) }) {
		return false
	}
	return !slices.ContainsFunc(s.Exclude, func(e CellSet) bool { return e.contains(c) })
}

// filtered reports whether the spec names its cells ([[cells]] or
// [[exclude]]) rather than running the whole cross product.
func (s *Spec) filtered() bool { return len(s.Cells) > 0 || len(s.Exclude) > 0 }

// cellKeys names the keys the spec's cell lists and n axis were read
// from: the top-level ones, or the [quick] block's once Scaled(true) has
// put them in their place.
func (s *Spec) cellKeys() (cells, exclude, n string) {
	cells, exclude, n = "cells", "exclude", "axes.n"
	if s.cellsKey != "" {
		cells = s.cellsKey
	}
	if s.excludeKey != "" {
		exclude = s.excludeKey
	}
	if s.nKey != "" {
		n = s.nKey
	}
	return cells, exclude, n
}

// checkCells checks the [[cells]] and [[exclude]] entries at the spec's
// own scale and, when it has a [quick] block, at the quick scale (whose n
// axis, and maybe cell lists, are others): every entry names at least one
// axis, every value it lists is one of its axis, an exclude entry drops a
// cell the cells keep, some cell is left, and every value of every axis
// is in some cell left (else the axis holds a value the run never uses,
// and its data would be built for nothing). With a method axis "*" the
// methods are the kind's and the whole-plan checks wait for Check.
func (s *Spec) checkCells() error {
	var methods []string
	if !slices.Contains(s.Axes.Method, "*") {
		methods = s.Axes.Method
	}
	if err := s.checkCellsWith(methods); err != nil {
		return err
	}
	if s.Quick != nil && !s.quickScaled {
		return s.Scaled(true).checkCellsWith(methods)
	}
	return nil
}

// checkCellsWith is checkCells at the spec's scale, the method axis being
// methods (nil: not known without the kind, and not checked).
func (s *Spec) checkCellsWith(methods []string) error {
	if !s.filtered() {
		return nil
	}
	cellsKey, excludeKey, nKey := s.cellKeys()
	for _, list := range []struct {
		key     string
		entries []CellSet
	}{{cellsKey, s.Cells}, {excludeKey, s.Exclude}} {
		for i := range list.entries {
			if err := s.checkCellSet(fmt.Sprintf("%s[%d]", list.key, i), &list.entries[i], methods, nKey); err != nil {
				return err
			}
		}
	}
	if methods == nil {
		return nil
	}
	return s.checkCoverage(s.grid(methods), cellsKey, excludeKey, nKey, !slices.Contains(s.Axes.Method, "*"))
}

// checkCellSet checks one entry against the axes.
func (s *Spec) checkCellSet(key string, e *CellSet, methods []string, nKey string) error {
	if e.Dataset == nil && e.Method == nil && e.Eps == nil && e.N == nil && len(e.Params) == 0 {
		return s.errorf(key, "names no axis: list the values to keep of one axis or more (dataset, method, eps, n, params.<name>); an axis left out keeps every value")
	}
	notOn := func(sub string, j int, v, axis, values string) error {
		return s.errorf(fmt.Sprintf("%s.%s[%d]", key, sub, j), "%s is not a value of %s (%s), so the entry {%s} names no cell of the axes", v, axis, values, e)
	}
	empty := func(sub string) error {
		return s.errorf(key+"."+sub, "is empty: list the values to keep, or leave the key out to keep every value")
	}
	names := make([]string, len(s.Datasets))
	for i, d := range s.Datasets {
		names[i] = d.Name
	}
	if e.Dataset != nil && len(e.Dataset) == 0 {
		return empty("dataset")
	}
	for j, v := range e.Dataset {
		if !slices.Contains(names, v) {
			return notOn("dataset", j, strconv.Quote(v), "the datasets' names", strings.Join(names, ", "))
		}
	}
	if e.Method != nil && len(e.Method) == 0 {
		return empty("method")
	}
	for j, v := range e.Method {
		if methods != nil && !slices.Contains(methods, v) {
			return notOn("method", j, strconv.Quote(v), "axes.method", strings.Join(methods, ", "))
		}
	}
	if e.Eps != nil && len(e.Eps) == 0 {
		return empty("eps")
	}
	for j, v := range e.Eps {
		if !slices.Contains(s.Axes.Eps, v) {
			return notOn("eps", j, strconv.FormatFloat(v, 'g', -1, 64), "axes.eps", strings.Trim(floats(s.Axes.Eps), "[]"))
		}
	}
	if e.N != nil && len(e.N) == 0 {
		return empty("n")
	}
	for j, v := range e.N {
		if !slices.Contains(s.Axes.N, v) {
			err := notOn("n", j, strconv.Itoa(v), nKey, strings.Trim(ints(s.Axes.N), "[]"))
			if nKey == "quick.n" && !strings.HasPrefix(key, "quick.") {
				// The quick scale has other n: its cells are the quick
				// block's to name.
				err = fmt.Errorf("%w; [quick] replaces axes.n, so give the quick scale's own as [[quick.%s]]", err, key[:strings.IndexByte(key, '[')])
			}
			return err
		}
	}
	for _, k := range slices.Sorted(maps.Keys(e.Params)) {
		axis, ok := s.Axes.Params[k]
		if !ok {
			return s.errorf(key+".params."+k, "%q is not a params axis (axes.params: %s)", k, strings.Join(slices.Sorted(maps.Keys(s.Axes.Params)), ", "))
		}
		if len(e.Params[k]) == 0 {
			return empty("params." + k)
		}
		for j, v := range e.Params[k] {
			if !slices.Contains(axis, v) {
				return notOn("params."+k, j, strconv.Quote(v), "axes.params."+k, strings.Join(axis, ", "))
			}
		}
	}
	return nil
}

// grid lists the axes' cross product, methods being the method axis, in
// plan order: dataset, n, method, ε, then the free parameters in sorted
// key order.
func (s *Spec) grid(methods []string) []gridCell {
	params := []map[string]string{{}}
	for _, k := range slices.Sorted(maps.Keys(s.Axes.Params)) {
		var next []map[string]string
		for _, p := range params {
			for _, v := range s.Axes.Params[k] {
				q := maps.Clone(p)
				q[k] = v
				next = append(next, q)
			}
		}
		params = next
	}
	var cells []gridCell
	for di, d := range s.Datasets {
		for _, n := range s.Axes.N {
			for _, m := range methods {
				for _, eps := range s.Axes.Eps {
					for _, p := range params {
						cells = append(cells, gridCell{di: di, dataset: d.Name, method: m, eps: eps, n: n, params: p})
					}
				}
			}
		}
	}
	return cells
}

// checkCoverage checks the cells left of grid: an exclude entry drops
// some cell the cells keep, a cell is left, and every value of every axis
// (of the method axis only when listedMethods: "*" may lose a method to
// an exclude) is in a cell left.
func (s *Spec) checkCoverage(grid []gridCell, cellsKey, excludeKey, nKey string, listedMethods bool) error {
	inCells := func(c gridCell) bool {
		return len(s.Cells) == 0 || slices.ContainsFunc(s.Cells, func(e CellSet) bool { return e.contains(c) })
	}
	for i := range s.Exclude {
		e := &s.Exclude[i]
		if !slices.ContainsFunc(grid, func(c gridCell) bool { return inCells(c) && e.contains(c) }) {
			return s.errorf(fmt.Sprintf("%s[%d]", excludeKey, i), "{%s} drops no cell that %s keeps", e, cellsKey)
		}
	}
	var kept []gridCell
	for _, c := range grid {
		if s.keeps(c) {
			kept = append(kept, c)
		}
	}
	if len(kept) == 0 {
		return s.errorf(excludeKey, "drops every cell that %s keeps: nothing would run", cellsKey)
	}
	unused := func(key, value string, has func(gridCell) bool) error {
		if slices.ContainsFunc(kept, has) {
			return nil
		}
		return s.errorf(key, "%s is in no cell that %s and %s keep: drop it from the axis, or name a cell with it", value, cellsKey, excludeKey)
	}
	for i, d := range s.Datasets {
		if err := unused(fmt.Sprintf("datasets[%d]", i), strconv.Quote(d.Name), func(c gridCell) bool { return c.dataset == d.Name }); err != nil {
			return err
		}
	}
	if listedMethods {
		for i, m := range s.Axes.Method {
			if err := unused(fmt.Sprintf("axes.method[%d]", i), strconv.Quote(m), func(c gridCell) bool { return c.method == m }); err != nil {
				return err
			}
		}
	}
	for i, e := range s.Axes.Eps {
		if err := unused(fmt.Sprintf("axes.eps[%d]", i), strconv.FormatFloat(e, 'g', -1, 64), func(c gridCell) bool { return c.eps == e }); err != nil {
			return err
		}
	}
	for i, n := range s.Axes.N {
		if err := unused(fmt.Sprintf("%s[%d]", nKey, i), strconv.Itoa(n), func(c gridCell) bool { return c.n == n }); err != nil {
			return err
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Axes.Params)) {
		for i, v := range s.Axes.Params[k] {
			if err := unused(fmt.Sprintf("axes.params.%s[%d]", k, i), strconv.Quote(v), func(c gridCell) bool { return c.params[k] == v }); err != nil {
				return err
			}
		}
	}
	return nil
}
